// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/configloader.h"
#include "network/collective.h"
#include "parallel/placement.h"
#include "parallel/shardingplan.h"

#include <algorithm>
#include <optional>
#include <vector>

namespace rapid::parallel {

/// One collective the parallel layout implies, on the group that holds a stage's representative rank. Its SPMD
/// replicas (the same collective on every other group of the stage at the same time) come from
/// Placement::replicaOffsets; `bytes` follows network::CollectiveRequest's per-rank convention.
struct PlannedCollective {
    Axis axis = Axis::Dp;
    network::CollectiveKind kind = network::CollectiveKind::AllReduce;
    double bytes = 0;
    std::vector<int> group;
    double outerAxisShare = 1.0; ///< see network::CollectiveRequest::outerAxisShare
    /// Whether the group is another than the axis's, for which Chakra names a communicator of its own: cp_comm
    /// a2a+p2p's all-to-all groups (of cp), expert tensor parallelism's groups (of tp), the routed experts'
    /// data-parallel groups (Placement::expertShardGroup).
    enum class Subgroup { None, ContextAllToAll, ExpertTensor, ExpertData };
    Subgroup subgroup = Subgroup::None;

    /// Whether it moves anything: two or more members and bytes to move.
    bool onNetwork() const { return group.size() >= 2 && bytes > 0; }
    network::CollectiveRequest request() const { return { kind, bytes, group, std::nullopt, {}, outerAxisShare }; }
};

/// The collectives inside every transformer layer of a stage, per micro-batch (Megatron-LM's placement):
/// - tp: per block (attention, MLP) one all-reduce of the hidden state, or with sequence parallelism an all-gather
///   before and a reduce-scatter after it (same volume): `tensorPair` is that pair, issued twice per pass and twice
///   more in the backward under full recomputation;
/// - cp: a ring passes each rank's K/V chunk around the group, cp - 1 steps forward and 2(cp - 1) backward (dK, dV
///   return), each step one send of `contextStep` (cp_comm p2p); or the pass waits for `contextForward` /
///   `contextBackward` (all_gather, a2a);
/// - ep: MoE layers dispatch and combine the routed tokens with two all-to-alls per pass; with expert tensor
///   parallelism between 1 and tp the routed tokens are all-gathered over the etp group between them and the
///   experts' outputs reduce-scattered back.
struct LayerCollectives {
    std::vector<PlannedCollective> tensorPair;
    int tensorPairsForward = 0;
    int tensorPairsBackward = 0;
    /// More of the pair's first collective (the all-gather with SP, else the all-reduce) in the backward: what
    /// torchtitan's per-op SAC recomputes (model/opsacrecompute.cpp): the all-gathers feeding the recomputed wk and
    /// w3 with SP (its save list keeps reduce-scatters, not all-gathers), the all-reduce after the recomputed wo
    /// without.
    int tensorFirstsBackward = 0;
    /// Of the backward's reduce-scatters, those PyTorch's async TP cannot fuse with a GEMM and leaves exposed: its
    /// micro-pipeline pass fuses a reduce-scatter only when one matmul produces its input (torch/_inductor/fx_passes/
    /// micro_pipeline_tp.py, _find_producer_matmul), and the input gradient of a block whose input feeds several
    /// linears (torchtitan's wq, wk, wv; w1, w3 of a gated MLP) is their sum.
    int tensorUnfusedBackward = 0;
    /// Expert tensor parallelism 1 under sequence parallelism (Megatron-Core's --expert-tensor-parallel-size 1): a
    /// MoE layer's routed experts take their tokens from the all-to-all, not from a tensor-parallel all-gather, so the
    /// layer runs the tensor-parallel collectives of its attention block only (shared experts keep the MLP's pair).
    bool moeWithoutMlpPair = false;
    std::optional<PlannedCollective> contextStep;
    int contextStepsForward = 0;
    int contextStepsBackward = 0;
    /// cp_comm all_gather and a2a: the context-parallel collectives a layer's forward and backward wait for, in issue
    /// order (none hides behind compute). all_gather: K and V all-gathered before the attention, again in the
    /// backward, then dK and dV reduce-scattered (Transformer Engine's AttnFuncWithCPAndKVAllGather). a2a
    /// (DeepSpeed-Ulysses, Megatron-Core's a2a): Q, K and V to the head split before the attention core, its output
    /// back after it; the backward the same for dO, then dQ, dK and dV.
    std::vector<PlannedCollective> contextForward;
    std::vector<PlannedCollective> contextBackward;
    std::optional<PlannedCollective> expertAllToAll; ///< MoE layers only
    int expertAllToAllsPerPass = 0;
    /// How often a MoE layer's backward runs its expert collectives (the all-to-alls and the expert-tensor pair): once
    /// for the gradients, twice under full recomputation, whose re-run forward dispatches and combines again
    /// (Megatron-Core's recompute of the whole layer; NeMo AutoModel's checkpoint_wrapper around every block, whose
    /// HybridEP/DeepEP dispatcher resets its cached state for that re-run: moe/megatron/token_dispatcher.py).
    int expertPassesBackward = 1;
    /// Folded experts split over 1 < etp < tp ranks (Megatron-Core's --expert-tensor-parallel-size, MoE parallel
    /// folding): the dispatcher all-gathers the received routed tokens over the etp group after the dispatch
    /// all-to-all, and reduce-scatters the experts' partial outputs before the combine; in the backward the
    /// gradients take the same pair the other way. One pair per pass of a MoE layer; empty otherwise.
    std::vector<PlannedCollective> expertTensorPair;

    /// The tensor-parallel pairs a layer's forward or backward runs: every block's, or its attention block's alone in
    /// a MoE layer without the MLP's pair (each count covers the attention and MLP blocks equally).
    int pairsForward(bool moe) const { return moe && moeWithoutMlpPair ? tensorPairsForward / 2 : tensorPairsForward; }
    int pairsBackward(bool moe) const
    {
        return moe && moeWithoutMlpPair ? tensorPairsBackward / 2 : tensorPairsBackward;
    }
    int firstsBackward(bool moe) const
    {
        return moe && moeWithoutMlpPair ? tensorFirstsBackward / 2 : tensorFirstsBackward;
    }
    int unfusedBackward(bool moe) const
    {
        return moe && moeWithoutMlpPair ? std::min(1, tensorUnfusedBackward) : tensorUnfusedBackward;
    }
};

/// One model chunk of a stage (one virtual stage; the whole stage unless interleaved).
struct ChunkPlan {
    std::vector<int> layers; ///< global layer indices
    bool holdsEmbedding = false; ///< the model's first chunk
    bool holdsHead = false; ///< the model's last chunk (final norm, LM head, loss)
    double parameters = 0; ///< parameters one rank holds for this chunk (tp-sharded; before ZeRO sharding)
    double trainableParameters = 0; ///< of them, those whose gradients are reduced (LoRA: the adapters only)
    double expertParameters = 0; ///< of them, the routed experts' (ep- and etp-sharded)
    /// Gradient reduction after the chunk's last backward: all-reduce, or reduce-scatter when ZeRO shards the
    /// gradients or the optimizer states (dp). Of every parameter, or of all but the routed experts' when those are
    /// reduced apart (below).
    PlannedCollective gradientReduction;
    /// Hybrid sharding: the reduce-scattered gradient shard then all-reduced over the shard's replicas in the other
    /// shard groups (PyTorch FSDP2's HSDP reduce, Megatron-Core's inter-instance all-reduce), bucket by bucket after
    /// gradientReduction's. The routed experts' shard (same replicas) included.
    std::optional<PlannedCollective> replicaReduction;
    /// ZeRO-3/FSDP: the chunk's parameters gathered before its forward and again before its backward (the shard
    /// group); all but the routed experts' when those are gathered apart.
    std::optional<PlannedCollective> parameterGather;
    /// Routed experts whose gradients are summed over other ranks than the rest's (ep > 1 or etp < tp): their reduction
    /// over the expert-data-parallel group (Placement::expertReplicaGroup, or its shard group under ZeRO) and their
    /// ZeRO-3/FSDP gather over the expert shard group (Megatron-Core's separate expert gradient buffers, torchtitan's
    /// and AutoModel's expert FSDP mesh). Absent otherwise; present but off the network when the group is one rank (ep
    /// = dp x cp: nothing to sum).
    std::optional<PlannedCollective> expertGradientReduction;
    std::optional<PlannedCollective> expertParameterGather;
};

/// What one pipeline stage runs, with every collective its parallel axes imply.
struct StagePlan {
    int stage = 0;
    int representativeRank = 0; ///< the rank whose groups are listed
    std::vector<ChunkPlan> chunks;
    LayerCollectives layer;
    double parameters = 0; ///< over the chunks
    double optimizerParameters = 0; ///< the parameters this rank's optimizer updates (ZeRO >= 1: a 1/dp shard)
    /// Point-to-point to the next stage (activations) and the previous one (gradients), one micro-batch's hidden
    /// state split over tp (Megatron's scatter/gather optimisation); empty at pp = 1.
    std::optional<PlannedCollective> sendForward;
    std::optional<PlannedCollective> sendBackward;
    /// ZeRO-1/2: the updated parameter shards gathered after the optimizer step (dp); FSDP2 under pipeline parallelism
    /// (ShardingPlan::keepsStageGathered): the stage's parameters gathered once per step ahead of its first forward,
    /// the chunks then gathering nothing per pass. The routed experts' over their shard group when they are reduced
    /// apart (ChunkPlan::expertGradientReduction).
    std::optional<PlannedCollective> parameterGather;
    std::optional<PlannedCollective> expertParameterGather;
    double expertParameters = 0; ///< over the chunks
};

/// Inference: the collectives of one request batch's pass over @p tokens tokens (the prompts of the batch in
/// prefill, one per sequence in decode). The batch passes the stages one after another.
struct InferencePlan {
    std::vector<int> tensorGroup; ///< tp group of rank 0
    std::vector<int> pipelineHop; ///< stage 0 to stage 1 (every hop costs the same on the representative ranks)
    std::vector<int> returnHop; ///< last stage to stage 0
    double hiddenSize = 0;
    double activationBytes = 0;
    int stages = 1;
    int batch = 1;

    /// Per layer, twice (attention and MLP blocks): an all-reduce of the tokens' hidden states (tp).
    PlannedCollective tensorAllReduce(double tokens) const;
    /// Stage to stage, (pp - 1) times per pass: the tokens' hidden states (pp).
    PlannedCollective pipelineSend(double tokens) const;
    /// The sampled tokens (4 bytes per sequence) from the last stage back to the first (pp).
    PlannedCollective tokenReturn() const;
};

/// A data-parallel replica with slow GPUs.
struct SlowReplica {
    int replica = 0; ///< data-parallel coordinate
    std::vector<int> slowGpus; ///< ascending
    std::vector<double> stageSlowdowns; ///< per pipeline stage, >= 1
};

/// The step plan: built once per evaluation from the scenario, it is the one place that interprets tp, cp, dp, pp and
/// ep. Timing, the congestion backend, Chakra export and the workbench's rank groups read it.
struct StepPlan {
    ShardingPlan sharding; ///< the layer split and shards (what memory and the operator lists read)
    Placement placement;
    int virtualStages = 1;
    std::vector<StagePlan> stages; ///< training: one per pipeline stage
    InferencePlan inference;
    int totalGpus = 0; ///< GPUs of the cluster (replicas never go beyond)
    /// Stragglers (config::GpuStraggler): the data-parallel replicas that hold one, with the compute slowdown of each
    /// pipeline stage (the slowest GPU of the stage's tensor, context and expert groups in that replica, which all
    /// wait for it; 1 where none is slow). Replicas with the same slowdowns appear once; empty when no GPU is slow.
    std::vector<SlowReplica> slowReplicas;
    /// What runs the reductions and gathers (run.parallelism.collectives): the algorithms they may use.
    network::CollectiveLibrary library = network::CollectiveLibrary::Nccl;

    /// @p collective as the network costs it: its group and bytes, run by the plan's library.
    network::CollectiveRequest request(const PlannedCollective& collective) const;
    /// request() with its SPMD replicas (Placement::replicaOffsets), as a backend that simulates them needs it.
    network::CollectiveRequest withReplicas(const PlannedCollective& collective) const;
};

/// Builds the plan of @p scenario. Ranks are placed as parallel::placeRanks does (problems are not reported here:
/// the loader has reported them).
StepPlan planStep(const config::Scenario& scenario);

/// Whether layer @p layer (global index) is a mixture-of-experts layer (after the model's leading dense layers).
bool isMoeLayer(const config::ModelSpec& model, int layer);

} // namespace rapid::parallel
