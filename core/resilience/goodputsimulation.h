// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "goodput.h"

#include <atomic>
#include <cstdint>
#include <functional>

namespace rapid::resilience {

/// One simulated run.
struct RunSample {
    double wallSeconds = 0;
    int interruptions = 0;
};

/// Simulates @p run checkpointing every @p interval seconds of work, event by event: each attempt at a segment (its
/// work and checkpoint) or at a restart draws the time to the next interruption (exponential, so memoryless) and
/// either completes or loses everything since the segment began. Deterministic for a given @p seed.
RunSample simulateRun(const CheckpointedRun& run, double interval, std::uint64_t seed);

/// Many simulated runs.
struct RunStudy {
    int trials = 0;
    double meanWallSeconds = 0;
    double standardError = 0; ///< of the mean wall time
    double meanEffectiveFraction = 0; ///< W / mean wall time
    double p10EffectiveFraction = 0; ///< the worst decile's bound
    double p90EffectiveFraction = 0;
    double meanInterruptions = 0;
};

/// @p trials runs; trial i uses the seed mixSeed(@p seed, i), so a trial's outcome depends on its index alone (the
/// same whichever process or thread runs it) and two intervals compared with one seed see the same interruptions
/// early on (common random numbers). @p progress gets the trials done so far after each one; @p stop, when set, ends
/// the study with sim::SimulationCancelled before the next trial (a mean over the trials done so far would pass for
/// the whole study's).
RunStudy simulateRuns(const CheckpointedRun& run, double interval, int trials, std::uint64_t seed,
    const std::function<void(int)>& progress = {}, const std::atomic<bool>* stop = nullptr);

/// SplitMix64 of @p seed and @p index: independent streams per trial.
std::uint64_t mixSeed(std::uint64_t seed, std::uint64_t index);

} // namespace rapid::resilience
