// SPDX-License-Identifier: GPL-3.0-or-later
#include "parallel/shardingplan.h"

#include "model/layeroperators.h"
#include "model/loraadapters.h"
#include "model/modelstats.h"

#include <algorithm>
#include <numeric>

namespace rapid::parallel {

namespace {

bool isMoeLayerIndex(const config::ModelSpec& model, int layer)
{
    return model.moe && layer >= model.moe->denseLayers;
}

/// Layers of each chunk in model order: the explicit split, a framework's cost-balanced split, or an even one.
std::vector<int> layersOfChunks(const config::ModelSpec& model, const config::RunSpec& run, int virtualStages)
{
    const config::ParallelismSpec& parallel = run.parallelism;
    if (parallel.layersPerStage.empty() && virtualStages == 1 && balancesPipelineByCost(run.framework)) {
        const double h = static_cast<double>(model.hiddenSize);
        const double layerCost = 4.0 * model.numHeads * model.headDim * h + 3.0 * model.ffnSize * h;
        return costBalancedLayersPerStage(
            model.numLayers, parallel.pp, layerCost, static_cast<double>(model.vocabSize) * h);
    }
    return layersPerChunk(model.numLayers, parallel.pp, virtualStages, parallel.layersPerStage);
}

/// One GPU's parameters of a MoE layer's routed experts: split over expert-tensor x expert shards.
double routedExpertParametersPerGpu(const config::ModelSpec& model, const model::LayerSharding& sharding)
{
    if (!model.moe) {
        return 0.0;
    }
    const double expert = static_cast<double>(model::expertParameters(model));
    return model.moe->numExperts * expert / (static_cast<double>(sharding.expertTensor) * sharding.expert);
}

/// One GPU's parameters of a layer: attention and MLP matrices and biases split over the tensor shards, routed
/// experts over expert-tensor x expert shards, shared experts over the tensor shards, norms and the router replicated.
double layerParametersPerGpu(const config::ModelSpec& model, const model::LayerSharding& sharding, bool moeLayer)
{
    const model::ParameterCounts counts = model::countParameters(model);
    const double tp = sharding.tensor;
    const model::LayerParameters& layer = moeLayer ? counts.moeLayer : counts.denseLayer;
    double params = layer.attention / tp + static_cast<double>(layer.norms);
    if (moeLayer && model.moe) {
        const double expert = static_cast<double>(model::expertParameters(model));
        params += routedExpertParametersPerGpu(model, sharding) + model.moe->sharedExperts * expert / tp
            + static_cast<double>(model::routerParameters(model));
    } else {
        params += layer.mlp / tp;
    }
    return params;
}

StageShare stageShare(
    const config::ModelSpec& model, const ShardingPlan& plan, const std::vector<int>& perChunk, int stage)
{
    StageShare share;
    share.stage = stage;
    share.first = stage == 0;
    share.last = stage == plan.stages - 1;
    const EndParameters ends = endParameters(model, plan.layer, share.first && share.last);
    share.embeddingParameters = share.first ? ends.embedding : 0.0;
    share.headParameters = share.last ? ends.head : 0.0;
    for (int v = 0; v < plan.virtualStages; ++v) {
        const int chunk = v * plan.stages + stage;
        const int start = std::accumulate(perChunk.begin(), perChunk.begin() + chunk, 0);
        std::vector<int> layers(static_cast<size_t>(perChunk[static_cast<size_t>(chunk)]));
        std::iota(layers.begin(), layers.end(), start);
        double parameters = 0;
        double expertParameters = 0;
        for (int layer : layers) {
            const bool moe = isMoeLayerIndex(model, layer);
            share.anyMoeLayer = share.anyMoeLayer || moe;
            parameters += plan.layerParameters[moe ? 1 : 0];
            expertParameters += moe ? plan.moeLayerExpertParameters : 0.0;
        }
        double trainable = static_cast<double>(layers.size()) * plan.loraLayerParameters;
        parameters += trainable;
        if (share.first && v == 0) {
            parameters += ends.embedding;
        }
        if (share.last && v == plan.virtualStages - 1) {
            parameters += ends.head + plan.loraHeadParameters;
            trainable += plan.loraHeadParameters;
        }
        if (!plan.lora) {
            trainable = parameters;
        }
        share.chunkTrainableParameters.push_back(trainable);
        share.trainableParameters += trainable;
        share.chunks.push_back(std::move(layers));
        share.chunkParameters.push_back(parameters);
        share.parameters += parameters;
        share.chunkExpertParameters.push_back(expertParameters);
        share.expertParameters += expertParameters;
    }
    return share;
}

} // namespace

/// Parameters of the model's ends on one GPU: the embedding (and learned positions) and the final norm and LM head.
EndParameters endParameters(
    const config::ModelSpec& model, const model::LayerSharding& sharding, bool headWithEmbedding)
{
    const model::ParameterCounts counts = model::countParameters(model);
    const double tp = sharding.tensor;
    EndParameters ends;
    ends.embedding = static_cast<double>(counts.embedding) / tp + static_cast<double>(counts.positional);
    // A tied LM head still needs the embedding matrix on the last stage: frameworks keep a copy there.
    const bool tiedCopy = model.tiedEmbeddings && !headWithEmbedding;
    ends.head = static_cast<double>(counts.finalNorm)
        + (counts.lmHead > 0 || tiedCopy ? static_cast<double>(model.vocabSize * model.hiddenSize) : 0.0) / tp;
    return ends;
}

int StageShare::layerCount() const
{
    int count = 0;
    for (const std::vector<int>& chunk : chunks) {
        count += static_cast<int>(chunk.size());
    }
    return count;
}

std::vector<PipelineStep> ShardingPlan::steps(int stage) const
{
    if (pipelineFlushes <= 1) {
        return pipelineSteps(schedule, stages, stage, microBatches, virtualStages, combinedOneFOneB);
    }
    // One schedule after another, each over its own micro-batches: a stage starts the next when it has run its part
    // of the previous one, so every schedule fills and drains the pipeline.
    const int perSchedule = microBatches / pipelineFlushes;
    const std::vector<PipelineStep> one
        = pipelineSteps(schedule, stages, stage, perSchedule, virtualStages, combinedOneFOneB);
    std::vector<PipelineStep> all;
    all.reserve(one.size() * static_cast<size_t>(pipelineFlushes));
    for (int flush = 0; flush < pipelineFlushes; ++flush) {
        for (PipelineStep step : one) {
            step.microBatch += flush * perSchedule;
            all.push_back(step);
        }
    }
    return all;
}

std::vector<PipelineStep> ShardingPlan::memorySteps(int stage) const
{
    const int perSchedule = microBatches / std::max(1, pipelineFlushes);
    return pipelineSteps(schedule, stages, stage,
        memoryEquivalentMicroBatches(schedule, stages, perSchedule, virtualStages), virtualStages, combinedOneFOneB);
}

model::LayerSharding layerSharding(const config::RunSpec& run)
{
    const config::ParallelismSpec& parallel = run.parallelism;
    model::LayerSharding sharding;
    sharding.tensor = parallel.tp;
    sharding.context = parallel.cp;
    sharding.expert = parallel.ep;
    sharding.expertTensor = parallel.expertTensorDegree();
    sharding.sequenceSplit = parallel.sequenceParallel;
    return sharding;
}

double gatheredParameterBytes(const config::ModelSpec& model, const config::RunSpec& run, double layerParameters,
    int layers, double endParameters)
{
    const double weightBytes = config::bytesPerElement(run.precision.weights);
    if (!run.precision.fp8AllGather) {
        return (layerParameters + endParameters) * weightBytes;
    }
    constexpr double kFp8Bytes = 1;
    const double norms = std::min(layerParameters, model.layerNormParameters(layers));
    return (layerParameters - norms) * kFp8Bytes + (norms + endParameters) * weightBytes;
}

double gradientBucketParameters(config::Framework framework, int dataParallel, double gradientBytes)
{
    switch (framework) {
    case config::Framework::Megatron:
        // Megatron-Core DistributedDataParallel: bucket_size defaults to max(40M, 1M x dp size) parameters
        // (megatron/core/distributed/distributed_data_parallel.py).
        return std::max(40e6, 1e6 * dataParallel);
    case config::Framework::DeepSpeed:
        // DeepSpeed ZeRO-1/2: reduce_bucket_size defaults to 5e8 elements (runtime/zero/config.py).
        return 5e8;
    case config::Framework::Nanotron:
    case config::Framework::PytorchFsdp:
    case config::Framework::Vllm:
        break;
    }
    // PyTorch DistributedDataParallel (nanotron wraps its model in it): bucket_cap_mb = 25 MiB.
    return 25.0 * (1 << 20) / gradientBytes;
}

bool balancesPipelineByCost(config::Framework framework)
{
    // nanotron's build_model (models/base.py) assigns blocks to pipeline ranks by their parameter cost with the LM
    // head counted; Megatron-LM, DeepSpeed and FSDP split by layer count unless told otherwise.
    return framework == config::Framework::Nanotron;
}

ShardingPlan planSharding(const config::ModelSpec& model, const config::RunSpec& run)
{
    const config::ParallelismSpec& parallel = run.parallelism;
    ShardingPlan plan;
    plan.layer = layerSharding(run);
    plan.stages = std::max(1, parallel.pp);
    plan.virtualStages = parallel.schedule == config::PipelineSchedule::Interleaved ? parallel.virtualStages : 1;
    plan.schedule = parallel.schedule;
    plan.dataParallel = parallel.dp;
    plan.weightReplicas = parallel.dp * std::max(1, parallel.cp);
    plan.shardGroup = std::max(1, parallel.shardDegree()) * std::max(1, parallel.cp);
    // The expert mesh folds tp x cp x dp into etp x ep x expert-dp (Megatron-Core's RankGenerator for experts); a
    // shard group holds whole blocks of etp x ep ranks (the loader's check under hybrid sharding).
    const int expertBlock = parallel.expertTensorDegree() * std::max(1, parallel.ep);
    plan.expertWeightReplicas = std::max(1, parallel.tp * plan.weightReplicas / expertBlock);
    plan.expertShardGroup = std::max(1, parallel.tp * plan.shardGroup / expertBlock);
    plan.zeroStage = parallel.zeroStage;
    plan.microBatches = std::max(1, run.microBatchesPerStep());
    plan.pipelineFlushes
        = plan.microBatches % std::max(1, run.pipelineFlushes) == 0 ? std::max(1, run.pipelineFlushes) : 1;
    plan.overlapGradientReduction = parallel.dpOverlap;
    plan.gradientBucketParameters
        = gradientBucketParameters(run.framework, parallel.dp, config::bytesPerElement(run.precision.gradients));
    // Only Megatron-Core's distributed optimizer gathers the updated parameters under the next forward; DeepSpeed
    // and nanotron gather them right after the step.
    plan.keepsStageGathered
        = parallel.zeroStage >= 3 && plan.stages > 1 && run.framework == config::Framework::PytorchFsdp;
    plan.combinedOneFOneB = run.mode == config::RunMode::Training && run.parallelism.expertAllToAllOverlap;
    plan.gathersEachFlush = plan.keepsStageGathered && plan.pipelineFlushes > 1 && run.reshardEachFlush;
    plan.expertsOutsideFsdp = model.moe && parallel.zeroStage >= 3 && plan.expertShardGroup == 1
        && run.framework == config::Framework::PytorchFsdp;
    // The gather a step's first forward waits for unit by unit (rather than all of it up front): Megatron-Core's
    // --overlap-param-gather, and FSDP2's prefetch of the next unit when the stage stays gathered.
    plan.overlapParameterGather
        = parallel.dpOverlap && (run.framework == config::Framework::Megatron || plan.keepsStageGathered);
    plan.overlapTensorCollectives = parallel.tpCommOverlap;
    plan.layerParameters = { layerParametersPerGpu(model, plan.layer, false),
        model.moe ? layerParametersPerGpu(model, plan.layer, true) : 0.0 };
    plan.moeLayerExpertParameters = routedExpertParametersPerGpu(model, plan.layer);
    plan.lora = run.mode == config::RunMode::Training && run.loraRank > 0;
    if (plan.lora) {
        plan.loraLayerParameters = model::localLayerTrainableParameters(model, run, plan.layer, false);
        const auto vocab = (model.vocabSize + plan.layer.tensor - 1) / plan.layer.tensor;
        plan.loraHeadParameters = run.loraTargets == config::LoraTargets::AllLinear
            ? model::loraAdapterParameters(model.hiddenSize, vocab, run.loraRank)
            : 0.0;
    }
    const std::vector<int> perChunk = layersOfChunks(model, run, plan.virtualStages);
    for (int stage = 0; stage < plan.stages; ++stage) {
        plan.stageShares.push_back(stageShare(model, plan, perChunk, stage));
    }
    return plan;
}

} // namespace rapid::parallel
