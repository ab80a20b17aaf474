// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/configloader.h"
#include "resilience/goodput.h"

#include <QString>

#include <vector>

namespace rapid::widgets {

/// What the Goodput page asks for; the defaults are `rapid goodput`'s.
struct GoodputInputs {
    double tokens = 1e12; ///< training tokens: the steps are tokens / (global batch x sequence length)
    double mtbfSeconds = 0; ///< the job's mean time between interruptions; 0: the Llama 3 run's rate for its GPUs
    double storageBytesPerSecond = 2e12; ///< Tectonic as the Llama 3 run used it
    double detectSeconds = 600; ///< PyTorch's default NCCL collective timeout
    double relaunchSeconds = 0;
};

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
};

/// Intervals from the optimum / kCurveSpan to the optimum x kCurveSpan, kCurvePoints of them evenly spaced on a log
/// axis (the optimum among them): a factor of about 1.05 between neighbours, fine enough to place the maximum.
constexpr double kCurveSpan = 16;
constexpr int kCurvePoints = 117;

/// Times @p scenario's training step (analytical backend) and computes the run, the three intervals and the curve as
/// `rapid goodput` does. Throws std::invalid_argument for a run that is not training or figures out of range.
GoodputFigures computeGoodput(const config::Scenario& scenario, const GoodputInputs& inputs);

/// A duration as `rapid goodput` prints it: days from 2 days, hours from 2 hours, minutes from 2 minutes, else
/// seconds (formatSeconds stops at seconds, which reads badly for a month of training).
QString durationText(double seconds);

} // namespace rapid::widgets
