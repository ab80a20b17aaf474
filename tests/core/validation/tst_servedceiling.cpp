// SPDX-License-Identifier: GPL-3.0-or-later
// The compute ceiling of a served workload (validation/servedceiling.h), by hand for Llama-3.1-8B on one H100 SXM5:
// per token 2 x 32 layers x (4,096 x 10,240 attention + 3 x 4,096 x 14,336 MLP weights) = 13,958,643,712 weight FLOPs,
// 2 x 32 layers x 32 heads x (128 + 128) = 524,288 attention FLOPs per key attended, and 2 x 4,096 x 128,256 =
// 1,050,673,152 for the LM head. The preset's best bf16 GEMM rate is 989.4 TFLOP/s x 1.47 / 1.83 GHz (its sustained
// clock), FP8's 1,978.9 TFLOP/s peak times 0.883 (its fp8_matmul_ratio) at the same clock share.
#include "testutils.h"
#include "validation/performancevalidation.h"
#include "validation/servedceiling.h"

#include <QTest>

using namespace rapid;

namespace {

constexpr double kWeightFlops = 13'958'643'712.0;
constexpr double kAttentionFlopsPerKey = 524'288.0;
constexpr double kHeadFlops = 1'050'673'152.0;
constexpr double kBf16Rate = 989.4e12 * 1.47 / 1.83;

config::Scenario llama8bOnH100(int prompt, int output, const std::string& compute = "bf16")
{
    return test::projectLoader().loadScenario("llama-3.1-8b", "h100-sxm5-80gb", "llama-3.1-8b-decode-1gpu",
        { "run.inference.prompt_length=" + std::to_string(prompt),
            "run.inference.decode_length=" + std::to_string(output), "run.precision.compute=" + compute,
            "run.precision.weights=" + compute });
}

} // namespace

class TstServedCeiling : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void aPromptAloneCostsItsWeightsAndCausalAttention()
    {
        // 1,024 prompt tokens and one output token (sampled from the prompt's last position: no decode step):
        // 1,024 x 13,958,643,712 + 524,288 x (1 + ... + 1,024) = 14,568,797,503,488 FLOPs; the LM head runs for the
        // last prompt token only and is left out (a lower bound).
        const double flops = 1024 * kWeightFlops + kAttentionFlopsPerKey * 1024 * 1025 / 2;
        QCOMPARE(flops, 14'568'797'503'488.0);
        const double ceiling = validation::servedRequestsCeiling(llama8bOnH100(1024, 1), 1024, 1);
        QVERIFY2(std::abs(ceiling / (kBf16Rate / flops) - 1) < 1e-12, qPrintable(QString::number(ceiling)));
    }

    void aDecodedTokenAddsItsWeightsHeadAndContext()
    {
        // A second output token is one decode step: its weights, the LM head and 1,025 keys.
        const double flops = 1025 * kWeightFlops + kHeadFlops + kAttentionFlopsPerKey * (1024 * 1025 / 2 + 1025);
        const double ceiling = validation::servedRequestsCeiling(llama8bOnH100(1024, 2), 1024, 2);
        QVERIFY(std::abs(ceiling / (kBf16Rate / flops) - 1) < 1e-12);
    }

    void fp8GemmsRunAtTheirOwnRate()
    {
        // FP8 compute with bf16 activations: every FLOP at the faster FP8 rate (the bound takes the faster one).
        const double fp8Rate = 1978.9e12 * 0.883 * 1.47 / 1.83;
        const double flops = 1024 * kWeightFlops + kAttentionFlopsPerKey * 1024 * 1025 / 2;
        const double ceiling = validation::servedRequestsCeiling(llama8bOnH100(1024, 1, "fp8"), 1024, 1);
        QVERIFY(std::abs(ceiling / (fp8Rate / flops) - 1) < 1e-12);
    }

    void aLongPromptIsBoundedFromBelow()
    {
        // Beyond 1,024 tokens the attention sum is taken in blocks at each block's first context: never above the
        // exact 524,288 x n(n+1)/2, and within a block's share of it.
        const int prompt = 100'000;
        const double exact = prompt * kWeightFlops + kAttentionFlopsPerKey * prompt * (prompt + 1.0) / 2;
        const double ceiling = validation::servedRequestsCeiling(llama8bOnH100(prompt, 1), prompt, 1);
        const double flops = kBf16Rate / ceiling;
        QVERIFY(flops <= exact * (1 + 1e-12));
        QVERIFY(flops >= exact * (1 - 2.0 / 1024));
    }

    void aMeasurementBeyondTheCeilingIsNamed()
    {
        // One client, one output token: it completes 1 / TTFT requests per second. The ceiling is 989.4e12 x 1.47 /
        // 1.83 / 14,568,797,503,488 = 54.55 per second.
        const config::Scenario scenario = llama8bOnH100(1024, 1);
        const double ceiling = validation::servedRequestsCeiling(scenario, 1024, 1);
        QVERIFY(ceiling > 54.54 && ceiling < 54.56);
        QVERIFY(validation::servedBeyondCeiling(scenario, 1, 1.01 / ceiling, 0).empty());
        const std::string reason = validation::servedBeyondCeiling(scenario, 1, 0.99 / ceiling, 0);
        QVERIFY2(reason.find("beyond what the GPUs can compute") != std::string::npos, reason.c_str());
        // Little's law over the output: 8 clients, TTFT 10 ms and 9 more tokens at 5 ms: 8 / 55 ms = 145 per second.
        const config::Scenario ten = llama8bOnH100(1024, 10);
        const double tenCeiling = validation::servedRequestsCeiling(ten, 1024, 10);
        QCOMPARE(validation::servedBeyondCeiling(ten, 8, 0.010, 0.005).empty(), 8 / 0.055 <= tenCeiling);
    }

    void validationLeavesSuchRowsOut()
    {
        // A served dataset of two cases, one measured beyond the ceiling: it is listed by name among the skipped rows
        // with the reason, and only the other is evaluated.
        validation::Dataset dataset { "served", "none", "two rows", validation::Metric::ServedItl, 10, {}, {}, {} };
        validation::ValidationCase c;
        c.model = "llama-3.1-8b";
        c.hardware = "h100-sxm5-80gb";
        c.run = "llama-3.1-8b-decode-1gpu";
        c.overrides = { "run.inference.prompt_length=1024", "run.inference.decode_length=4" };
        c.concurrency = 1;
        c.requestsPerClient = 2;
        c.measuredTtft = 0.05;
        c.measuredItl = 0.01;
        c.measured = c.measuredItl;
        c.label = "possible";
        dataset.cases.push_back(c);
        c.label = "impossible";
        c.measuredTtft = 0.001;
        c.measuredItl = 0.0001;
        dataset.cases.push_back(c);
        const validation::DatasetResult result = validation::validateDataset(dataset, test::projectPresets());
        QCOMPARE(result.cases.size(), size_t(1));
        QCOMPARE(result.cases[0].source->label, std::string("possible"));
        QCOMPARE(result.dataset.skipped.size(), size_t(1));
        QCOMPARE(result.dataset.skipped[0].label, std::string("impossible"));
        QVERIFY(result.dataset.skipped[0].reason.find("beyond what the GPUs can compute") != std::string::npos);
    }
};

QTEST_APPLESS_MAIN(TstServedCeiling)
#include "tst_servedceiling.moc"
