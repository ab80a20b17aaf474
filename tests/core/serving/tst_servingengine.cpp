// SPDX-License-Identifier: GPL-3.0-or-later
// The continuous-batching engine against values derived by hand: an iteration cost a + b x tokens gives closed forms
// for TTFT and ITL; chunked prefill, preemption at the exact iteration the KV cache runs out, Little's law in a
// saturated closed loop; and on the real operator model, one request alone and a static batch equal
// StepModel::inference's prediction.
#include "affinecost.h"
#include "serving/kvblockmanager.h"
#include "serving/servingengine.h"
#include "serving/servingsimulator.h"
#include "serving/stepiterationcost.h"
#include "testutils.h"

#include <QTest>

#include <cmath>
#include <cstdlib>
#include <set>

using namespace rapid;
using serving::EngineOptions;
using serving::WorkloadSpec;
using test::AffineCost;
using test::closedLoop;
using test::near;
using test::withBlocks;

class TstServingEngine : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void oneRequestAloneTakesPrefillThenOneIterationPerToken()
    {
        // a = 2 ms, b = 10 us: prefill of 500 tokens in one iteration, a + 500 b = 7 ms; each further token a + b.
        AffineCost cost(2e-3, 1e-5);
        const auto trace = serving::simulateServing(closedLoop(1, 1, 500, 20), withBlocks(1000), cost);
        QCOMPARE(trace.requests.size(), size_t { 1 });
        const auto& request = trace.requests.front();
        QVERIFY(near(request.ttft(), 7e-3, 1e-12));
        QVERIFY(near(request.itl(), 2.01e-3, 1e-12));
        QVERIFY(near(request.e2e(), 7e-3 + 19 * 2.01e-3, 1e-12));
        QCOMPARE(trace.iterations.size(), size_t { 20 });
    }

    void hostTimeInStepWithTheGpuAddsToEveryIteration()
    {
        // a = 2 ms, b = 10 us as above, plus 1 ms of host time per iteration and 0.5 ms per sequence, not overlapped:
        // one request alone pays 1.5 ms more in its prefill (7 -> 8.5 ms) and in every decode (2.01 -> 3.51 ms).
        AffineCost cost(2e-3, 1e-5);
        EngineOptions options = withBlocks(1000);
        options.host = { 1e-3, 0.5e-3, false };
        const auto alone = serving::simulateServing(closedLoop(1, 1, 500, 20), options, cost);
        QVERIFY(near(alone.requests[0].ttft(), 8.5e-3, 1e-12));
        QVERIFY(near(alone.requests[0].itl(), 3.51e-3, 1e-12));
        // Eight requests together without chunking: one prefill of 800 tokens (1.8 ms) and decodes of 8 tokens
        // (1.008 ms), each with 1 ms + 8 x 0.5 ms of host time.
        AffineCost small(1e-3, 1e-6);
        options.chunkedPrefill = false;
        const auto batch = serving::simulateServing(closedLoop(8, 8, 100, 10), options, small);
        for (const auto& request : batch.requests) {
            QVERIFY(near(request.ttft(), 1.8e-3 + 5e-3, 1e-12));
            QVERIFY(near(request.itl(), 1.008e-3 + 5e-3, 1e-12));
        }
    }

    void overlappedHostTimeShowsOnlyBeyondThePreviousIteration()
    {
        // Overlapped, the host prepares an iteration while the GPU runs the one before. 1.5 ms of host time against
        // decodes of 2.01 ms: exposed in full only in the first iteration, after the idle engine (TTFT 7 + 1.5 ms),
        // hidden in every decode.
        AffineCost cost(2e-3, 1e-5);
        EngineOptions options = withBlocks(1000);
        options.host = { 1e-3, 0.5e-3, true };
        auto trace = serving::simulateServing(closedLoop(1, 1, 500, 20), options, cost);
        QVERIFY(near(trace.requests[0].ttft(), 8.5e-3, 1e-12));
        QVERIFY(near(trace.requests[0].itl(), 2.01e-3, 1e-12));
        // 3 ms of host time, longer than a decode: the first decode hides behind the 7 ms prefill (2.01 ms), each
        // later one shows 3 - 2.01 ms of it (3 ms per token): e2e = 10 + 2.01 + 18 x 3 ms.
        options.host = { 3e-3, 0, true };
        trace = serving::simulateServing(closedLoop(1, 1, 500, 20), options, cost);
        QVERIFY(near(trace.requests[0].ttft(), 10e-3, 1e-12));
        QVERIFY(near(trace.requests[0].e2e(), 10e-3 + 2.01e-3 + 18 * 3e-3, 1e-12));
        // An overlap scheduler hides it the same way without being told: 1.5 ms in step again, scheduler on. One
        // request alone never waits for a batch composed ahead, so its times are those of the first case: TTFT 8.5 ms,
        // ITL 2.01 ms (in step it would be 3.51 ms, hostTimeInStepWithTheGpuAddsToEveryIteration).
        options.host = { 1e-3, 0.5e-3, false };
        options.overlapScheduling = serving::OverlapScheduling::On;
        trace = serving::simulateServing(closedLoop(1, 1, 500, 20), options, cost);
        QVERIFY(near(trace.requests[0].ttft(), 8.5e-3, 1e-12));
        QVERIFY(near(trace.requests[0].itl(), 2.01e-3, 1e-12));
    }

    void aLongPromptIsChunkedToTheTokenBudget()
    {
        // 3,000 prompt tokens with a budget of 1,024: 1,024 + 1,024 + 952 in three iterations.
        AffineCost cost(1e-3, 1e-6);
        EngineOptions options = withBlocks(1000);
        options.maxNumBatchedTokens = 1024;
        const auto trace = serving::simulateServing(closedLoop(1, 1, 3000, 2), options, cost);
        QVERIFY(near(trace.requests[0].ttft(), 3 * 1e-3 + 3000 * 1e-6, 1e-12));
        QCOMPARE(trace.iterations[0].batchedTokens, std::int64_t { 1024 });
        QCOMPARE(trace.iterations[2].batchedTokens, std::int64_t { 952 });
    }

    void requestsArrivingTogetherWithoutChunkingAreOneStaticBatch()
    {
        // 8 requests of 100 + 10 tokens at once: one prefill iteration of 800 tokens, then 9 decode iterations of 8.
        AffineCost cost(1e-3, 1e-6);
        EngineOptions options = withBlocks(1000);
        options.chunkedPrefill = false;
        const auto trace = serving::simulateServing(closedLoop(8, 8, 100, 10), options, cost);
        for (const auto& request : trace.requests) {
            QVERIFY(near(request.ttft(), 1e-3 + 800e-6, 1e-12));
            QVERIFY(near(request.itl(), 1e-3 + 8e-6, 1e-12));
        }
    }

    void preemptionHappensExactlyWhenTheCacheRunsOut()
    {
        // 10 blocks of 16 tokens; two requests of 48 prompt tokens (3 blocks each) and 40 outputs. Iteration 1
        // prefills both (6 blocks); iteration 2 adds the 49th token: a 4th block each (8); iteration 18 the 65th: a
        // 5th each (10, all). Iteration 34 needs a 6th block for the 81st token with none free: the last admitted
        // request is preempted (its 5 blocks freed) and the first takes one (6 in use).
        AffineCost cost(1e-3, 0);
        const auto trace = serving::simulateServing(closedLoop(2, 2, 48, 40), withBlocks(10), cost);
        QCOMPARE(trace.iterations[0].usedBlocks, std::int64_t { 6 });
        QCOMPARE(trace.iterations[1].usedBlocks, std::int64_t { 8 });
        QCOMPARE(trace.iterations[17].usedBlocks, std::int64_t { 10 });
        for (int i = 0; i < 33; ++i) {
            QCOMPARE(trace.iterations[static_cast<size_t>(i)].running, 2);
        }
        QCOMPARE(trace.iterations[33].running, 1);
        QCOMPARE(trace.iterations[33].waiting, 1);
        QCOMPARE(trace.iterations[33].swapped, 0); // recomputed: it waits to start again
        QCOMPARE(trace.iterations[32].preemptions, 0);
        QCOMPARE(trace.iterations[33].preemptions, 1);
        QCOMPARE(trace.iterations[33].usedBlocks, std::int64_t { 6 });
        QCOMPARE(trace.requests[1].preemptions, 1);
        QCOMPARE(trace.requests[0].preemptions, 0);
        QCOMPARE(trace.preemptions, 1);
        // The preempted request still delivers all its tokens.
        QVERIFY(trace.requests[1].finishSeconds > trace.requests[0].finishSeconds);
    }

    void guaranteedNoEvictStartsOnlyWhatCanFinish()
    {
        // The requests of the test above under TensorRT-LLM's default policy: each needs ceil(88 / 16) = 6 blocks at
        // its end, and 6 + 6 > 10, so the second waits for the first to leave instead of being preempted. a = 1 ms:
        // the first prefills in iteration 1 (TTFT 1 ms) and samples its 40th token in iteration 40 (40 ms); the
        // second starts in iteration 41 (TTFT 41 ms) and finishes at 80 ms.
        AffineCost cost(1e-3, 0);
        EngineOptions options = withBlocks(10);
        options.capacityPolicy = serving::CapacityPolicy::GuaranteedNoEvict;
        const auto trace = serving::simulateServing(closedLoop(2, 2, 48, 40), options, cost);
        QCOMPARE(trace.preemptions, 0);
        QCOMPARE(trace.iterations.size(), size_t { 80 });
        // Sampled at each iteration's end: the first runs while the second waits, until it leaves in iteration 40.
        for (int i = 0; i < 39; ++i) {
            QCOMPARE(trace.iterations[static_cast<size_t>(i)].running, 1);
            QCOMPARE(trace.iterations[static_cast<size_t>(i)].waiting, 1);
        }
        QCOMPARE(trace.iterations[39].running, 0);
        QCOMPARE(trace.iterations[40].running, 1);
        QCOMPARE(trace.iterations[40].waiting, 0);
        QVERIFY(near(trace.requests[0].ttft(), 1e-3, 1e-12));
        QVERIFY(near(trace.requests[0].e2e(), 40e-3, 1e-12));
        QVERIFY(near(trace.requests[1].ttft(), 41e-3, 1e-12));
        QVERIFY(near(trace.requests[1].e2e(), 80e-3, 1e-12));
        // With 12 blocks both reservations fit (6 + 6 = 12): they run together from the start, as without the policy.
        options.kvBlocks = 12;
        const auto together = serving::simulateServing(closedLoop(2, 2, 48, 40), options, cost);
        QCOMPARE(together.iterations.size(), size_t { 40 });
        QCOMPARE(together.iterations[0].running, 2);
        QCOMPARE(together.preemptions, 0);
        // TensorRT-LLM's profile takes the policy by default; vLLM's keeps admitting by the blocks free now.
        options.capacityPolicy = serving::CapacityPolicy::Auto;
        options.profile = serving::EngineProfile::TrtLlm;
        QCOMPARE(serving::capacityPolicyOf(options), serving::CapacityPolicy::GuaranteedNoEvict);
        options.profile = serving::EngineProfile::Vllm;
        QCOMPARE(serving::capacityPolicyOf(options), serving::CapacityPolicy::MaxUtilization);
    }

    void sglangAdmitsWhatFitsBesideAShareOfTheRunningOutputs()
    {
        // SGLang's PrefillAdder: a request starts when its prompt plus its output (clipped at 4,096) is below the free
        // tokens less new_token_ratio (0.7 at first) of every running request's remaining output, and each one
        // admitted in a pass takes its prompt plus output from that room. 96 blocks of 16 = 1,536 tokens; requests of
        // 160 + 480 (640). Pass 1: 640 < 1,536 (room 896), 640 < 896 (room 256), 640 >= 256: two start. While they
        // decode (g tokens each, the ratio r falling by (0.7 - 0.098) / 600 per step) the room is about
        // 1,536 - 2 (160 + g) - 2 (480 - g) r <= 560 < 640: the others wait for them to finish, at iteration 480
        // (a = 1 ms), and start together in iteration 481 (TTFT 481 ms). Nothing is preempted; without the rule all
        // four start at once and the cache runs out.
        AffineCost cost(1e-3, 0);
        EngineOptions options = withBlocks(96);
        options.profile = serving::EngineProfile::Sglang;
        options.overlapScheduling = serving::OverlapScheduling::Off; // the admission rule alone
        QCOMPARE(serving::capacityPolicyOf(options), serving::CapacityPolicy::NewTokenRatio);
        const auto trace = serving::simulateServing(closedLoop(4, 4, 160, 480), options, cost);
        QCOMPARE(trace.preemptions, 0);
        QCOMPARE(trace.iterations.size(), size_t { 960 });
        for (int i = 0; i < 479; ++i) {
            QCOMPARE(trace.iterations[static_cast<size_t>(i)].running, 2);
            QCOMPARE(trace.iterations[static_cast<size_t>(i)].waiting, 2);
        }
        QCOMPARE(trace.iterations[480].running, 2);
        QCOMPARE(trace.iterations[480].waiting, 0);
        QVERIFY(near(trace.requests[0].ttft(), 1e-3, 1e-12));
        QVERIFY(near(trace.requests[1].e2e(), 480e-3, 1e-12));
        QVERIFY(near(trace.requests[2].ttft(), 481e-3, 1e-12));
        QVERIFY(near(trace.requests[3].e2e(), 960e-3, 1e-12));
        options.capacityPolicy = serving::CapacityPolicy::MaxUtilization;
        const auto packed = serving::simulateServing(closedLoop(4, 4, 160, 480), options, cost);
        QCOMPARE(packed.iterations[0].running, 4);
        QVERIFY(packed.preemptions > 0);
    }

    void aSaturatedClosedLoopObeysLittlesLaw()
    {
        // Throughput = concurrency / mean latency: 16 clients, 3,200 requests of 200 + 50 tokens.
        AffineCost cost(5e-3, 2e-6);
        EngineOptions options = withBlocks(100000);
        options.maxNumBatchedTokens = 2048;
        const auto trace = serving::simulateServing(closedLoop(16, 3200, 200, 50), options, cost);
        double latency = 0;
        for (const auto& request : trace.requests) {
            latency += request.e2e();
        }
        latency /= static_cast<double>(trace.requests.size());
        const double throughput = static_cast<double>(trace.requests.size()) / trace.makespanSeconds;
        QVERIFY2(near(throughput, 16 / latency, 0.01),
            qPrintable(QStringLiteral("%1 req/s vs %2").arg(throughput).arg(16 / latency)));
    }

    void aRequestTooLargeForTheCacheIsRefused()
    {
        AffineCost cost(1e-3, 0);
        QVERIFY_THROWS_EXCEPTION(
            std::invalid_argument, serving::simulateServing(closedLoop(1, 1, 100, 100), withBlocks(12), cost));
        // 200 blocks of 16 with vLLM's 1% watermark: 2 blocks stay free at admission, so a 3,180-token prompt taken
        // whole (199 blocks) could never be admitted; it is refused, not left waiting (it once stopped with "an
        // iteration with nothing to compute"). In chunks of 1,024 tokens (64 blocks) it is admitted and runs.
        EngineOptions options = withBlocks(200);
        options.watermark = 0.01;
        QVERIFY_THROWS_EXCEPTION(
            std::invalid_argument, serving::simulateServing(closedLoop(1, 1, 3180, 2), options, cost));
        options.maxNumBatchedTokens = 1024;
        const auto chunked = serving::simulateServing(closedLoop(1, 1, 3180, 2), options, cost);
        QCOMPARE(chunked.iterations.size(), size_t { 5 }); // 1,024 x 3 + 108 prompt tokens, then one decode
    }

    void slidingWindowGroupsKeepOnlyTheWindow()
    {
        // One full-attention and one sliding-window layer group, 16-token blocks, a 64-token window: the next token
        // attends to the 63 before it, which span at most ceil(63 / 16) + 1 = 5 blocks. n tokens hold ceil(n / 16)
        // blocks of the full group and min(ceil(n / 16), 5) of the windowed one.
        const serving::KvLayout layout { 1, 1, 64 };
        const serving::KvBlockManager blocks(1000, 16, layout);
        QCOMPARE(blocks.blocksFor(0), std::int64_t { 0 });
        QCOMPARE(blocks.blocksFor(1), std::int64_t { 2 });
        QCOMPARE(blocks.blocksFor(64), std::int64_t { 8 });
        QCOMPARE(blocks.blocksFor(65), std::int64_t { 10 });
        QCOMPARE(blocks.blocksFor(81), std::int64_t { 11 });
        QCOMPARE(blocks.blocksFor(1000), std::int64_t { 63 + 5 });
        QCOMPARE(blocks.extraBlocks(80, 1), std::int64_t { 1 }); // the full group's 6th block only
        QCOMPARE(serving::KvBlockManager(1000, 16, { 0, 1, 64 }).blocksFor(1000), std::int64_t { 5 });
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, serving::KvBlockManager(10, 16, { 0, 0, 0 }));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, serving::KvBlockManager(10, 16, { 1, 1, 0 }));

        // One request of 48 prompt tokens and 40 outputs: after the prefill 48 tokens (3 + 3 blocks), the 49th token
        // 4 + 4, the 65th 5 + 5, the 81st 6 + 5: the windowed group stops growing.
        AffineCost cost(1e-3, 0);
        EngineOptions options = withBlocks(100);
        options.kvLayout = layout;
        const auto trace = serving::simulateServing(closedLoop(1, 1, 48, 40), options, cost);
        QCOMPARE(trace.iterations[0].usedBlocks, std::int64_t { 6 });
        QCOMPARE(trace.iterations[1].usedBlocks, std::int64_t { 8 });
        QCOMPARE(trace.iterations[17].usedBlocks, std::int64_t { 10 });
        QCOMPARE(trace.iterations[33].usedBlocks, std::int64_t { 11 });
    }

    void theCapacityCountsBlocksOfOneLayerGroup()
    {
        // Llama-3.1-8B on one H100 (bf16 KV: 32 layers x 2 x 8 heads x 128 x 2 B = 131,072 B per token). A 4,096-token
        // window in every other layer (16 full-attention and 16 windowed layers: groups of 16, one of each): a block
        // holds 16 tokens of 16 layers, half the bytes, so the same free memory holds twice the blocks (within one for
        // rounding). A window in every layer: one group of all 32 layers, the blocks of full attention. The bytes per
        // token of every layer do not change with the window.
        auto capacity = [](const std::vector<std::string>& overrides) {
            const config::Scenario scenario
                = test::projectLoader().loadScenario("llama-3.1-8b", "h100-sxm5-80gb", "llama-serve-a100", overrides);
            return serving::kvCapacity(scenario, EngineOptions {});
        };
        const serving::KvCapacity full = capacity({});
        const serving::KvCapacity everyOther
            = capacity({ "model.sliding_window=4096", "model.full_attention_every=2" });
        const serving::KvCapacity everyLayer = capacity({ "model.sliding_window=4096" });
        QCOMPARE(full.bytesPerTokenPerGpu, 131072.0);
        QCOMPARE(everyOther.bytesPerTokenPerGpu, 131072.0);
        QCOMPARE(everyLayer.bytesPerTokenPerGpu, 131072.0);
        QCOMPARE(full.layout, (serving::KvLayout { 1, 0, 0 }));
        QCOMPARE(everyOther.layout, (serving::KvLayout { 1, 1, 4096 }));
        QCOMPARE(everyLayer.layout, (serving::KvLayout { 0, 1, 4096 }));
        QVERIFY(std::llabs(everyOther.blocks - 2 * full.blocks) <= 1);
        QCOMPARE(everyLayer.blocks, full.blocks);
    }

    void prefixCachingSkipsTheSharedBlocks()
    {
        // a = 2 ms, b = 10 us, one client, two requests of 1,000 + 10 tokens sharing 512 prompt tokens (32 blocks of
        // 16). The first computes its whole prompt: TTFT a + 1000 b = 12 ms, then 9 decode iterations of a + b, done
        // at 30.09 ms. The second finds 512 tokens in the prefix cache and prefills 488: TTFT a + 488 b = 6.88 ms.
        // 512 of the 2,000 prompt tokens came from the cache. Without caching both take 12 ms.
        AffineCost cost(2e-3, 1e-5);
        WorkloadSpec workload = closedLoop(1, 2, 1000, 10);
        workload.sharedPrefixTokens = 512;
        const auto cached = serving::simulateServing(workload, withBlocks(1000), cost);
        QVERIFY(near(cached.requests[0].ttft(), 12e-3, 1e-12));
        QVERIFY(near(cached.requests[1].arrivalSeconds, 12e-3 + 9 * 2.01e-3, 1e-12));
        QVERIFY(near(cached.requests[1].ttft(), 6.88e-3, 1e-12));
        QCOMPARE(cached.cachedPromptTokens, std::int64_t(512));
        QCOMPARE(serving::summarise(cached, 1, 1, {}).prefixCacheHitRate, 512.0 / 2000.0);
        // The cache keeps the 32 prefix blocks after both requests finished; everything else is free again.
        QCOMPARE(cached.iterations.back().usedBlocks, std::int64_t(32));

        EngineOptions off = withBlocks(1000);
        off.prefixCaching = false;
        const auto recomputed = serving::simulateServing(workload, off, cost);
        QVERIFY(near(recomputed.requests[1].ttft(), 12e-3, 1e-12));
        QCOMPARE(recomputed.cachedPromptTokens, std::int64_t(0));

        // A prompt that is all shared prefix still computes its last block's tokens to sample from: 512 tokens, 496
        // (31 whole blocks short of the last token) cached, 16 computed: a + 16 b.
        WorkloadSpec whole = closedLoop(1, 2, 512, 2);
        whole.sharedPrefixTokens = 512;
        const auto allShared = serving::simulateServing(whole, withBlocks(1000), cost);
        QVERIFY(near(allShared.requests[1].ttft(), 2e-3 + 16 * 1e-5, 1e-12));
    }

    void aPromptPoolServesPromptsSentAgainFromTheCache()
    {
        // a = 2 ms, b = 10 us, one client, five requests of 1,000 + 10 tokens drawn from a pool of one prompt: the
        // first computes it (TTFT a + 1000 b = 12 ms); each later one finds all but its last block cached, 992 tokens
        // (62 whole blocks of 16 short of the last token), and prefills 8: a + 8 b = 2.08 ms. 4 x 992 of the 5,000
        // prompt tokens come from the cache.
        AffineCost cost(2e-3, 1e-5);
        WorkloadSpec workload = closedLoop(1, 5, 1000, 10);
        workload.promptPool = 1;
        const auto trace = serving::simulateServing(workload, withBlocks(1000), cost);
        QVERIFY(near(trace.requests[0].ttft(), 12e-3, 1e-12));
        for (size_t i = 1; i < trace.requests.size(); ++i) {
            QVERIFY2(near(trace.requests[i].ttft(), 2.08e-3, 1e-12), qPrintable(QString::number(i)));
        }
        QCOMPARE(trace.cachedPromptTokens, std::int64_t(4 * 992));
        QCOMPARE(serving::summarise(trace, 1, 1, {}).prefixCacheHitRate, 4 * 992 / 5000.0);

        // A pool of 3 over 12 requests: each prompt's first request misses and every later one hits (the cache has
        // room for all three), so the cached tokens are (12 - distinct prompts drawn) x 992, the draws being the
        // workload's own.
        workload.requests = 12;
        workload.promptPool = 3;
        std::set<int> drawn;
        for (const serving::RequestSpec& request : serving::workloadRequests(workload)) {
            drawn.insert(request.prefixId);
        }
        const auto three = serving::simulateServing(workload, withBlocks(1000), cost);
        QCOMPARE(three.cachedPromptTokens, std::int64_t(12 - static_cast<int>(drawn.size())) * 992);
        EngineOptions off = withBlocks(1000);
        off.prefixCaching = false;
        QCOMPARE(serving::simulateServing(workload, off, cost).cachedPromptTokens, std::int64_t(0));
    }

    void aRequestAloneGivesUpItsCachedPrefixRatherThanWaitForEver()
    {
        // 1,025 blocks of one token, 512 tokens per iteration, vLLM's watermark of 1% (10 blocks): the first of two
        // requests of 1,024 + 1 tokens sharing 512 computes its prompt in two chunks of a + 512 b = 7.12 ms (the cache
        // takes its 512 prefix blocks), samples and leaves. The second alone would need 512 blocks beside its cached
        // prefix and the watermark, 1,034 of 1,025, and nothing running would free any (it once stopped with "an
        // iteration with nothing to compute", found by tst_servingproperties): it computes the prefix again instead,
        // in the same 14.24 ms, and takes nothing from the cache.
        AffineCost cost(2e-3, 1e-5);
        WorkloadSpec workload = closedLoop(1, 2, 1024, 1);
        workload.sharedPrefixTokens = 512;
        EngineOptions options = withBlocks(1025);
        options.blockSize = 1;
        options.maxNumBatchedTokens = 512;
        options.watermark = 0.01;
        const auto trace = serving::simulateServing(workload, options, cost);
        QCOMPARE(trace.requests.size(), size_t { 2 });
        QVERIFY(near(trace.requests[0].ttft(), 14.24e-3, 1e-12));
        QVERIFY(near(trace.requests[1].ttft(), 14.24e-3, 1e-12));
        QCOMPARE(trace.cachedPromptTokens, std::int64_t(0));
    }

    void theLeastRecentlyUsedCachedPrefixMakesRoomFirst()
    {
        // a = 1 ms, b = 10 us, 14 blocks of 16 tokens, requests of 100 + 1 tokens (7 blocks) one second apart, each
        // sharing 64 prompt tokens (4 blocks) with the others of its prefix id: 0, 1, 0, 2, 0, 1. A miss prefills 100
        // tokens (a + 100 b = 2 ms), a hit 36 (1.36 ms). r0 leaves prefix 0 cached (4 blocks, 10 free), r1 prefix 1
        // (8 cached, 6 free); r2 hits prefix 0 and needs 3 blocks. r3 needs 7 of 6 free: prefix 1, used last at 1 s,
        // goes (prefix 0 was read at 2 s), so r4 hits prefix 0 and r5 misses prefix 1. 128 prompt tokens come from
        // the cache. Kept for ever instead, r3 could never start.
        AffineCost cost(1e-3, 1e-5);
        WorkloadSpec workload;
        workload.arrival = serving::ArrivalKind::Trace;
        workload.sharedPrefixTokens = 64;
        const int prefixes[] = { 0, 1, 0, 2, 0, 1 };
        for (int i = 0; i < 6; ++i) {
            workload.trace.push_back({ static_cast<double>(i), 100, 1, prefixes[i] });
        }
        const auto trace = serving::simulateServing(workload, withBlocks(14), cost);
        const double expected[] = { 2e-3, 2e-3, 1.36e-3, 2e-3, 1.36e-3, 2e-3 };
        for (int i = 0; i < 6; ++i) {
            QVERIFY2(
                near(trace.requests[static_cast<size_t>(i)].ttft(), expected[i], 1e-9), qPrintable(QString::number(i)));
        }
        QCOMPARE(trace.cachedPromptTokens, std::int64_t { 128 });
        QCOMPARE(trace.preemptions, 0);
        // With room for every prefix nothing is evicted: r4 and r5 both hit (r2 too), 192 tokens from the cache.
        const auto roomy = serving::simulateServing(workload, withBlocks(100), cost);
        QCOMPARE(roomy.cachedPromptTokens, std::int64_t { 192 });
        QVERIFY(near(roomy.requests[5].ttft(), 1.36e-3, 1e-9));
    }

    void rampedClientsStartSpreadAndTheWarmupIsLeftOut()
    {
        // a = 2 ms, b = 10 us, two clients ramped over 16 ms (client 1 starts at 8 ms), four requests of 500 + 3.
        // id0 prefills alone 0-7 ms (TTFT 7), decodes 7-9.01; id1 (arrived at 8) prefills with id0's last token,
        // a + 501 b = 7.01 ms to 16.02: TTFT 8.02 ms; id0's client sends id2 at 16.02, prefilled with id1's decode
        // to 23.03 (TTFT 7.01); id1 ends at 25.05 and sends id3, prefilled with id2's last token to 32.06 (TTFT
        // 7.01); id3 decodes twice to 36.08 ms. A warm-up of two leaves id2 and id3: mean TTFT 7.01 ms, 6 output
        // tokens over 16.02-36.08 ms.
        AffineCost cost(2e-3, 1e-5);
        WorkloadSpec workload = closedLoop(2, 4, 500, 3);
        workload.rampSeconds = 16e-3;
        workload.warmupRequests = 2;
        const auto trace = serving::simulateServing(workload, withBlocks(1000), cost);
        const double arrivals[] = { 0, 8e-3, 16.02e-3, 25.05e-3 };
        const double ttfts[] = { 7e-3, 8.02e-3, 7.01e-3, 7.01e-3 };
        for (size_t id = 0; id < 4; ++id) {
            QVERIFY2(
                std::abs(trace.requests[id].arrivalSeconds - arrivals[id]) < 1e-12, qPrintable(QString::number(id)));
            QVERIFY2(near(trace.requests[id].ttft(), ttfts[id], 1e-9), qPrintable(QString::number(id)));
        }
        QVERIFY(near(trace.makespanSeconds, 36.08e-3, 1e-12));
        const serving::ServingSummary summary = serving::summarise(trace, 1, 1, {});
        QCOMPARE(summary.requests, 2);
        QVERIFY(near(summary.ttft.mean, 7.01e-3, 1e-9));
        QVERIFY(near(summary.durationSeconds, 36.08e-3 - 16.02e-3, 1e-9));
        QVERIFY(near(summary.outputTokensPerSecond, 6 / (36.08e-3 - 16.02e-3), 1e-9));

        // Without a ramp every client starts at 0, as before: both prefill together, a + 1000 b = 12 ms.
        workload.rampSeconds = 0;
        const auto burst = serving::simulateServing(workload, withBlocks(1000), cost);
        QVERIFY(near(burst.requests[1].ttft(), 12e-3, 1e-12));
    }

    void sglangRunsPromptBatchesAloneAndVllmMixesThem()
    {
        // a = 1 ms, b = 10 us, a budget of 1,024 tokens. A (100 + 10) arrives at 0 and prefills to 2 ms, then decodes
        // one token per 1.01 ms: 3.01, 4.02, 5.03. B (3,000 + 1) arrives at 4.5 ms and is seen at 5.03.
        // SGLang: B's chunks run alone, 1,024 + 1,024 + 952 tokens: 11.24 + 11.24 + 10.52 ms to 38.03 (B's TTFT
        // 33.53 ms) while A waits; A's last six tokens then take 6 x 1.01 ms: it ends at 44.09 ms.
        // vLLM: each iteration is A's token plus a chunk of 1,023, 1,023 and 954: 11.24 + 11.24 + 10.55 ms to 38.06
        // (B's TTFT 33.56 ms), A sampling a token in each; its last three take 3 x 1.01 ms: it ends at 41.09 ms.
        AffineCost cost(1e-3, 1e-5);
        WorkloadSpec workload;
        workload.arrival = serving::ArrivalKind::Trace;
        workload.trace = { { 0, 100, 10, -1 }, { 4.5e-3, 3000, 1, -1 } };
        EngineOptions options = withBlocks(1000);
        options.maxNumBatchedTokens = 1024;
        options.profile = serving::EngineProfile::Sglang;
        options.overlapScheduling = serving::OverlapScheduling::Off; // the batching rule alone
        const auto sglang = serving::simulateServing(workload, options, cost);
        QVERIFY(near(sglang.requests[1].ttft(), 33.53e-3, 1e-9));
        QVERIFY(near(sglang.requests[0].e2e(), 44.09e-3, 1e-9));
        QCOMPARE(sglang.iterations.size(), size_t { 13 });
        QCOMPARE(sglang.iterations[5].batchedTokens, std::int64_t { 1024 });

        options.profile = serving::EngineProfile::Vllm;
        const auto vllm = serving::simulateServing(workload, options, cost);
        QVERIFY(near(vllm.requests[1].ttft(), 33.56e-3, 1e-9));
        QVERIFY(near(vllm.requests[0].e2e(), 41.09e-3, 1e-9));
        QCOMPARE(vllm.iterations.size(), size_t { 10 });
        QCOMPARE(vllm.iterations[5].batchedTokens, std::int64_t { 1024 });

        // The batching is the knob, not the engine: SGLang with --enable-mixed-chunk mixes as vLLM does, and vLLM
        // made to run prompt batches first runs SGLang's timeline.
        options.profile = serving::EngineProfile::Sglang;
        options.batching = serving::Batching::Mixed;
        const auto mixed = serving::simulateServing(workload, options, cost);
        QVERIFY(near(mixed.requests[1].ttft(), 33.56e-3, 1e-9));
        QVERIFY(near(mixed.requests[0].e2e(), 41.09e-3, 1e-9));
        options.profile = serving::EngineProfile::Vllm;
        options.batching = serving::Batching::PrefillFirst;
        const auto first = serving::simulateServing(workload, options, cost);
        QVERIFY(near(first.requests[1].ttft(), 33.53e-3, 1e-9));
        QVERIFY(near(first.requests[0].e2e(), 44.09e-3, 1e-9));
    }

    void sglangHoldsBackAPromptBeyondItsMaxPrefillTokens()
    {
        // a = 1 ms, b = 10 us; three prompts of 1,000 tokens (2 outputs each) arrive together; SGLang's chunk of 8,192
        // would take them all, its max_prefill_tokens of 2,500 does not. PrefillAdder: A is first (2,500 - 1,000 =
        // 1,500 left), B's 1,000 < 1,500 fits (500 left), C's 1,000 >= 500 waits for the next pass, unchunked.
        // A and B prefill in 1 + 20 = 21 ms; C alone in 1 + 10 = 11 ms (TTFT 32 ms); the three last tokens decode
        // together in 1.03 ms, to 33.03 ms. Without the limit all three prefill in 31 ms.
        AffineCost cost(1e-3, 1e-5);
        WorkloadSpec workload;
        workload.arrival = serving::ArrivalKind::Trace;
        workload.trace = { { 0, 1000, 2, -1 }, { 0, 1000, 2, -1 }, { 0, 1000, 2, -1 } };
        EngineOptions options = withBlocks(1000);
        options.profile = serving::EngineProfile::Sglang;
        options.maxPrefillTokens = 2500;
        const auto limited = serving::simulateServing(workload, options, cost);
        QCOMPARE(limited.iterations.size(), size_t { 3 });
        QCOMPARE(limited.iterations[0].batchedTokens, std::int64_t { 2000 });
        QVERIFY(near(limited.requests[0].ttft(), 21e-3, 1e-9));
        QVERIFY(near(limited.requests[1].ttft(), 21e-3, 1e-9));
        QVERIFY(near(limited.requests[2].ttft(), 32e-3, 1e-9));
        QVERIFY(near(limited.requests[2].e2e(), 33.03e-3, 1e-9));

        options.maxPrefillTokens = 0;
        const auto unlimited = serving::simulateServing(workload, options, cost);
        QCOMPARE(unlimited.iterations[0].batchedTokens, std::int64_t { 3000 });
        QVERIFY(near(unlimited.requests[2].ttft(), 31e-3, 1e-9));
    }

    void tensorRtLlmDecodesFirstAndChunksInWholeBlocks()
    {
        // a = 1 ms, b = 1 us; 104 tokens per iteration, blocks of 16. A (196 prompt + 2 output tokens) arrives with
        // eight 1-token prompts (3 outputs each). TensorRT-LLM: iteration 1 cuts A's chunk from 104 to 96 (whole
        // blocks) and the eight prompts take the other 8 (1.104 ms); iteration 2 schedules the eight decodes first and
        // A's chunk in the 96 left (1.104 ms); iteration 3 the decodes and A's last 4 tokens (1.012 ms): A's TTFT
        // 3.220 ms, each 1-token request done with its third token then (ITL (3.220 - 1.104) / 2 = 1.058 ms); A's
        // second token 1.001 ms later. vLLM cuts at any token: A takes 104 tokens, then its last 92 beside the eight
        // prompts (1.1 ms): TTFT 2.204 ms.
        AffineCost cost(1e-3, 1e-6);
        WorkloadSpec workload;
        workload.arrival = serving::ArrivalKind::Trace;
        workload.trace = { { 0, 196, 2, -1 } };
        for (int i = 0; i < 8; ++i) {
            workload.trace.push_back({ 0, 1, 3, -1 });
        }
        EngineOptions options = withBlocks(1000);
        options.maxNumBatchedTokens = 104;
        options.profile = serving::EngineProfile::TrtLlm;
        options.overlapScheduling = serving::OverlapScheduling::Off; // the order alone (overlap: its own test)
        const auto trace = serving::simulateServing(workload, options, cost);
        QCOMPARE(trace.iterations.size(), size_t { 4 });
        QCOMPARE(trace.iterations[0].batchedTokens, std::int64_t { 104 });
        QCOMPARE(trace.iterations[1].batchedTokens, std::int64_t { 104 });
        QCOMPARE(trace.iterations[2].batchedTokens, std::int64_t { 12 });
        QVERIFY(near(trace.requests[0].ttft(), 3.220e-3, 1e-9));
        QVERIFY(near(trace.requests[0].e2e(), 4.221e-3, 1e-9));
        for (std::size_t i = 1; i < trace.requests.size(); ++i) {
            QVERIFY(near(trace.requests[i].ttft(), 1.104e-3, 1e-9));
            QVERIFY(near(trace.requests[i].itl(), 1.058e-3, 1e-9));
        }

        options.profile = serving::EngineProfile::Vllm;
        options.capacityPolicy = serving::CapacityPolicy::GuaranteedNoEvict;
        const auto vllm = serving::simulateServing(workload, options, cost);
        QCOMPARE(vllm.iterations[1].batchedTokens, std::int64_t { 100 });
        QVERIFY(near(vllm.requests[0].ttft(), 2.204e-3, 1e-9));
    }

    void anOverlapSchedulerComposesEachBatchOneIterationAhead()
    {
        // One client, two requests of 500 + 20 tokens, a = 2 ms, b = 10 us. Without overlap: request 1 prefills in
        // 7 ms and decodes 19 tokens of 2.01 ms, finishing at 45.19 ms; request 2 is sent then and prefills at once
        // (TTFT 7 ms): 40 iterations. With TensorRT-LLM's overlap scheduler the batch after request 1's last token
        // was composed before that token was seen: it runs request 1's discarded decode alone (2.01 ms) while
        // request 2 waits, so request 2's TTFT is 2.01 + 7 = 9.01 ms; request 1 is unchanged (the engine was idle
        // before it): 41 iterations (the run ends with the last token, before request 2's discarded step).
        AffineCost cost(2e-3, 1e-5);
        EngineOptions options = withBlocks(1000);
        options.profile = serving::EngineProfile::TrtLlm;
        QVERIFY(serving::overlapSchedulingOf(options));
        const auto overlapped = serving::simulateServing(closedLoop(1, 2, 500, 20), options, cost);
        QCOMPARE(overlapped.iterations.size(), size_t { 41 });
        QVERIFY(near(overlapped.requests[0].ttft(), 7e-3, 1e-12));
        QVERIFY(near(overlapped.requests[0].e2e(), 7e-3 + 19 * 2.01e-3, 1e-12));
        QVERIFY(near(overlapped.requests[1].ttft(), 2.01e-3 + 7e-3, 1e-12));
        QVERIFY(near(overlapped.requests[1].itl(), 2.01e-3, 1e-12));
        QCOMPARE(overlapped.iterations[20].running, 0); // the discarded step: request 1 has left for its client

        options.overlapScheduling = serving::OverlapScheduling::Off;
        const auto inStep = serving::simulateServing(closedLoop(1, 2, 500, 20), options, cost);
        QCOMPARE(inStep.iterations.size(), size_t { 40 });
        QVERIFY(near(inStep.requests[1].ttft(), 7e-3, 1e-12));

        // vLLM V1 composes in step with the GPU; a TensorRT engine (the C++ executor) too.
        options.overlapScheduling = serving::OverlapScheduling::Auto;
        options.profile = serving::EngineProfile::Vllm;
        QVERIFY(!serving::overlapSchedulingOf(options));
        options.profile = serving::EngineProfile::TrtLlm;
        options.tensorRtEngine = true;
        QVERIFY(!serving::overlapSchedulingOf(options));
    }

    void oneRequestAloneEqualsTheInferencePrediction()
    {
        // Llama-3.3-70B on 8 A100 (tp 8), one request of 1,000 + 64 tokens: the serving engine's TTFT is the step
        // model's prefill and its ITL the mean decode step (trapezoid over 9 KV lengths: within 0.1%), the layers as
        // the engine runs them (engineScenario: vLLM adds the residual in its RMSNorm's kernel).
        config::Scenario scenario
            = test::projectLoader().loadScenario("llama-3.3-70b", "hgx-a100-8gpu", "llama-3.3-70b-serve-8xa100",
                { "run.parallelism.tp=8", "run.parallelism.pp=1", "run.parallelism.dp=1", "run.parallelism.mapping={}",
                    "run.inference.batch=1", "run.inference.prompt_length=1000", "run.inference.decode_length=64" });
        sim::StepModel stepModel(serving::engineScenario(scenario, EngineOptions {}));
        const report::InferenceResult expected = stepModel.inference();
        const serving::ServingResult served
            = serving::simulateServing(scenario, closedLoop(1, 1, 1000, 64), EngineOptions {});
        QVERIFY2(near(served.summary.ttft.mean, expected.ttftSeconds, 1e-9),
            qPrintable(QStringLiteral("%1 vs %2").arg(served.summary.ttft.mean).arg(expected.ttftSeconds)));
        QVERIFY2(near(served.summary.itl.mean, expected.itlSeconds, 1e-3),
            qPrintable(QStringLiteral("%1 vs %2").arg(served.summary.itl.mean).arg(expected.itlSeconds)));
    }

    void aStaticBatchEqualsTheInferencePrediction()
    {
        // 16 requests of 500 + 32 tokens arriving together, chunked prefill off: one prefill of the batch and decode
        // steps of 16 sequences, as StepModel::inference with batch 16.
        config::Scenario scenario
            = test::projectLoader().loadScenario("llama-3.3-70b", "hgx-a100-8gpu", "llama-3.3-70b-serve-8xa100",
                { "run.parallelism.tp=8", "run.parallelism.pp=1", "run.parallelism.dp=1", "run.parallelism.mapping={}",
                    "run.inference.batch=16", "run.inference.prompt_length=500", "run.inference.decode_length=32" });
        sim::StepModel stepModel(serving::engineScenario(scenario, EngineOptions {}));
        const report::InferenceResult expected = stepModel.inference();
        EngineOptions options;
        options.chunkedPrefill = false;
        options.maxNumBatchedTokens = 8192; // all 16 prompts in one iteration (A100's default budget is 2,048)
        const serving::ServingResult served = serving::simulateServing(scenario, closedLoop(16, 16, 500, 32), options);
        QVERIFY2(near(served.summary.ttft.max, expected.ttftSeconds, 1e-9),
            qPrintable(QStringLiteral("%1 vs %2").arg(served.summary.ttft.max).arg(expected.ttftSeconds)));
        QVERIFY2(near(served.summary.itl.mean, expected.itlSeconds, 1e-3),
            qPrintable(QStringLiteral("%1 vs %2").arg(served.summary.itl.mean).arg(expected.itlSeconds)));
    }

    void sglangKeepsItsReserveByRelease_data()
    {
        QTest::addColumn<QString>("gpu");
        QTest::addColumn<int>("gpus");
        QTest::addColumn<bool>("beforeV053");
        QTest::addColumn<int>("chunk");
        QTest::addColumn<double>("fraction");
        // Since v0.5.3: reserve = 512 + 1.5 x max(chunk, 2,048) + 2 x cuda_graph_max_bs + gpus / 8 x 1,024 MiB, at
        // least 10 GiB above 60 GiB; mem_fraction_static = (memory - reserve) / memory to 0.001.
        // H100, 80 GiB = 81,920 MiB, 8 GPUs (CUDA graphs up to 512): 512 + 12,288 + 1,024 + 1,024 = 14,848 -> 0.819.
        QTest::addRow("h100_tp8") << QStringLiteral("h100-sxm5-80gb") << 8 << false << 8192 << 0.819;
        // One H100 (CUDA graphs up to 256): 512 + 12,288 + 512 + 128 = 13,440 -> 0.836.
        QTest::addRow("h100_tp1") << QStringLiteral("h100-sxm5-80gb") << 1 << false << 8192 << 0.836;
        // One A100 40 GB (40,960 MiB): chunks of 4,096, CUDA graphs up to 32, no 10 GiB floor at or below 60 GiB:
        // 512 + 6,144 + 64 + 128 = 6,848 -> 0.833.
        QTest::addRow("a100_40gb") << QStringLiteral("a100-sxm4-40gb") << 1 << false << 4096 << 0.833;
        // B200, 180 GiB = 184,320 MiB, 8 GPUs: chunks of 16,384: 512 + 24,576 + 1,024 + 1,024 = 27,136 -> 0.853.
        QTest::addRow("b200_tp8") << QStringLiteral("b200") << 8 << false << 16384 << 0.853;
        // v0.5.1: 9.5 + gpus / 2 GiB below 90 GiB (H100 tp 8: 13.5 of 80, 0.83125), chunks of 8,192 from 35 GiB up
        // (the A100 40 GB: 10 of 40 GiB, 0.75).
        QTest::addRow("h100_tp8_v051") << QStringLiteral("h100-sxm5-80gb") << 8 << true << 8192 << 66.5 / 80;
        QTest::addRow("a100_40gb_v051") << QStringLiteral("a100-sxm4-40gb") << 1 << true << 8192 << 0.75;
    }

    void sglangKeepsItsReserveByRelease()
    {
        QFETCH(QString, gpu);
        QFETCH(int, gpus);
        QFETCH(bool, beforeV053);
        QFETCH(int, chunk);
        QFETCH(double, fraction);
        EngineOptions asked;
        asked.profile = serving::EngineProfile::Sglang;
        asked.sglangBeforeV053 = beforeV053;
        const config::GpuSpec spec = test::projectLoader().loadHardware(gpu.toStdString()).gpu;
        const EngineOptions used = serving::engineDefaults(asked, spec, gpus);
        QCOMPARE(used.maxNumBatchedTokens, chunk);
        QVERIFY2(
            near(used.gpuMemoryUtilization, fraction, 1e-12), qPrintable(QString::number(used.gpuMemoryUtilization)));
    }
};

QTEST_GUILESS_MAIN(TstServingEngine)
#include "tst_servingengine.moc"
