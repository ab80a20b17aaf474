// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/configloader.h"
#include "resilience/goodput.h"
#include "resilience/goodputsimulation.h"

#include <QString>

#include <atomic>
#include <cstdint>
#include <functional>
#include <iterator>
#include <vector>

namespace rapid::widgets {

/// What the Goodput page asks for; the defaults are `rapid goodput`'s.
struct GoodputInputs {
    double tokens = 1e12; ///< training tokens: the steps are tokens / (global batch x sequence length)
    double mtbfSeconds = 0; ///< the job's mean time between interruptions; 0: the Llama 3 run's rate for its GPUs
    double storageBytesPerSecond = 2e12; ///< Tectonic as the Llama 3 run used it
    double detectSeconds = 600; ///< PyTorch's default NCCL collective timeout
    double relaunchSeconds = 0;
    int trials = 200; ///< simulated runs per interval of kSimulatedFactors; 0: the analytical curve alone
    std::uint64_t seed = 1; ///< of the simulated interruptions (`rapid goodput --seed`)
};

/// The discrete-event simulation of the run at one checkpoint interval.
struct SimulatedGoodput {
    double interval = 0; ///< seconds of work between checkpoints
    resilience::RunStudy study;
    /// The half-width of the 95% confidence interval of the mean goodput W / mean wall time: 1.96 standard errors,
    /// carried from the wall time's by the delta method (d(W/x)/dx = -W/x^2).
    double halfWidth95() const;
};

/// The intervals simulated, as multiples of the optimum: `rapid goodput`'s table (1/8 to 8 times, by factors of 2),
/// inside the curve's span and no shorter, where a run is the most segments (the simulation's cost).
inline constexpr double kSimulatedFactors[] = { 0.125, 0.25, 0.5, 1, 2, 4, 8 };
inline constexpr int kSimulatedPoints = static_cast<int>(std::size(kSimulatedFactors));

/// The figures of `rapid goodput` for a scenario and the curve the chart draws.
struct GoodputFigures {
    double stepSeconds = 0; ///< analytical step model
    int gpus = 0;
    double steps = 0;
    double checkpointBytes = 0;
    bool mtbfFromRecord = true;
    resilience::CheckpointedRun run;
    double young = 0;
    double daly = 0;
    double optimum = 0;
    std::vector<double> intervals; ///< seconds of work between checkpoints, log-spaced
    std::vector<double> fractions; ///< expected share of wall time that trains at each interval
    std::vector<SimulatedGoodput> simulated; ///< at kSimulatedFactors x optimum; empty for no trials
    QString simulationProblem; ///< why the runs were not simulated (too many events for the trials asked)
};

/// Intervals from the optimum / kCurveSpan to the optimum x kCurveSpan, kCurvePoints of them evenly spaced on a log
/// axis (the optimum among them): a factor of about 1.05 between neighbours, fine enough to place the maximum.
constexpr double kCurveSpan = 16;
constexpr int kCurvePoints = 117;

/// Times @p scenario's training step (analytical backend) and computes the run, the three intervals and the curve as
/// `rapid goodput` does. Throws std::invalid_argument for a run that is not training or figures out of range.
GoodputFigures computeGoodput(const config::Scenario& scenario, const GoodputInputs& inputs);

/// The curve of @p figures (intervals and fractions) from its run and optimum.
void fillGoodputCurve(GoodputFigures& figures);

/// Simulates @p inputs.trials runs of @p figures' run at each of kSimulatedFactors x the optimum (one seed for all:
/// common random numbers, so neighbouring points differ by the interval rather than by luck) into
/// @p figures.simulated. A simulation too long to run (resilience::simulateRuns' limit: a billion events) leaves it
/// empty and says why in @p figures.simulationProblem: the expected curve is worth showing alone. @p progress gets
/// the trials done over all intervals; @p stop ends it with sim::SimulationCancelled.
void simulateGoodput(GoodputFigures& figures, const GoodputInputs& inputs,
    const std::function<void(qint64)>& progress = {}, const std::atomic<bool>* stop = nullptr);

/// A duration as `rapid goodput` prints it: days from 2 days, hours from 2 hours, minutes from 2 minutes, else
/// seconds (formatSeconds stops at seconds, which reads badly for a month of training).
QString durationText(double seconds);

} // namespace rapid::widgets
