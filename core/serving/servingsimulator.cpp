// SPDX-License-Identifier: GPL-3.0-or-later
#include "servingsimulator.h"

#include "replicashares.h"
#include "servingengine.h"
#include "speculation.h"
#include "stepiterationcost.h"
#include "swaplink.h"

#include "config/units.h"
#include "memory/memorymodel.h"
#include "model/layeroperators.h"
#include "parallel/shardingplan.h"
#include "sim/stepmodel.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <stdexcept>

namespace rapid::serving {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

} // namespace

void checkServingWorkload(const config::Scenario& scenario, const WorkloadSpec& workload, const EngineOptions& options)
{
    const auto fail = [](const std::string& what) { throw std::invalid_argument(what); };
    // Checked before anything is drawn: a deviation that is not a number, or a mean below the least length a draw
    // may take, would draw for ever.
    if (!(workload.burstiness >= kMinBurstiness && workload.burstiness <= kMaxBurstiness) || workload.thinning < 1) {
        fail("the arrivals' burstiness must be from " + config::formatNumber(kMinBurstiness) + " to "
            + config::formatNumber(kMaxBurstiness));
    }
    if (!(workload.promptTokensStddev >= 0 && workload.promptTokensStddev <= kMaxTokensStddev)
        || !(workload.outputTokensStddev >= 0 && workload.outputTokensStddev <= kMaxTokensStddev)) {
        fail("the lengths' standard deviations must be from 0 to "
            + std::to_string(static_cast<long long>(kMaxTokensStddev)) + " tokens");
    }
    if (workload.promptPool < 0 || workload.promptPool > kMaxPromptPool) {
        fail("the prompt pool must hold from 0 (every prompt its own) to " + std::to_string(kMaxPromptPool)
            + " prompts");
    }
    if (workload.promptPool > 0 && workload.arrival == ArrivalKind::Trace) {
        fail("a prompt pool draws the prompts of clients or of arrivals at a rate; a trace names its shared prefixes "
             "by prefix_id");
    }
    if (workload.promptPool > 0 && workload.sharedPrefixTokens > 0) {
        fail("a prompt pool's requests share whole prompts; a shared prefix across the pool is not modelled with it");
    }
    const bool spread = workload.promptTokensStddev > 0 || workload.outputTokensStddev > 0;
    if (spread && workload.arrival != ArrivalKind::Trace
        && (workload.promptTokens < std::max<std::int64_t>(1, workload.sharedPrefixTokens)
            || workload.outputTokens < 1)) {
        fail("spread lengths need means of at least 1 token, the prompt's at least the shared prefix");
    }
    std::vector<RequestSpec> lengths = workload.trace;
    if (workload.arrival != ArrivalKind::Trace) {
        // Spread lengths are checked as drawn: the draws are the seed's, so a run that passes here is the run served.
        lengths = spread ? workloadRequests(workload)
                         : std::vector<RequestSpec> { RequestSpec { 0, workload.promptTokens, workload.outputTokens } };
    }
    // An hour per iteration is no engine: the bound keeps a typo (a unit lost) from running for ever.
    const auto hostTime = [&](double seconds, const char* name) {
        if (!std::isfinite(seconds) || seconds < 0 || seconds > 3600) {
            fail(std::string("the engine's host time ") + name + " must be between 0 and 3600 s");
        }
    };
    checkSpeculativeDecoding(options.speculative);
    hostTime(options.host.perIterationSeconds, "per iteration");
    hostTime(options.host.perRequestSeconds, "per request");
    for (const RequestSpec& request : lengths) {
        if (request.promptTokens < 1 || request.outputTokens < 1) {
            fail("input and output lengths must be at least 1 token");
        }
        const std::int64_t context = scenario.model.maxContext;
        if (context > 0 && request.promptTokens + request.outputTokens > context) {
            fail("a request of " + std::to_string(request.promptTokens) + " + " + std::to_string(request.outputTokens)
                + " tokens is longer than the model's context (" + std::to_string(context) + ")"
                + (spread ? " (drawn with the lengths' standard deviations; a smaller spread or another seed)" : ""));
        }
        // Without chunking a prompt is computed in one iteration, and so is a preempted request's prompt and output
        // so far when it is recomputed; an engine that never preempts (guaranteed-no-evict), or swaps what it
        // preempts, needs room for the prompt.
        const bool preempts
            = capacityPolicyOf(options) != CapacityPolicy::GuaranteedNoEvict && options.preemption != Preemption::Swap;
        const std::int64_t unchunked = request.promptTokens + (preempts ? request.outputTokens : 0);
        if (!options.chunkedPrefill && unchunked > options.maxNumBatchedTokens) {
            fail("without chunked prefill a " + std::string(preempts ? "request" : "prompt") + " of "
                + std::to_string(unchunked) + " tokens does not fit max_num_batched_tokens ("
                + std::to_string(options.maxNumBatchedTokens) + ")");
        }
    }
    if (!(options.swapSpaceBytes >= 0 && options.swapSpaceBytes <= kMaxSwapSpaceGiB * kGiB)) {
        fail("the swap space must be from 0 to " + std::to_string(static_cast<int>(kMaxSwapSpaceGiB)) + " GiB per GPU");
    }
    // Only vLLM V0 swaps, and its scheduler mixes prompt chunks and decodes (SGLang retracts and recomputes,
    // TensorRT-LLM's host cache offloads blocks for reuse, not preempted requests).
    if (options.preemption == Preemption::Swap
        && (options.profile != EngineProfile::Vllm || batchingOf(options) != Batching::Mixed)) {
        fail("swap preemption is vLLM V0's: the vllm engine with mixed batching");
    }
    // TensorRT-LLM chunks a prompt in whole KV blocks: an iteration must hold one.
    if (options.profile == EngineProfile::TrtLlm && options.chunkedPrefill
        && options.maxNumBatchedTokens < options.blockSize) {
        fail("TensorRT-LLM chunks prompts in whole KV blocks: max_num_batched_tokens ("
            + std::to_string(options.maxNumBatchedTokens) + ") must hold one block of "
            + std::to_string(options.blockSize) + " tokens");
    }
}

const char* toString(EngineProfile profile)
{
    switch (profile) {
    case EngineProfile::TrtLlm:
        return "trtllm";
    case EngineProfile::Sglang:
        return "sglang";
    case EngineProfile::Vllm:
        break;
    }
    return "vllm";
}

const char* toString(Batching batching)
{
    switch (batching) {
    case Batching::Mixed:
        return "mixed";
    case Batching::PrefillFirst:
        return "prefill-first";
    case Batching::Auto:
        break;
    }
    return "auto";
}

const char* toString(OverlapScheduling overlap)
{
    return overlap == OverlapScheduling::On ? "on" : overlap == OverlapScheduling::Off ? "off" : "auto";
}

const char* toString(CapacityPolicy policy)
{
    switch (policy) {
    case CapacityPolicy::GuaranteedNoEvict:
        return "guaranteed-no-evict";
    case CapacityPolicy::MaxUtilization:
        return "max-utilization";
    case CapacityPolicy::NewTokenRatio:
        return "new-token-ratio";
    case CapacityPolicy::Auto:
        break;
    }
    return "auto";
}

namespace {

/// SGLang's chunked_prefill_size and mem_fraction_static before v0.5.3 (python/sglang/srt/server_args.py at v0.5.1,
/// _handle_gpu_memory_settings and _handle_chunked_prefill_size): the memory kept outside weights and KV cache grows
/// with the GPU's memory and the model-parallel GPUs (activations of a chunk, CUDA-graph buffers), and
/// mem_fraction_static is what is left; chunked_prefill_size 2,048 tokens below 35 GiB, 8,192 below 160 GiB (A100,
/// H100, H200), 16,384 above (B200).
void sglangDefaultsBeforeV053(EngineOptions& options, double memoryGiB, int modelParallelGpus)
{
    const double parallel = modelParallelGpus;
    double reservedGiB = 32;
    if (memoryGiB < 35) {
        reservedGiB = 2.8 + parallel / 10;
    } else if (memoryGiB < 90) {
        reservedGiB = 9.5 + parallel / 2;
    } else if (memoryGiB < 160) {
        reservedGiB = 12 + parallel / 2;
    }
    if (options.gpuMemoryUtilization == 0) {
        options.gpuMemoryUtilization = std::clamp((memoryGiB - reservedGiB) / memoryGiB, 0.01, 1.0);
    }
    if (options.maxNumBatchedTokens == 0) {
        options.maxNumBatchedTokens = memoryGiB < 35 ? 2048 : memoryGiB < 160 ? 8192 : 16384;
    }
}

/// SGLang's chunked_prefill_size and mem_fraction_static since v0.5.3 (server_args.py, _handle_gpu_memory_settings,
/// PR #10975 of 2025-09-27): by GPU memory a chunked_prefill_size (2,048 tokens below 35 GiB, 4,096 below 60, 8,192
/// below 160, 16,384 above) and a cuda_graph_max_bs (8 below 20 GiB; below 35 GiB 24, below 60 GiB 32, below 160 GiB
/// 256, with 4 or more tensor-parallel GPUs 80, 160 and 512; 512 above); the memory kept outside weights and KV cache
/// is then 512 MiB of metadata, 1.5 MiB per token of the prefill chunk (at least 2,048 tokens), 2 MiB per CUDA-graph
/// batch size and 1 GiB per 8 model-parallel GPUs, at least 10 GiB on a GPU of more than 60 GiB, and
/// mem_fraction_static what is left, rounded to 0.001. The tensor-parallel test takes tp x pp: the served models run
/// pp 1.
void sglangDefaultsSinceV053(EngineOptions& options, double memoryGiB, int modelParallelGpus)
{
    const int chunk = memoryGiB < 35 ? 2048 : memoryGiB < 60 ? 4096 : memoryGiB < 160 ? 8192 : 16384;
    const bool wide = modelParallelGpus >= 4;
    const int cudaGraphMaxBatch = memoryGiB < 20 ? 8
        : memoryGiB < 35                         ? (wide ? 80 : 24)
        : memoryGiB < 60                         ? (wide ? 160 : 32)
        : memoryGiB < 160                        ? (wide ? 512 : 256)
                                                 : 512;
    if (options.maxNumBatchedTokens == 0) {
        options.maxNumBatchedTokens = chunk;
    }
    if (options.gpuMemoryUtilization == 0) {
        const double memoryMiB = memoryGiB * 1024;
        double reservedMiB = 512 + std::max(options.maxNumBatchedTokens, 2048) * 1.5 + cudaGraphMaxBatch * 2.0
            + modelParallelGpus / 8.0 * 1024;
        if (memoryMiB > 60 * 1024) {
            reservedMiB = std::max(reservedMiB, 10.0 * 1024);
        }
        options.gpuMemoryUtilization
            = std::clamp(std::round((memoryMiB - reservedMiB) / memoryMiB * 1000) / 1000, 0.01, 1.0);
    }
}

/// SGLang's server defaults for the release @p options names (EngineOptions::sglangBeforeV053). max_running_requests:
/// the request pool's floor of 2,048 (model_runner: min(max(tokens / context x 512, 2048), 4096)), which binds only
/// above 2,048 concurrent requests.
EngineOptions sglangDefaults(EngineOptions options, const config::GpuSpec& gpu, int modelParallelGpus)
{
    const double memoryGiB = gpu.hbmCapacityBytes / kGiB;
    if (options.sglangBeforeV053) {
        sglangDefaultsBeforeV053(options, memoryGiB, modelParallelGpus);
    } else {
        sglangDefaultsSinceV053(options, memoryGiB, modelParallelGpus);
    }
    constexpr int kSglangMaxPrefillTokens = 16384; // server_args.py
    options.maxPrefillTokens = options.maxPrefillTokens == 0 ? kSglangMaxPrefillTokens : options.maxPrefillTokens;
    options.maxNumSeqs = options.maxNumSeqs == 0 ? 2048 : options.maxNumSeqs;
    options.blockSize = options.blockSize == 0 ? 1 : options.blockSize; // page_size: the radix cache keeps tokens
    return options;
}

} // namespace

EngineOptions engineDefaults(EngineOptions options, const config::GpuSpec& gpu, int modelParallelGpus)
{
    options.capacityPolicy = capacityPolicyOf(options);
    options.batching = batchingOf(options);
    options.overlapScheduling = overlapSchedulingOf(options) ? OverlapScheduling::On : OverlapScheduling::Off;
    if (options.profile == EngineProfile::Sglang) {
        return sglangDefaults(options, gpu, modelParallelGpus);
    }
    options.gpuMemoryUtilization = options.gpuMemoryUtilization == 0 ? 0.9 : options.gpuMemoryUtilization;
    options.maxPrefillTokens = 0; // SGLang's knob: vLLM and TensorRT-LLM budget prompts by their token budget alone
    if (options.profile == EngineProfile::TrtLlm) {
        options.maxNumBatchedTokens = options.maxNumBatchedTokens == 0 ? 8192 : options.maxNumBatchedTokens;
        options.maxNumSeqs = options.maxNumSeqs == 0 ? 2048 : options.maxNumSeqs;
        options.blockSize = options.blockSize == 0 ? 32 : options.blockSize; // KvCacheConfig.tokens_per_block
        return options;
    }
    options.blockSize = options.blockSize == 0 ? 16 : options.blockSize; // CacheConfig.block_size on CUDA
    std::string name = gpu.name;
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
    const bool large = gpu.hbmCapacityBytes >= 70 * kGiB && name.find("a100") == std::string::npos;
    if (options.maxNumBatchedTokens == 0) {
        options.maxNumBatchedTokens = large ? 8192 : 2048;
    }
    if (options.maxNumSeqs == 0) {
        options.maxNumSeqs = large ? 1024 : 256;
    }
    return options;
}

int modelParallelGpus(const config::Scenario& scenario)
{
    const config::ParallelismSpec& parallel = scenario.run.parallelism;
    return parallel.tp * parallel.pp;
}

KvLayout kvLayout(const config::ModelSpec& model)
{
    KvLayout layout;
    const int windowed = model.windowedLayerCount();
    if (windowed <= 0) {
        return layout; // one group of every layer
    }
    // Groups of equal size (vLLM's hybrid allocator): the greatest common divisor of the two layer counts.
    const int full = model.numLayers - windowed;
    const int groupLayers = std::gcd(full, windowed);
    layout.fullGroups = full / groupLayers;
    layout.windowedGroups = windowed / groupLayers;
    layout.windowTokens = model.slidingWindow;
    return layout;
}

void requireKvRoom(const KvCapacity& capacity, const std::string& worker)
{
    if (capacity.blocks > 0) {
        return;
    }
    char text[320];
    std::snprintf(text, sizeof text,
        "no room for a KV cache%s%s: %s take %.1f GiB per GPU of the %.1f GiB the engine may use "
        "(gpu_memory_utilization %.2f); more tensor or pipeline parallelism, a smaller model or precision, or a higher "
        "gpu_memory_utilization makes room",
        worker.empty() ? "" : " on a ", worker.empty() ? "" : (worker + " worker").c_str(), capacity.held.c_str(),
        capacity.heldBytesPerGpu / kGiB, capacity.usableBytesPerGpu / kGiB, capacity.gpuMemoryUtilization);
    throw std::invalid_argument(text);
}

KvCapacity kvCapacity(const config::Scenario& scenario, const EngineOptions& given)
{
    const EngineOptions options = engineDefaults(given, scenario.hardware.gpu, modelParallelGpus(scenario));
    // The memory model's inference peak for one prompt of max_num_batched_tokens and one output token: weights, one
    // layer's prefill activations, the memory outside the allocator, and that sequence's KV cache.
    config::RunSpec run = scenario.run;
    run.batch = 1;
    run.promptLength = options.maxNumBatchedTokens;
    run.decodeLength = 1;
    const memory::MemoryEstimate estimate = memory::estimateMemory(scenario.model, scenario.hardware.gpu, run);
    const double kvBytes = estimate.bytes(memory::MemoryCategory::KvCache);
    KvCapacity capacity;
    // The estimate's sequence keeps only the window in sliding-window layers: per token of every layer it is the
    // cache over the tokens those layers attend to.
    capacity.bytesPerTokenPerGpu
        = kvBytes / scenario.model.attendedContext(static_cast<double>(run.promptLength + run.decodeLength));
    capacity.layout = kvLayout(scenario.model);
    double rest = estimate.peakBytes - kvBytes;
    double weights = estimate.bytes(memory::MemoryCategory::Weights);
    if (const int draftLayers = options.speculative.headLayers(); draftLayers > 0) {
        // A draft head's layers keep their weights and a KV cache of their own beside the target's, per token as an
        // average target layer does (its LM head and embedding are the target's).
        const config::ModelSpec& model = scenario.model;
        const double headWeights = draftLayers
            * model::localLayerParameters(model, run, parallel::layerSharding(run), draftHeadIsMoe(model))
            * config::bytesPerElement(run.precision.weights);
        rest += headWeights;
        weights += headWeights;
        capacity.bytesPerTokenPerGpu *= static_cast<double>(model.numLayers + draftLayers) / model.numLayers;
    }
    const double hbm = scenario.hardware.gpu.hbmCapacityBytes;
    capacity.gpuMemoryUtilization = options.gpuMemoryUtilization;
    capacity.heldBytesPerGpu = rest;
    capacity.usableBytesPerGpu = options.gpuMemoryUtilization * hbm;
    if (options.profile == EngineProfile::TrtLlm) {
        // TensorRT-LLM's free_gpu_memory_fraction is a share of what is free once the rest is allocated.
        capacity.usableBytesPerGpu = hbm;
        capacity.freeBytesPerGpu = options.gpuMemoryUtilization * (hbm - rest);
    } else if (options.profile == EngineProfile::Sglang) {
        // SGLang's reserve (1 - mem_fraction_static) already holds the activations and the CUDA context: the static
        // pool holds the weights and the KV cache.
        capacity.heldBytesPerGpu = weights;
        capacity.held = "the weights";
        capacity.freeBytesPerGpu = capacity.usableBytesPerGpu - capacity.heldBytesPerGpu;
    } else {
        capacity.freeBytesPerGpu = capacity.usableBytesPerGpu - rest;
    }
    // A block holds blockSize tokens of one layer group.
    const double groups = capacity.layout.fullGroups + capacity.layout.windowedGroups;
    const double blockBytes = capacity.bytesPerTokenPerGpu * options.blockSize / groups;
    capacity.blocks = capacity.freeBytesPerGpu > 0 && blockBytes > 0
        ? static_cast<std::int64_t>(std::floor(capacity.freeBytesPerGpu / blockBytes))
        : 0;
    return capacity;
}

config::Scenario engineScenario(config::Scenario scenario, const EngineOptions& options)
{
    constexpr std::int64_t kWidestUnfusedLlama = 4096; // TensorRT-LLM: hidden_size > 4096 enables the fusion
    const bool pytorchBackend = options.profile == EngineProfile::TrtLlm && !options.tensorRtEngine;
    const bool tensorParallel = scenario.run.parallelism.tp > 1;
    // TensorRT-LLM's PyTorch backend: LlamaDecoderLayer fuses with the next GEMM's quantisation when wider than
    // 4,096; Qwen3MoEDecoderLayer fuses both all-reduces with the residual add and RMSNorm (PRE_MOE_FUSION,
    // POST_MOE_FUSION) at any width without quantising, the MoE's only without pipeline stages (left unfused here
    // then: one of the two is not modelled).
    const bool fusedLlama
        = scenario.model.architecture == "LlamaForCausalLM" && scenario.model.hiddenSize > kWidestUnfusedLlama;
    const bool fusedQwen3Moe = scenario.model.architecture == "Qwen3MoeForCausalLM" && scenario.run.parallelism.pp == 1;
    scenario.run.fusedAllReduceNorm = pytorchBackend && tensorParallel && (fusedLlama || fusedQwen3Moe);
    scenario.run.fusedAllReduceQuantises = scenario.run.fusedAllReduceNorm && fusedLlama;
    // vLLM, SGLang and TensorRT-LLM's PyTorch backend hand the residual to their RMSNorm, one kernel with the add; a
    // TensorRT engine's layers are whatever its builder fused, not known here.
    scenario.run.fusedResidualNorm = options.profile != EngineProfile::TrtLlm || pytorchBackend;
    scenario.run.decodeSplitsReducedInKernel = options.profile == EngineProfile::TrtLlm;
    // MXFP4 experts on Blackwell run trtllm-gen's MoE runner (FlashInfer trtllm_fp4_block_scale_moe: routing,
    // gathered GEMM1 with SwiGLU, GEMM2, finalize) in TensorRT-LLM with the MoE backend its gpt-oss deployment guide
    // sets there for latency and throughput (TRTLLM; the API default, CUTLASS, is not modelled) and in vLLM by default
    // (mxfp4.py get_mxfp4_backend on SM100: FlashInfer's trtllm-gen MXFP4 MoE).
    scenario.run.fusedMoeRunner = scenario.model.moe
        && scenario.hardware.gpu.architecture == config::GpuArchitecture::Blackwell
        && scenario.run.precision.routedExpertWeights() == config::Precision::Mxfp4
        && (options.profile == EngineProfile::Vllm || pytorchBackend);
    return scenario;
}

void recordEngineFusions(EngineOptions& options, const config::RunSpec& engineRun)
{
    options.allReduceFused = engineRun.fusedAllReduceNorm;
    options.allReduceQuantises = engineRun.allReduceWritesQuantisedInput(); // the layer model's rule
    options.residualNormFused = engineRun.fusedResidualNorm;
    options.moeRunnerFused = engineRun.fusedMoeRunner;
}

ServingResult simulateServing(const config::Scenario& given, WorkloadSpec workload, EngineOptions options,
    const ServingSlo& slo, sim::NetworkBackend backend)
{
    const config::Scenario scenario = engineScenario(given, options);
    if (scenario.run.mode != config::RunMode::Inference) {
        throw std::invalid_argument("run.mode: serving needs an inference run");
    }
    options = engineDefaults(options, scenario.hardware.gpu, modelParallelGpus(scenario));
    checkServingWorkload(scenario, workload, options);
    sim::StepModel stepModel(scenario, backend);
    const int replicas = stepModel.plan().sharding.dataParallel;
    const std::vector<ReplicaShare> shares = replicaShares(workload, replicas);

    ServingResult result;
    result.capacity = kvCapacity(scenario, options);
    if (options.kvBlocks == 0) {
        requireKvRoom(result.capacity, "");
        options.kvBlocks = result.capacity.blocks;
    }
    options.kvLayout = result.capacity.layout;
    options.swap = swapLink(scenario, options, result.capacity);
    recordEngineFusions(options, scenario.run);
    options.speculative.seed = workload.seed;
    StepIterationCost cost(stepModel, options.speculative); // one memo of iteration times for every share
    std::vector<ServingTrace> traces;
    for (const ReplicaShare& share : shares) {
        traces.push_back(simulateServing(share.workload, options, cost));
    }
    ReplicaTraces weighted;
    for (size_t i = 0; i < shares.size(); ++i) {
        weighted.push_back({ &traces[i], shares[i].replicas });
    }
    result.summary = summarise(weighted, stepModel.placement().ranks, slo);
    result.summary.replicas = replicas; // idle ones (fewer clients than replicas) included
    result.trace = std::move(traces.front()); // the busiest replica's
    result.options = options;
    return result;
}

} // namespace rapid::serving
