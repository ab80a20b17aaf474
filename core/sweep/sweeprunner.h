// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/configloader.h"
#include "sweep/sweepspace.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace rapid::sweep {

/// What became of one point of a sweep.
enum class PointStatus {
    Ok, ///< evaluated
    Invalid, ///< the configuration is rejected (a config error or a placement that does not add up)
    DoesNotFit, ///< valid, but its per-GPU memory peak exceeds the GPU: pruned before the step model runs
    Failed, ///< the performance model could not evaluate it (the message says why)
    NotRun, ///< the sweep was cancelled before this point
};
const char* toString(PointStatus status);

/// The figures of one point (analytical backend). Training fills the step fields, inference the latency ones.
struct SweepRow {
    std::int64_t index = 0;
    std::vector<int> coordinates; ///< value index per axis (SweepSpace::coordinates)
    PointStatus status = PointStatus::NotRun;
    std::string message; ///< why the point is Invalid/Failed (the first diagnostic, with its location)
    bool inference = false;
    int gpus = 0; ///< GPUs the run uses (tp x pp x dp x cp)
    double stepTimeSeconds = 0; ///< training: one optimizer step
    double ttftSeconds = 0; ///< inference
    double itlSeconds = 0;
    double e2eSeconds = 0;
    double tokensPerSecond = 0; ///< training: tokens trained per second; inference: output tokens per second
    double tokensPerSecondPerGpu = 0;
    double mfu = 0; ///< training only
    double joulesPerToken = 0; ///< report::EnergyEstimate: per token trained or per output token; 0 when unknown
    double peakMemoryBytes = 0; ///< per GPU, at the worst pipeline stage
    double capacityBytes = 0;
    bool pareto = false; ///< on the front of markParetoFront
};

/// Builds the scenario of one point from its overrides (applied on top of a base the caller holds). Must be callable
/// from several threads at once; throws config::ConfigError for a configuration it rejects.
using ScenarioFactory = std::function<config::Scenario(const std::vector<std::string>& overrides)>;

struct SweepOptions {
    int threads = 0; ///< worker threads; 0 = one per hardware thread
    const std::atomic<bool>* stop = nullptr; ///< set to cancel: points not started stay NotRun
    /// Points finished so far and the total; called from the worker threads (serialised), about every 1% of points.
    std::function<void(std::int64_t done, std::int64_t total)> progress;
    bool pruneByMemory = true; ///< skip the step model for points that do not fit
};

struct SweepResult {
    SweepSpace space;
    std::vector<SweepRow> rows; ///< one per point, in index order
    bool cancelled = false;
    double seconds = 0; ///< wall time of the sweep
    std::int64_t count(PointStatus status) const;
};

/// Evaluates every point of @p space: scenario from @p factory, rank placement, memory peak, then (when it fits) the
/// analytical step model — the same path as `rapid run`. A point that fails is recorded with its message; nothing a
/// point does stops the others. Each worker keeps its own step models, so GEMM caches are never shared across
/// threads. The Pareto front is marked on the result (markParetoFront).
SweepResult runSweep(const SweepSpace& space, const ScenarioFactory& factory, const SweepOptions& options = {});

/// Marks the evaluated rows no other evaluated row beats on both objectives: throughput per GPU (higher is better)
/// and, for training, memory peak per GPU, for inference, end-to-end latency (lower is better).
void markParetoFront(std::vector<SweepRow>& rows);

} // namespace rapid::sweep
