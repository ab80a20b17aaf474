// SPDX-License-Identifier: GPL-3.0-or-later
// Speed of the serving simulation (issue 17): 10,000 requests of 1,000 + 200 tokens at concurrency 256 on one
// 8-GPU A100 server (Llama-3.3-70B, tp 8), one core, from a fresh scenario (every iteration shape timed once); and a
// 20-point concurrency sweep (1 to 512) of 2,000 requests each; the same 10,000 requests with speculative decoding (a
// one-layer draft head drafting 3 tokens, acceptance 0.7), whose verification outcomes are random: iteration shapes
// repeat less; and the same 10,000 requests on a KV cache too small for them, preempted by recomputation and by
// swapping.
#include "serving/servingsimulator.h"
#include "testutils.h"

#include <QElapsedTimer>
#include <QTest>

using namespace rapid;

namespace {

config::Scenario server()
{
    return test::projectLoader().loadScenario(
        "llama-3.3-70b", "hgx-a100-8gpu", "llama-3.3-70b-serve-8xa100", { "run.parallelism.mapping={}" });
}

serving::WorkloadSpec closedLoop(int concurrency, int requests)
{
    serving::WorkloadSpec workload;
    workload.concurrency = concurrency;
    workload.requests = requests;
    workload.promptTokens = 1000;
    workload.outputTokens = 200;
    return workload;
}

} // namespace

class BenchServing : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void tenThousandRequestsAtConcurrency256() { serveTenThousand(serving::EngineOptions {}, ""); }

    void tenThousandRequestsWithADraftHead()
    {
        serving::EngineOptions options;
        options.speculative.draftTokens = 3;
        options.speculative.acceptance = 0.7;
        serveTenThousand(options, ", 3 drafts");
    }

    /// KV pressure: a cache of 8,000 blocks where 256 requests need up to 19,200 at their end, so that requests are
    /// preempted all the time: recomputed (vLLM V1), then swapped to 64 GiB of host memory per GPU (vLLM V0).
    void tenThousandRequestsPreemptedOnASmallCache()
    {
        serving::EngineOptions options;
        options.kvBlocks = 8000;
        serveTenThousand(options, ", 8,000 KV blocks, recomputed");
        options.preemption = serving::Preemption::Swap;
        options.swapSpaceBytes = 64.0 * 1024 * 1024 * 1024;
        serveTenThousand(options, ", 8,000 KV blocks, swapped");
    }

    void concurrencySweepOfTwentyPoints()
    {
        const config::Scenario scenario = server();
        QElapsedTimer timer;
        timer.start();
        int points = 0;
        for (int step = 0; step < 20; ++step) {
            const int concurrency = std::max(step + 1, static_cast<int>(std::lround(std::pow(512.0, step / 19.0))));
            const serving::ServingResult result
                = serving::simulateServing(scenario, closedLoop(concurrency, 2000), serving::EngineOptions {});
            qInfo("concurrency %3d: %7.0f output tokens/s (%6.1f per user), TTFT p50 %7.1f ms, ITL p50 %6.2f ms",
                concurrency, result.summary.outputTokensPerSecond, result.summary.outputTokensPerSecondPerUser,
                result.summary.ttft.p50 * 1e3, result.summary.itl.p50 * 1e3);
            ++points;
        }
        qInfo("%d-point concurrency sweep in %.3f s", points, static_cast<double>(timer.nsecsElapsed()) * 1e-9);
    }

private:
    /// 10,000 requests at concurrency 256 with @p options, timed from a fresh scenario; @p label tells them apart.
    static void serveTenThousand(const serving::EngineOptions& options, const char* label)
    {
        const config::Scenario scenario = server();
        QElapsedTimer timer;
        timer.start();
        const serving::ServingResult result = serving::simulateServing(scenario, closedLoop(256, 10000), options);
        const double seconds = static_cast<double>(timer.nsecsElapsed()) * 1e-9;
        qInfo("10,000 requests at concurrency 256%s: %d iterations simulated in %.3f s (%.1f us per iteration); "
              "%.0f output tokens/s, TTFT p50 %.0f ms, ITL p50 %.1f ms; %d preemptions, %d swapped, %.2f s of copies",
            label, result.summary.iterations, seconds, seconds / result.summary.iterations * 1e6,
            result.summary.outputTokensPerSecond, result.summary.ttft.p50 * 1e3, result.summary.itl.p50 * 1e3,
            result.summary.preemptions, result.summary.swapOuts, result.summary.swapSeconds);
        QCOMPARE(result.summary.requests, 10000);
    }
};

QTEST_GUILESS_MAIN(BenchServing)
#include "bench_serving.moc"
