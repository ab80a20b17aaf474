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

double fusedReduceScatterSumSeconds(compute::OperatorTimer& timer, double outputBytes, int tp)
{
    if (tp < 2 || outputBytes <= 0) {
        return 0;
    }
    model::Operator sum;
    sum.name = "tensor_parallel.fused_reduce_scatter_sum";
    sum.kind = model::OperatorKind::Elementwise;
    sum.bytes = outputBytes * (1.0 + 1.0 / tp);
    // tp - 1 additions per output element; the element count follows from the bytes at 2 bytes each (bf16 partials):
    // negligible beside the bytes either way.
    sum.flops = (tp - 1) * outputBytes / tp / 2.0;
    return timer.time(sum).seconds;
}

double fusedAllGatherSetupSeconds(compute::OperatorTimer& timer, double shardBytes)
{
    if (shardBytes <= 0) {
        return 0;
    }
    model::Operator copy;
    copy.name = "tensor_parallel.fused_all_gather_shard_copy";
    copy.kind = model::OperatorKind::Elementwise;
    copy.bytes = 2 * shardBytes;
    model::Operator barrier;
    barrier.name = "tensor_parallel.fused_all_gather_barrier";
    barrier.kind = model::OperatorKind::Elementwise;
    return timer.time(copy).seconds + timer.time(barrier).seconds;
}

} // namespace rapid::sim
