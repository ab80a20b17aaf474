// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "iterationcost.h"
#include "servingengine.h"
#include "servingsimulator.h"
#include "servingstats.h"

#include "config/configloader.h"
#include "sim/stepbackend.h"

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

namespace rapid::serving {

/// One pool of identical workers (replicas) of a disaggregated deployment.
struct ServingPool {
    int workers = 1;
    EngineOptions options; ///< kvBlocks and the budgets set (engineDefaults, kvCapacity)
    IterationCost* cost = nullptr; ///< the iteration time of one worker (shared by the pool's workers)
};

/// Seconds to move the KV cache of a prompt of @p promptTokens from prefill worker @p prefillWorker to decode worker
/// @p decodeWorker.
using KvTransferTime = std::function<double(int prefillWorker, int decodeWorker, std::int64_t promptTokens)>;

/// Serves @p workload on a disaggregated deployment (NVIDIA Dynamo, TensorRT-LLM and vLLM disaggregated serving): every
/// request is prefilled by one prefill worker (its chunked-prefill scheduler, without decodes in its batches), which
/// samples the first token; its KV cache then moves to a decode worker (@p transfer), and the decode worker, which
/// takes the prompt's KV blocks at admission, generates the rest. The first token reaches the client with the
/// hand-over: TTFT = prefill end + KV transfer. Requests go to the worker of a pool with the fewest requests running,
/// waiting or on their way (ties: the lowest index), as the router sees the workers' states at their last iteration. A
/// prefill worker frees a prompt's blocks when its first token is sampled (the transfer reads a staged copy); a
/// preempted decode request is recomputed on its decode worker. Closed loops, open loops, traces, ramps and warm-ups as
/// simulateServing. The trace holds every request, the KV occupancy of decode worker 0 and the preemptions of all.
/// Throws std::invalid_argument when a request can never fit a worker's KV cache.
ServingTrace simulateDisaggregated(const WorkloadSpec& workload, const ServingPool& prefill, const ServingPool& decode,
    const KvTransferTime& transfer);

/// A disaggregated deployment of scenarios: each pool's scenario is the model on the cluster with that pool's worker
/// parallelism (tp, pp) and its data-parallel degree filling the cluster (its replicas are the places a worker can
/// take). Prefill workers take the cluster's first GPUs, worker after worker, and decode workers the next ones.
struct DisaggregatedSpec {
    config::Scenario prefill;
    int prefillWorkers = 1;
    EngineOptions prefillOptions;
    config::Scenario decode;
    int decodeWorkers = 1;
    EngineOptions decodeOptions;
};

struct DisaggregatedResult {
    ServingSummary summary; ///< over both pools: GPUs = prefill and decode GPUs together
    ServingTrace trace;
    EngineOptions prefillOptions; ///< as used (kvBlocks derived)
    EngineOptions decodeOptions;
    KvCapacity prefillCapacity;
    KvCapacity decodeCapacity;
    int prefillGpusPerWorker = 0;
    int decodeGpusPerWorker = 0;
    double meanKvTransferSeconds = 0; ///< over the requests handed over

    /// As a ServingResult for what prints, writes and draws one: the summary and trace, the decode pool's engine.
    ServingResult servingResult() const { return { summary, trace, decodeOptions, decodeCapacity }; }
};

/// Serves @p workload on @p spec. The KV transfer of a prompt is a point-to-point transfer on the cluster's network
/// (the analytical model, faults included) from the prefill worker's first GPU to the decode worker's: every GPU of
/// both workers moves its share at once, so the bytes of one transfer are the prompt's KV bytes per GPU of the
/// worker holding more per GPU. Throws std::invalid_argument naming the knob: pools larger than the cluster, workers
/// not fitting a node, a scenario that is not an inference run, a workload the engines cannot hold.
DisaggregatedResult simulateDisaggregated(const DisaggregatedSpec& spec, const WorkloadSpec& workload,
    const ServingSlo& slo = {}, sim::NetworkBackend backend = sim::NetworkBackend::Analytical);

/// One split of a pool-ratio sweep and what serving on it amounts to.
struct PoolSplitPoint {
    int prefillWorkers = 1;
    int decodeWorkers = 1;
    ServingSummary summary;
    double meanKvTransferSeconds = 0;
    bool pareto = false; ///< on the sweep's front of tokens/s per GPU against tokens/s per user (paretoFront)
};

/// Serves @p workload on @p base with every (prefill workers, decode workers) split of @p splits, in order; the
/// scenarios and engine options stay @p base's. Throws std::invalid_argument as simulateDisaggregated does, naming the
/// split, or for no split.
std::vector<PoolSplitPoint> sweepPoolSplits(const DisaggregatedSpec& base,
    const std::vector<std::pair<int, int>>& splits, const WorkloadSpec& workload, const ServingSlo& slo = {},
    sim::NetworkBackend backend = sim::NetworkBackend::Analytical);

} // namespace rapid::serving
