// SPDX-License-Identifier: GPL-3.0-or-later
#include "memorymodel.h"

#include "memory/activationmemory.h"
#include "model/modelstats.h"
#include "parallel/pipelineschedule.h"
#include "parallel/shardingplan.h"

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

double parametersOnStage(const ModelSpec& model, const RunSpec& run, int stage)
{
    return parallel::planSharding(model, run).stageShares.at(static_cast<size_t>(stage)).parameters;
}

namespace {

/// What the caching allocator has reserved when @p activePeakBytes of live tensors is its peak: the fragmentation
/// ratio is the share of the reserved peak no live tensor holds (FrameworkProfile::poolFragmentation).
double reservedForActivePeak(double activePeakBytes, const FrameworkProfile& profile)
{
    return activePeakBytes / (1 - profile.poolFragmentation);
}

/// The weights one GPU of a pipeline stage holds for inference. A quantised checkpoint
/// (config::isQuantizedWeightFormat) quantises the linear layers only: the embedding (a lookup), the LM head (excluded
/// by NVIDIA ModelOpt's default quantisation config) and the norms stay in the activations' 16-bit format. The routed
/// experts are stored in their own format where the checkpoint gives them one (precision.expert_weights: gpt-oss's
/// MXFP4 experts beside bf16 attention).
double inferenceWeightBytes(const ModelSpec& model, const RunSpec& run, const parallel::StageShare& share)
{
    const double expertBytes = share.expertParameters * config::bytesPerElement(run.precision.routedExpertWeights());
    const double otherParameters = share.parameters - share.expertParameters;
    const double weightBytes = config::bytesPerElement(run.precision.weights);
    if (!config::isQuantizedWeightFormat(run.precision.weights)) {
        return otherParameters * weightBytes + expertBytes;
    }
    const double layerParameters = otherParameters - share.embeddingParameters - share.headParameters;
    const double norms = std::min(layerParameters, model.layerNormParameters(share.layerCount()));
    const double unquantized = share.embeddingParameters + share.headParameters + norms;
    return (layerParameters - norms) * weightBytes + unquantized * config::bytesPerElement(run.precision.activations)
        + expertBytes;
}

MemoryEstimate estimateInference(const ModelSpec& model, const config::GpuSpec& gpu, const RunSpec& run,
    const parallel::ShardingPlan& plan, const FrameworkProfile& profile)
{
    MemoryEstimate estimate;
    estimate.capacityBytes = gpu.hbmCapacityBytes;
    double worst = -1;
    for (const parallel::StageShare& share : plan.stageShares) {
        const int stage = share.stage;
        std::array<double, kMemoryCategoryCount> breakdown {};
        auto set = [&](MemoryCategory category, double bytes) { breakdown[static_cast<size_t>(category)] = bytes; };
        const int layers = share.layerCount();
        set(MemoryCategory::Weights, inferenceWeightBytes(model, run, share));
        // KV heads split over tp, replicated when tp exceeds them; MLA's latent cache is replicated over tp.
        const double perTokenAllLayers = model::kvCacheBytesPerToken(model, run.precision.kvCache);
        const double kvShare = model.mla
            ? 1.0
            : std::max(1.0, static_cast<double>(model.numKvHeads) / plan.layer.tensor) / model.numKvHeads;
        // Windowed layers keep only the window's keys (vLLM's hybrid KV-cache manager, TensorRT-LLM's cyclic cache).
        const double tokens = static_cast<double>(run.batch)
            * model.attendedContext(static_cast<double>(run.promptLength) + run.decodeLength);
        set(MemoryCategory::KvCache, tokens * perTokenAllLayers * layers / model.numLayers * kvShare);
        set(MemoryCategory::Transient,
            savedActivationsPerLayer(model, run, plan.layer, share.anyMoeLayer, profile).total());
        if (share.last) {
            set(MemoryCategory::Logits, static_cast<double>(run.batch) * model.vocabSize / plan.layer.tensor * 4);
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
        // Weights and the KV cache are allocated once, before the first forward: only the activations churn.
        memory.reservedPeakBytes = memory.staticBytes + reservedForActivePeak(allocated - memory.staticBytes, profile);
        memory.breakdown = breakdown;
        if (memory.reservedPeakBytes > worst) {
            worst = memory.reservedPeakBytes;
            estimate.breakdown = breakdown;
            estimate.peakStage = stage;
            estimate.peakAllocatedBytes = allocated;
        }
        estimate.stages.push_back(memory);
    }
    return estimate;
}

/// What one GPU of a stage holds from the first step to the last: weights, gradients, master weights and optimizer
/// states (each sharded over dp by the ZeRO stage that shards it), and the communication buffers.
std::array<double, kMemoryCategoryCount> staticMemory(const ModelSpec& model, const RunSpec& run,
    const parallel::ShardingPlan& plan, const FrameworkProfile& profile, const parallel::StageShare& share,
    double tokens)
{
    const double params = share.parameters;
    // What one rank keeps of the stage's parameters once ZeRO stage @p zero shards them (experts apart); of the
    // trainable ones for gradients, master weights and optimizer states (all of them but under LoRA).
    const auto kept = [&](int zero) { return plan.parametersPerShard(params, share.expertParameters, zero); };
    const auto keptTrainable = [&](int zero) {
        return plan.parametersPerShard(share.trainableParameters, plan.lora ? 0.0 : share.expertParameters, zero);
    };
    const config::PrecisionSpec& precision = run.precision;
    const double weightBytes = config::bytesPerElement(precision.weights);
    const double gradientBytes = config::bytesPerElement(precision.gradients);
    const double optimizerBytes = config::bytesPerElement(precision.optimizer);
    const double activationBytes = config::bytesPerElement(precision.activations);
    std::array<double, kMemoryCategoryCount> base {};
    auto at = [&base](MemoryCategory c) -> double& { return base[static_cast<size_t>(c)]; };
    at(MemoryCategory::Weights) = kept(3) * weightBytes;
    at(MemoryCategory::Gradients) = keptTrainable(2) * gradientBytes;
    if (precision.masterWeights && optimizerBytes > weightBytes) {
        at(MemoryCategory::MasterWeights) = keptTrainable(1) * optimizerBytes;
        if (profile.shardedParametersAreMaster && plan.gathersLayerParameters()) {
            // The trainable shards are the master copies and the gathered ones GatheredParameters; frozen
            // parameters (LoRA's base) have no master copy, so their shards stay in the weight precision.
            at(MemoryCategory::Weights) = (kept(3) - keptTrainable(3)) * weightBytes;
        }
    }
    at(MemoryCategory::OptimizerStates) = 2 * keptTrainable(1) * optimizerBytes;
    double buffers = 0;
    if (profile.ddpBucketWithoutZero && plan.allReducesFullGradients()) {
        buffers += share.trainableParameters * weightBytes;
    }
    if (plan.layer.tensor > 1) {
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
    /// Bytes of gradients alive at the end of each chunk's backward beyond the gradient buffer (see
    /// gradientTransients).
    const std::vector<double>& chunkGradientTransient;
    double layerBackwardTransient = 0;
    double logitsKept = 0;
    double lossTransient = 0;
    bool last = false;
    int virtualStages = 1;
};

/// Whether step @p i of @p steps is a combined 1F1B forward run beside the backward right after it.
bool coScheduledForward(const std::vector<parallel::PipelineStep>& steps, size_t i)
{
    return steps[i].pass == parallel::Pass::Forward && steps[i].coScheduled && i + 1 < steps.size()
        && steps[i + 1].coScheduled && steps[i + 1].pass == parallel::Pass::Backward;
}

/// Replays the stage's forward and backward passes in schedule order: activations saved and freed, the loss's logits,
/// the transients of the backward. Returns the compute-phase peak (static bytes included); fills the breakdown at that
/// peak and the micro-batches in flight then.
double replaySchedule(const StageReplayInputs& in, const std::vector<parallel::PipelineStep>& steps,
    StageMemory& memory, std::array<double, kMemoryCategoryCount>& breakdown)
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
        if (now > computePeak) {
            computePeak = now;
            breakdown = in.base;
            at(breakdown, MemoryCategory::Activations) = activations;
            at(breakdown, MemoryCategory::Logits) = logitsLive;
            at(breakdown, MemoryCategory::Transient) = transient;
            memory.inFlightMicroBatches = inFlight;
        }
    };
    auto holdsLoss = [&](const parallel::PipelineStep& step) { return in.last && step.chunk == in.virtualStages - 1; };
    for (size_t i = 0; i < steps.size(); ++i) {
        const parallel::PipelineStep& step = steps[i];
        const size_t chunk = static_cast<size_t>(step.chunk);
        const bool lossChunk = holdsLoss(step);
        if (coScheduledForward(steps, i)) {
            // Combined 1F1B: the forward runs layer by layer beside the backward after it, which releases each layer's
            // state as it goes (Megatron-Core's TransformerModelChunkSchedulePlan.run, b_layer.release_state()), so
            // the pair holds what it held before or after it, a layer's transients on top: never both passes' saved
            // activations at once.
            const parallel::PipelineStep& backward = steps[i + 1];
            const size_t backwardChunk = static_cast<size_t>(backward.chunk);
            // The micro-batches in flight do not change: one arrives as the other leaves.
            consider(in.layerBackwardTransient);
            activations += in.chunkActivations[chunk] - in.chunkActivations[backwardChunk];
            logitsLive += (lossChunk ? in.logitsKept : 0.0) - (holdsLoss(backward) ? in.logitsKept : 0.0);
            consider(std::max({ in.layerBackwardTransient, in.chunkGradientTransient[backwardChunk],
                lossChunk ? in.lossTransient : 0.0 }));
            ++i;
            continue;
        }
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
            consider(in.chunkGradientTransient[chunk]);
            --inFlight;
        }
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
/// first and last chunks); the largest layer's parameters and backward transient; the largest unit FSDP gathers or
/// reduces at once (a layer, the embedding or the final norm with the LM head).
struct ChunkFigures {
    std::vector<double> activations;
    std::vector<double> parameters;
    std::vector<double> trainableParameters; ///< of parameters, those that train (ShardingPlan::lora)
    double largestLayerParameters = 0;
    double largestUnitParameters = 0;
    double layerBackwardTransient = 0;
};

template <typename LayerFiguresOf>
ChunkFigures chunkFigures(const parallel::StageShare& share, const LayerFiguresOf& layerFigures)
{
    ChunkFigures result;
    for (const auto& chunk : share.chunks) {
        double bytes = 0;
        for (int layer : chunk) {
            const LayerFigures& figures = layerFigures(layer);
            bytes += figures.savedActivations;
            result.layerBackwardTransient = std::max(result.layerBackwardTransient, figures.backwardTransient);
            result.largestLayerParameters = std::max(result.largestLayerParameters, figures.parameters);
        }
        result.activations.push_back(bytes);
    }
    result.parameters = share.chunkParameters; // embedding and LM head in the model's first and last chunks
    result.trainableParameters = share.chunkTrainableParameters;
    result.largestUnitParameters
        = std::max({ result.largestLayerParameters, share.embeddingParameters, share.headParameters });
    return result;
}

/// The gradients alive at the end of each chunk's backward on top of the gradient buffer. Autograd produces them in
/// the weight precision. ZeRO-3/FSDP reduce-scatter them unit by unit as each unit's backward ends: FSDP2 copies a
/// unit's unsharded gradients into one reduce-scatter input in the reduce dtype while they are still allocated
/// (torch/distributed/fsdp/_fully_shard/_fsdp_collectives.py, foreach_reduce), so one unit's gradients exist in both
/// precisions, never a whole chunk's. Otherwise (and under pipeline parallelism when the stage stays gathered) the
/// chunk's gradients wait in the weight precision until they are accumulated after its backward.
std::vector<double> gradientTransients(
    const RunSpec& run, const parallel::ShardingPlan& plan, const FrameworkProfile& profile, const ChunkFigures& chunks)
{
    const double weightBytes = config::bytesPerElement(run.precision.weights);
    std::vector<double> result(chunks.parameters.size(), 0.0);
    if (!profile.weightPrecisionGradientTransient) {
        return result;
    }
    const bool perUnit = plan.gathersLayerParameters() && !plan.keepsStageGathered;
    for (size_t chunk = 0; chunk < result.size(); ++chunk) {
        if (plan.lora) { // the adapters' gradients only: a few MB
            result[chunk] = chunks.trainableParameters[chunk] * weightBytes;
            continue;
        }
        result[chunk] = perUnit
            ? chunks.largestUnitParameters * (weightBytes + config::bytesPerElement(run.precision.gradients))
            : chunks.parameters[chunk] * weightBytes;
    }
    return result;
}

MemoryEstimate estimateTraining(const ModelSpec& model, const config::GpuSpec& gpu, const RunSpec& run,
    const parallel::ShardingPlan& plan, const FrameworkProfile& profile)
{
    MemoryEstimate estimate;
    estimate.capacityBytes = gpu.hbmCapacityBytes;
    const config::PrecisionSpec& precision = run.precision;
    const double weightBytes = config::bytesPerElement(precision.weights);
    const double activationBytes = config::bytesPerElement(precision.activations);
    const double sp = plan.layer.sequenceSplit ? plan.layer.tensor : 1;
    const double tokens = localSequence(run, plan.layer) * run.microBatch;
    auto at = [](std::array<double, kMemoryCategoryCount>& b, MemoryCategory c) -> double& {
        return b[static_cast<size_t>(c)];
    };

    // A layer's figures depend only on whether it is a MoE layer: compute each kind once, not per layer and stage
    // (the saved-tensor lists are the costly part of an evaluation otherwise).
    std::array<std::optional<LayerFigures>, 2> figuresByKind;
    auto layerFigures = [&](int layer) -> const LayerFigures& {
        const bool moe = model.moe && layer >= model.moe->denseLayers;
        std::optional<LayerFigures>& figures = figuresByKind[moe ? 1 : 0];
        if (!figures) {
            figures = LayerFigures { savedActivationsPerLayer(model, run, plan.layer, moe, profile).total(),
                backwardTransientPerLayer(model, run, plan.layer, moe, profile), plan.layerParameters[moe ? 1 : 0] };
        }
        return *figures;
    };

    double worst = -1;
    for (const parallel::StageShare& share : plan.stageShares) {
        const int stage = share.stage;
        // Static memory: held from the first step to the last.
        const double params = share.parameters;
        std::array<double, kMemoryCategoryCount> base = staticMemory(model, run, plan, profile, share, tokens);
        const ChunkFigures chunks = chunkFigures(share, layerFigures);
        const std::vector<double>& chunkActivations = chunks.activations;
        const std::vector<double>& chunkParams = chunks.parameters;
        const double largestLayerParams = chunks.largestLayerParameters;
        const double layerBackwardTransient = chunks.layerBackwardTransient;
        if (plan.keepsStageGathered) {
            // The whole stage stays gathered through the step; its gradients accumulate unsharded.
            const double ends = share.embeddingParameters + share.headParameters;
            at(base, MemoryCategory::GatheredParameters)
                = parallel::gatheredParameterBytes(model, run, params - ends, share.layerCount(), ends);
            at(base, MemoryCategory::Gradients)
                = share.trainableParameters * config::bytesPerElement(run.precision.gradients);
        } else if (plan.gathersLayerParameters()) {
            // The unit being computed and the next one (prefetch) are gathered in full; the embedding or the LM head
            // can be the largest unit, next to a layer.
            const double layer = parallel::gatheredParameterBytes(model, run, largestLayerParams, 1, 0);
            const double end = parallel::gatheredParameterBytes(
                model, run, 0, 0, std::max(share.embeddingParameters, share.headParameters));
            at(base, MemoryCategory::GatheredParameters) = std::max(layer, end) + layer;
        }
        double staticBytes = 0;
        for (double bytes : base) {
            staticBytes += bytes;
        }

        // The last stage keeps the final norm and LM-head inputs and the softmax of the loss; computing the loss
        // needs the logits in higher precision for a moment.
        const double vocabularyElements = tokens * model.vocabSize / plan.layer.tensor;
        const double logitsKept = share.last
            ? vocabularyElements * profile.logitsSavedBytes + 2 * tokens * model.hiddenSize * activationBytes / sp
            : 0.0;
        const double lossTransient = share.last ? vocabularyElements * profile.logitsTransientBytes : 0.0;

        StageMemory memory;
        memory.stage = stage;
        memory.staticBytes = staticBytes;
        const std::vector<double> gradientTransient = gradientTransients(run, plan, profile, chunks);
        const StageReplayInputs inputs { base, staticBytes, chunkActivations, chunkParams, gradientTransient,
            layerBackwardTransient, logitsKept, lossTransient, share.last, plan.virtualStages };
        std::array<double, kMemoryCategoryCount> computeBreakdown = base;
        // The shortest schedule that passes through every amount the step's holds: a long pipeline's steady state
        // repeats itself (parallel::memoryEquivalentMicroBatches).
        const double computePeak = replaySchedule(inputs, plan.memorySteps(stage), memory, computeBreakdown);
        memory.computePeakBytes = computePeak;

        // Optimizer phase: activations are freed; ZeRO-1/2 gathers the updated parameters through flat buffers.
        double optimizerTransient = 0;
        if (plan.gathersAfterOptimizer()) {
            optimizerTransient = params * profile.zeroGatherBytesPerParameter
                + plan.parametersPerShard(params, share.expertParameters, 1) * weightBytes;
        }
        memory.optimizerPeakBytes = staticBytes + optimizerTransient;
        memory.breakdown = computeBreakdown;
        if (memory.optimizerPeakBytes > memory.computePeakBytes) {
            memory.breakdown = base;
            at(memory.breakdown, MemoryCategory::Transient) = optimizerTransient;
        }
        // The allocator's peak of live tensors is the compute phase's or the optimizer phase's, whichever is larger.
        memory.reservedPeakBytes
            = reservedForActivePeak(std::max(memory.computePeakBytes, memory.optimizerPeakBytes), profile);

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
    return estimateMemory(model, gpu, run, parallel::planSharding(model, run));
}

MemoryEstimate estimateMemory(
    const ModelSpec& model, const config::GpuSpec& gpu, const RunSpec& run, const parallel::ShardingPlan& plan)
{
    const FrameworkProfile profile = frameworkProfile(run);
    MemoryEstimate estimate = run.mode == config::RunMode::Training ? estimateTraining(model, gpu, run, plan, profile)
                                                                    : estimateInference(model, gpu, run, plan, profile);
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
