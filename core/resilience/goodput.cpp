// SPDX-License-Identifier: GPL-3.0-or-later
#include "goodput.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace rapid::resilience {

namespace {

/// Expected time to get through @p length seconds of work and its checkpoint, restarts included.
double segmentSeconds(const CheckpointedRun& run, double length)
{
    const double m = run.mtbfSeconds;
    // expm1 keeps the small-rate limit exact: L + C when M is huge.
    return m * std::exp(run.restartSeconds / m) * std::expm1((length + run.checkpointSeconds) / m);
}

/// Expected wall time per second of work with a real number of segments W / tau.
double wallPerWork(const CheckpointedRun& run, double interval)
{
    return segmentSeconds(run, interval) / interval;
}

} // namespace

void checkRun(const CheckpointedRun& run, double interval)
{
    const auto require = [](bool ok, const std::string& what) {
        if (!ok) {
            throw std::invalid_argument(what);
        }
    };
    require(std::isfinite(run.workSeconds) && run.workSeconds > 0, "the training work must be a positive time");
    require(std::isfinite(run.mtbfSeconds) && run.mtbfSeconds > 0, "the MTBF must be a positive time");
    require(
        std::isfinite(run.checkpointSeconds) && run.checkpointSeconds >= 0, "the checkpoint time must be 0 or more");
    require(std::isfinite(run.restartSeconds) && run.restartSeconds >= 0, "the restart time must be 0 or more");
    require(std::isfinite(interval) && interval > 0, "the checkpoint interval must be a positive time");
}

double expectedWallSeconds(const CheckpointedRun& run, double interval)
{
    checkRun(run, interval);
    const double fullSegments = std::floor(run.workSeconds / interval);
    const double rest = run.workSeconds - fullSegments * interval;
    double total = fullSegments * segmentSeconds(run, interval);
    if (rest > 0) {
        total += segmentSeconds(run, rest);
    }
    return total;
}

double expectedEffectiveFraction(const CheckpointedRun& run, double interval)
{
    return run.workSeconds / expectedWallSeconds(run, interval);
}

double youngInterval(double checkpointSeconds, double mtbfSeconds)
{
    return std::sqrt(2.0 * checkpointSeconds * mtbfSeconds);
}

double dalyInterval(double checkpointSeconds, double mtbfSeconds)
{
    if (checkpointSeconds >= 2.0 * mtbfSeconds) {
        return mtbfSeconds;
    }
    const double ratio = checkpointSeconds / (2.0 * mtbfSeconds);
    return youngInterval(checkpointSeconds, mtbfSeconds) * (1.0 + std::sqrt(ratio) / 3.0 + ratio / 9.0)
        - checkpointSeconds;
}

double optimalInterval(const CheckpointedRun& run)
{
    checkRun(run, 1.0);
    // (e^((tau + C)/M) - 1) / tau is convex in tau > 0 with one minimum: golden-section search on log tau between a
    // microsecond-scale floor and many MTBFs.
    double low = std::log(1e-6 * run.mtbfSeconds);
    double high = std::log(50.0 * run.mtbfSeconds);
    const double golden = (std::sqrt(5.0) - 1.0) / 2.0;
    double a = high - golden * (high - low);
    double b = low + golden * (high - low);
    double fa = wallPerWork(run, std::exp(a));
    double fb = wallPerWork(run, std::exp(b));
    for (int iteration = 0; iteration < 200 && high - low > 1e-12; ++iteration) {
        if (fa < fb) {
            high = b;
            b = a;
            fb = fa;
            a = high - golden * (high - low);
            fa = wallPerWork(run, std::exp(a));
        } else {
            low = a;
            a = b;
            fa = fb;
            b = low + golden * (high - low);
            fb = wallPerWork(run, std::exp(b));
        }
    }
    return std::exp((low + high) / 2.0);
}

} // namespace rapid::resilience
