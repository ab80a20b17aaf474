// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

namespace rapid::resilience {

/// A training run that checkpoints: W seconds of failure-free work, cut into intervals of tau seconds of work, each
/// followed by a blocking checkpoint of C seconds. Interruptions arrive as a Poisson process of mean interval M (the
/// job's MTBF), also during checkpoints and restarts; each costs the work since the last completed checkpoint and a
/// restart of R seconds (detection, relaunch, reading the checkpoint back), which an interruption starts afresh.
struct CheckpointedRun {
    double workSeconds = 0; ///< W: failure-free training time (steps x step time)
    double mtbfSeconds = 0; ///< M
    double checkpointSeconds = 0; ///< C
    double restartSeconds = 0; ///< R
};

/// Throws std::invalid_argument naming the field unless W, M > 0 and C, R >= 0, all finite, and @p interval > 0.
void checkRun(const CheckpointedRun& run, double interval);

/// Expected wall-clock time of @p run checkpointing every @p interval seconds of work: for every segment of L seconds
/// of work (the last one shorter), M e^(R/M) (e^((L + C)/M) - 1) (Daly, "A higher order estimate of the optimum
/// checkpoint interval for restart dumps", FGCS 22, 2006, eq. 13; exact for this process).
double expectedWallSeconds(const CheckpointedRun& run, double interval);

/// W / expectedWallSeconds: the share of wall time that trains.
double expectedEffectiveFraction(const CheckpointedRun& run, double interval);

/// Young's first-order optimum, sqrt(2 C M) (Young, "A first order approximation to the optimum checkpoint
/// interval", CACM 17, 1974).
double youngInterval(double checkpointSeconds, double mtbfSeconds);

/// Daly's higher-order optimum: sqrt(2 C M) [1 + sqrt(C / 2M) / 3 + (C / 2M) / 9] - C for C < 2M, else M (Daly 2006,
/// eq. 37).
double dalyInterval(double checkpointSeconds, double mtbfSeconds);

/// The interval that minimises the expected wall time of many segments (the segment count taken as W / tau, a real
/// number), found numerically on Daly's exact expectation: the reference the two estimates are judged against.
double optimalInterval(const CheckpointedRun& run);

} // namespace rapid::resilience
