// SPDX-License-Identifier: GPL-3.0-or-later
// Flash-Decoding's split of the keys (compute/decodegrid.h) and the decode attention time it gives, against hand
// enumerations of FlashAttention-2's heuristic (the fewest distinct splits within 85% of the best last-wave fill) and
// hand-derived kernel times on a synthetic GPU.
#include "compute/decodegrid.h"
#include "compute/operatortiming.h"
#include "syntheticgpu.h"

#include <QTest>

#include <cmath>

using namespace rapid;

namespace {

model::AttentionDims dims(std::int64_t batch, std::int64_t heads, std::int64_t kvHeads, std::int64_t queries,
    std::int64_t keys, std::int64_t d)
{
    return test::attentionDims(batch, heads, kvHeads, queries, keys, d, false);
}

/// The synthetic GPU (4 SMs: 8 FlashAttention-2 split-KV CTA slots, HBM 1 TB/s, 5 us a launch) with a DRAM latency
/// of 1 us.
config::GpuSpec syntheticGpu()
{
    config::GpuSpec gpu = test::syntheticGpu();
    gpu.hbmLatencySeconds = 1e-6;
    return gpu;
}

model::Operator decode(const model::AttentionDims& attention)
{
    model::Operator op;
    op.name = "attention.core";
    op.kind = model::OperatorKind::DecodeAttention;
    op.precision = config::Precision::Bf16;
    op.attention = attention;
    return op;
}

bool near(double actual, double expected)
{
    return std::fabs(actual - expected) <= 1e-9 * std::fabs(expected);
}

} // namespace

class TstDecodeGrid : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void splitsFillTheLastWave_data();
    void splitsFillTheLastWave();
    void gridPacksGroupedQueriesAndBlocksTheKeys();
    void splittingShortensALongSingleSequence();
    void flashAttention3SplitsByItsOwnRules();
    void badCountsAreRefused();
};

void TstDecodeGrid::splitsFillTheLastWave_data()
{
    QTest::addColumn<qint64>("work");
    QTest::addColumn<qint64>("slots");
    QTest::addColumn<qint64>("keyBlocks");
    QTest::addColumn<int>("splits");
    // 100 CTAs on 264 slots (132 SMs) with 2 key blocks: at most 2 splits; one fills 0.379 of a wave, two 0.758 (the
    // best), and 0.379 < 0.85 x 0.758: 2.
    QTest::addRow("two_blocks") << qint64(100) << qint64(264) << qint64(2) << 2;
    // One sequence of 8 KV heads, 1,000 blocks: one wave up to 33 splits, its fill 8 s / 264; the best is 1 (s = 33,
    // ceil(1000 / 33) = 31 differs from ceil(1000 / 32) = 32), so the fewest with 8 s / 264 >= 0.85: s = 29 (0.879;
    // 28 gives 0.848).
    QTest::addRow("one_sequence") << qint64(8) << qint64(264) << qint64(1000) << 29;
    // Three key blocks cap the splits at 3 (fills 0.030, 0.061, 0.091): 3.
    QTest::addRow("few_blocks") << qint64(8) << qint64(264) << qint64(3) << 3;
    // 211 CTAs are below 0.8 x 264 = 211.2: one to four splits fill 0.799 of their last wave (211 s / 264 against
    // ceil), five 1,055 / 264 = 3.996 of 4 waves, 0.999: 5. 212 CTAs need no split.
    QTest::addRow("just_under") << qint64(211) << qint64(264) << qint64(1000) << 5;
    QTest::addRow("just_over") << qint64(212) << qint64(264) << qint64(1000) << 1;
    // One CTA of work, 100,000 blocks: the 128-split cap; one wave, fill s / 264, best 128 / 264 = 0.485; the fewest
    // with s / 264 >= 0.85 x 0.485 = 0.412 is 109 (ceil(100000 / 109) = 918, ceil(100000 / 108) = 926).
    QTest::addRow("split_cap") << qint64(1) << qint64(264) << qint64(100000) << 109;
}

void TstDecodeGrid::splitsFillTheLastWave()
{
    QFETCH(qint64, work);
    QFETCH(qint64, slots);
    QFETCH(qint64, keyBlocks);
    QFETCH(int, splits);
    QCOMPARE(compute::kvSplits(work, slots, keyBlocks), splits);
}

void TstDecodeGrid::gridPacksGroupedQueriesAndBlocksTheKeys()
{
    // MLA-like: 16 query heads on one latent KV head of 576 dimensions (blocks of 64 keys), 5 queries per sequence
    // (a verification of 4 drafts): 80 rows, 2 blocks of 64 rows, so 2 sequences are 4 CTAs of work; 1,000 keys are
    // 16 blocks. On 132 SMs (264 slots) one wave up to 66 splits; the fewest within 85% of the best fill among the
    // distinct counts 1, 2, 3, 4, 6, 8, 16 is 16 (4 x 16 / 264 = 0.242; 8 gives 0.121).
    model::AttentionDims mla = dims(2, 16, 1, 5, 1000, 576);
    mla.headDimV = 512;
    mla.sharedKv = true;
    compute::DecodeGrid grid = compute::decodeGrid(mla, 132, true);
    QCOMPARE(grid.workCtas, qint64(4));
    QCOMPARE(grid.blockKeys, qint64(64));
    QCOMPARE(grid.keyBlocks, qint64(16));
    QCOMPARE(grid.splits, 16);
    QCOMPARE(grid.ctas(), qint64(64));
    // Without Flash-Decoding the same work runs on its 4 CTAs.
    QCOMPARE(compute::decodeGrid(mla, 132, false).splits, 1);
    // GQA 32 on 8 with head dimension 128 (blocks of 128 keys), a sliding window of 256 keys in half the layers:
    // 0.5 x 256 + 0.5 x 1,000 = 628 keys on average, 5 blocks; 4 query rows per KV head fit one row block.
    model::AttentionDims windowed = dims(3, 32, 8, 1, 1000, 128);
    windowed.window = 256;
    windowed.windowedShare = 0.5;
    grid = compute::decodeGrid(windowed, 132, true);
    QCOMPARE(grid.workCtas, qint64(24));
    QCOMPARE(grid.blockKeys, qint64(128));
    QCOMPARE(grid.keyBlocks, qint64(5));
    // Head dimension 64 streams blocks of 256 keys.
    QCOMPARE(compute::decodeGrid(dims(1, 8, 8, 1, 1000, 64), 132, true).blockKeys, qint64(256));
}

void TstDecodeGrid::splittingShortensALongSingleSequence()
{
    // One sequence, 2 query heads on 1 KV head, 2,048 keys of d 128 in bf16: one CTA of work, 16 blocks of 128 keys.
    // 8 slots: the distinct counts are 1, 2, 3, 4, 6 and 8 (ceil(16 / s) = 16, 8, 6, 4, 3, 2), one wave each, fill
    // s / 8: 8 splits (the only one >= 0.85).
    const model::AttentionDims a = dims(1, 2, 1, 1, 2048, 128);
    const config::GpuSpec gpu = syntheticGpu();
    QCOMPARE(compute::decodeGrid(a, gpu.smCount, true).splits, 8);
    // Bytes: the cache 2,048 x 256 x 2 = 1,048,576 and 2 query rows in and out, 2 x 256 x 2 = 1,024; each split writes
    // 2 fp32 rows of 128 values and a log-sum-exp, 8 x 2 x 129 x 4 = 8,256 B. Each CTA has 2 key blocks, each waited
    // for twice (keys, then values): 4 x 1 us, above the stream's 1,057,344 B (the partials instead of the 512 B
    // output) / 1 TB/s: 4 + 5 us launch. The combine reads the 8,256 B and writes the 512 B: 8.768 ns + 5 us.
    // FlashAttention-2: 14.008768 us.
    const compute::OperatorTime split = compute::timeOperator(gpu, decode(a), nullptr, config::AttentionKernel::Fa2);
    QVERIFY2(near(split.seconds, 14.008768e-6), qPrintable(QString::number(split.seconds * 1e6, 'g', 10)));
    QCOMPARE(split.bytes, 1049600.0 + 2 * 8256.0);
    // A kernel that reduces the splits in its last CTA (no combine kernel; its 1,066,112 B stream under the latency):
    // 9 us.
    model::AttentionDims reducedInKernel = a;
    reducedInKernel.splitCombineKernel = false;
    const compute::OperatorTime inKernel = compute::timeOperator(gpu, decode(reducedInKernel), nullptr);
    QVERIFY2(near(inKernel.seconds, 9e-6), qPrintable(QString::number(inKernel.seconds * 1e6, 'g', 10)));
    QCOMPARE(inKernel.bound, compute::OperatorBound::Latency);
    // Without the split one CTA waits for 32 blocks in turn: 32 + 5 us.
    model::AttentionDims whole = a;
    whole.splitKv = false;
    const compute::OperatorTime unsplit
        = compute::timeOperator(gpu, decode(whole), nullptr, config::AttentionKernel::Fa2);
    QVERIFY2(near(unsplit.seconds, 37e-6), qPrintable(QString::number(unsplit.seconds * 1e6, 'g', 10)));
    QCOMPARE(unsplit.bytes, 1049600.0);
    // A GPU whose DRAM latency is not known has no latency bound: the stream and the launch, 1.0496 + 5 us.
    config::GpuSpec unknown = gpu;
    unknown.hbmLatencySeconds = 0;
    const compute::OperatorTime streamed
        = compute::timeOperator(unknown, decode(whole), nullptr, config::AttentionKernel::Fa2);
    QVERIFY2(near(streamed.seconds, 6.0496e-6), qPrintable(QString::number(streamed.seconds * 1e6, 'g', 10)));
    // Each SM reaches L2 through its share of the L2 bandwidth: at 400 GB/s in all, 100 GB/s a port. The unsplit
    // kernel's one CTA streams through one port: 1,049,600 B / 100 GB/s = 10.496 us + 5 us. Split 8 ways over the 4
    // SMs it streams its 1,057,344 B through all 4 ports: 2.64336 us + 5 us, then the 5.008768 us combine.
    config::GpuSpec narrow = unknown;
    narrow.l2Bandwidth = 4e11;
    const compute::OperatorTime onePort
        = compute::timeOperator(narrow, decode(whole), nullptr, config::AttentionKernel::Fa2);
    QVERIFY2(near(onePort.seconds, 15.496e-6), qPrintable(QString::number(onePort.seconds * 1e6, 'g', 10)));
    QCOMPARE(onePort.bound, compute::OperatorBound::L2);
    const compute::OperatorTime fourPorts
        = compute::timeOperator(narrow, decode(a), nullptr, config::AttentionKernel::Fa2);
    QVERIFY2(near(fourPorts.seconds, 12.652128e-6), qPrintable(QString::number(fourPorts.seconds * 1e6, 'g', 10)));
}

void TstDecodeGrid::flashAttention3SplitsByItsOwnRules()
{
    const compute::DecodeKernel fa3 = compute::decodeKernelOf(config::AttentionKernel::Fa3);
    QCOMPARE(fa3.ctasPerSm, 1);
    // 8 CTAs of work on 132 SMs (one CTA each), 1,000 key blocks: every count is tried; 33 splits fill two whole
    // waves (fill 1); the fewest within 85%: one wave of 8 s / 132 >= 0.85, s = 15 (0.909; 14 gives 0.848).
    QCOMPARE(compute::kvSplits(8, 132, 1000, fa3), 15);
    // Four key blocks or fewer are never split (512 keys of head dimension 128); FlashAttention-2 splits them.
    QCOMPARE(compute::kvSplits(8, 132, 4, fa3), 1);
    QCOMPARE(compute::kvSplits(8, 264, 4), 4);
    // 106 CTAs are 0.8 of 132 slots already: no split.
    QCOMPARE(compute::kvSplits(106, 132, 1000, fa3), 1);
    // The synthetic GPU's 4 SMs hold 4 CTAs: one CTA of work over 16 key blocks splits 4 ways (fill 1). Each CTA
    // streams 4 key and 4 value blocks with 4 in flight: 2 waits of 1 us, above the stream (1,049,600 B plus 4 x 2 x
    // 129 x 4 = 4,128 B of partials instead of the 512 B output, at 1 TB/s): 2 + 5 us. The combine: (4,128 + 512) B /
    // 1 TB/s + 5 us. 12.00464 us.
    const compute::OperatorTime time = compute::timeOperator(
        syntheticGpu(), decode(dims(1, 2, 1, 1, 2048, 128)), nullptr, config::AttentionKernel::Fa3);
    QVERIFY2(near(time.seconds, 12.00464e-6), qPrintable(QString::number(time.seconds * 1e6, 'g', 10)));
}

void TstDecodeGrid::badCountsAreRefused()
{
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, compute::kvSplits(0, 264, 10));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, compute::kvSplits(8, 0, 10));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, compute::kvSplits(8, 264, 0));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, compute::decodeGrid(dims(1, 8, 8, 1, 100, 128), 0, true));
}

QTEST_APPLESS_MAIN(TstDecodeGrid)
#include "tst_decodegrid.moc"
