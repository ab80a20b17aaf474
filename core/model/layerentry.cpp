// SPDX-License-Identifier: GPL-3.0-or-later
#include "layerentry_p.h"

namespace rapid::model::detail {

std::vector<Operator> forwardOf(const std::vector<Entry>& entries, Phase phase)
{
    std::vector<Operator> ops;
    ops.reserve(entries.size());
    for (const Entry& entry : entries) {
        if (entry.hasForward) {
            ops.push_back(entry.op);
            ops.back().phase = phase;
        }
    }
    return ops;
}

void appendBackward(
    const std::vector<Entry>& entries, std::vector<Operator>& ops, std::optional<config::Precision> weightGradientsInto)
{
    for (auto it = entries.rbegin(); it != entries.rend(); ++it) {
        if (!it->hasBackward) {
            continue;
        }
        Operator op = it->op;
        op.phase = Phase::Backward;
        if (op.kind == OperatorKind::Gemm) {
            const GemmDims y = op.gemm;
            Operator dx = op;
            dx.name += ".dx";
            dx.gemm = { y.m, y.n, y.k, y.batch };
            ops.push_back(dx);
            if (!it->frozen) {
                op.name += ".dw";
                op.gemm = { y.k, y.m, y.n, y.batch };
                op.accumulateInto = weightGradientsInto;
                ops.push_back(op);
            }
            continue;
        }
        op.name += ".backward";
        op.bytes = it->backwardBytes;
        op.flops = it->backwardFlops;
        op.kernels = it->backwardKernels;
        ops.push_back(op);
    }
}

double trainableWeights(const std::vector<Entry>& entries)
{
    double weights = 0;
    for (const Entry& entry : entries) {
        weights += entry.frozen ? 0.0 : entry.weights;
    }
    return weights;
}

} // namespace rapid::model::detail
