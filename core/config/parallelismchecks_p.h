// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The loader's checks of run.parallelism that need the model: expert parallelism, hybrid sharding's shard group and
// the context-parallel exchange. Each reports (key path, message) through @p report, as checkScenario collects them.

#include "modelspec.h"
#include "runspec.h"

#include <algorithm>
#include <string>

namespace rapid::config::detail {

/// Expert parallelism: ep divides the experts and dp*tp; imbalance and capacity need it.
template <typename Report>
void checkExpertParallelism(const ModelSpec& model, const ParallelismSpec& parallel, const Report& report)
{
    if (model.moe) {
        if (model.moe->numExperts % parallel.ep != 0) {
            report("run.parallelism.ep",
                "ep (" + std::to_string(parallel.ep) + ") must divide num_experts ("
                    + std::to_string(model.moe->numExperts) + ")");
        }
        if ((static_cast<std::int64_t>(parallel.dp) * parallel.tp) % parallel.ep != 0) {
            report("run.parallelism.ep",
                "ep (" + std::to_string(parallel.ep) + ") must divide dp*tp ("
                    + std::to_string(static_cast<std::int64_t>(parallel.dp) * parallel.tp) + ")");
        }
    } else if (parallel.ep != 1) {
        report("run.parallelism.ep", "ep applies only to mixture-of-experts models; this model is dense");
    }
    // Imbalance and capacity describe how routed tokens spread over expert-parallel ranks.
    if ((parallel.expertImbalance != 1.0 || parallel.expertCapacityFactor != 0.0) && (!model.moe || parallel.ep < 2)) {
        report(parallel.expertImbalance != 1.0 ? "run.parallelism.ep_imbalance" : "run.parallelism.ep_capacity_factor",
            "ep_imbalance and ep_capacity_factor describe routed tokens over expert-parallel ranks; expected ep > 1 "
            "with a mixture-of-experts model, or their defaults (1 and 0)");
    } else if (parallel.expertImbalance > parallel.ep) {
        report("run.parallelism.ep_imbalance",
            "ep_imbalance " + std::to_string(parallel.expertImbalance) + " exceeds ep (" + std::to_string(parallel.ep)
                + "): a rank cannot receive more than every rank's routed tokens");
    }
}

/// Context-parallel exchange variants: the all-gather variant is Transformer Engine's (Megatron-Core), Ulysses's
/// all-to-alls are Megatron-Core's and DeepSpeed's, and split the attention heads of a tensor-parallel rank over cp.
template <typename Report>
void checkContextComm(const ModelSpec& model, const RunSpec& run, const ParallelismSpec& parallel, const Report& report)
{
    using config::ContextComm;
    using config::Framework;
    const ContextComm comm = parallel.contextComm;
    if (comm == ContextComm::AllGather && run.framework != Framework::Megatron) {
        report("run.parallelism.cp_comm",
            std::string("cp_comm all_gather is Megatron-Core's (Transformer Engine's KV all-gather); ")
                + toString(run.framework) + " passes K/V around a ring: expected cp_comm: p2p");
    } else if (comm == ContextComm::AllToAll && run.framework != Framework::Megatron
        && run.framework != Framework::DeepSpeed) {
        report("run.parallelism.cp_comm",
            std::string("cp_comm a2a (Ulysses) is Megatron-Core's and DeepSpeed's; ") + toString(run.framework)
                + " passes K/V around a ring: expected cp_comm: p2p");
    } else if (comm == ContextComm::AllToAll && parallel.cp > 1 && parallel.tp > 0) {
        const int heads = model.numHeads / parallel.tp;
        const int kvHeads = std::max(1, model.numKvHeads / parallel.tp);
        if (heads % parallel.cp != 0 || kvHeads % parallel.cp != 0) {
            report("run.parallelism.cp_comm",
                "cp_comm a2a splits each tensor-parallel rank's attention heads over cp: " + std::to_string(heads)
                    + " query and " + std::to_string(kvHeads) + " K/V heads per rank at tp "
                    + std::to_string(parallel.tp) + " do not divide by cp " + std::to_string(parallel.cp)
                    + "; expected a cp that divides both, or cp_comm: p2p or all_gather");
        }
    }
}

/// Hybrid sharding: dp_shard ranks hold one copy of the ZeRO/FSDP shards; it divides dp and needs sharding.
template <typename Report> void checkShardGroup(const ParallelismSpec& parallel, const Report& report)
{
    if (parallel.dpShard == 0) {
        return;
    }
    if (parallel.dpShard > parallel.dp || parallel.dp % parallel.dpShard != 0) {
        report("run.parallelism.dp_shard",
            "dp_shard (" + std::to_string(parallel.dpShard) + ") must divide dp (" + std::to_string(parallel.dp)
                + "): the data-parallel ranks split into dp / dp_shard replicas of one shard group");
    } else if (parallel.zeroStage == 0 && parallel.dpShard != parallel.dp) {
        report("run.parallelism.dp_shard",
            "dp_shard groups the ranks a ZeRO/FSDP shard spans; without sharding (zero_stage 0) every rank holds "
            "everything; expected zero_stage 1-3 or fsdp: true, or dp_shard 0");
    } else if (parallel.dpShard == 1 && parallel.cp == 1 && parallel.dp > 1) {
        report("run.parallelism.dp_shard",
            "dp_shard 1 shards over one rank: every rank holds everything and all-reduces its gradients, which is "
            "plain data parallelism; expected zero_stage: 0 without dp_shard, or dp_shard of 2 or more");
    }
}

} // namespace rapid::config::detail
