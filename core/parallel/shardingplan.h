// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/modelspec.h"
#include "config/runspec.h"
#include "model/gradientaccumulation.h"
#include "model/layersharding.h"
#include "parallel/pipelineschedule.h"

#include <array>
#include <vector>

namespace rapid::parallel {

/// What one GPU of a pipeline stage holds of the model.
struct StageShare {
    int stage = 0;
    std::vector<std::vector<int>> chunks; ///< global layer indices of each model chunk (virtual stage), in order
    bool first = false; ///< holds the embedding (the model's first chunk)
    bool last = false; ///< holds the final norm, the LM head and the loss (the model's last chunk)
    /// Parameters one GPU holds per chunk: its layers (tp- and ep-sharded), the embedding in the model's first chunk,
    /// the final norm and LM head in its last. Before any ZeRO/FSDP sharding over dp.
    std::vector<double> chunkParameters;
    double parameters = 0; ///< over the chunks
    /// The embedding (first stage) and the final norm with the LM head (last stage) on one GPU, 0 elsewhere: FSDP
    /// wraps each as a unit of its own, and for small models they are the largest units (Llama 3.1 8B: 525 M
    /// parameters of LM head against 218 M per layer).
    double embeddingParameters = 0;
    double headParameters = 0;
    /// Of chunkParameters and parameters, the routed experts' (MoE layers; ep- and etp-sharded): their gradients are
    /// summed and their ZeRO/FSDP shards spread over the expert-data-parallel group instead (ShardingPlan).
    std::vector<double> chunkExpertParameters;
    double expertParameters = 0;
    bool anyMoeLayer = false;
    /// Of chunkParameters and parameters, those that train: all of them, or under LoRA the adapters only (the rest
    /// frozen: no gradient, reduction, master copy or optimizer state).
    std::vector<double> chunkTrainableParameters;
    double trainableParameters = 0;

    int layerCount() const;
};

/// How the parallel axes cut the model for one GPU, without the cluster: the layer split over pipeline stages and
/// chunks, the shards of every layer, how weights, gradients and optimizer states are sharded over data parallelism,
/// and the pipeline schedule. Built once from model and run by planSharding(); the step plan (StepPlan::sharding),
/// the memory model and the operator lists read it, so tp, sp, pp, dp, cp, ep and the ZeRO stage are interpreted
/// here and nowhere else.
struct ShardingPlan {
    model::LayerSharding layer;
    int stages = 1; ///< pipeline stages
    int virtualStages = 1; ///< model chunks per stage (interleaved schedule), else 1
    config::PipelineSchedule schedule = config::PipelineSchedule::OneFOneB;
    int dataParallel = 1;
    /// Ranks that hold the same weights: dp x cp. Context-parallel ranks run the whole layer on their share of the
    /// sequence, so their gradients are summed and their ZeRO/FSDP shards split over dp and cp together (Megatron-Core
    /// reduces gradients and shards its distributed optimizer over the data-parallel group with context parallelism,
    /// parallel_state.get_data_parallel_group(with_context_parallel=True); torchtitan's FSDP mesh is dp_shard_cp).
    int weightReplicas = 1;
    /// Ranks one ZeRO/FSDP shard group spans: dp_shard x cp (weightReplicas unless hybrid sharding replicates the
    /// shards over weightReplicas / shardGroup groups).
    int shardGroup = 1;
    /// The routed experts' counterparts (Megatron-Core's expert-data-parallel group, torchtitan's and AutoModel's
    /// expert FSDP mesh, DeepSpeed-MoE's expert data parallelism): the ranks of a stage holding the same expert
    /// shard, tp x cp x dp / (etp x ep), and of them the ones one ZeRO/FSDP shard group spans,
    /// tp x shardGroup / (etp x ep). Equal to weightReplicas and shardGroup without expert parallelism.
    int expertWeightReplicas = 1;
    int expertShardGroup = 1;
    int zeroStage = 0; ///< 0-3; FSDP is 3
    int microBatches = 1; ///< per pipeline per step
    int pipelineFlushes = 1; ///< schedules the micro-batches run in, one after another (RunSpec::pipelineFlushes)
    /// Gradients are reduced in buckets while the chunk's last backward still runs (Megatron --overlap-grad-reduce,
    /// PyTorch DDP); otherwise after the stage's last backward.
    bool overlapGradientReduction = true;
    /// Parameters per gradient bucket (the framework's default; see gradientBucketParameters).
    double gradientBucketParameters = 25.0 * (1 << 20) / 4;
    /// ZeRO-1/2: the updated parameters are gathered bucket by bucket under the next step's first forward
    /// (Megatron-Core
    /// --overlap-param-gather with the distributed optimizer) rather than after the optimizer step.
    bool overlapParameterGather = false;
    /// ZeRO-3/FSDP under pipeline parallelism in PyTorch FSDP2 (torchtitan, AutoModel): the stage's parameters are
    /// gathered once per step, unit by unit ahead of its first forward, and stay gathered to the last micro-batch's
    /// backward, whose reduce-scatter is the step's only one. torchtitan's apply_fsdp sets reshard_after_forward False
    /// under pipeline parallelism "to avoid per-microbatch all-gathers" (parallelize_llama.py), and
    /// torch.distributed.pipelining's stage turns off resharding after backward and gradient sync for every
    /// micro-batch but the last (stage.py, backward_maybe_with_nosync); FSDP2 then accumulates the unsharded gradients
    /// in its reduce dtype (_fsdp_param.py, to_accumulated_grad_if_needed).
    bool keepsStageGathered = false;
    /// With the stage kept gathered and several schedules per step (RunSpec::reshardEachFlush): every schedule's last
    /// backward reduce-scatters the stage's gradients and reshards it, and the next schedule gathers it again.
    bool gathersEachFlush = false;
    /// Megatron-Core's combined 1F1B (RunSpec::ParallelismSpec::expertAllToAllOverlap): steady-state forwards and
    /// backwards run in co-scheduled pairs after one more warm-up forward (pipelineSteps).
    bool combinedOneFOneB = false;
    /// PyTorch FSDP leaves the routed experts out when their expert shard group is one rank (NeMo AutoModel's
    /// apply_fsdp, moe/parallelizer.py: ignored_params): their gradients are plain autograd sums.
    bool expertsOutsideFsdp = false;
    bool overlapTensorCollectives = false; ///< TP collectives overlap the GEMMs (Megatron tp-comm-overlap)
    std::array<double, 2> layerParameters {}; ///< one GPU's parameters of a dense and of a MoE layer
    /// LoRA fine-tuning (RunSpec::loraRank; dense models only): one GPU's adapter parameters per layer and on the LM
    /// head (lora_targets all_linear), added to the stored parameters and the only ones that train.
    bool lora = false;
    double loraLayerParameters = 0;
    double loraHeadParameters = 0;
    double moeLayerExpertParameters = 0; ///< of a MoE layer's, its routed experts'
    std::vector<StageShare> stageShares;

    /// Data-parallel shards of the weights (ZeRO-3/FSDP), the gradients (ZeRO >= 2) and the optimizer states and
    /// master weights (ZeRO >= 1); 1 when not sharded.
    double weightShards() const { return zeroStage >= 3 ? shardGroup : 1; }
    double gradientShards() const { return zeroStage >= 2 ? shardGroup : 1; }
    double optimizerShards() const { return zeroStage >= 1 ? shardGroup : 1; }
    /// What one rank keeps of @p parameters (@p expertParameters of them routed experts) when ZeRO stage
    /// @p fromZeroStage or above shards them: the experts over expertShardGroup, the rest over shardGroup; all of them
    /// below that stage (weights: 3, gradients: 2, optimizer states: 1).
    double parametersPerShard(double parameters, double expertParameters, int fromZeroStage) const
    {
        if (zeroStage < fromZeroStage) {
            return parameters;
        }
        return (parameters - expertParameters) / shardGroup + expertParameters / expertShardGroup;
    }
    /// Copies of each ZeRO/FSDP shard (hybrid sharding: the groups the reduce-scattered gradients are all-reduced
    /// over); 1 without.
    int shardReplicas() const { return zeroStage >= 1 ? weightReplicas / std::max(1, shardGroup) : 1; }
    /// ZeRO-3/FSDP gather each layer's parameters before use.
    bool gathersLayerParameters() const { return zeroStage >= 3; }
    /// ZeRO-1/2 gather the updated parameter shards after the optimizer step.
    bool gathersAfterOptimizer() const { return (zeroStage == 1 || zeroStage == 2) && shardGroup > 1; }
    /// Gradients are reduce-scattered (ZeRO >= 1: each rank updates its shard) rather than all-reduced.
    bool reduceScattersGradients() const { return zeroStage >= 1; }
    /// Every weight replica holds the whole gradient and all-reduces it (no ZeRO, dp x cp > 1).
    bool allReducesFullGradients() const { return zeroStage == 0 && weightReplicas > 1; }
    /// Forward and backward passes of @p stage in schedule order.
    std::vector<PipelineStep> steps(int stage) const;
    /// The shortest run of @p stage's steps that holds every amount of memory steps(stage) holds, in the same order:
    /// one of the step's schedules (each starts and ends with nothing in flight) over memoryEquivalentMicroBatches.
    std::vector<PipelineStep> memorySteps(int stage) const;
    /// How the gradients are summed over the step's micro-batches outside their GEMMs: with the stage kept gathered
    /// (PyTorch FSDP2 under pipeline parallelism) every micro-batch's backward but the last runs without gradient
    /// sync, so the unsharded gradients of all of them are summed; experts outside FSDP are summed by autograd.
    model::GradientSum gradientSum() const
    {
        return { microBatches, keepsStageGathered, expertsOutsideFsdp, gathersEachFlush ? pipelineFlushes : 1 };
    }
};

/// The one interpretation of the run's parallel degrees for a transformer layer.
model::LayerSharding layerSharding(const config::RunSpec& run);

/// Parameters of the model's ends on one GPU.
struct EndParameters {
    double embedding = 0; ///< the embedding (and learned positions)
    double head = 0; ///< final norm and LM head (a copy of a tied embedding when the head is on another stage)
};

/// The ends of @p model on one GPU of @p sharding; @p headWithEmbedding: both on one stage (a tied head shares the
/// embedding's matrix there).
EndParameters endParameters(
    const config::ModelSpec& model, const model::LayerSharding& sharding, bool headWithEmbedding);

/// Bytes ZeRO-3/FSDP all-gathers for @p layers transformer layers holding @p layerParameters in all, plus
/// @p endParameters of the embedding or the final norm with the LM head: the weight precision, or with
/// precision.fp8_all_gather one byte for the layers' linear weights. torchao's float8 all-gather converts nn.Linear
/// weights only: each layer's two norm weights, the embedding and the output layer (torchtitan's float8 converter
/// skips it) stay in the weight precision.
double gatheredParameterBytes(const config::ModelSpec& model, const config::RunSpec& run, double layerParameters,
    int layers, double endParameters);

/// Parameters per data-parallel gradient bucket of @p framework at data-parallel degree @p dataParallel, with
/// @p gradientBytes bytes per gradient element (sources in shardingplan.cpp).
double gradientBucketParameters(config::Framework framework, int dataParallel, double gradientBytes);

/// Whether @p framework splits pipeline stages by parameter cost (LM head included) rather than by layer count.
bool balancesPipelineByCost(config::Framework framework);

ShardingPlan planSharding(const config::ModelSpec& model, const config::RunSpec& run);

} // namespace rapid::parallel
