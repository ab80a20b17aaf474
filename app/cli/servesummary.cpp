// SPDX-License-Identifier: GPL-3.0-or-later
#include "servesummary.h"

#include "serveoptions.h"

#include "config/units.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace rapid::cli {

namespace {

/// The KV cache of a replica: blocks, tokens of every layer, bytes per token, and the layer groups of a model with
/// sliding-window layers.
void printKvCache(std::ostream& out, const serving::ServingResult& result)
{
    const serving::KvLayout& layout = result.options.kvLayout;
    const std::int64_t groups = layout.fullGroups + layout.windowedGroups;
    out << "kv cache   " << result.options.kvBlocks << " blocks per replica ("
        << result.options.kvBlocks * result.options.blockSize / groups << " tokens of every layer, "
        << config::formatNumber(result.capacity.bytesPerTokenPerGpu) << " B per token per GPU";
    if (layout.windowedGroups > 0) {
        out << "; " << layout.fullGroups << " full-attention and " << layout.windowedGroups
            << " sliding-window layer groups, a block holding " << result.options.blockSize
            << " tokens of one group; a sliding-window group keeps only its " << layout.windowTokens << "-token window";
    }
    out << ")\n";
}

/// A measured figure of the summary: four significant digits, whole numbers from 1,000 up ("11.48", "0.284",
/// "8714"). Values the user typed keep formatNumber's echo.
std::string figureText(double value)
{
    char text[48];
    const double magnitude = std::fabs(value);
    std::snprintf(text, sizeof text, magnitude >= 1000 && magnitude < 1e15 ? "%.0f" : "%.4g", value);
    return text;
}

/// The kernels the engine fuses around its norms and in its MoE (serving::engineScenario), as the summary's engine
/// line says it.
std::string fusionText(const serving::EngineOptions& options)
{
    const std::string moe = options.moeRunnerFused
        ? ", MoE runner (tokens gathered by the first expert GEMM, SwiGLU in its epilogue)"
        : "";
    if (options.allReduceFused) {
        return (options.allReduceQuantises
                       ? ", all-reduces fused with the residual add, RMSNorm and its quantisation for the next GEMM"
                       : ", all-reduces fused with the residual add and RMSNorm")
            + moe;
    }
    return (options.residualNormFused ? ", residual add fused into RMSNorm" : "") + moe;
}

} // namespace

std::string msText(double seconds)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.2f", seconds * 1e3);
    return text;
}

void printWorkloadDraws(std::ostream& out, const serving::WorkloadSpec& workload)
{
    const bool gamma = workload.burstiness != 1; // only open loops take a burstiness
    const bool spread = workload.promptTokensStddev > 0 || workload.outputTokensStddev > 0;
    const bool pooled = workload.promptPool > 0;
    if (!gamma && !spread && !pooled) {
        return;
    }
    out << "workload   ";
    if (gamma) {
        out << "gamma-distributed gaps of shape " << config::formatNumber(workload.burstiness)
            << " (coefficient of variation " << config::formatNumber(1 / std::sqrt(workload.burstiness)) << ")";
    }
    if (spread) {
        out << (gamma ? "; " : "") << "lengths drawn from normal distributions: prompts " << workload.promptTokens
            << " +- " << config::formatNumber(workload.promptTokensStddev) << ", outputs " << workload.outputTokens
            << " +- " << config::formatNumber(workload.outputTokensStddev) << " tokens";
    }
    if (pooled) {
        out << (gamma || spread ? "; " : "") << "prompts drawn from a pool of " << workload.promptPool
            << (spread ? " (lengths drawn once per prompt)" : "")
            << ", a prompt sent again served from the prefix cache";
    }
    out << " (seed " << workload.seed << ")\n";
}

void printSummary(std::ostream& out, const serving::ServingResult& result, std::optional<PoolCounts> pools)
{
    const serving::ServingSummary& s = result.summary;
    out << "engine     max_num_seqs " << result.options.maxNumSeqs << ", max_num_batched_tokens "
        << result.options.maxNumBatchedTokens << prefillBudgetText(result.options) << ", chunked prefill "
        << (result.options.chunkedPrefill ? "on" : "off") << ", block " << result.options.blockSize << " tokens, "
        << serving::toString(result.options.batching) << " batches, admission "
        << serving::toString(result.options.capacityPolicy) << ", overlap scheduler "
        << serving::toString(result.options.overlapScheduling) << fusionText(result.options)
        << hostCostText(result.options.host, result.options.overlapScheduling)
        << speculativeText(result.options.speculative) << preemptionText(result.options) << "\n";
    if (!pools) {
        printKvCache(out, result);
    }
    const std::string servedOn = pools ? std::to_string(pools->prefillWorkers) + " prefill and "
            + std::to_string(pools->decodeWorkers) + " decode worker(s)"
                                       : std::to_string(s.replicas) + " replica(s)";
    out << "served     " << s.requests << " requests on " << servedOn << ", " << s.gpus << " GPUs in "
        << figureText(s.durationSeconds) << " s; " << s.preemptions << " preemptions"
        << (result.options.preemption == serving::Preemption::Swap ? " (" + std::to_string(s.swapOuts)
                       + " swapped out, " + figureText(s.swapSeconds * 1e3) + " ms of copies)"
                                                                   : std::string())
        << ", " << (pools ? "the first decode worker's mean batch " : "mean batch ") << figureText(s.meanBatchedTokens)
        << " tokens, peak KV occupancy " << figureText(s.peakKvOccupancy * 100) << "%";
    if (s.prefixCacheHitRate > 0) {
        out << ", " << figureText(s.prefixCacheHitRate * 100) << "% of prompt tokens from the prefix cache";
    }
    out << "\n";
    out << "latency    (ms)     mean      p50      p90      p99      max\n";
    for (const auto& [name, stats] :
        { std::pair { "TTFT", &s.ttft }, std::pair { "ITL ", &s.itl }, std::pair { "E2E ", &s.e2e } }) {
        char line[160];
        std::snprintf(line, sizeof line, "           %s %9s %8s %8s %8s %8s\n", name, msText(stats->mean).c_str(),
            msText(stats->p50).c_str(), msText(stats->p90).c_str(), msText(stats->p99).c_str(),
            msText(stats->max).c_str());
        out << line;
    }
    out << "throughput " << figureText(s.outputTokensPerSecond) << " output tokens/s ("
        << figureText(s.outputTokensPerSecondPerGpu) << " per GPU, " << figureText(s.outputTokensPerSecondPerUser)
        << " per user), " << figureText(s.requestsPerSecond) << " requests/s\n";
    out << "goodput    " << figureText(s.goodputRequestsPerSecond) << " requests/s meeting the SLOs ("
        << figureText(s.sloAttainment * 100) << "% of requests)\n";
}

/// The loads of a sweep: a comma-separated list given to --concurrency or --rate (nullopt: one load, no sweep).
void printSweep(std::ostream& out, const serving::ServingSweep& sweep)
{
    out << "engine     max_num_seqs " << sweep.options.maxNumSeqs << ", max_num_batched_tokens "
        << sweep.options.maxNumBatchedTokens << prefillBudgetText(sweep.options) << ", chunked prefill "
        << (sweep.options.chunkedPrefill ? "on" : "off") << ", " << sweep.options.kvBlocks << " KV blocks of "
        << sweep.options.blockSize << " tokens per replica, " << serving::toString(sweep.options.batching)
        << " batches, admission " << serving::toString(sweep.options.capacityPolicy) << ", overlap scheduler "
        << serving::toString(sweep.options.overlapScheduling) << fusionText(sweep.options)
        << hostCostText(sweep.options.host, sweep.options.overlapScheduling)
        << speculativeText(sweep.options.speculative) << "\n";
    const bool clients = sweep.load == serving::SweepLoad::Concurrency;
    char line[256];
    std::snprintf(line, sizeof line, "%12s %11s %10s %10s %9s %9s %9s %9s %9s %8s  %s\n",
        clients ? "concurrency" : "rate req/s", "out tok/s", "tok/s/GPU", "tok/s/user", "TTFT p50", "TTFT p99",
        "ITL mean", "ITL p99", "E2E p50", "goodput", "Pareto");
    out << line;
    for (const serving::ServingSweepPoint& point : sweep.points) {
        const serving::ServingSummary& s = point.summary;
        std::snprintf(line, sizeof line, "%12s %11.1f %10.2f %10.2f %9s %9s %9s %9s %9s %8.3f  %s\n",
            config::formatNumber(point.load).c_str(), s.outputTokensPerSecond, s.outputTokensPerSecondPerGpu,
            s.outputTokensPerSecondPerUser, msText(s.ttft.p50).c_str(), msText(s.ttft.p99).c_str(),
            msText(s.itl.mean).c_str(), msText(s.itl.p99).c_str(), msText(s.e2e.p50).c_str(),
            s.goodputRequestsPerSecond, point.pareto ? "*" : "");
        out << line;
    }
    out << "(latencies in ms, goodput in requests/s meeting the SLOs; * = on the Pareto front of tokens/s per GPU "
           "against tokens/s per user)\n";
}

void printDisaggregated(
    std::ostream& out, const serving::DisaggregatedResult& result, int prefillWorkers, int decodeWorkers)
{
    out << "pools      " << prefillWorkers << " prefill worker(s) of " << result.prefillGpusPerWorker << " GPU(s), "
        << result.prefillOptions.kvBlocks << " KV blocks each; " << decodeWorkers << " decode worker(s) of "
        << result.decodeGpusPerWorker << " GPU(s), " << result.decodeOptions.kvBlocks << " KV blocks each\n";
    out << "kv move    " << msText(result.meanKvTransferSeconds)
        << " ms per request on average (prefill to decode worker, "
        << config::formatNumber(
               std::max(result.prefillCapacity.bytesPerTokenPerGpu, result.decodeCapacity.bytesPerTokenPerGpu))
        << " B per token per GPU)\n";
    printSummary(out, result.servingResult(), PoolCounts { prefillWorkers, decodeWorkers });
}

} // namespace rapid::cli
