// SPDX-License-Identifier: GPL-3.0-or-later
#include "goodputsimulation.h"

#include "quantile.h"

#include "sim/flowsimulator.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace rapid::resilience {

namespace {

/// Keeps a run that can never finish (an interval far beyond the MTBF) from looping for ever.
constexpr int kMaxInterruptions = 10'000'000;
constexpr double kMaxEvents = 1e9;

class RunSimulator {
public:
    RunSimulator(const CheckpointedRun& run, std::uint64_t seed)
        : m_run(run)
        , m_random(seed)
        , m_interruption(1.0 / run.mtbfSeconds)
    {
    }

    RunSample run(double interval)
    {
        double remaining = m_run.workSeconds;
        while (remaining > 0) {
            const double length = std::min(interval, remaining);
            attempt(length + m_run.checkpointSeconds);
            remaining -= length;
        }
        return m_sample;
    }

private:
    /// Spends @p seconds of uninterrupted time, restarting (and restarting the restart) after each interruption.
    void attempt(double seconds)
    {
        for (;;) {
            const double next = m_interruption(m_random);
            if (next >= seconds) {
                m_sample.wallSeconds += seconds;
                return;
            }
            m_sample.wallSeconds += next;
            interrupted();
            restart();
        }
    }

    void restart()
    {
        for (;;) {
            const double next = m_interruption(m_random);
            if (next >= m_run.restartSeconds) {
                m_sample.wallSeconds += m_run.restartSeconds;
                return;
            }
            m_sample.wallSeconds += next;
            interrupted();
        }
    }

    void interrupted()
    {
        if (++m_sample.interruptions > kMaxInterruptions) {
            throw std::invalid_argument("more than 10 million interruptions in one run: the run is far longer than "
                                        "the MTBF, or the checkpoint interval or restart is");
        }
    }

    const CheckpointedRun& m_run;
    std::mt19937_64 m_random;
    std::exponential_distribution<double> m_interruption;
    RunSample m_sample;
};

} // namespace

std::uint64_t mixSeed(std::uint64_t seed, std::uint64_t index)
{
    std::uint64_t z = seed + 0x9e3779b97f4a7c15ULL * (index + 1);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

RunSample simulateRun(const CheckpointedRun& run, double interval, std::uint64_t seed)
{
    checkRun(run, interval);
    return RunSimulator(run, seed).run(interval);
}

RunStudy simulateRuns(const CheckpointedRun& run, double interval, int trials, std::uint64_t seed,
    const std::function<void(int)>& progress, const std::atomic<bool>* stop)
{
    if (trials < 1) {
        throw std::invalid_argument("at least one trial");
    }
    checkRun(run, interval);
    // Each segment and each interruption is a few random draws; a billion events take minutes, so more is refused
    // rather than left to look like a hang.
    const double events = trials * (std::ceil(run.workSeconds / interval) + run.workSeconds / run.mtbfSeconds);
    if (events > kMaxEvents) {
        throw std::invalid_argument("simulating " + std::to_string(trials) + " runs of "
            + std::to_string(static_cast<long long>(std::ceil(run.workSeconds / interval)))
            + " checkpoint intervals each is too much: fewer trials or a longer checkpoint interval");
    }
    std::vector<double> fractions;
    fractions.reserve(static_cast<std::size_t>(trials));
    double sum = 0;
    double sumSquares = 0;
    double interruptions = 0;
    for (int trial = 0; trial < trials; ++trial) {
        if (stop && stop->load()) {
            throw sim::SimulationCancelled();
        }
        const RunSample sample = simulateRun(run, interval, mixSeed(seed, static_cast<std::uint64_t>(trial)));
        sum += sample.wallSeconds;
        sumSquares += sample.wallSeconds * sample.wallSeconds;
        interruptions += sample.interruptions;
        fractions.push_back(run.workSeconds / sample.wallSeconds);
        if (progress) {
            progress(trial + 1);
        }
    }
    RunStudy study;
    study.trials = trials;
    study.meanWallSeconds = sum / trials;
    const double variance = trials > 1 ? std::max(0.0, (sumSquares - sum * sum / trials) / (trials - 1)) : 0.0;
    study.standardError = std::sqrt(variance / trials);
    study.meanEffectiveFraction = run.workSeconds / study.meanWallSeconds;
    study.p10EffectiveFraction = quantile(fractions, 0.1);
    study.p90EffectiveFraction = quantile(fractions, 0.9);
    study.meanInterruptions = interruptions / trials;
    return study;
}

} // namespace rapid::resilience
