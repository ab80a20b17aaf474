// SPDX-License-Identifier: GPL-3.0-or-later
// Preemption by swapping (vLLM V0's --preemption-mode swap) against values derived by hand: an iteration cost of 1 ms
// gives the timeline, the swap link's closed form (the longer of the copies' submission and the bytes at the link's
// rate) the copies' time; the host link a real scenario gets from its GPU preset; and the engine's refusals.
#include "affinecost.h"
#include "serving/servingengine.h"
#include "serving/servingsimulator.h"
#include "serving/swaplink.h"
#include "testutils.h"

#include <QTest>

#include <cmath>
#include <stdexcept>
#include <string>

using namespace rapid;
using serving::EngineOptions;
using test::AffineCost;
using test::closedLoop;
using test::near;

namespace {

/// 10 blocks of 16 tokens, no watermark, swapping over a link whose numbers make both branches of the closed form
/// show: a block is 1 MB in 64 copies of 4 us each; out at 50 GB/s (submission-bound: 5 blocks take 5 x 64 x 4 us =
/// 1.28 ms against 0.1 ms of bytes), in at 1 GB/s (rate-bound: 5 MB take 5 ms against 1.28 ms).
EngineOptions swappingWithTenBlocks(std::int64_t hostBlocks)
{
    EngineOptions options = test::withBlocks(10);
    options.preemption = serving::Preemption::Swap;
    options.swap.bytesPerBlock = 1e6;
    options.swap.copiesPerBlock = 64;
    options.swap.perCopySeconds = 4e-6;
    options.swap.fromDeviceBytesPerSecond = 50e9;
    options.swap.toDeviceBytesPerSecond = 1e9;
    options.swap.hostBlocks = hostBlocks;
    return options;
}

} // namespace

class TstSwapPreemption : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void theSwapLinkTakesTheSlowerOfSubmissionAndBytes()
    {
        const EngineOptions options = swappingWithTenBlocks(100);
        QVERIFY(near(options.swap.seconds(5, false), 1.28e-3, 1e-12));
        QVERIFY(near(options.swap.seconds(5, true), 5e-3, 1e-12));
        QCOMPARE(options.swap.seconds(0, true), 0.0);
    }

    void aSwappedRequestResumesWhereItStoppedAfterTheCopies()
    {
        // Two requests of 48 prompt tokens (3 blocks) and 40 outputs, both admitted at 0. After iteration n each holds
        // 48 + n - 1 tokens. Iteration 34 needs a 6th block for request 0's 81st token with all 10 taken: request 1
        // (the last admitted, 80 tokens in 5 blocks) goes to the host, and the iteration takes 1 ms + 1.28 ms. Its 5
        // blocks plus one for its next token (6) do not fit beside request 0's 6 until request 0 finishes in
        // iteration 40 (at 39 x 1 + 2.28 = 41.28 ms). Iteration 41 copies the 5 blocks back (5 ms) and computes its
        // 81st token only, not its 80 tokens again: 6 ms. Its 40th output comes in iteration 47, at 41.28 + 6 + 6 x 1
        // = 53.28 ms.
        AffineCost cost(1e-3, 0);
        const auto trace = serving::simulateServing(closedLoop(2, 2, 48, 40), swappingWithTenBlocks(100), cost);
        QCOMPARE(trace.iterations.size(), size_t { 47 });
        QCOMPARE(trace.preemptions, 1);
        QCOMPARE(trace.swapOuts, 1);
        QCOMPARE(trace.requests[1].preemptions, 1);
        QCOMPARE(trace.iterations[32].preemptions, 0);
        QCOMPARE(trace.iterations[33].preemptions, 1);
        QCOMPARE(trace.iterations[33].running, 1);
        QCOMPARE(trace.iterations[33].waiting, 0);
        QCOMPARE(trace.iterations[33].swapped, 1); // waiting to resume
        QCOMPARE(trace.iterations[39].swapped, 1);
        QCOMPARE(trace.iterations[40].swapped, 0);
        QCOMPARE(trace.iterations[33].usedBlocks, std::int64_t { 6 });
        QVERIFY(near(trace.iterations[33].seconds, 33e-3 + 2.28e-3, 1e-12));
        QCOMPARE(trace.iterations[40].running, 1);
        QCOMPARE(trace.iterations[40].batchedTokens, std::int64_t { 1 });
        QCOMPARE(trace.iterations[40].usedBlocks, std::int64_t { 6 });
        QVERIFY(near(trace.requests[0].finishSeconds, 41.28e-3, 1e-12));
        QVERIFY(near(trace.requests[1].finishSeconds, 53.28e-3, 1e-12));
        QVERIFY(near(trace.swapSeconds, 6.28e-3, 1e-12));
    }

    void aFullSwapSpaceStopsTheRunAsVllmAborts()
    {
        // The same run with room for 4 blocks on the host: request 1's 5 cannot go there.
        AffineCost cost(1e-3, 0);
        try {
            serving::simulateServing(closedLoop(2, 2, 48, 40), swappingWithTenBlocks(4), cost);
            QFAIL("a swap beyond the swap space was accepted");
        } catch (const std::invalid_argument& error) {
            const std::string message = error.what();
            QVERIFY2(message.find("swap space is full") != std::string::npos, error.what());
            QVERIFY2(message.find("--swap-space") != std::string::npos, error.what());
        }
    }

    void aScenarioTakesItsHostLinkFromTheGpuPreset()
    {
        // Llama-3.1-8B on one H100 SXM5 in bf16: a token's KV cache is 32 layers x K and V x 8 heads x 128 x 2 B =
        // 131,072 B, a block of 16 tokens 2 MiB in 2 x 32 copies; 4 GiB of swap space hold 2,048 blocks; the link is
        // the preset's nvbandwidth figures (51 GB/s to the GPU, 52 GB/s from it), a copy's submission its 4 us launch.
        const config::Scenario scenario
            = test::projectLoader().loadScenario("llama-3.1-8b", "h100-sxm5-80gb", "llama-3.1-8b-decode-1gpu");
        EngineOptions options = serving::engineDefaults({}, scenario.hardware.gpu, 1);
        options.preemption = serving::Preemption::Swap;
        const serving::KvCapacity capacity = serving::kvCapacity(scenario, options);
        const serving::SwapLink link = serving::swapLink(scenario, options, capacity);
        QVERIFY2(near(link.bytesPerBlock, 2.0 * 1024 * 1024, 1e-9), qPrintable(QString::number(link.bytesPerBlock)));
        QCOMPARE(link.copiesPerBlock, 64.0);
        QCOMPARE(link.hostBlocks, std::int64_t { 2048 });
        QCOMPARE(link.toDeviceBytesPerSecond, 51e9);
        QCOMPARE(link.fromDeviceBytesPerSecond, 52e9);
        QVERIFY(near(link.perCopySeconds, 4e-6, 1e-12));
        // Recomputing needs no link: nothing is computed for it.
        options.preemption = serving::Preemption::Recompute;
        QCOMPARE(serving::swapLink(scenario, options, capacity).hostBlocks, std::int64_t { 0 });
    }

    void swappingIsRefusedWhereNoEngineOrLinkDoesIt()
    {
        config::Scenario scenario
            = test::projectLoader().loadScenario("llama-3.1-8b", "h100-sxm5-80gb", "llama-3.1-8b-decode-1gpu");
        EngineOptions options;
        options.preemption = serving::Preemption::Swap;
        const auto refused = [&](const EngineOptions& tried, const char* expected) {
            try {
                serving::simulateServing(scenario, closedLoop(1, 1, 100, 10), tried);
            } catch (const std::invalid_argument& error) {
                return std::string(error.what()).find(expected) != std::string::npos;
            }
            return false;
        };
        EngineOptions sglang = options;
        sglang.profile = serving::EngineProfile::Sglang;
        QVERIFY(refused(sglang, "swap preemption is vLLM V0's"));
        EngineOptions tooLarge = options;
        tooLarge.swapSpaceBytes = 1e30;
        QVERIFY(refused(tooLarge, "swap space must be from 0 to 65536 GiB"));
        EngineOptions none = options;
        none.swapSpaceBytes = 0;
        QVERIFY(refused(none, "the swap space holds no KV-cache block"));
        scenario.hardware.gpu.hostToDeviceBandwidth = 0;
        QVERIFY(refused(options, "host_link"));
    }
};

QTEST_GUILESS_MAIN(TstSwapPreemption)
#include "tst_swappreemption.moc"
