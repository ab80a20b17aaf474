// SPDX-License-Identifier: GPL-3.0-or-later
#include "servingsimulator.h"

#include "stepiterationcost.h"

#include "memory/memorymodel.h"
#include "sim/stepmodel.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <stdexcept>

namespace rapid::serving {

void checkServingWorkload(const config::Scenario& scenario, const WorkloadSpec& workload, const EngineOptions& options)
{
    const auto fail = [](const std::string& what) { throw std::invalid_argument(what); };
    std::vector<RequestSpec> lengths = workload.trace;
    if (workload.arrival != ArrivalKind::Trace) {
        lengths = { RequestSpec { 0, workload.promptTokens, workload.outputTokens } };
    }
    for (const RequestSpec& request : lengths) {
        if (request.promptTokens < 1 || request.outputTokens < 1) {
            fail("input and output lengths must be at least 1 token");
        }
        const std::int64_t context = scenario.model.maxContext;
        if (context > 0 && request.promptTokens + request.outputTokens > context) {
            fail("a request of " + std::to_string(request.promptTokens) + " + " + std::to_string(request.outputTokens)
                + " tokens is longer than the model's context (" + std::to_string(context) + ")");
        }
        if (!options.chunkedPrefill && request.promptTokens + request.outputTokens > options.maxNumBatchedTokens) {
            fail("without chunked prefill a request of " + std::to_string(request.promptTokens + request.outputTokens)
                + " tokens does not fit max_num_batched_tokens (" + std::to_string(options.maxNumBatchedTokens) + ")");
        }
    }
}

const char* toString(EngineProfile profile)
{
    return profile == EngineProfile::TrtLlm ? "trtllm" : "vllm";
}

EngineOptions engineDefaults(EngineOptions options, const config::GpuSpec& gpu)
{
    if (options.profile == EngineProfile::TrtLlm) {
        options.maxNumBatchedTokens = options.maxNumBatchedTokens == 0 ? 8192 : options.maxNumBatchedTokens;
        options.maxNumSeqs = options.maxNumSeqs == 0 ? 2048 : options.maxNumSeqs;
        return options;
    }
    constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
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

KvCapacity kvCapacity(const config::Scenario& scenario, const EngineOptions& given)
{
    const EngineOptions options = engineDefaults(given, scenario.hardware.gpu);
    // The memory model's inference peak for one prompt of max_num_batched_tokens and one output token: weights, one
    // layer's prefill activations, the memory outside the allocator, and that sequence's KV cache.
    config::RunSpec run = scenario.run;
    run.batch = 1;
    run.promptLength = options.maxNumBatchedTokens;
    run.decodeLength = 1;
    const memory::MemoryEstimate estimate = memory::estimateMemory(scenario.model, scenario.hardware.gpu, run);
    const double kvBytes = estimate.bytes(memory::MemoryCategory::KvCache);
    KvCapacity capacity;
    capacity.bytesPerTokenPerGpu = kvBytes / static_cast<double>(run.promptLength + run.decodeLength);
    const double rest = estimate.peakBytes - kvBytes;
    capacity.freeBytesPerGpu = options.profile == EngineProfile::TrtLlm
        ? options.gpuMemoryUtilization * (scenario.hardware.gpu.hbmCapacityBytes - rest)
        : options.gpuMemoryUtilization * scenario.hardware.gpu.hbmCapacityBytes - rest;
    const double blockBytes = capacity.bytesPerTokenPerGpu * options.blockSize;
    capacity.blocks = capacity.freeBytesPerGpu > 0 && blockBytes > 0
        ? static_cast<std::int64_t>(std::floor(capacity.freeBytesPerGpu / blockBytes))
        : 0;
    return capacity;
}

ServingResult simulateServing(const config::Scenario& scenario, WorkloadSpec workload, EngineOptions options,
    const ServingSlo& slo, sim::NetworkBackend backend)
{
    if (scenario.run.mode != config::RunMode::Inference) {
        throw std::invalid_argument("run.mode: serving needs an inference run");
    }
    options = engineDefaults(options, scenario.hardware.gpu);
    checkServingWorkload(scenario, workload, options);
    sim::StepModel stepModel(scenario, backend);
    const int replicas = stepModel.plan().sharding.dataParallel;
    if (workload.arrival == ArrivalKind::ClosedLoop && workload.concurrency % replicas != 0) {
        throw std::invalid_argument("concurrency " + std::to_string(workload.concurrency) + " is not a multiple of the "
            + std::to_string(replicas) + " data-parallel replicas");
    }
    if (workload.arrival != ArrivalKind::Trace && workload.requests % replicas != 0) {
        throw std::invalid_argument("requests " + std::to_string(workload.requests) + " is not a multiple of the "
            + std::to_string(replicas) + " data-parallel replicas");
    }
    if (workload.arrival == ArrivalKind::Trace && replicas > 1) {
        throw std::invalid_argument("a request trace is served by one replica: set run.parallelism.dp to 1");
    }
    workload.concurrency /= replicas;
    workload.requests /= replicas;
    workload.warmupRequests /= replicas;
    workload.ratePerSecond /= replicas;

    ServingResult result;
    result.capacity = kvCapacity(scenario, options);
    if (options.kvBlocks == 0) {
        if (result.capacity.blocks <= 0) {
            throw std::invalid_argument("no room for a KV cache: the weights and activations take "
                + std::to_string(options.gpuMemoryUtilization) + " of the GPU memory or more");
        }
        options.kvBlocks = result.capacity.blocks;
    }
    StepIterationCost cost(stepModel);
    result.trace = simulateServing(workload, options, cost);
    result.summary = summarise(result.trace, replicas, stepModel.placement().ranks, slo);
    result.options = options;
    return result;
}

} // namespace rapid::serving
