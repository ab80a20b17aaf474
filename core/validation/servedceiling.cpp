// SPDX-License-Identifier: GPL-3.0-or-later
#include "validation/servedceiling.h"

#include "model/modelstats.h"

#include <algorithm>

namespace rapid::validation {

namespace {

/// FLOP/s a GPU's tuned GEMMs reach in @p precision (GpuSpec's own figures; 0 when it has no peak for it).
double bestRate(const config::GpuSpec& gpu, config::Precision precision)
{
    return gpu.tensorPeak(precision) * gpu.tensorEfficiency(precision) * gpu.effectiveClockScale();
}

/// A lower bound on the attention FLOPs of the tokens at contexts @p first to @p last (inclusive): the attended
/// context never shrinks as the context grows, so a block of tokens costs at least its count times its first token.
double attentionFlopsAtLeast(const config::ModelSpec& model, std::int64_t first, std::int64_t last)
{
    if (last < first) {
        return 0;
    }
    const double withoutContext = model::forwardFlopsPerToken(model, 0);
    constexpr std::int64_t kBlocks = 1024;
    const std::int64_t block = (last - first + kBlocks) / kBlocks;
    double flops = 0;
    for (std::int64_t start = first; start <= last; start += block) {
        const double tokens = static_cast<double>(std::min(block, last - start + 1));
        flops += tokens * (model::forwardFlopsPerToken(model, static_cast<double>(start)) - withoutContext);
    }
    return flops;
}

} // namespace

double servedRequestsCeiling(const config::Scenario& scenario, std::int64_t promptTokens, std::int64_t outputTokens)
{
    const config::ModelSpec& model = scenario.model;
    const config::GpuSpec& gpu = scenario.hardware.gpu;
    const config::PrecisionSpec& precision = scenario.run.precision;
    const double headFlops = 2.0 * static_cast<double>(model.vocabSize) * static_cast<double>(model.hiddenSize);
    const double weightFlops = model::forwardFlopsPerToken(model, 0) - headFlops;
    const std::int64_t decoded = std::max<std::int64_t>(outputTokens - 1, 0);
    const double gemmFlops = weightFlops * static_cast<double>(promptTokens + decoded) + headFlops * decoded;
    // The prompt's tokens attend to 1 .. prompt keys, each decoded token to the prompt and what came before it.
    const double attentionFlops = attentionFlopsAtLeast(model, 1, promptTokens)
        + attentionFlopsAtLeast(model, promptTokens + 1, promptTokens + decoded);
    // A ceiling: every GEMM at the fastest rate any of them runs at (the routed experts may have math of their own).
    const double gemmRate = std::max(bestRate(gpu, precision.compute), bestRate(gpu, precision.routedExpertCompute()));
    const double attentionRate = std::max(gemmRate, bestRate(gpu, precision.activations));
    const double gpuSecondsPerRequest = gemmFlops / gemmRate + attentionFlops / attentionRate;
    return static_cast<double>(scenario.run.parallelism.gpuCount()) / gpuSecondsPerRequest;
}

std::string servedBeyondCeiling(
    const config::Scenario& scenario, int concurrency, double ttftSeconds, double tpotSeconds)
{
    const std::int64_t output = scenario.run.decodeLength;
    const double latency = ttftSeconds + static_cast<double>(std::max<std::int64_t>(output - 1, 0)) * tpotSeconds;
    const double measured = concurrency / latency;
    const double ceiling = servedRequestsCeiling(scenario, scenario.run.promptLength, output);
    if (!(measured > ceiling)) {
        return {};
    }
    return "measured throughput beyond what the GPUs can compute: the clients completed more requests per second "
           "than every FLOP at the GPU's best GEMM rate allows (Little's law on the mean TTFT and TPOT; nothing but "
           "the FLOPs charged), so part of each prompt was not computed (a prefix cache, not recorded)";
}

} // namespace rapid::validation
