// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The loader's checks of run.parallelism that need the model: expert parallelism, hybrid sharding's shard group and
// the context-parallel exchange. Each reports (key path, message) through @p report, as checkScenario collects them.

#include "hardwarespec.h"
#include "modelspec.h"
#include "runspec.h"

#include <algorithm>
#include <string>

namespace rapid::config::detail {

/// Where a run's expert layers sit (ep, etp): ep divides the experts; with etp = tp (the default) the ep ranks are
/// members of a dp group; with etp a divisor of tp below it the experts are folded over the stage's tp x cp x dp ranks
/// (Megatron-Core's expert mesh, etp innermost, then ep), taking each rank's own sequence-parallel tokens in training,
/// or lying inside one tensor-parallel group that shares its tokens in inference (vLLM's and SGLang's expert
/// parallelism over the tp ranks with etp 1; TensorRT-LLM's moe_tp_size x moe_ep_size = tp).
template <typename Report> void checkExpertPlacement(const ModelSpec& model, const RunSpec& run, const Report& report)
{
    const ParallelismSpec& parallel = run.parallelism;
    const std::string ep = std::to_string(parallel.ep);
    const std::string tp = std::to_string(parallel.tp);
    if (model.moe->numExperts % parallel.ep != 0) {
        report("run.parallelism.ep",
            "ep (" + ep + ") must divide num_experts (" + std::to_string(model.moe->numExperts) + ")");
    }
    const int etp = parallel.expertTensorDegree();
    if (parallel.tp % etp != 0) {
        report("run.parallelism.etp",
            "etp (" + std::to_string(etp) + ") splits each routed expert's FFN over ranks of a tensor-parallel group: "
                + "expected a divisor of tp (" + tp + ")");
        return;
    }
    const bool folded = etp < parallel.tp;
    const std::string block = etp > 1 ? "ep x etp (" + std::to_string(parallel.ep * etp) + ")" : "ep (" + ep + ")";
    const std::int64_t stageRanks = static_cast<std::int64_t>(parallel.tp) * parallel.cp * parallel.dp;
    if (!folded && parallel.dp % parallel.ep != 0) {
        report("run.parallelism.ep",
            "ep (" + ep + ") must divide dp (" + std::to_string(parallel.dp)
                + "): with etp = tp the experts spread over data-parallel ranks"
                + (parallel.tp > 1 && parallel.tp % parallel.ep == 0
                        ? "; etp: 1 spreads whole experts over the tensor-parallel ranks instead"
                        : ""));
    } else if (folded && stageRanks % (static_cast<std::int64_t>(parallel.ep) * etp) != 0) {
        report("run.parallelism.ep",
            block + " must divide tp*cp*dp (" + std::to_string(stageRanks)
                + "): with etp below tp the experts are folded over a pipeline stage's ranks");
    } else if (folded && run.mode == RunMode::Training && !parallel.sequenceParallel) {
        report("run.parallelism.etp",
            "etp " + std::to_string(etp) + " below tp (" + tp
                + ") routes each rank's own sequence-parallel tokens: expected sequence_parallel: true (Megatron-Core "
                  "requires it for expert with tensor parallelism)");
    } else if (folded && run.mode != RunMode::Training && parallel.tp % (parallel.ep * etp) != 0) {
        report("run.parallelism.ep",
            block + " with etp below tp spreads the experts over the tensor-parallel ranks, which share their tokens: "
                + "expected a divisor of tp (" + tp + ")");
    }
}

/// Megatron-Core's combined 1F1B (--overlap-moe-expert-parallel-comm) as its TransformerConfig asserts it: expert
/// parallelism, no full recomputation, not with the shared-expert overlap, and with pp > 1 only the interleaved
/// schedule; --delay-wgrad-compute only with it.
template <typename Report>
void checkExpertAllToAllOverlap(const ModelSpec& model, const RunSpec& run, const Report& report)
{
    const ParallelismSpec& parallel = run.parallelism;
    const char* key = "run.parallelism.ep_a2a_overlap";
    if (parallel.delayWeightGradients && !parallel.expertAllToAllOverlap) {
        report("run.parallelism.ep_delay_wgrad",
            "ep_delay_wgrad delays the experts' weight gradients inside ep_a2a_overlap's co-scheduled passes; expected "
            "ep_a2a_overlap: true, or false");
    }
    if (!parallel.expertAllToAllOverlap) {
        return;
    }
    if (run.mode != RunMode::Training || run.framework != Framework::Megatron || !model.moe || parallel.ep < 2) {
        report(key,
            "ep_a2a_overlap is Megatron-Core's combined 1F1B for training with expert parallelism; expected "
            "run.framework: megatron, training, a mixture-of-experts model and ep > 1, or false");
    } else if (run.recompute == Recompute::Full) {
        report(key,
            "ep_a2a_overlap runs without full recomputation (Megatron-Core refuses the pair); expected "
            "training.recompute none or selective, or false");
    } else if (parallel.expertSharedOverlap) {
        report(key,
            "ep_a2a_overlap and ep_shared_expert_overlap exclude each other in Megatron-Core; expected one of "
            "them false");
    } else if (parallel.pp > 1 && parallel.schedule != PipelineSchedule::Interleaved) {
        report(key,
            "ep_a2a_overlap with pp > 1 needs the interleaved schedule (Megatron-Core's virtual pipeline "
            "stages); expected parallelism.schedule: interleaved, pp: 1, or false");
    }
}

/// The expert dispatcher's SM count matters only where its all-to-alls run beside compute (one of the two expert
/// overlaps), and it must leave the GPU SMs to compute on.
template <typename Report> void checkExpertCommSms(const RunSpec& run, const GpuSpec& gpu, const Report& report)
{
    const ParallelismSpec& parallel = run.parallelism;
    if (parallel.expertCommSms == 0) {
        return;
    }
    const char* key = "run.parallelism.ep_comm_sms";
    if (!parallel.expertAllToAllOverlap && !parallel.expertSharedOverlap) {
        report(key,
            "ep_comm_sms sizes the expert all-to-alls' SMs beside compute, which only ep_a2a_overlap or "
            "ep_shared_expert_overlap puts them; expected one of them true, or no ep_comm_sms");
    } else if (parallel.expertCommSms >= gpu.smCount) {
        report(key,
            "ep_comm_sms " + std::to_string(parallel.expertCommSms) + " leaves no SM to compute on: the GPU " + gpu.name
                + " has " + std::to_string(gpu.smCount) + "; expected 1 to " + std::to_string(gpu.smCount - 1));
    }
}

/// Expert parallelism: where the experts sit (checkExpertPlacement); imbalance and capacity need ep > 1.
template <typename Report> void checkExpertParallelism(const ModelSpec& model, const RunSpec& run, const Report& report)
{
    const ParallelismSpec& parallel = run.parallelism;
    if (model.moe) {
        checkExpertPlacement(model, run, report);
    } else if (parallel.ep != 1 || parallel.etp > 0) {
        report(parallel.ep != 1 ? "run.parallelism.ep" : "run.parallelism.etp",
            "ep and etp apply only to mixture-of-experts models; this model is dense");
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
    // The shared-expert overlap is a training schedule beside the all-to-alls: without either it would do nothing.
    if (parallel.expertSharedOverlap
        && (run.mode != RunMode::Training || !model.moe || model.moe->sharedExperts < 1 || parallel.ep < 2)) {
        report("run.parallelism.ep_shared_expert_overlap",
            "ep_shared_expert_overlap runs a training step's shared experts beside its expert all-to-alls; expected "
            "training with ep > 1 and a model with shared experts (moe.shared_experts), or false");
    }
    checkExpertAllToAllOverlap(model, run, report);
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
    } else if (comm == ContextComm::AllToAllP2p && run.framework != Framework::Megatron) {
        report("run.parallelism.cp_comm",
            std::string("cp_comm a2a+p2p (hierarchical context parallelism) is Megatron-Core's; ")
                + toString(run.framework) + " passes K/V around a ring: expected cp_comm: p2p");
    } else if (comm != ContextComm::AllToAllP2p && parallel.cpA2a != 0) {
        report("run.parallelism.cp_a2a",
            std::string("cp_a2a sizes the all-to-all groups of cp_comm a2a+p2p, but cp_comm is ") + toString(comm)
                + ": expected cp_comm: a2a+p2p, or no cp_a2a");
    } else if (comm == ContextComm::AllToAllP2p && parallel.cp > 1
        && (parallel.cpA2a == 0 || parallel.cpA2a >= parallel.cp || parallel.cp % parallel.cpA2a != 0)) {
        report("run.parallelism.cp_a2a",
            (parallel.cpA2a == 0 ? std::string("cp_comm a2a+p2p needs cp_a2a")
                                 : "cp_a2a " + std::to_string(parallel.cpA2a) + " does not split cp "
                        + std::to_string(parallel.cp) + " into all-to-all groups and a ring")
                + ": expected a divisor of cp between 2 and cp / 2, the cp ranks of one all-to-all group (cp_a2a = cp "
                  "is cp_comm: a2a)");
    } else if (parallel.contextAllToAllDegree() > 1 && parallel.cp > 1 && parallel.tp > 0) {
        const int degree = parallel.contextAllToAllDegree();
        const char* key = comm == ContextComm::AllToAll ? "cp" : "cp_a2a";
        const int heads = model.numHeads / parallel.tp;
        const int kvHeads = std::max(1, model.numKvHeads / parallel.tp);
        if (heads % degree != 0 || kvHeads % degree != 0) {
            report(comm == ContextComm::AllToAll ? "run.parallelism.cp_comm" : "run.parallelism.cp_a2a",
                std::string("cp_comm ") + toString(comm) + " splits each tensor-parallel rank's attention heads over "
                    + key + ": " + std::to_string(heads) + " query and " + std::to_string(kvHeads)
                    + " K/V heads per rank at tp " + std::to_string(parallel.tp) + " do not divide by " + key + " "
                    + std::to_string(degree) + "; expected " + key + " dividing both, or cp_comm: p2p or all_gather");
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
    } else if (parallel.ep > 1 || parallel.expertTensorDegree() < parallel.tp) {
        // The routed experts' shard group is the part of the expert-data-parallel group inside one shard group
        // (torchtitan's and AutoModel's expert FSDP mesh borrows ep from dp_shard x cp): whole expert blocks only.
        const bool folded = parallel.expertTensorDegree() < parallel.tp;
        const std::int64_t shardRanks
            = static_cast<std::int64_t>(folded ? parallel.tp * parallel.cp : 1) * parallel.dpShard;
        const std::int64_t block = static_cast<std::int64_t>(folded ? parallel.expertTensorDegree() : 1) * parallel.ep;
        if (shardRanks % block != 0) {
            report("run.parallelism.dp_shard",
                "dp_shard (" + std::to_string(parallel.dpShard) + ") must hold whole expert-parallel groups: expected "
                    + (folded ? "tp*cp*dp_shard a multiple of ep x etp (" : "a multiple of ep (")
                    + std::to_string(block) + ")");
        }
    }
}

} // namespace rapid::config::detail
