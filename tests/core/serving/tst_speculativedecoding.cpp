// SPDX-License-Identifier: GPL-3.0-or-later
// Speculative decoding against values derived by hand: with an iteration cost a + b x tokens, a verification that
// keeps every draft (acceptance 1) or none (acceptance 0) gives closed forms for the iterations, ITL and KV cache; at
// an acceptance in between the mean tokens per verification is (1 - a^(k + 1)) / (1 - a); on the operator model a
// verification of a few tokens costs about what one decode token does (both read the weights once) and a draft head
// what its layer and the LM head weigh, read at the GPU's rate.
#include "affinecost.h"
#include "serving/servingengine.h"
#include "serving/servingsimulator.h"
#include "serving/speculation.h"
#include "serving/stepiterationcost.h"
#include "testutils.h"

#include <QTest>

#include <cmath>
#include <string>

using namespace rapid;
using serving::EngineOptions;
using test::AffineCost;
using test::closedLoop;

namespace {

EngineOptions speculating(int draftTokens, double acceptance, int blockSize = 16)
{
    EngineOptions options;
    options.maxNumSeqs = 256;
    options.maxNumBatchedTokens = 8192;
    options.blockSize = blockSize;
    options.kvBlocks = 100000;
    options.watermark = 0;
    options.speculative.draftTokens = draftTokens;
    options.speculative.acceptance = acceptance;
    options.speculative.method = serving::DraftMethod::Ngram;
    return options;
}

bool near(double actual, double expected, double relative)
{
    return std::abs(actual - expected) <= relative * std::abs(expected);
}

config::Scenario llama8bOnOneA100()
{
    return test::projectLoader().loadScenario("llama-3.1-8b", "a100-sxm4-80gb", "llama-serve-a100",
        { "run.inference.batch=1", "run.inference.prompt_length=1000", "run.inference.decode_length=100" });
}

} // namespace

class TstSpeculativeDecoding : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void acceptingEveryDraftYieldsDraftsPlusOneTokens()
    {
        // a = 2 ms, b = 10 us; 500 + 10 tokens, 3 drafts accepted always: the prefill (7 ms) samples token 1, then
        // verifications of 1 + 3 tokens yield 4 (tokens 2-5, 6-9) and the last one, with one token left, drafts none.
        AffineCost cost(2e-3, 1e-5);
        const auto trace = serving::simulateServing(closedLoop(1, 1, 500, 10), speculating(3, 1.0), cost);
        const auto& request = trace.requests.front();
        QVERIFY(near(request.ttft(), 7e-3, 1e-12));
        QCOMPARE(trace.iterations.size(), size_t { 4 });
        QVERIFY(near(request.itl(), (2.04e-3 + 2.04e-3 + 2.01e-3) / 9, 1e-12));
    }

    void rejectingEveryDraftYieldsOneTokenAndFreesTheirSlots()
    {
        // Acceptance 0: nine verifications of one token each; drafts min(3, tokens left - 1): 3 six times, then 2, 1,
        // 0, so 30 tokens computed: 9 a + 30 b = 18.3 ms over 9 intervals. With blocks of one token the cache holds
        // exactly the prompt and the tokens computed and kept: 500 + j after decode iteration j.
        AffineCost cost(2e-3, 1e-5);
        const auto trace = serving::simulateServing(closedLoop(1, 1, 500, 10), speculating(3, 0.0, 1), cost);
        QCOMPARE(trace.iterations.size(), size_t { 10 });
        QVERIFY(near(trace.requests.front().itl(), 18.3e-3 / 9, 1e-12));
        for (size_t j = 0; j < trace.iterations.size(); ++j) {
            const std::int64_t expected = j + 1 < trace.iterations.size() ? 500 + static_cast<std::int64_t>(j) : 0;
            QCOMPARE(trace.iterations[j].usedBlocks, expected); // the finished request's blocks are freed
        }
    }

    void prefillFirstDecodesEveryRunningRequestsVerification()
    {
        // SGLang's decode batch is bounded by requests, not tokens: four clients of 100 + 10 tokens at max_num_seqs 4,
        // 3 drafts always kept: one prompt batch, then three decode iterations of all four requests (4, 4 and 1
        // tokens each), four iterations in all; the last ends at 4 a + (400 + 16 + 16 + 4) b.
        AffineCost cost(2e-3, 1e-5);
        EngineOptions options = speculating(3, 1.0);
        options.batching = serving::Batching::PrefillFirst;
        options.maxNumSeqs = 4;
        const auto trace = serving::simulateServing(closedLoop(4, 4, 100, 10), options, cost);
        QCOMPARE(trace.iterations.size(), size_t { 4 });
        QVERIFY(near(trace.makespanSeconds, 4 * 2e-3 + 436 * 1e-5, 1e-12));
    }

    void theMeanTokensPerVerificationIsTheClosedForm()
    {
        // a = 0.6, k = 4: (1 - 0.6^5) / 0.4 = 2.3056 tokens per verification; all four kept with 0.6^4 = 0.1296.
        QVERIFY(near(serving::meanTokensPerVerification(4, 0.6), 2.3056, 1e-12));
        serving::SpeculativeDecoding speculative;
        speculative.draftTokens = 4;
        speculative.acceptance = 0.6;
        speculative.seed = 7;
        serving::DraftAcceptance acceptance(speculative);
        constexpr int kDraws = 200000;
        double tokens = 0;
        int allKept = 0;
        for (int draw = 0; draw < kDraws; ++draw) {
            const std::int64_t kept = acceptance.accepted(4);
            tokens += static_cast<double>(1 + kept);
            allKept += kept == 4 ? 1 : 0;
        }
        // Standard errors: 1.3 / sqrt(200,000) = 0.003 tokens, sqrt(0.13 x 0.87 / 200,000) = 0.00075.
        QVERIFY(near(tokens / kDraws, 2.3056, 0.01));
        QVERIFY(std::abs(allKept / double(kDraws) - 0.1296) < 0.004);

        // One request of 20,001 tokens: its 20,000 after the first in about 20,000 / 2.3056 = 8,675 verifications.
        AffineCost cost(1e-3, 0);
        const auto trace = serving::simulateServing(closedLoop(1, 1, 100, 20001), speculating(4, 0.6), cost);
        QVERIFY(near(static_cast<double>(trace.iterations.size() - 1), 20000 / 2.3056, 0.02));
    }

    void anAcceptanceLengthGivesItsAcceptance()
    {
        // Inverse of the closed form: 2.3056 tokens per verification of 4 drafts is 0.6 (above); one draft whose
        // verifications yield 1.85 tokens is kept with 0.85 (1 + a); the ends: 1 token is 0, k + 1 tokens 1.
        QVERIFY(near(serving::acceptanceForMeanLength(4, 2.3056), 0.6, 1e-12));
        QVERIFY(near(serving::acceptanceForMeanLength(1, 1.85), 0.85, 1e-12));
        QCOMPARE(serving::acceptanceForMeanLength(3, 1.0), 0.0);
        QVERIFY(near(serving::acceptanceForMeanLength(3, 4.0), 1.0, 1e-15));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, serving::acceptanceForMeanLength(3, 4.5));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, serving::acceptanceForMeanLength(3, 0.9));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, serving::acceptanceForMeanLength(0, 1.0));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, serving::acceptanceForMeanLength(3, std::nan("")));
    }

    void aVerificationReadsTheWeightsOnceAndADraftHeadItsLayerAndHead()
    {
        // Llama-3.1-8B on one A100 decoding one request at 1,000 tokens is bound by reading its 16 GB of weights, so
        // checking 3 drafts with it (4 queries) costs at most a tenth more than one token (the 4-row GEMMs stream the
        // same weights; attention reads the same cache).
        const config::Scenario scenario = llama8bOnOneA100();
        sim::StepModel stepModel(scenario);
        serving::StepIterationCost plain(stepModel);
        const double one = plain.seconds({ { 1, 1000, true, 0 } });
        const double verification = plain.seconds({ { 4, 1000, true, 3 } });
        QVERIFY2(verification >= one && verification <= 1.1 * one,
            qPrintable(QStringLiteral("%1 vs %2").arg(verification).arg(one)));

        // A one-layer draft head drafting 3 tokens: 3 passes of a decoder layer (218,112,000 parameters: 4,096 x
        // 6,144 QKV + 4,096^2 output + 3 x 4,096 x 14,336 MLP + two norms) and of the LM head (4,096 x 128,256), bf16,
        // read at no more than the datasheet's 2,039 GB/s and, with the kernels' launches, within twice that time.
        serving::SpeculativeDecoding head;
        head.draftTokens = 3;
        head.acceptance = 0.5;
        serving::StepIterationCost drafting(stepModel, head);
        const double draft = drafting.seconds({ { 4, 1000, true, 3 } }) - verification;
        const double bytes = 3 * 2.0 * (218112000.0 + 4096.0 * 128256.0);
        const double floor = bytes / 2039e9;
        QVERIFY2(draft >= floor && draft <= 2 * floor, qPrintable(QStringLiteral("%1 vs %2").arg(draft).arg(floor)));
    }

    void aDraftHeadHoldsItsLayerAndItsCache()
    {
        // The head's weights: one decoder layer, 218,112,000 bf16 parameters; its cache: one layer's per token beside
        // the model's 32.
        const config::Scenario scenario = llama8bOnOneA100();
        EngineOptions options;
        const serving::KvCapacity without = serving::kvCapacity(scenario, options);
        options.speculative.draftTokens = 2;
        options.speculative.acceptance = 0.7;
        const serving::KvCapacity with = serving::kvCapacity(scenario, options);
        QVERIFY(near(with.heldBytesPerGpu - without.heldBytesPerGpu, 2 * 218112000.0, 1e-9));
        QVERIFY(near(with.bytesPerTokenPerGpu, without.bytesPerTokenPerGpu * 33 / 32, 1e-12));
        // Prompt lookup keeps nothing on the GPU.
        options.speculative.method = serving::DraftMethod::Ngram;
        QVERIFY(near(serving::kvCapacity(scenario, options).heldBytesPerGpu, without.heldBytesPerGpu, 1e-12));
    }

    void outOfRangeKnobsAreRefusedByName()
    {
        const config::Scenario scenario = llama8bOnOneA100();
        const auto refusal = [&](int tokens, double acceptance, int layers) -> std::string {
            EngineOptions options;
            options.speculative.draftTokens = tokens;
            options.speculative.acceptance = acceptance;
            options.speculative.draftLayers = layers;
            try {
                serving::simulateServing(scenario, closedLoop(1, 1, 100, 10), options);
            } catch (const std::invalid_argument& error) {
                return error.what();
            }
            return {};
        };
        QVERIFY(refusal(17, 0.5, 1).find("draft tokens") != std::string::npos);
        QVERIFY(refusal(-1, 0.5, 1).find("draft tokens") != std::string::npos);
        QVERIFY(refusal(3, 1.5, 1).find("acceptance") != std::string::npos);
        QVERIFY(refusal(3, std::nan(""), 1).find("acceptance") != std::string::npos);
        QVERIFY(refusal(3, 0.5, 0).find("decoder layers") != std::string::npos);
        QVERIFY(refusal(3, 0.5, 1).empty());
    }
};

QTEST_GUILESS_MAIN(TstSpeculativeDecoding)
#include "tst_speculativedecoding.moc"
