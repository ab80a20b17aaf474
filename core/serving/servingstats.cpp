// SPDX-License-Identifier: GPL-3.0-or-later
#include "servingstats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace rapid::serving {

LatencyStats latencyStats(std::vector<double> values)
{
    std::vector<WeightedValue> weighted;
    weighted.reserve(values.size());
    for (const double value : values) {
        weighted.push_back({ value, 1 });
    }
    return latencyStats(std::move(weighted));
}

LatencyStats latencyStats(std::vector<WeightedValue> values)
{
    LatencyStats stats;
    double count = 0;
    double total = 0;
    for (const WeightedValue& v : values) {
        count += v.weight;
        total += v.value * v.weight;
    }
    if (values.empty() || count <= 0) {
        return stats;
    }
    std::sort(
        values.begin(), values.end(), [](const WeightedValue& a, const WeightedValue& b) { return a.value < b.value; });
    // A value of weight w stands for w equal samples: the samples' order statistics are the values repeated, and the
    // quantile interpolates between the two order statistics around its position, as numpy's default does.
    const auto orderStatistic = [&values](double index) {
        double seen = 0;
        for (const WeightedValue& v : values) {
            seen += v.weight;
            if (index < seen) {
                return v.value;
            }
        }
        return values.back().value;
    };
    const auto at = [&](double quantile) {
        const double position = quantile * (count - 1);
        const double below = std::floor(position);
        const double above = std::min(count - 1, below + 1);
        const double low = orderStatistic(below);
        return low + (orderStatistic(above) - low) * (position - below);
    };
    stats.mean = total / count;
    stats.p50 = at(0.5);
    stats.p90 = at(0.9);
    stats.p99 = at(0.99);
    stats.max = values.back().value;
    return stats;
}

ServingSummary summarise(const ServingTrace& trace, int replicas, int gpus, const ServingSlo& slo)
{
    const ReplicaTraces one { { &trace, replicas } };
    return summarise(one, gpus, slo);
}

ServingSummary summarise(std::span<const ReplicaTraces::value_type> traces, int gpus, const ServingSlo& slo)
{
    ServingSummary summary;
    summary.gpus = gpus;
    summary.replicas = 0;
    // Identical replicas have the same percentiles as one of them: their requests weigh one each then, and only
    // replicas of different shares weigh theirs by the replicas they stand for.
    const bool alike = traces.size() == 1;
    std::vector<WeightedValue> ttft;
    std::vector<WeightedValue> itl;
    std::vector<WeightedValue> e2e;
    double outputTokens = 0;
    double good = 0;
    double measuredCount = 0;
    double promptTokens = 0;
    double cachedTokens = 0;
    double windowStart = std::numeric_limits<double>::infinity();
    double windowEnd = 0;
    for (const auto& [trace, replicas] : traces) {
        summary.replicas += replicas;
        const double weight = replicas;
        const double sampleWeight = alike ? 1.0 : weight;
        // The warm-up requests leave every statistic out, throughput included: it counts the measured requests'
        // tokens from the first measured arrival to the end.
        const auto measured = trace->requests.begin()
            + std::min<std::ptrdiff_t>(trace->warmupRequests, static_cast<std::ptrdiff_t>(trace->requests.size()));
        if (measured != trace->requests.end()) {
            windowStart = std::min(windowStart, measured->arrivalSeconds);
        }
        windowEnd = std::max(windowEnd, trace->makespanSeconds);
        summary.requests += static_cast<int>(trace->requests.end() - measured) * replicas;
        for (auto request = measured; request != trace->requests.end(); ++request) {
            ttft.push_back({ request->ttft(), sampleWeight });
            e2e.push_back({ request->e2e(), sampleWeight });
            if (request->outputTokens > 1) {
                itl.push_back({ request->itl(), sampleWeight });
            }
            outputTokens += static_cast<double>(request->outputTokens) * weight;
            const bool meetsTtft = slo.ttftSeconds <= 0 || request->ttft() <= slo.ttftSeconds;
            const bool meetsItl = slo.itlSeconds <= 0 || request->itl() <= slo.itlSeconds;
            good += meetsTtft && meetsItl ? weight : 0;
            measuredCount += weight;
        }
        summary.preemptions += trace->preemptions * replicas;
        summary.swapOuts += trace->swapOuts * replicas;
        for (const RequestRecord& request : trace->requests) {
            promptTokens += static_cast<double>(request.promptTokens) * weight;
        }
        cachedTokens += static_cast<double>(trace->cachedPromptTokens) * weight;
    }
    summary.ttft = latencyStats(std::move(ttft));
    summary.itl = latencyStats(std::move(itl));
    summary.e2e = latencyStats(std::move(e2e));
    summary.durationSeconds = windowEnd - (std::isfinite(windowStart) ? windowStart : 0);
    if (summary.durationSeconds > 0) {
        summary.requestsPerSecond = summary.requests / summary.durationSeconds;
        summary.outputTokensPerSecond = outputTokens / summary.durationSeconds;
        summary.goodputRequestsPerSecond = good / summary.durationSeconds;
    }
    summary.outputTokensPerSecondPerGpu = summary.outputTokensPerSecond / gpus;
    summary.outputTokensPerSecondPerUser = summary.itl.mean > 0 ? 1 / summary.itl.mean : 0;
    summary.sloAttainment = measuredCount <= 0 ? 1 : good / measuredCount;
    summary.prefixCacheHitRate = promptTokens > 0 ? cachedTokens / promptTokens : 0;
    // The iterations are the first (busiest) replica's: the one whose trace a result keeps.
    if (!traces.empty()) {
        const ServingTrace& first = *traces.front().first;
        summary.iterations = static_cast<int>(first.iterations.size());
        summary.swapSeconds = first.swapSeconds;
        double batched = 0;
        for (const OccupancySample& sample : first.iterations) {
            batched += static_cast<double>(sample.batchedTokens);
            if (first.kvBlocks > 0) {
                summary.peakKvOccupancy = std::max(summary.peakKvOccupancy,
                    static_cast<double>(sample.usedBlocks) / static_cast<double>(first.kvBlocks));
            }
        }
        summary.meanBatchedTokens
            = first.iterations.empty() ? 0 : batched / static_cast<double>(first.iterations.size());
    }
    return summary;
}

} // namespace rapid::serving
