// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "servingengine.h"

#include <span>
#include <utility>
#include <vector>

namespace rapid::serving {

/// Mean and percentiles of one latency over the requests (seconds; percentiles interpolate linearly between order
/// statistics, as numpy's default does).
struct LatencyStats {
    double mean = 0;
    double p50 = 0;
    double p90 = 0;
    double p99 = 0;
    double max = 0;
};
LatencyStats latencyStats(std::vector<double> values);
/// A latency of @p weight equal samples (the requests of that many identical replicas).
struct WeightedValue {
    double value = 0;
    double weight = 1;
};
LatencyStats latencyStats(std::vector<WeightedValue> values);

/// Service-level objectives a request must meet to count towards goodput (0: no limit).
struct ServingSlo {
    double ttftSeconds = 0;
    double itlSeconds = 0;
};

/// What a serving simulation of every replica amounts to.
struct ServingSummary {
    int requests = 0; ///< over all replicas
    int replicas = 1; ///< data-parallel replicas, each serving its share of the workload
    int gpus = 1;
    LatencyStats ttft;
    LatencyStats itl; ///< per request: mean time between its output tokens (TPOT)
    LatencyStats e2e;
    double durationSeconds = 0; ///< until the last request finished
    double requestsPerSecond = 0;
    double outputTokensPerSecond = 0; ///< all replicas
    double outputTokensPerSecondPerGpu = 0;
    double outputTokensPerSecondPerUser = 0; ///< 1 / mean ITL: how fast one user sees tokens
    double sloAttainment = 1; ///< share of requests meeting the SLOs
    double goodputRequestsPerSecond = 0; ///< requests meeting the SLOs per second, all replicas
    int preemptions = 0; ///< over all replicas
    int swapOuts = 0; ///< preemptions that swapped the KV cache to the host, over all replicas
    double swapSeconds = 0; ///< time one replica (the busiest) spent copying KV blocks to and from the host
    int iterations = 0; ///< of one replica
    double meanBatchedTokens = 0; ///< tokens per iteration
    double peakKvOccupancy = 0; ///< largest share of the KV-cache blocks in use
    double prefixCacheHitRate = 0; ///< share of the prompt tokens taken from the prefix cache
};

/// Summarises one replica's @p trace as @p replicas identical replicas on @p gpus GPUs in all.
ServingSummary summarise(const ServingTrace& trace, int replicas, int gpus, const ServingSlo& slo);

/// Replica traces, each standing for that many identical replicas, the busiest first.
using ReplicaTraces = std::vector<std::pair<const ServingTrace*, int>>;
/// Summarises replicas that served different shares (clients or requests that do not split evenly): every request of
/// a trace counts as many times as the replicas it stands for, throughput runs from the first measured arrival to the
/// last finish over all of them, and the iterations, batch and KV occupancy are the first (busiest) trace's.
ServingSummary summarise(std::span<const ReplicaTraces::value_type> traces, int gpus, const ServingSlo& slo);

} // namespace rapid::serving
