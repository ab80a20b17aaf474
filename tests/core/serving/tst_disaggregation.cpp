// SPDX-License-Identifier: GPL-3.0-or-later
// Disaggregated serving against values derived by hand: with iteration costs a + b x tokens per pool and a fixed KV
// transfer, TTFT is the prefill plus the transfer and ITL the decode pool's steps; the router spreads requests over
// the decode workers; a one-token answer never leaves the prefill worker. On the real models, one request alone is
// StepModel's prefill plus the KV bytes over NVLink, its decode steps are StepModel's, and a degraded NVLink port
// slows the hand-over by the bytes over the lost bandwidth.
#include "affinecost.h"
#include "serving/disaggregation.h"
#include "serving/servingsimulator.h"
#include "sim/stepmodel.h"
#include "testutils.h"

#include <QTest>

#include <cmath>

using namespace rapid;
using serving::EngineOptions;
using serving::WorkloadSpec;
using test::AffineCost;
using test::closedLoop;

namespace {

EngineOptions options()
{
    EngineOptions engine;
    engine.maxNumSeqs = 256;
    engine.maxNumBatchedTokens = 8192;
    engine.blockSize = 16;
    engine.kvBlocks = 1000;
    engine.watermark = 0;
    return engine;
}

bool near(double actual, double expected, double relative)
{
    return std::abs(actual - expected) <= relative * std::abs(expected);
}

} // namespace

class TstDisaggregation : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void oneRequestIsPrefilledHandedOverAndDecoded()
    {
        // Prefill a = 2 ms, b = 10 us: 500 tokens in 7 ms; transfer 3 ms: TTFT 10 ms. Decode a = 1 ms, b = 1 us: each
        // further token 1.001 ms, the last of 4 at 13.003 ms; ITL 1.001 ms.
        AffineCost prefillCost(2e-3, 1e-5);
        AffineCost decodeCost(1e-3, 1e-6);
        const EngineOptions engine = options();
        const auto trace = serving::simulateDisaggregated(closedLoop(1, 1, 500, 4), { 1, engine, &prefillCost },
            { 1, engine, &decodeCost }, [](int, int, std::int64_t) { return 3e-3; });
        QCOMPARE(trace.requests.size(), size_t { 1 });
        QVERIFY(near(trace.requests[0].ttft(), 10e-3, 1e-12));
        QVERIFY(near(trace.requests[0].itl(), 1.001e-3, 1e-9));
        QVERIFY(near(trace.makespanSeconds, 13.003e-3, 1e-12));
        // The decode worker held 504 tokens: 32 blocks of 16 at the end, none after.
        QCOMPARE(trace.iterations.back().usedBlocks, std::int64_t(0));
    }

    void decodeWorkersShareTheRequests()
    {
        // Two clients, one prefill worker: both prompts in one 12 ms iteration, TTFT 15 ms. With one decode worker
        // they decode together at 1.002 ms a step (done at 18.006 ms); with two, one each at 1.001 ms (18.003 ms).
        AffineCost prefillCost(2e-3, 1e-5);
        AffineCost decodeCost(1e-3, 1e-6);
        const EngineOptions engine = options();
        const auto transfer = [](int, int, std::int64_t) { return 3e-3; };
        const auto shared = serving::simulateDisaggregated(
            closedLoop(2, 2, 500, 4), { 1, engine, &prefillCost }, { 1, engine, &decodeCost }, transfer);
        const auto split = serving::simulateDisaggregated(
            closedLoop(2, 2, 500, 4), { 1, engine, &prefillCost }, { 2, engine, &decodeCost }, transfer);
        for (int id = 0; id < 2; ++id) {
            QVERIFY(near(shared.requests[static_cast<size_t>(id)].ttft(), 15e-3, 1e-12));
            QVERIFY(near(shared.requests[static_cast<size_t>(id)].finishSeconds, 18.006e-3, 1e-12));
            QVERIFY(near(split.requests[static_cast<size_t>(id)].finishSeconds, 18.003e-3, 1e-12));
        }
    }

    void theTransferSeesBothWorkers()
    {
        // The KV transfer is asked of the right pair: prefill worker 1 (the second request goes to the idle one)
        // and decode worker 1; 40 ms there, 3 ms elsewhere: the second request's TTFT is 7 + 40 ms.
        AffineCost prefillCost(2e-3, 1e-5);
        AffineCost decodeCost(1e-3, 1e-6);
        const EngineOptions engine = options();
        const auto trace = serving::simulateDisaggregated(closedLoop(2, 2, 500, 2), { 2, engine, &prefillCost },
            { 2, engine, &decodeCost },
            [](int from, int to, std::int64_t tokens) { return from == 1 && to == 1 && tokens == 500 ? 40e-3 : 3e-3; });
        QVERIFY(near(trace.requests[0].ttft(), 10e-3, 1e-12));
        QVERIFY(near(trace.requests[1].ttft(), 47e-3, 1e-12));
    }

    void aOneTokenAnswerStaysOnThePrefillWorker()
    {
        AffineCost prefillCost(2e-3, 1e-5);
        AffineCost decodeCost(1e-3, 1e-6);
        const EngineOptions engine = options();
        const auto trace = serving::simulateDisaggregated(closedLoop(1, 3, 500, 1), { 1, engine, &prefillCost },
            { 1, engine, &decodeCost }, [](int, int, std::int64_t) { return 3e-3; });
        // Three prefills of 7 ms one after another, no transfer and no decode step.
        QVERIFY(near(trace.makespanSeconds, 21e-3, 1e-12));
        QVERIFY(near(trace.requests[2].ttft(), 7e-3, 1e-12));
        QVERIFY(trace.iterations.empty());
    }

    void aRequestTooLargeForADecodeWorkerIsRefused()
    {
        AffineCost cost(1e-3, 0);
        EngineOptions small = options();
        small.kvBlocks = 40; // 640 tokens: the prompt of 500 fits the prefill worker, 500 + 200 no decode worker
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
            serving::simulateDisaggregated(closedLoop(1, 1, 500, 200), { 1, small, &cost }, { 1, small, &cost },
                [](int, int, std::int64_t) { return 0.0; }));
    }

    void oneRequestAloneIsThePrefillPlusItsKvOverNvlink()
    {
        // Llama-3.1-8B on an HGX H100 node, one prefill and one decode worker of one GPU each, 1,000 + 32 tokens.
        // TTFT = StepModel's prefill + 1,000 tokens x 131,072 B of bf16 KV (32 layers x 8 KV heads x 128 x 2 x 2 B)
        // over one NVLink port at its data rate (450 GB/s x the preset's protocol efficiency 0.822 = 369.9 GB/s), plus
        // at most 10 us of fixed costs (the network model's 6.6 us NCCL launch and two 300 ns NVSwitch hops); ITL = its
        // decode step.
        const auto load = [](const char* tp) {
            return test::projectLoader().loadScenario("llama-3.1-8b", "hgx-h100-8gpu", "llama-serve-a100",
                { std::string("run.parallelism.tp=") + tp, "run.parallelism.dp=8", "run.inference.batch=1",
                    "run.inference.prompt_length=1000", "run.inference.decode_length=32" });
        };
        serving::DisaggregatedSpec spec { load("1"), 1, {}, load("1"), 1, {} };
        const config::Scenario alone
            = test::projectLoader().loadScenario("llama-3.1-8b", "h100-sxm5-80gb", "llama-serve-a100",
                { "run.inference.batch=1", "run.inference.prompt_length=1000", "run.inference.decode_length=32" });
        sim::StepModel model(serving::engineScenario(alone, EngineOptions {})); // the layers as vLLM runs them
        const report::InferenceResult expected = model.inference();
        const serving::DisaggregatedResult served = serving::simulateDisaggregated(spec, closedLoop(1, 1, 1000, 32));
        const double transfer = 1000 * 131072.0 / (450e9 * 0.822);
        const double fixed = served.summary.ttft.mean - (expected.ttftSeconds + transfer);
        QVERIFY2(fixed > 0 && fixed < 10e-6,
            qPrintable(
                QStringLiteral("%1 vs %2 + %3").arg(served.summary.ttft.mean).arg(expected.ttftSeconds).arg(transfer)));
        QVERIFY2(near(served.summary.itl.mean, expected.itlSeconds, 1e-3),
            qPrintable(QStringLiteral("%1 vs %2").arg(served.summary.itl.mean).arg(expected.itlSeconds)));
        QCOMPARE(served.summary.gpus, 2);
        QVERIFY(near(served.meanKvTransferSeconds - transfer, fixed, 1e-6));
    }

    void aDegradedLinkSlowsTheHandOver()
    {
        // GPU 0's NVLink port at a quarter of its 369.9 GB/s data rate: the prefill worker (tp 1, no collective) is as
        // fast as before, and the move of 1,000 x 131,072 B takes four times as long (plus the same fixed costs).
        const auto load = [](std::vector<std::string> extra) {
            extra.insert(extra.end(), { "run.parallelism.tp=1", "run.parallelism.dp=8", "run.inference.batch=1" });
            return test::projectLoader().loadScenario("llama-3.1-8b", "hgx-h100-8gpu", "llama-serve-a100", extra);
        };
        const std::string fault = "hardware.faults=[{link: nvlink:0-s1.0, health: 0.25}]";
        const auto healthy
            = serving::simulateDisaggregated({ load({}), 1, {}, load({}), 1, {} }, closedLoop(1, 1, 1000, 8));
        const auto degraded = serving::simulateDisaggregated(
            { load({ fault }), 1, {}, load({ fault }), 1, {} }, closedLoop(1, 1, 1000, 8));
        const double bytes = 1000 * 131072.0;
        QVERIFY2(near(degraded.meanKvTransferSeconds - healthy.meanKvTransferSeconds,
                     bytes / (0.25 * 369.9e9) - bytes / 369.9e9, 1e-6),
            qPrintable(
                QStringLiteral("%1 vs %2").arg(degraded.meanKvTransferSeconds).arg(healthy.meanKvTransferSeconds)));
        QVERIFY(near(degraded.summary.ttft.mean - healthy.summary.ttft.mean,
            degraded.meanKvTransferSeconds - healthy.meanKvTransferSeconds, 1e-9));
    }

    void aSplitSweepFindsTheDominatingSplit()
    {
        // One client: one request at a time, always on worker 0 of each pool, so 1:1 and 2:2 serve with the same
        // latencies, and 2:2 has twice the GPUs for the same tokens: half the tokens/s per GPU, off the front.
        const auto scenario = test::projectLoader().loadScenario("llama-3.1-8b", "hgx-h100-8gpu", "llama-serve-a100",
            { "run.parallelism.tp=1", "run.parallelism.dp=8", "run.inference.batch=1" });
        const auto points = serving::sweepPoolSplits(
            { scenario, 1, {}, scenario, 1, {} }, { { 1, 1 }, { 2, 2 } }, closedLoop(1, 3, 500, 16));
        QCOMPARE(points.size(), size_t { 2 });
        QVERIFY(near(points[1].summary.ttft.mean, points[0].summary.ttft.mean, 1e-12));
        QVERIFY(near(points[1].summary.itl.mean, points[0].summary.itl.mean, 1e-12));
        QVERIFY(near(
            points[1].summary.outputTokensPerSecondPerGpu, points[0].summary.outputTokensPerSecondPerGpu / 2, 1e-12));
        QVERIFY(points[0].pareto);
        QVERIFY(!points[1].pareto);
        // A split the node cannot hold names itself.
        try {
            serving::sweepPoolSplits({ scenario, 1, {}, scenario, 1, {} }, { { 4, 5 } }, closedLoop(1, 1, 500, 16));
            QFAIL("9 workers of one GPU on 8 GPUs were accepted");
        } catch (const std::invalid_argument& error) {
            QVERIFY2(QString::fromStdString(error.what()).startsWith(QStringLiteral("split 4:5: ")), error.what());
        }
    }

    void poolsLargerThanTheClusterAreRefused()
    {
        const auto scenario = test::projectLoader().loadScenario(
            "llama-3.1-8b", "hgx-h100-8gpu", "llama-serve-a100", { "run.parallelism.tp=4", "run.parallelism.dp=2" });
        serving::DisaggregatedSpec spec { scenario, 2, {}, scenario, 1, {} };
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, serving::simulateDisaggregated(spec, closedLoop(1, 1, 100, 4)));
    }

    void eachPoolFusesItsAllReducesAsItsEngineDoes()
    {
        // Llama-3.1-70B: a TensorRT-LLM prefill pool at tp 4 fuses its all-reduces with the residual add and RMSNorm
        // (serving::engineScenario); a vLLM decode pool at tp 4 does not, nor would a pool at tp 1.
        const auto scenario = test::projectLoader().loadScenario(
            "llama-3.1-70b", "hgx-h100-8gpu", "llama-serve-a100", { "run.parallelism.tp=4", "run.parallelism.dp=2" });
        serving::EngineOptions trtllm;
        trtllm.profile = serving::EngineProfile::TrtLlm;
        serving::DisaggregatedSpec spec { scenario, 1, trtllm, scenario, 1, {} };
        const serving::DisaggregatedResult result = serving::simulateDisaggregated(spec, closedLoop(1, 1, 100, 4));
        QVERIFY(result.prefillOptions.allReduceFused);
        QVERIFY(!result.decodeOptions.allReduceFused);
    }
};

QTEST_GUILESS_MAIN(TstDisaggregation)
#include "tst_disaggregation.moc"
