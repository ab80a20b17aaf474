// SPDX-License-Identifier: GPL-3.0-or-later
// Speed of the resilience studies (issue 16): Monte Carlo trials of a 1,024-GPU training step (GPT-3 175B on 128
// DGX A100, tp 8 x pp 8 x dp 16) with 4 links at half rate on the congestion backend, on every core; RAPID_BENCH_TRIALS
// trials (default 20), extrapolated to 1,000 (the figure: under 10 minutes on 2 cores). And 1,000 simulated
// training runs of the Llama 3 405B goodput case.
#include "resilience/faultstudy.h"
#include "resilience/goodput.h"
#include "resilience/goodputsimulation.h"
#include "testutils.h"

#include <QElapsedTimer>
#include <QTest>

#include <cstdlib>
#include <thread>

using namespace rapid;

class BenchResilience : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void monteCarloOnACongestedThousandGpuStep()
    {
        const config::Scenario scenario = test::projectLoader().loadScenario(
            "gpt-3-175b", "dgx-a100", "gpt-3-175b-train-1024", { "hardware.cluster.network[ib].size=128" });
        resilience::FaultStudySpec spec;
        spec.faultyLinks = 4;
        spec.health = 0.5;
        const char* trials = std::getenv("RAPID_BENCH_TRIALS");
        spec.trials = trials ? std::max(1, std::atoi(trials)) : 20;
        spec.backend = sim::NetworkBackend::Congestion;
        QElapsedTimer timer;
        timer.start();
        const resilience::FaultStudyResult result = resilience::runFaultStudy(scenario, spec, 0);
        const double seconds = static_cast<double>(timer.nsecsElapsed()) * 1e-9;
        qInfo("%d trials (+ the healthy step) of a 1,024-GPU congestion step on %u threads in %.1f s: %.2f s per "
              "trial; 1,000 trials would take %.1f min. Slowdown p50 %.4f, p90 %.4f, max %.4f",
            spec.trials, std::thread::hardware_concurrency(), seconds, seconds / (spec.trials + 1),
            seconds / (spec.trials + 1) * 1001 / 60, result.p50Slowdown, result.p90Slowdown, result.maxSlowdown);
        QCOMPARE(static_cast<int>(result.trials.size()), spec.trials);
    }

    void thousandSimulatedTrainingRuns()
    {
        // Llama 3 405B: 54-day-class run on 16,384 GPUs, MTBF 3.09 h, 2.8 s checkpoints, 15 min restarts.
        const resilience::CheckpointedRun run { 77 * 86400.0, 54 * 86400.0 / 419, 2.8, 903 };
        const double interval = resilience::optimalInterval(run);
        QElapsedTimer timer;
        timer.start();
        const resilience::RunStudy study = resilience::simulateRuns(run, interval, 1000, 1);
        qInfo("1,000 simulated runs (%.0f interruptions each) in %.3f s; effective %.2f%%", study.meanInterruptions,
            static_cast<double>(timer.nsecsElapsed()) * 1e-9, study.meanEffectiveFraction * 100);
    }
};

QTEST_GUILESS_MAIN(BenchResilience)
#include "bench_resilience.moc"
