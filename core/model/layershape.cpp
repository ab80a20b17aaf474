// SPDX-License-Identifier: GPL-3.0-or-later
#include "layershape_p.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace rapid::model::detail {

Shape makeShape(const config::RunSpec& run, const LayerSharding& sharding, Workload workload, std::int64_t kvLength)
{
    if (sharding.tensor < 1 || sharding.context < 1 || sharding.expert < 1 || sharding.expertTensor < 1
        || sharding.tensor % sharding.expertTensor != 0) {
        throw std::invalid_argument(
            "tensor, context, expert and expert-tensor shard counts must be at least 1, the last dividing the first");
    }
    Shape shape;
    shape.tp = sharding.tensor;
    shape.ep = sharding.expert;
    shape.etp = sharding.expertTensor;
    shape.cp = sharding.context;
    shape.pytorchRing
        = workload == Workload::Training && run.framework == config::Framework::PytorchFsdp && sharding.context > 1;
    shape.flash = run.flashAttention;
    shape.splitKv = run.splitKv;
    shape.splitCombineKernel = !run.decodeSplitsReducedInKernel;
    shape.fusedMoeRunner = run.fusedMoeRunner && workload != Workload::Training;
    shape.eager = run.framework == config::Framework::PytorchFsdp && !run.torchCompile;
    shape.eagerNorms = shape.eager && !run.transformerEngine && !run.ligerKernel;
    shape.eagerRotary = shape.eager && !run.ligerKernel;
    shape.eagerActivation = (shape.eager && !run.ligerKernel) || run.framework == config::Framework::Nanotron;
    shape.torchaoFloat8 = torchaoLinears(run);
    shape.separateProjections = run.framework == config::Framework::PytorchFsdp;
    shape.fusedAllReduceNorm = run.fusedAllReduceNorm && workload != Workload::Training && sharding.tensor > 1;
    shape.fusedAllReduceQuantises = shape.fusedAllReduceNorm && run.allReduceWritesQuantisedInput();
    shape.fusedResidualNorm = run.fusedResidualNorm && workload != Workload::Training;
    shape.expertLoad = run.parallelism.expertLoad();
    shape.precision = run.precision;
    shape.act = config::bytesPerElement(run.precision.activations);
    shape.weight = config::bytesPerElement(run.precision.weights);
    shape.kv = config::bytesPerElement(run.precision.kvCache);
    shape.grad = config::bytesPerElement(run.precision.gradients);
    std::int64_t sequence = 0;
    switch (workload) {
    case Workload::Training:
        shape.batch = run.microBatch;
        sequence = run.seqLength;
        break;
    case Workload::Prefill:
        shape.batch = run.batch;
        sequence = run.promptLength;
        break;
    case Workload::Decode:
        shape.batch = run.batch;
        sequence = kvLength;
        break;
    }
    if (shape.batch < 1 || sequence < 1) {
        throw std::invalid_argument("batch and sequence (or KV) length must be at least 1 (batch "
            + std::to_string(shape.batch) + ", length " + std::to_string(sequence) + ")");
    }
    if (workload == Workload::Decode) {
        shape.decode = true;
        shape.causal = false;
        shape.queries = 1;
        shape.keys = kvLength;
    } else {
        shape.queries = ceilDiv(sequence, sharding.context);
        shape.keys = sequence;
    }
    // Ulysses's all-to-alls hand each rank the tokens of its all-to-all group (the whole sequence under a2a, the
    // group's cp_a2a shards under a2a+p2p, whose ring then runs over the groups) and that share of its heads.
    const config::ContextComm comm = run.parallelism.contextComm;
    const std::int64_t allToAll = shape.decode || sharding.context < 2 ? 1
        : comm == config::ContextComm::AllToAll                        ? sharding.context
        : comm == config::ContextComm::AllToAllP2p                     ? std::max(1, run.parallelism.cpA2a)
                                                                       : 1;
    shape.attentionQueries = std::min(sequence, shape.queries * allToAll);
    shape.headSplit = allToAll;
    shape.tokens = shape.batch * shape.queries;
    shape.normTokens = sharding.sequenceSplit ? ceilDiv(shape.tokens, sharding.tensor) : shape.tokens;
    shape.expertBlockTokens
        = static_cast<std::int64_t>(std::ceil(expertBlockTokens(sharding, static_cast<double>(shape.tokens))));
    return shape;
}

ExpertRows expertRows(const Shape& shape, const config::MoeSpec& moe)
{
    // Each GPU runs its local experts on their share of the expert block's routed rows (T topK when balanced and
    // etp = tp; T topK / ep when ep whole experts share the tokens of one tensor-parallel group).
    ExpertRows rows;
    rows.local = ceilDiv(moe.numExperts, shape.ep);
    const std::int64_t balancedRows = ceilDiv(shape.expertBlockTokens * moe.topK * rows.local, moe.numExperts);
    // Under imbalance the busiest rank receives expertLoad times that (the step waits for it).
    const auto onGpu = static_cast<std::int64_t>(std::ceil(static_cast<double>(balancedRows) * shape.expertLoad));
    // A balanced gate sends each token to topK distinct experts drawn uniformly, so a local expert receives none of
    // the block's tokens with probability (1 - topK / experts)^tokens: with few tokens (decode) fewer experts than rows
    // run, and only their weights are read, until the tokens cover them all (the expected count, rounded up).
    const double missed = std::pow(1.0 - static_cast<double>(moe.topK) / static_cast<double>(moe.numExperts),
        static_cast<double>(shape.expertBlockTokens));
    const auto covered = static_cast<std::int64_t>(std::ceil(static_cast<double>(rows.local) * (1.0 - missed) - 1e-9));
    rows.active = std::max<std::int64_t>(1, std::min({ rows.local, onGpu, covered }));
    rows.rowsPerExpert = ceilDiv(onGpu, rows.active);
    return rows;
}

} // namespace rapid::model::detail
