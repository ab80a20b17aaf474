// SPDX-License-Identifier: GPL-3.0-or-later
// Load sweeps of the serving simulator: the Pareto front of tokens/s per GPU against tokens/s per user on points
// placed by hand, and every sweep point equal to serving that load alone; which engine fuses which model's
// all-reduces (serving::engineScenario).
#include "serving/servingsimulator.h"
#include "serving/servingsweep.h"
#include "testutils.h"

#include <QTest>

#include <algorithm>
#include <sstream>

using namespace rapid;

namespace {

serving::ServingSummary point(double perGpu, double perUser)
{
    serving::ServingSummary summary;
    summary.outputTokensPerSecondPerGpu = perGpu;
    summary.outputTokensPerSecondPerUser = perUser;
    return summary;
}

config::Scenario llama70bOn8()
{
    return test::projectLoader().loadScenario("llama-3.3-70b", "hgx-a100-8gpu", "llama-3.3-70b-serve-8xa100",
        { "run.parallelism.tp=8", "run.parallelism.pp=1", "run.parallelism.dp=1", "run.parallelism.mapping={}" });
}

} // namespace

class TstServingSweep : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void paretoFrontByHand();
    void everyPointIsThatLoadServedAlone();
    void badLoadsAreRefused();
    void theDefaultRequestsAtARateSplitOverTheReplicas();
    void onlyTensorRtLlmsPytorchBackendFusesAllReduces();
    void mxfp4ExpertsOnBlackwellRunTrtllmGensMoeRunner();
    void theServingEnginesAddTheResidualInTheirRmsNorm();
};

void TstServingSweep::paretoFrontByHand()
{
    // (per GPU, per user): A (10, 50) and C (40, 20) and D (60, 5) trade one for the other; B (9, 45) is beaten by A
    // in both; E (40, 20) equals C (both stay on the front); F (60, 4) is beaten by D in per-user only (not strictly
    // in both, but at least as good in both and better in one: dominated).
    const std::vector<serving::ServingSummary> points
        = { point(10, 50), point(9, 45), point(40, 20), point(60, 5), point(40, 20), point(60, 4) };
    const std::vector<bool> expected = { true, false, true, true, true, false };
    QCOMPARE(serving::paretoFront(points), expected);
    QCOMPARE(serving::paretoFront({}), std::vector<bool> {});
}

void TstServingSweep::everyPointIsThatLoadServedAlone()
{
    const config::Scenario scenario = llama70bOn8();
    serving::WorkloadSpec base;
    base.promptTokens = 1000;
    base.outputTokens = 100;
    const serving::EngineOptions options;
    const serving::ServingSweep sweep
        = serving::sweepServing(scenario, base, serving::SweepLoad::Concurrency, { 1, 8, 64 }, 0, options);
    QCOMPARE(int(sweep.points.size()), 3);
    for (const serving::ServingSweepPoint& p : sweep.points) {
        serving::WorkloadSpec alone = base;
        alone.concurrency = static_cast<int>(p.load);
        alone.requests = 10 * alone.concurrency; // the documented default
        const serving::ServingResult served = serving::simulateServing(scenario, alone, options);
        QCOMPARE(p.summary.requests, served.summary.requests);
        QCOMPARE(p.summary.outputTokensPerSecond, served.summary.outputTokensPerSecond);
        QCOMPARE(p.summary.ttft.p99, served.summary.ttft.p99);
        QCOMPARE(p.summary.itl.mean, served.summary.itl.mean);
    }
    // More clients batch more tokens per iteration: throughput per GPU rises, each user's token rate falls, so
    // every point of this sweep is on the front.
    QVERIFY(sweep.points[2].summary.outputTokensPerSecondPerGpu > sweep.points[0].summary.outputTokensPerSecondPerGpu);
    QVERIFY(
        sweep.points[2].summary.outputTokensPerSecondPerUser < sweep.points[0].summary.outputTokensPerSecondPerUser);
    for (const serving::ServingSweepPoint& p : sweep.points) {
        QVERIFY(p.pareto);
    }
    std::ostringstream csv;
    serving::writeSweepCsv(csv, sweep);
    const std::string rows = csv.str();
    QCOMPARE(std::count(rows.begin(), rows.end(), '\n'), 4L); // header + 3 points
}

void TstServingSweep::badLoadsAreRefused()
{
    const config::Scenario scenario = llama70bOn8();
    const serving::WorkloadSpec base;
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
        serving::sweepServing(scenario, base, serving::SweepLoad::Concurrency, {}, 0, serving::EngineOptions {}));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
        serving::sweepServing(scenario, base, serving::SweepLoad::Concurrency, { 2.5 }, 0, serving::EngineOptions {}));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
        serving::sweepServing(scenario, base, serving::SweepLoad::Rate, { 0 }, 0, serving::EngineOptions {}));
}

void TstServingSweep::theDefaultRequestsAtARateSplitOverTheReplicas()
{
    // 1,000 rounded up to a multiple of the replicas: 1000 for 1, 2, 4 and 8; 1002 for 3 (334 each); 1001 for 7.
    QCOMPARE(serving::defaultPoissonRequests(1), 1000);
    QCOMPARE(serving::defaultPoissonRequests(8), 1000);
    QCOMPARE(serving::defaultPoissonRequests(3), 1002);
    QCOMPARE(serving::defaultPoissonRequests(7), 1001);
    QCOMPARE(serving::defaultPoissonRequests(0), 1000);
    // A rate sweep on Llama 3.3 70B as three replicas of tp 2 (six GPUs) runs with the default, 334 requests each;
    // 1,000 given are dealt in turn, 334, 333 and 333.
    const config::Scenario scenario
        = test::projectLoader().loadScenario("llama-3.3-70b", "hgx-a100-8gpu", "llama-3.3-70b-serve-8xa100",
            { "run.parallelism.tp=2", "run.parallelism.pp=1", "run.parallelism.dp=3", "run.parallelism.mapping={}",
                "hardware.cluster.network[0].size=6", "hardware.cluster.gpus_per_node=6" });
    serving::WorkloadSpec base;
    base.promptTokens = 200;
    base.outputTokens = 20;
    const serving::ServingSweep sweep
        = serving::sweepServing(scenario, base, serving::SweepLoad::Rate, { 1.5 }, 0, serving::EngineOptions {});
    QCOMPARE(sweep.points.at(0).summary.requests, 1002);
    const serving::ServingSweep given
        = serving::sweepServing(scenario, base, serving::SweepLoad::Rate, { 1.5 }, 1000, serving::EngineOptions {});
    QCOMPARE(given.points.at(0).summary.requests, 1000);
    QCOMPARE(given.points.at(0).summary.replicas, 3);
}

void TstServingSweep::onlyTensorRtLlmsPytorchBackendFusesAllReduces()
{
    // TensorRT-LLM's LlamaDecoderLayer fuses at tp > 1 when hidden_size > 4096; its dense Qwen3 layers, a TensorRT
    // engine (trtllm-build without reduce_fusion), vLLM and SGLang do not.
    serving::EngineOptions trtllm;
    trtllm.profile = serving::EngineProfile::TrtLlm;
    const config::Scenario llama70b = llama70bOn8(); // LlamaForCausalLM, hidden 8192, tp 8
    QVERIFY(!llama70b.run.fusedAllReduceNorm);
    QVERIFY(serving::engineScenario(llama70b, trtllm).run.fusedAllReduceNorm);
    for (const auto profile : { serving::EngineProfile::Vllm, serving::EngineProfile::Sglang }) {
        serving::EngineOptions other;
        other.profile = profile;
        QVERIFY(!serving::engineScenario(llama70b, other).run.fusedAllReduceNorm);
    }
    serving::EngineOptions tensorRtEngine = trtllm;
    tensorRtEngine.tensorRtEngine = true;
    QVERIFY(!serving::engineScenario(llama70b, tensorRtEngine).run.fusedAllReduceNorm);
    const auto load = [](const char* model, const char* tp) {
        return test::projectLoader().loadScenario(model, "hgx-a100-8gpu", "llama-3.3-70b-serve-8xa100",
            { std::string("run.parallelism.tp=") + tp, "run.parallelism.pp=1", "run.parallelism.dp=1",
                "run.parallelism.mapping={}", std::string("hardware.cluster.gpus_per_node=") + tp,
                std::string("hardware.cluster.network[0].size=") + tp });
    };
    QVERIFY(!serving::engineScenario(load("llama-3.1-8b", "8"), trtllm).run.fusedAllReduceNorm); // hidden 4096
    QVERIFY(!serving::engineScenario(load("qwen3-32b", "8"), trtllm).run.fusedAllReduceNorm); // Qwen3ForCausalLM
    QVERIFY(serving::engineScenario(load("llama-3.1-70b", "2"), trtllm).run.fusedAllReduceNorm);
    // Llama's epilogue quantises for the next GEMM; Qwen3 MoE's (Qwen3MoeForCausalLM, any width) does not, and
    // with pipeline stages TensorRT-LLM leaves its MoE all-reduce unfused, which the model then does for both.
    QVERIFY(serving::engineScenario(llama70b, trtllm).run.fusedAllReduceQuantises);
    const config::Scenario qwen3Moe = serving::engineScenario(load("qwen3-30b-a3b", "4"), trtllm);
    QVERIFY(qwen3Moe.run.fusedAllReduceNorm);
    QVERIFY(!qwen3Moe.run.fusedAllReduceQuantises);
    config::Scenario staged = load("qwen3-30b-a3b", "4");
    staged.run.parallelism.pp = 2;
    QVERIFY(!serving::engineScenario(staged, trtllm).run.fusedAllReduceNorm);
    QVERIFY(!serving::engineScenario(load("qwen3-30b-a3b", "4"), tensorRtEngine).run.fusedAllReduceNorm);
}

void TstServingSweep::mxfp4ExpertsOnBlackwellRunTrtllmGensMoeRunner()
{
    // gpt-oss's MXFP4 experts on a B200: TensorRT-LLM's PyTorch backend (its only Blackwell MoE backend for them) and
    // vLLM (FlashInfer's trtllm-gen MXFP4 MoE, its SM100 default) run trtllm-gen's MoE runner; SGLang, a TensorRT
    // engine, a Hopper GPU, 16-bit experts and dense models keep the separate kernels.
    const auto load = [](const char* model, const char* gpu, bool mxfp4) {
        std::vector<std::string> overrides;
        if (mxfp4) {
            overrides.push_back("run.precision.expert_weights=mxfp4");
        }
        return test::projectLoader().loadScenario(model, gpu, "llama-serve-a100", overrides);
    };
    const auto runner = [](const config::Scenario& scenario, serving::EngineProfile profile, bool tensorRtEngine) {
        serving::EngineOptions options;
        options.profile = profile;
        options.tensorRtEngine = tensorRtEngine;
        return serving::engineScenario(scenario, options).run.fusedMoeRunner;
    };
    const config::Scenario b200 = load("gpt-oss-120b", "b200", true);
    QVERIFY(!b200.run.fusedMoeRunner);
    QVERIFY(runner(b200, serving::EngineProfile::TrtLlm, false));
    QVERIFY(runner(b200, serving::EngineProfile::Vllm, false));
    QVERIFY(!runner(b200, serving::EngineProfile::Sglang, false));
    QVERIFY(!runner(b200, serving::EngineProfile::TrtLlm, true));
    QVERIFY(!runner(load("gpt-oss-120b", "h200-sxm-141gb", true), serving::EngineProfile::TrtLlm, false));
    QVERIFY(!runner(load("gpt-oss-120b", "b200", false), serving::EngineProfile::Vllm, false));
    QVERIFY(!runner(load("llama-3.1-8b", "b200", false), serving::EngineProfile::TrtLlm, false));
}

void TstServingSweep::theServingEnginesAddTheResidualInTheirRmsNorm()
{
    // vLLM, SGLang and TensorRT-LLM's PyTorch backend pass the residual to their RMSNorm (one fused kernel); what a
    // TensorRT engine's builder fused is not known, so it keeps the two kernels.
    const config::Scenario llama70b = llama70bOn8();
    QVERIFY(!llama70b.run.fusedResidualNorm);
    for (const auto profile :
        { serving::EngineProfile::Vllm, serving::EngineProfile::Sglang, serving::EngineProfile::TrtLlm }) {
        serving::EngineOptions options;
        options.profile = profile;
        QVERIFY(serving::engineScenario(llama70b, options).run.fusedResidualNorm);
    }
    serving::EngineOptions tensorRtEngine;
    tensorRtEngine.profile = serving::EngineProfile::TrtLlm;
    tensorRtEngine.tensorRtEngine = true;
    QVERIFY(!serving::engineScenario(llama70b, tensorRtEngine).run.fusedResidualNorm);
}

QTEST_GUILESS_MAIN(TstServingSweep)
#include "tst_servingsweep.moc"
