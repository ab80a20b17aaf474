// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/configloader.h"
#include "sweep/sweepspace.h"

#include <array>
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

/// Every finished row, in index order, from the worker threads (serialised): `rapid sweep` streams its files
/// through it. Rows after the first point still running wait in a bounded window (SweepOptions::window), so a slow
/// point holds the workers back rather than memory growing. Its pareto flag is false (the front is known at the end).
using RowSink = std::function<void(const SweepRow& row)>;

struct SweepOptions {
    int threads = 0; ///< worker threads; 0 = one per hardware thread
    const std::atomic<bool>* stop = nullptr; ///< set to cancel: points not started stay NotRun
    /// Points finished so far and the total; called from the worker threads (serialised), about every 1% of points.
    std::function<void(std::int64_t done, std::int64_t total)> progress;
    bool pruneByMemory = true; ///< skip the step model for points that do not fit
    RowSink rowSink; ///< optional; an exception it throws stops the sweep and leaves runSweep
    /// false: SweepResult::rows stays empty, and memory no longer grows with the points (the tallies below remain).
    bool keepRows = true;
    int keepTop = 0; ///< SweepResult::top keeps this many of the best evaluated rows
    /// Finished rows that may wait for an earlier point still running (at least one per thread).
    std::int64_t window = 4096;
};

/// The rejection reasons SweepResult::rejections keeps.
inline constexpr size_t kKeptRejections = 3;

struct SweepResult {
    SweepSpace space;
    std::vector<SweepRow> rows; ///< one per point, in index order (SweepOptions::keepRows; empty otherwise)
    bool cancelled = false; ///< stopped before every point ran; the points run are then a prefix of the indices
    double seconds = 0; ///< wall time of the sweep
    std::array<std::int64_t, 5> statusCounts {}; ///< points per PointStatus (NotRun included)
    /// The best SweepOptions::keepTop Ok rows by tokens/s per GPU, best first (ties: lower index first), pareto marked.
    std::vector<SweepRow> top;
    /// The rows markParetoFront marks (pareto set), best throughput per GPU first. Equal throughput and cost: the
    /// lowest index stands for them.
    std::vector<SweepRow> paretoFront;
    /// The first rows (index order) with a message no earlier kept row has, at most kKeptRejections.
    std::vector<SweepRow> rejections;

    std::int64_t count(PointStatus status) const { return statusCounts[static_cast<size_t>(status)]; }
    std::int64_t pointsRun() const { return space.size() - count(PointStatus::NotRun); }
};

/// Evaluates every point of @p space: scenario from @p factory, rank placement, memory peak, then (when it fits) the
/// analytical step model — the same path as `rapid run`. A point that fails is recorded with its message; nothing a
/// point does stops the others. Each worker keeps its own step models, so GEMM caches are never shared across
/// threads. Rows are handed to SweepOptions::rowSink in index order and kept when SweepOptions::keepRows (the Pareto
/// front then marked on them by markParetoFront); counts, top rows, the front and rejection reasons are always kept.
SweepResult runSweep(const SweepSpace& space, const ScenarioFactory& factory, const SweepOptions& options = {});

/// Marks the evaluated rows no other evaluated row beats on both objectives: throughput per GPU (higher is better)
/// and, for training, memory peak per GPU, for inference, end-to-end latency (lower is better). Of rows equal in both,
/// the lowest index is marked.
void markParetoFront(std::vector<SweepRow>& rows);

} // namespace rapid::sweep
