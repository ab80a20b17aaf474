// SPDX-License-Identifier: GPL-3.0-or-later
#include "operator.h"

namespace rapid::model {

const char* toString(OperatorKind kind)
{
    switch (kind) {
    case OperatorKind::Gemm:
        return "gemm";
    case OperatorKind::FlashAttention:
        return "flash_attention";
    case OperatorKind::NaiveAttention:
        return "naive_attention";
    case OperatorKind::DecodeAttention:
        return "decode_attention";
    case OperatorKind::Elementwise:
        return "elementwise";
    case OperatorKind::Norm:
        return "norm";
    case OperatorKind::Softmax:
        return "softmax";
    case OperatorKind::Embedding:
        return "embedding";
    case OperatorKind::CrossEntropy:
        return "cross_entropy";
    case OperatorKind::OptimizerUpdate:
        return "optimizer_update";
    }
    return "unknown";
}

const char* toString(OperatorClass opClass)
{
    switch (opClass) {
    case OperatorClass::Attention:
        return "attention";
    case OperatorClass::Mlp:
        return "mlp";
    case OperatorClass::Moe:
        return "moe";
    case OperatorClass::Norm:
        return "norm";
    case OperatorClass::Embedding:
        return "embedding";
    case OperatorClass::LmHead:
        return "lm_head";
    case OperatorClass::Loss:
        return "loss";
    case OperatorClass::Optimizer:
        return "optimizer";
    case OperatorClass::Other:
        return "other";
    }
    return "unknown";
}

const char* toString(Phase phase)
{
    switch (phase) {
    case Phase::Forward:
        return "forward";
    case Phase::Backward:
        return "backward";
    case Phase::Recompute:
        return "recompute";
    case Phase::Optimizer:
        return "optimizer";
    }
    return "unknown";
}

} // namespace rapid::model
