// SPDX-License-Identifier: GPL-3.0-or-later
#include "memorymodel.h"

#include "memory/activationmemory.h"
#include "model/modelstats.h"
#include "parallel/pipelineschedule.h"

#include <algorithm>
#include <optional>

namespace rapid::memory {

using config::ModelSpec;
using config::RunSpec;

const char* toString(MemoryCategory category)
{
    switch (category) {
    case MemoryCategory::Weights:
        return "weights";
    case MemoryCategory::Gradients:
        return "gradients";
    case MemoryCategory::MasterWeights:
        return "master_weights";
    case MemoryCategory::OptimizerStates:
        return "optimizer_states";
    case MemoryCategory::GatheredParameters:
        return "gathered_parameters";
    case MemoryCategory::CommunicationBuffers:
        return "communication_buffers";
    case MemoryCategory::Activations:
        return "activations";
    case MemoryCategory::Logits:
        return "logits";
    case MemoryCategory::Transient:
        return "transient";
    case MemoryCategory::KvCache:
        return "kv_cache";
    case MemoryCategory::Overhead:
        return "overhead";
    }
    return "?";
}

namespace {

/// The layers (global indices) of each chunk this stage runs, in chunk order.
struct StageLayers {
    std::vector<std::vector<int>> chunks;
    bool first = false; ///< holds the embedding (first chunk of the model)
    bool last = false; ///< holds the LM head (last chunk of the model)
};

StageLayers layersOfStage(const ModelSpec& model, const RunSpec& run, int stage)
{
    const config::ParallelismSpec& parallel = run.parallelism;
    const int virtualStages = parallel.schedule == config::PipelineSchedule::Interleaved ? parallel.virtualStages : 1;
    std::vector<int> perChunk
        = parallel::layersPerChunk(model.numLayers, parallel.pp, virtualStages, parallel.layersPerStage);
    if (parallel.layersPerStage.empty() && virtualStages == 1 && frameworkProfile(run.framework).costBalancedPipeline) {
        const double h = static_cast<double>(model.hiddenSize);
        const double layerCost = 4.0 * model.numHeads * model.headDim * h + 3.0 * model.ffnSize * h;
        perChunk = parallel::costBalancedLayersPerStage(
            model.numLayers, parallel.pp, layerCost, static_cast<double>(model.vocabSize) * h);
    }
    StageLayers result;
    for (int v = 0; v < virtualStages; ++v) {
        const int chunk = v * parallel.pp + stage;
        int start = 0;
        for (int c = 0; c < chunk; ++c) {
            start += perChunk[static_cast<size_t>(c)];
        }
        std::vector<int> layers;
        for (int i = 0; i < perChunk[static_cast<size_t>(chunk)]; ++i) {
            layers.push_back(start + i);
        }
        result.chunks.push_back(layers);
    }
    result.first = stage == 0;
    result.last = stage == parallel.pp - 1;
    return result;
}

bool isMoeLayer(const ModelSpec& model, int layer)
{
    return model.moe && layer >= model.moe->denseLayers;
}

double layerParametersPerGpu(const ModelSpec& model, const RunSpec& run, bool moeLayer)
{
    const model::ParameterCounts counts = model::countParameters(model);
    const double tp = run.parallelism.tp;
    const model::LayerParameters& layer = moeLayer ? counts.moeLayer : counts.denseLayer;
    double params = layer.attention / tp + static_cast<double>(layer.norms);
    if (moeLayer && model.moe) {
        const config::MoeSpec& moe = *model.moe;
        const double expert = (model.ffnGated ? 3.0 : 2.0) * model.hiddenSize * moe.expertFfnSize;
        params += moe.numExperts * expert / (tp * run.parallelism.ep) + moe.sharedExperts * expert / tp
            + static_cast<double>(model.hiddenSize) * moe.numExperts;
    } else {
        params += layer.mlp / tp;
    }
    return params;
}

} // namespace

double parametersOnStage(const ModelSpec& model, const RunSpec& run, int stage)
{
    const StageLayers stageLayers = layersOfStage(model, run, stage);
    const model::ParameterCounts counts = model::countParameters(model);
    const double tp = run.parallelism.tp;
    double params = 0;
    for (const auto& chunk : stageLayers.chunks) {
        for (int layer : chunk) {
            params += layerParametersPerGpu(model, run, isMoeLayer(model, layer));
        }
    }
    if (stageLayers.first) {
        params += counts.embedding / tp + static_cast<double>(counts.positional);
    }
    if (stageLayers.last) {
        params += static_cast<double>(counts.finalNorm);
        // A tied LM head still needs the embedding matrix on the last stage: frameworks keep a copy there.
        const bool tiedCopy = model.tiedEmbeddings && !stageLayers.first;
        params += (counts.lmHead > 0 || tiedCopy ? static_cast<double>(model.vocabSize * model.hiddenSize) : 0.0) / tp;
    }
    return params;
}

namespace {

MemoryEstimate estimateInference(
    const ModelSpec& model, const config::GpuSpec& gpu, const RunSpec& run, const FrameworkProfile& profile)
{
    MemoryEstimate estimate;
    estimate.capacityBytes = gpu.hbmCapacityBytes;
    const int stages = run.parallelism.pp;
    double worst = -1;
    for (int stage = 0; stage < stages; ++stage) {
        std::array<double, kMemoryCategoryCount> breakdown {};
        auto set = [&](MemoryCategory category, double bytes) { breakdown[static_cast<size_t>(category)] = bytes; };
        const StageLayers stageLayers = layersOfStage(model, run, stage);
        int layers = 0;
        bool anyMoe = false;
        for (const auto& chunk : stageLayers.chunks) {
            layers += static_cast<int>(chunk.size());
            for (int layer : chunk) {
                anyMoe = anyMoe || isMoeLayer(model, layer);
            }
        }
        set(MemoryCategory::Weights,
            parametersOnStage(model, run, stage) * config::bytesPerElement(run.precision.weights));
        // KV heads split over tp, replicated when tp exceeds them; MLA's latent cache is replicated over tp.
        const double perTokenAllLayers = model::kvCacheBytesPerToken(model, run.precision.kvCache);
        const double kvShare = model.mla
            ? 1.0
            : std::max(1.0, static_cast<double>(model.numKvHeads) / run.parallelism.tp) / model.numKvHeads;
        const double tokens = static_cast<double>(run.batch) * (run.promptLength + run.decodeLength);
        set(MemoryCategory::KvCache, tokens * perTokenAllLayers * layers / model.numLayers * kvShare);
        set(MemoryCategory::Transient, savedActivationsPerLayer(model, run, anyMoe, profile).total());
        if (stageLayers.last) {
            set(MemoryCategory::Logits, static_cast<double>(run.batch) * model.vocabSize / run.parallelism.tp * 4);
        }
        double allocated = 0;
        for (double bytes : breakdown) {
            allocated += bytes;
        }
        StageMemory memory;
        memory.stage = stage;
        memory.staticBytes = breakdown[static_cast<size_t>(MemoryCategory::Weights)]
            + breakdown[static_cast<size_t>(MemoryCategory::KvCache)];
        memory.computePeakBytes = allocated;
        memory.reservedPeakBytes = memory.staticBytes + profile.fragmentation * (allocated - memory.staticBytes);
        memory.breakdown = breakdown;
        if (memory.reservedPeakBytes > worst) {
            worst = memory.reservedPeakBytes;
            estimate.breakdown = breakdown;
            estimate.peakStage = stage;
            estimate.peakAllocatedBytes = allocated;
        }
        estimate.stages.push_back(memory);
        estimate.timelines.push_back({ { 0, allocated } });
    }
    return estimate;
}

/// What one GPU of a stage holds from the first step to the last: weights, gradients, master weights and optimizer
/// states (each sharded over dp by the ZeRO stage that shards it), and the communication buffers.
std::array<double, kMemoryCategoryCount> staticMemory(
    const ModelSpec& model, const RunSpec& run, const FrameworkProfile& profile, double params, double tokens)
{
    const config::ParallelismSpec& parallel = run.parallelism;
    const config::PrecisionSpec& precision = run.precision;
    const double weightBytes = config::bytesPerElement(precision.weights);
    const double gradientBytes = config::bytesPerElement(precision.gradients);
    const double optimizerBytes = config::bytesPerElement(precision.optimizer);
    const double activationBytes = config::bytesPerElement(precision.activations);
    const double dp = parallel.dp;
    const int zero = parallel.zeroStage;
    std::array<double, kMemoryCategoryCount> base {};
    auto at = [&base](MemoryCategory c) -> double& { return base[static_cast<size_t>(c)]; };
    at(MemoryCategory::Weights) = params * weightBytes / (zero >= 3 ? dp : 1);
    at(MemoryCategory::Gradients) = params * gradientBytes / (zero >= 2 ? dp : 1);
    if (precision.masterWeights && optimizerBytes > weightBytes) {
        at(MemoryCategory::MasterWeights) = params * optimizerBytes / (zero >= 1 ? dp : 1);
    }
    at(MemoryCategory::OptimizerStates) = 2 * params * optimizerBytes / (zero >= 1 ? dp : 1);
    double buffers = 0;
    if (profile.ddpBucketWithoutZero && zero == 0 && parallel.dp > 1) {
        buffers += params * weightBytes;
    }
    if (parallel.tp > 1) {
        buffers += profile.tpGatherBuffers * tokens * model.hiddenSize * activationBytes;
    }
    at(MemoryCategory::CommunicationBuffers) = buffers;
    return base;
}

/// What the replay of one stage's schedule needs to know.
struct StageReplayInputs {
    const std::array<double, kMemoryCategoryCount>& base;
    double staticBytes = 0;
    const std::vector<double>& chunkActivations;
    const std::vector<double>& chunkParams;
    double layerBackwardTransient = 0;
    double logitsKept = 0;
    double lossTransient = 0;
    bool last = false;
    int virtualStages = 1;
    double weightBytes = 0;
};

/// Replays the stage's forward and backward passes in schedule order: activations saved and freed, the loss's logits,
/// the transients of the backward. Returns the compute-phase peak (static bytes included); fills the breakdown at that
/// peak, the micro-batches in flight then, the allocated bytes after each step and the peak above static memory.
double replaySchedule(const StageReplayInputs& in, const std::vector<parallel::PipelineStep>& steps,
    const FrameworkProfile& profile, StageMemory& memory, std::array<double, kMemoryCategoryCount>& breakdown,
    std::vector<MemorySample>& timeline, double& dynamicPeak)
{
    auto at = [](std::array<double, kMemoryCategoryCount>& b, MemoryCategory c) -> double& {
        return b[static_cast<size_t>(c)];
    };
    double activations = 0;
    double logitsLive = 0;
    int inFlight = 0;
    double computePeak = in.staticBytes;
    auto consider = [&](double transient) {
        const double now = in.staticBytes + activations + logitsLive + transient;
        dynamicPeak = std::max(dynamicPeak, now - in.staticBytes);
        if (now > computePeak) {
            computePeak = now;
            breakdown = in.base;
            at(breakdown, MemoryCategory::Activations) = activations;
            at(breakdown, MemoryCategory::Logits) = logitsLive;
            at(breakdown, MemoryCategory::Transient) = transient;
            memory.inFlightMicroBatches = inFlight;
        }
    };
    int index = 0;
    for (const parallel::PipelineStep& step : steps) {
        const size_t chunk = static_cast<size_t>(step.chunk);
        const bool lossChunk = in.last && step.chunk == in.virtualStages - 1;
        if (step.pass == parallel::Pass::Forward) {
            ++inFlight;
            activations += in.chunkActivations[chunk];
            if (lossChunk) {
                logitsLive += in.logitsKept;
                consider(in.lossTransient);
            } else {
                consider(0);
            }
        } else {
            // Early in the backward pass one layer's activation gradients sit on top of everything saved; at its end
            // the chunk's activations are gone but its gradients in the weight precision are not yet accumulated.
            consider(in.layerBackwardTransient);
            activations -= in.chunkActivations[chunk];
            if (lossChunk) {
                logitsLive -= in.logitsKept;
            }
            consider(profile.weightPrecisionGradientTransient ? in.chunkParams[chunk] * in.weightBytes : 0.0);
            --inFlight;
        }
        timeline.push_back({ index++, in.staticBytes + activations + logitsLive });
    }
    return computePeak;
}

/// One layer's figures on one GPU: what its forward saves, its backward's transient, its parameters.
struct LayerFigures {
    double savedActivations = 0;
    double backwardTransient = 0;
    double parameters = 0;
};

/// Per chunk of a stage: the activations its forward saves and its parameters (embedding and LM head included in the
/// first and last chunks); the largest layer's parameters and backward transient.
struct ChunkFigures {
    std::vector<double> activations;
    std::vector<double> parameters;
    double largestLayerParameters = 0;
    double layerBackwardTransient = 0;
};

template <typename LayerFiguresOf>
ChunkFigures chunkFigures(const StageLayers& stageLayers, const LayerFiguresOf& layerFigures, double stageParameters)
{
    ChunkFigures result;
    for (const auto& chunk : stageLayers.chunks) {
        double bytes = 0;
        double chunkParameterCount = 0;
        for (int layer : chunk) {
            const LayerFigures& figures = layerFigures(layer);
            bytes += figures.savedActivations;
            result.layerBackwardTransient = std::max(result.layerBackwardTransient, figures.backwardTransient);
            result.largestLayerParameters = std::max(result.largestLayerParameters, figures.parameters);
            chunkParameterCount += figures.parameters;
        }
        result.activations.push_back(bytes);
        result.parameters.push_back(chunkParameterCount);
    }
    // Embedding and LM head parameters belong to the first and last chunks.
    if (!result.parameters.empty()) {
        double layerTotal = 0;
        for (double value : result.parameters) {
            layerTotal += value;
        }
        result.parameters.front() += stageLayers.first ? (stageParameters - layerTotal) : 0;
        result.parameters.back() += !stageLayers.first && stageLayers.last ? (stageParameters - layerTotal) : 0;
    }
    return result;
}

MemoryEstimate estimateTraining(
    const ModelSpec& model, const config::GpuSpec& gpu, const RunSpec& run, const FrameworkProfile& profile)
{
    MemoryEstimate estimate;
    estimate.capacityBytes = gpu.hbmCapacityBytes;
    const config::ParallelismSpec& parallel = run.parallelism;
    const config::PrecisionSpec& precision = run.precision;
    const double weightBytes = config::bytesPerElement(precision.weights);
    const double activationBytes = config::bytesPerElement(precision.activations);
    const double dp = parallel.dp;
    const int zero = parallel.zeroStage;
    const int microBatches = std::max(1, run.microBatchesPerStep());
    const int virtualStages = parallel.schedule == config::PipelineSchedule::Interleaved ? parallel.virtualStages : 1;
    const double sp = parallel.sequenceParallel ? parallel.tp : 1;
    const double tokens = localSequence(run) * run.microBatch;
    auto at = [](std::array<double, kMemoryCategoryCount>& b, MemoryCategory c) -> double& {
        return b[static_cast<size_t>(c)];
    };

    // A layer's figures depend only on whether it is a MoE layer: compute each kind once, not per layer and stage
    // (the saved-tensor lists are the costly part of an evaluation otherwise).
    std::array<std::optional<LayerFigures>, 2> figuresByKind;
    auto layerFigures = [&](int layer) -> const LayerFigures& {
        const bool moe = isMoeLayer(model, layer);
        std::optional<LayerFigures>& figures = figuresByKind[moe ? 1 : 0];
        if (!figures) {
            figures = LayerFigures { savedActivationsPerLayer(model, run, moe, profile).total(),
                backwardTransientPerLayer(model, run, moe, profile), layerParametersPerGpu(model, run, moe) };
        }
        return *figures;
    };

    double worst = -1;
    for (int stage = 0; stage < parallel.pp; ++stage) {
        // Static memory: held from the first step to the last.
        const double params = parametersOnStage(model, run, stage);
        std::array<double, kMemoryCategoryCount> base = staticMemory(model, run, profile, params, tokens);
        const StageLayers stageLayers = layersOfStage(model, run, stage);
        const ChunkFigures chunks = chunkFigures(stageLayers, layerFigures, params);
        const std::vector<double>& chunkActivations = chunks.activations;
        const std::vector<double>& chunkParams = chunks.parameters;
        const double largestLayerParams = chunks.largestLayerParameters;
        const double layerBackwardTransient = chunks.layerBackwardTransient;
        if (zero >= 3) {
            // The layer being computed and the next one (prefetch) are gathered in full.
            at(base, MemoryCategory::GatheredParameters) = 2 * largestLayerParams * weightBytes;
        }
        double staticBytes = 0;
        for (double bytes : base) {
            staticBytes += bytes;
        }

        // The last stage keeps the final norm and LM-head inputs and the softmax of the loss; computing the loss
        // needs the logits in higher precision for a moment.
        const double vocabularyElements = tokens * model.vocabSize / parallel.tp;
        const double logitsKept = stageLayers.last
            ? vocabularyElements * profile.logitsSavedBytes + 2 * tokens * model.hiddenSize * activationBytes / sp
            : 0.0;
        const double lossTransient = stageLayers.last ? vocabularyElements * profile.logitsTransientBytes : 0.0;

        StageMemory memory;
        memory.stage = stage;
        memory.staticBytes = staticBytes;
        const StageReplayInputs inputs { base, staticBytes, chunkActivations, chunkParams, layerBackwardTransient,
            logitsKept, lossTransient, stageLayers.last, virtualStages, weightBytes };
        std::vector<MemorySample> timeline;
        double dynamicPeak = 0;
        std::array<double, kMemoryCategoryCount> computeBreakdown = base;
        const double computePeak = replaySchedule(inputs,
            parallel::pipelineSteps(parallel.schedule, parallel.pp, stage, microBatches, virtualStages), profile,
            memory, computeBreakdown, timeline, dynamicPeak);
        const int index = static_cast<int>(timeline.size());
        memory.computePeakBytes = computePeak;

        // Optimizer phase: activations are freed; ZeRO-1/2 gathers the updated parameters through flat buffers.
        double optimizerTransient = 0;
        if (zero >= 1 && zero <= 2 && parallel.dp > 1) {
            optimizerTransient = params * (profile.zeroGatherBytesPerParameter + weightBytes / dp);
        }
        memory.optimizerPeakBytes = staticBytes + optimizerTransient;
        memory.breakdown = computeBreakdown;
        if (memory.optimizerPeakBytes > memory.computePeakBytes) {
            memory.breakdown = base;
            at(memory.breakdown, MemoryCategory::Transient) = optimizerTransient;
        }
        // Short-lived blocks fragment the allocator's pool; the gather buffers come on top of the cached blocks.
        memory.reservedPeakBytes = staticBytes + profile.fragmentation * dynamicPeak + optimizerTransient;
        timeline.push_back({ index, memory.optimizerPeakBytes });
        estimate.timelines.push_back(std::move(timeline));

        const double needed = memory.reservedPeakBytes;
        if (needed > worst) {
            worst = needed;
            estimate.peakStage = stage;
            estimate.breakdown = memory.breakdown;
            estimate.peakAllocatedBytes = memory.peakAllocatedBytes();
            estimate.inFlightMicroBatches = memory.inFlightMicroBatches;
        }
        estimate.stages.push_back(memory);
    }
    return estimate;
}

} // namespace

MemoryEstimate estimateMemory(const ModelSpec& model, const config::GpuSpec& gpu, const RunSpec& run)
{
    const FrameworkProfile profile = frameworkProfile(run.framework);
    MemoryEstimate estimate = run.mode == config::RunMode::Training ? estimateTraining(model, gpu, run, profile)
                                                                    : estimateInference(model, gpu, run, profile);
    const StageMemory& worst = estimate.stages[static_cast<size_t>(estimate.peakStage)];
    const double reserved = std::max(worst.reservedPeakBytes, estimate.peakAllocatedBytes);
    const double overhead = profile.nonAllocatorBytes + (reserved - estimate.peakAllocatedBytes);
    estimate.breakdown[static_cast<size_t>(MemoryCategory::Overhead)] = overhead;
    estimate.peakBytes = estimate.peakAllocatedBytes + overhead;
    estimate.marginBytes = estimate.capacityBytes - estimate.peakBytes;
    estimate.fits = estimate.marginBytes >= 0;
    return estimate;
}

} // namespace rapid::memory
