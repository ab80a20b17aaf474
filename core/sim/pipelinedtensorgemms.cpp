// SPDX-License-Identifier: GPL-3.0-or-later
#include "pipelinedtensorgemms.h"

#include <string_view>

namespace rapid::sim {

namespace {

bool endsWith(std::string_view text, std::string_view suffix)
{
    return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

/// A GEMM beside a tensor-parallel collective: the layer's attention and MLP projections over the tokens, in forward
/// and recompute, and their input gradients in backward.
bool splitForOverlap(const model::Operator& op, std::int64_t tokens)
{
    if (op.kind != model::OperatorKind::Gemm || op.gemm.m != tokens || op.gemm.batch != 1) {
        return false;
    }
    if (op.opClass != model::OperatorClass::Attention && op.opClass != model::OperatorClass::Mlp) {
        return false;
    }
    return op.phase != model::Phase::Backward || endsWith(op.name, ".dx");
}

} // namespace

PipelinedGemmCost pipelinedGemmCost(
    compute::OperatorTimer& timer, const std::vector<model::Operator>& ops, int tp, std::int64_t tokens)
{
    PipelinedGemmCost cost;
    if (tp < 2 || tokens < tp) {
        return cost;
    }
    for (const model::Operator& op : ops) {
        if (!splitForOverlap(op, tokens)) {
            continue;
        }
        model::Operator step = op;
        step.gemm.m = (tokens + tp - 1) / tp;
        step.flops = op.flops / tp;
        const double extra = tp * timer.time(step).seconds - timer.time(op).seconds;
        (op.opClass == model::OperatorClass::Attention ? cost.attention : cost.mlp) += extra > 0 ? extra : 0;
    }
    return cost;
}

} // namespace rapid::sim
