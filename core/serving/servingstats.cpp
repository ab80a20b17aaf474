// SPDX-License-Identifier: GPL-3.0-or-later
#include "servingstats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace rapid::serving {

LatencyStats latencyStats(std::vector<double> values)
{
    LatencyStats stats;
    if (values.empty()) {
        return stats;
    }
    std::sort(values.begin(), values.end());
    const auto at = [&values](double quantile) {
        const double position = quantile * static_cast<double>(values.size() - 1);
        const auto below = static_cast<std::size_t>(std::floor(position));
        const std::size_t above = std::min(values.size() - 1, below + 1);
        return values[below] + (values[above] - values[below]) * (position - static_cast<double>(below));
    };
    stats.mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
    stats.p50 = at(0.5);
    stats.p90 = at(0.9);
    stats.p99 = at(0.99);
    stats.max = values.back();
    return stats;
}

ServingSummary summarise(const ServingTrace& trace, int replicas, int gpus, const ServingSlo& slo)
{
    ServingSummary summary;
    summary.replicas = replicas;
    summary.gpus = gpus;
    // The warm-up requests leave every statistic out, throughput included: it counts the measured requests' tokens
    // from the first measured arrival to the end.
    const auto measured = trace.requests.begin()
        + std::min<std::ptrdiff_t>(trace.warmupRequests, static_cast<std::ptrdiff_t>(trace.requests.size()));
    const double windowStart = measured == trace.requests.end() ? 0 : measured->arrivalSeconds;
    summary.requests = static_cast<int>(trace.requests.end() - measured) * replicas;
    std::vector<double> ttft;
    std::vector<double> itl;
    std::vector<double> e2e;
    double outputTokens = 0;
    int good = 0;
    for (auto request = measured; request != trace.requests.end(); ++request) {
        ttft.push_back(request->ttft());
        e2e.push_back(request->e2e());
        if (request->outputTokens > 1) {
            itl.push_back(request->itl());
        }
        outputTokens += static_cast<double>(request->outputTokens);
        const bool meetsTtft = slo.ttftSeconds <= 0 || request->ttft() <= slo.ttftSeconds;
        const bool meetsItl = slo.itlSeconds <= 0 || request->itl() <= slo.itlSeconds;
        good += meetsTtft && meetsItl ? 1 : 0;
    }
    const std::size_t count = ttft.size();
    summary.ttft = latencyStats(std::move(ttft));
    summary.itl = latencyStats(std::move(itl));
    summary.e2e = latencyStats(std::move(e2e));
    summary.durationSeconds = trace.makespanSeconds - windowStart;
    if (summary.durationSeconds > 0) {
        summary.requestsPerSecond = summary.requests / summary.durationSeconds;
        summary.outputTokensPerSecond = outputTokens * replicas / summary.durationSeconds;
        summary.goodputRequestsPerSecond = static_cast<double>(good) * replicas / summary.durationSeconds;
    }
    summary.outputTokensPerSecondPerGpu = summary.outputTokensPerSecond / gpus;
    summary.outputTokensPerSecondPerUser = summary.itl.mean > 0 ? 1 / summary.itl.mean : 0;
    summary.sloAttainment = count == 0 ? 1 : static_cast<double>(good) / static_cast<double>(count);
    summary.preemptions = trace.preemptions * replicas;
    double promptTokens = 0;
    for (const RequestRecord& request : trace.requests) {
        promptTokens += static_cast<double>(request.promptTokens);
    }
    summary.prefixCacheHitRate = promptTokens > 0 ? static_cast<double>(trace.cachedPromptTokens) / promptTokens : 0;
    summary.iterations = static_cast<int>(trace.iterations.size());
    double batched = 0;
    for (const OccupancySample& sample : trace.iterations) {
        batched += static_cast<double>(sample.batchedTokens);
        if (trace.kvBlocks > 0) {
            summary.peakKvOccupancy = std::max(
                summary.peakKvOccupancy, static_cast<double>(sample.usedBlocks) / static_cast<double>(trace.kvBlocks));
        }
    }
    summary.meanBatchedTokens = trace.iterations.empty() ? 0 : batched / static_cast<double>(trace.iterations.size());
    return summary;
}

} // namespace rapid::serving
