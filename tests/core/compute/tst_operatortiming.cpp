// SPDX-License-Identifier: GPL-3.0-or-later
// Operator timing against hand computations: memory-bound rooflines on a synthetic GPU, FlashAttention waves,
// causal FLOPs of naive and Flash attention, GQA and MLA decode bytes, the what-if derates, and memoisation.
#include "compute/operatortimer.h"
#include "compute/operatortiming.h"
#include "model/attentionflops.h"
#include "model/layeroperators.h"
#include "parallel/shardingplan.h"
#include "syntheticgpu.h"
#include "testutils.h"

#include <QTest>

#include <cmath>

using namespace rapid;

namespace {

using test::syntheticGpu;

config::GpuSpec preset(const std::string& name, const std::vector<std::string>& overrides = {})
{
    // Hand computations here run at the boost clock; the sustained-clock cap is tested in tst_gemmmodel.
    config::GpuSpec gpu = test::projectLoader().loadHardware(name, overrides).gpu;
    gpu.sustainedClockHz = 0;
    return gpu;
}

model::Operator memoryOp(model::OperatorKind kind, double bytes, double flops)
{
    model::Operator op;
    op.name = "test.op";
    op.kind = kind;
    op.bytes = bytes;
    op.flops = flops;
    return op;
}

model::Operator attention(model::OperatorKind kind, model::AttentionDims dims, model::Phase phase)
{
    model::Operator op;
    op.name = "attention.core";
    op.kind = kind;
    op.phase = phase;
    op.precision = config::Precision::Bf16;
    op.attention = dims;
    return op;
}

model::AttentionDims dims(std::int64_t batch, std::int64_t heads, std::int64_t kvHeads, std::int64_t queries,
    std::int64_t keys, std::int64_t d, bool causal)
{
    return test::attentionDims(batch, heads, kvHeads, queries, keys, d, causal);
}

model::Operator squareGemm()
{
    model::Operator op;
    op.name = "test.gemm";
    op.kind = model::OperatorKind::Gemm;
    op.gemm = { 8192, 8192, 8192, 1 };
    return op;
}

bool near(double actual, double expected, double relative)
{
    return std::fabs(actual - expected) <= relative * std::fabs(expected);
}

QString describe(double actual, double expected)
{
    return QStringLiteral("actual %1, expected %2").arg(actual, 0, 'g', 9).arg(expected, 0, 'g', 9);
}

config::RunSpec llama70bTraining()
{
    return test::projectLoader().loadRun("llama-3.1-70b-train-64");
}

} // namespace

class TstOperatorTiming : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void memoryBoundRoofline_data();
    void memoryBoundRoofline();
    void flashAttentionWaves_data();
    void flashAttentionWaves();
    void causalFlopsAgree();
    void decodeAttentionBytes_data();
    void decodeAttentionBytes();
    void slidingWindowCountsTheWindowsKeys();
    void hbmDerate();
    void streamsRunAtTheirMeasuredRates();
    void clockDerate();
    void gemmGoesThroughTheCache();
    void timerHitsItsCacheOnASecondLayer();
    void wholeLayerOnPresets_data();
    void wholeLayerOnPresets();
};

void TstOperatorTiming::memoryBoundRoofline_data()
{
    QTest::addColumn<int>("kind");
    QTest::addColumn<double>("bytes");
    QTest::addColumn<double>("flops");
    QTest::addColumn<double>("seconds");
    QTest::addColumn<int>("bound");
    // 1 GB at 1 TB/s: 1 ms, plus the 5 us launch. 1 GFLOP at 1 TFLOP/s would take 1 ms too; 0.1 GFLOP is hidden.
    QTest::addRow("elementwise_1GB") << static_cast<int>(model::OperatorKind::Elementwise) << 1e9 << 1e8 << 1.005e-3
                                     << static_cast<int>(compute::OperatorBound::Hbm);
    // A norm of 200 MB with 0.5 GFLOP: compute roof 0.5 ms beats the 0.2 ms memory roof.
    QTest::addRow("norm_vector_bound") << static_cast<int>(model::OperatorKind::Norm) << 2e8 << 5e8 << 0.505e-3
                                       << static_cast<int>(compute::OperatorBound::Compute);
    // Adam over 1e6 parameters at 28 B each: 28 MB -> 28 us + 5 us.
    QTest::addRow("adam_1M_params") << static_cast<int>(model::OperatorKind::OptimizerUpdate) << 28e6 << 14e6 << 33e-6
                                    << static_cast<int>(compute::OperatorBound::Hbm);
    // 1 MB: 1 us of traffic hides under the 5 us launch.
    QTest::addRow("tiny_launch_bound") << static_cast<int>(model::OperatorKind::Elementwise) << 1e6 << 0.0 << 6e-6
                                       << static_cast<int>(compute::OperatorBound::Launch);
}

void TstOperatorTiming::memoryBoundRoofline()
{
    QFETCH(int, kind);
    QFETCH(double, bytes);
    QFETCH(double, flops);
    QFETCH(double, seconds);
    QFETCH(int, bound);
    const compute::OperatorTime time = compute::timeOperator(
        syntheticGpu(), memoryOp(static_cast<model::OperatorKind>(kind), bytes, flops), nullptr);
    QVERIFY2(near(time.seconds, seconds, 1e-12), qPrintable(describe(time.seconds, seconds)));
    QCOMPARE(time.bound, static_cast<compute::OperatorBound>(bound));
    QCOMPARE(time.bytes, bytes);
    QCOMPARE(time.flops, flops);
}

void TstOperatorTiming::flashAttentionWaves_data()
{
    QTest::addColumn<qint64>("heads");
    QTest::addColumn<bool>("causal");
    QTest::addColumn<double>("flops");
    QTest::addColumn<double>("computeSeconds");
    // b 1, 256 queries and keys, d 64: 2 query tiles of 128 per head. Per SM: tensor rate 1 TFLOP/s, 16 exp2 per
    // clock at 1 GHz = 1.6e10/s, FP32 1e12 / 2 / 4 = 1.25e11 instructions/s; each score costs one exp2 and 4 FP32
    // instructions: 1 / 1.6e10 + 4 / 1.25e11 = 94.5 ps.
    // 4 heads, full: 2 x 4 x 256 x 256 x 128 = 67,108,864 FLOP over 8 CTAs, 2 per SM: 67.108864 us / 4 = 16.777216 us
    // of tensor time; 262,144 scores, 65,536 on the busiest SM: 4.096 + 2.097152 us. Total 22.970368 us.
    QTest::addRow("4_heads_full") << qint64(4) << false << 67108864.0 << 22.970368e-6;
    // 4 heads, causal: pairs 256 x 257 / 2 = 32,896; 2 x 4 x 32,896 x 128 = 33,685,504 FLOP: 8.421376 us; 131,584
    // scores, 32,896 on the busiest SM: 2.056 + 1.052672 us. Total 11.530048 us.
    QTest::addRow("4_heads_causal") << qint64(4) << true << 33685504.0 << 11.530048e-6;
    // 5 heads, full: 83,886,080 FLOP in 10 CTAs of 8,388,608; the busiest SM runs ceil(10 / 4) = 3 of them:
    // 25.165824 us, not the 20.97 us of a perfect balance (a partial last wave); its 3 x 32,768 scores take
    // 6.144 + 3.145728 us. Total 34.455552 us.
    QTest::addRow("5_heads_partial_wave") << qint64(5) << false << 83886080.0 << 34.455552e-6;
}

void TstOperatorTiming::flashAttentionWaves()
{
    QFETCH(qint64, heads);
    QFETCH(bool, causal);
    QFETCH(double, flops);
    QFETCH(double, computeSeconds);
    config::GpuSpec gpu = syntheticGpu();
    gpu.hbmBandwidth = 1e18; // only the tensor cores matter
    gpu.kernelLaunchSeconds = 0;
    const auto op = attention(
        model::OperatorKind::FlashAttention, dims(1, heads, heads, 256, 256, 64, causal), model::Phase::Forward);
    const compute::OperatorTime time = compute::timeOperator(gpu, op, nullptr);
    QCOMPARE(time.flops, flops);
    QVERIFY2(near(time.seconds, computeSeconds, 1e-9), qPrintable(describe(time.seconds, computeSeconds)));
    QCOMPARE(time.bound, compute::OperatorBound::Compute);
    // Q, K, V, O in bf16 (4 x heads x 256 x 64 x 2 B) and the fp32 log-sum-exp (heads x 256 x 4 B).
    QCOMPARE(time.bytes, static_cast<double>(heads) * (4 * 256 * 64 * 2 + 256 * 4));
}

void TstOperatorTiming::causalFlopsAgree()
{
    // b 1, 8 heads, s 1024, d 128, causal: 2 x 8 x 1024 x 1025 / 2 x 256 = 2,149,580,800 FLOP, for Flash and naive.
    const auto a = dims(1, 8, 8, 1024, 1024, 128, true);
    const config::GpuSpec gpu = preset("A100-SXM4-80GB");
    const auto flash
        = compute::timeOperator(gpu, attention(model::OperatorKind::FlashAttention, a, model::Phase::Forward), nullptr);
    const auto naive
        = compute::timeOperator(gpu, attention(model::OperatorKind::NaiveAttention, a, model::Phase::Forward), nullptr);
    QCOMPARE(flash.flops, 2149580800.0);
    QCOMPARE(naive.flops, 2149580800.0);
    // Backward: FlashAttention-2 recomputes the scores (2.5 x), naive attention does not (2 x).
    const auto flashBack = compute::timeOperator(
        gpu, attention(model::OperatorKind::FlashAttention, a, model::Phase::Backward), nullptr);
    const auto naiveBack = compute::timeOperator(
        gpu, attention(model::OperatorKind::NaiveAttention, a, model::Phase::Backward), nullptr);
    QCOMPARE(flashBack.flops, 2.5 * 2149580800.0);
    QCOMPARE(naiveBack.flops, 2 * 2149580800.0);
    // Naive attention writes and reads the S x S scores: more HBM traffic and more time.
    QVERIFY(naive.bytes > flash.bytes);
    QVERIFY(naive.seconds > flash.seconds);
    // Its kernels (baddbmm, masked softmax, bmm) compute the whole S x S matrix and mask the causal half afterwards,
    // so causal and non-causal naive attention take the same time; only the useful FLOPs differ
    // (non-causal: 2 x 8 x 1024 x 1024 x 256 FLOP).
    const auto naiveFull = compute::timeOperator(gpu,
        attention(model::OperatorKind::NaiveAttention, dims(1, 8, 8, 1024, 1024, 128, false), model::Phase::Forward),
        nullptr);
    QCOMPARE(naive.seconds, naiveFull.seconds);
    QCOMPARE(naive.bytes, naiveFull.bytes);
    QCOMPARE(naiveFull.flops, 2.0 * 8 * 1024 * 1024 * 256);
    // Dropout of the probabilities (training) adds one kernel per pass: it reads P and writes P' (2 B each) and a
    // one-byte keep-mask per score forward, and reads dP' and the mask and writes dP backward: 5 B x 8 x 1024^2 each.
    auto withDropout = a;
    withDropout.probabilityDropout = true;
    const double dropoutBytes = 5.0 * 8 * 1024 * 1024;
    for (const model::Phase phase : { model::Phase::Forward, model::Phase::Backward }) {
        const auto plain
            = compute::timeOperator(gpu, attention(model::OperatorKind::NaiveAttention, a, phase), nullptr);
        const auto dropped
            = compute::timeOperator(gpu, attention(model::OperatorKind::NaiveAttention, withDropout, phase), nullptr);
        QCOMPARE(dropped.bytes - plain.bytes, dropoutBytes);
        QVERIFY(dropped.seconds > plain.seconds);
        // FlashAttention fuses the dropout: nothing changes.
        QCOMPARE(compute::timeOperator(gpu, attention(model::OperatorKind::FlashAttention, withDropout, phase), nullptr)
                     .seconds,
            compute::timeOperator(gpu, attention(model::OperatorKind::FlashAttention, a, phase), nullptr).seconds);
    }
}

void TstOperatorTiming::decodeAttentionBytes_data()
{
    QTest::addColumn<qint64>("batch");
    QTest::addColumn<qint64>("heads");
    QTest::addColumn<qint64>("kvHeads");
    QTest::addColumn<qint64>("kvLength");
    QTest::addColumn<qint64>("dqk");
    QTest::addColumn<qint64>("dv");
    QTest::addColumn<bool>("sharedKv");
    QTest::addColumn<double>("bytes");
    QTest::addColumn<double>("partials");
    // KV cache: b x kv_len x kv_heads x (d_k + d_v) x 2 B; plus queries and outputs b x heads x (d_k + d_v) x 2 B.
    // GQA 32 query heads on 8 KV heads, b 4, 1000 keys, d 128: 4 x 1000 x 8 x 256 x 2 = 16,384,000 B; queries and
    // outputs 4 x 32 x 256 x 2 = 65,536 B. Total 16,449,536 B.
    QTest::addRow("gqa_32_on_8") << qint64(4) << qint64(32) << qint64(8) << qint64(1000) << qint64(128) << qint64(128)
                                 << false << 16449536.0 << 0.0;
    // MHA 32 on 32: the cache is 4 x larger: 65,536,000 + 65,536 B.
    QTest::addRow("mha_32") << qint64(4) << qint64(32) << qint64(32) << qint64(1000) << qint64(128) << qint64(128)
                            << false << 65601536.0 << 0.0;
    // MLA latent: 16 heads share one 576-element latent per token (values are its first 512):
    // 4 x 1000 x 576 x 2 = 4,608,000 B; queries and outputs 4 x 16 x (576 + 512) x 2 = 139,264 B. Its 4 CTAs of
    // work (one per sequence) half fill the synthetic GPU's 8 split-KV slots, so Flash-Decoding splits the 16 blocks
    // of 64 keys in two (compute/decodegrid.h): each split writes 64 fp32 rows of 512 values and a log-sum-exp,
    // 2 x 64 x 513 x 4 = 262,656 B, read back by the combine. The GQA and MHA rows fill the slots (32 and 128 CTAs).
    QTest::addRow("mla_latent") << qint64(4) << qint64(16) << qint64(1) << qint64(1000) << qint64(576) << qint64(512)
                                << true << 4747264.0 << 262656.0;
}

void TstOperatorTiming::decodeAttentionBytes()
{
    QFETCH(qint64, batch);
    QFETCH(qint64, heads);
    QFETCH(qint64, kvHeads);
    QFETCH(qint64, kvLength);
    QFETCH(qint64, dqk);
    QFETCH(qint64, dv);
    QFETCH(bool, sharedKv);
    QFETCH(double, bytes);
    QFETCH(double, partials);
    model::AttentionDims a = dims(batch, heads, kvHeads, 1, kvLength, dqk, false);
    a.headDimV = dv;
    a.sharedKv = sharedKv;
    const auto op = attention(model::OperatorKind::DecodeAttention, a, model::Phase::Forward);
    const compute::OperatorTime time = compute::timeOperator(syntheticGpu(), op, nullptr);
    QCOMPARE(time.bytes, bytes + 2 * partials);
    // 2 b heads kv_len (d_qk + d_v) FLOP.
    QCOMPARE(time.flops, 2.0 * static_cast<double>(batch * heads * kvLength * (dqk + dv)));
    // Memory bound on the synthetic GPU (at most 2 x 16 x 1088 / 1152 = 30 FLOP/B against a ridge of 4 FLOP/B holds
    // only for MLA, which is compute bound there): time = max(bytes / 1 TB/s, FLOPs / 4 TFLOP/s) + 5 us,
    // and with splits FlashAttention-2's combine kernel, (partials + the b x heads x d_v output) / 1 TB/s + 5 us. The
    // synthetic GPU's DRAM latency is unknown: no latency bound.
    // The combine, not the split kernel, writes the output.
    const double output = static_cast<double>(batch * heads * dv) * 2;
    const double combine = partials > 0 ? (partials + output) / 1e12 + 5e-6 : 0.0;
    const double streamed = bytes + (partials > 0 ? partials - output : 0.0);
    const double expected = std::max(streamed / 1e12, time.flops / 4e12) + 5e-6 + combine;
    QVERIFY2(near(time.seconds, expected, 1e-12), qPrintable(describe(time.seconds, expected)));
    QCOMPARE(time.bound, sharedKv ? compute::OperatorBound::Compute : compute::OperatorBound::Hbm);
}

void TstOperatorTiming::slidingWindowCountsTheWindowsKeys()
{
    // Causal over 8 tokens with a window of 3: queries 1..3 see 1, 2, 3 keys, the other 5 three each: 6 + 15 = 21
    // pairs against 8 x 9 / 2 = 36 without the window. Windowed in half the layers: (21 + 36) / 2 = 28.5.
    model::AttentionDims a = dims(1, 1, 1, 8, 8, 64, true);
    QCOMPARE(model::attentionPairs(a), 36.0);
    a.window = 3;
    a.windowedShare = 1;
    QCOMPARE(model::attentionPairs(a), 21.0);
    a.windowedShare = 0.5;
    QCOMPARE(model::attentionPairs(a), 28.5);
    // A window longer than the sequence changes nothing.
    a.window = 100;
    QCOMPARE(model::attentionPairs(a), 36.0);
    // Decode: a query over 1000 cached keys reads 256 of them in the windowed layers. GQA 32 on 8, b 4, d 128, all
    // layers windowed: 4 x 256 x 8 x 256 x 2 = 4,194,304 B of cache plus 65,536 B of queries and outputs (the same
    // case without the window reads 16,449,536 B, decodeAttentionBytes); FLOPs 2 x 4 x 32 x 256 x 256.
    model::AttentionDims decode = dims(4, 32, 8, 1, 1000, 128, false);
    decode.window = 256;
    decode.windowedShare = 1;
    const compute::OperatorTime time = compute::timeOperator(
        syntheticGpu(), attention(model::OperatorKind::DecodeAttention, decode, model::Phase::Forward), nullptr);
    QCOMPARE(time.bytes, 4194304.0 + 65536.0);
    QCOMPARE(time.flops, 2.0 * 4 * 32 * 256 * 256);
}

void TstOperatorTiming::hbmDerate()
{
    const config::GpuSpec full = preset("A100-SXM4-80GB");
    const config::GpuSpec slow = preset("A100-SXM4-80GB", { "hardware.gpu.derate.hbm_bandwidth=0.5" });
    QCOMPARE(slow.hbmBandwidthScale, 0.5);
    // Memory-bound: time minus launch doubles.
    const auto op = memoryOp(model::OperatorKind::Elementwise, 1e9, 1e6);
    const double launch = full.kernelLaunchSeconds;
    const double before = compute::timeOperator(full, op, nullptr).seconds - launch;
    const double after = compute::timeOperator(slow, op, nullptr).seconds - launch;
    QVERIFY2(near(after, 2 * before, 1e-12), qPrintable(describe(after, 2 * before)));
    // Compute-bound square GEMM: unchanged.
    const auto gemmBefore = compute::timeOperator(full, squareGemm(), nullptr);
    const auto gemmAfter = compute::timeOperator(slow, squareGemm(), nullptr);
    QCOMPARE(gemmBefore.bound, compute::OperatorBound::Compute);
    QCOMPARE(gemmAfter.seconds, gemmBefore.seconds);
    // Decode attention (memory bound) doubles too, but for its two launches: its 64 CTAs of work fill 30% of the 216
    // split-KV slots of 108 SMs, so FlashAttention-2 splits the keys and combines the splits in a second kernel.
    const auto decode
        = attention(model::OperatorKind::DecodeAttention, dims(8, 32, 8, 1, 4096, 128, false), model::Phase::Forward);
    const double decodeBefore = compute::timeOperator(full, decode, nullptr).seconds - 2 * launch;
    const double decodeAfter = compute::timeOperator(slow, decode, nullptr).seconds - 2 * launch;
    QVERIFY2(near(decodeAfter, 2 * decodeBefore, 1e-12), qPrintable(describe(decodeAfter, 2 * decodeBefore)));
}

void TstOperatorTiming::streamsRunAtTheirMeasuredRates()
{
    // H100 SXM5 80GB, BabelStream on ND H100 v5: a read-only stream (Dot) reaches 0.949 of the 3.35 TB/s datasheet
    // peak (3.18 TB/s), one that reads and writes (Triad) 0.887 (2.97 TB/s); launch 4 us.
    const config::GpuSpec h100 = preset("H100-SXM5-80GB");
    QCOMPARE(h100.kernelLaunchSeconds, 4e-6);
    const double readRate = 3.35e12 * 0.949;
    const double readWriteRate = 3.35e12 * 0.887;
    // An element-wise kernel moving 1 GB reads and writes: 1e9 / 2.971e12 = 336.5 us, plus the launch.
    const auto elementwise = compute::timeOperator(h100, memoryOp(model::OperatorKind::Elementwise, 1e9, 1e6), nullptr);
    QVERIFY2(near(elementwise.seconds, 1e9 / readWriteRate + 4e-6, 1e-12),
        qPrintable(describe(elementwise.seconds, 1e9 / readWriteRate + 4e-6)));
    // Decode attention only reads its KV cache: b 8, 8 KV heads, 4,096 keys, d 128: 8 x 4,096 x 8 x 256 x 2 B =
    // 134,217,728 B, plus queries and outputs 8 x 32 x 256 x 2 = 131,072 B, at 3.179 TB/s: 42.26 us, plus the launch.
    // Its 64 CTAs of work (8 sequences x 8 KV heads) fill 64 / 264 of the split-KV slots: the fill of the last wave
    // is best (0.970) at 4, 8, 12 ... splits of the 32 key blocks, and 4 is the fewest within 85% of it. The 4 splits
    // write 4 x 256 rows x 129 x 4 B = 528,384 B of fp32 partials instead of the 256 x 128 x 2 = 65,536 B output,
    // which FlashAttention-2's combine kernel writes after reading them back, at the read-write rate and its own
    // launch. The 16 key and value blocks a CTA waits for, 16 x 354 ns, stay under the stream.
    const auto decode = compute::timeOperator(h100,
        attention(model::OperatorKind::DecodeAttention, dims(8, 32, 8, 1, 4096, 128, false), model::Phase::Forward),
        nullptr);
    const double decodeExpected
        = (134348800.0 + 528384.0 - 65536.0) / readRate + 4e-6 + (528384.0 + 65536.0) / readWriteRate + 4e-6;
    QCOMPARE(decode.bound, compute::OperatorBound::Hbm);
    QVERIFY2(near(decode.seconds, decodeExpected, 1e-12), qPrintable(describe(decode.seconds, decodeExpected)));
    // A decode GEMV streams its weights at the read rate too: 1 x 8192 x 28672 bf16 is 469,762,048 B of weights,
    // 147.8 us at 3.179 TB/s (140.2 us at the datasheet peak).
    model::Operator gemv = squareGemm();
    gemv.gemm = { 1, 8192, 28672, 1 };
    const compute::GemmEstimate estimate
        = compute::estimateGemm(h100, { 1, 8192, 28672, 1, config::Precision::Bf16, std::nullopt });
    QCOMPARE(estimate.bound, compute::GemmBound::Hbm);
    QVERIFY2(near(estimate.hbmSeconds, estimate.hbmBytes / readRate, 1e-12),
        qPrintable(describe(estimate.hbmSeconds, estimate.hbmBytes / readRate)));
    QVERIFY2(near(estimate.hbmBytes, 469762048.0, 0.001), qPrintable(describe(estimate.hbmBytes, 469762048.0)));
    QCOMPARE(compute::timeOperator(h100, gemv, nullptr).seconds, estimate.totalSeconds);
}

void TstOperatorTiming::clockDerate()
{
    const config::GpuSpec full = preset("A100-SXM4-80GB");
    const config::GpuSpec slow = preset("A100-SXM4-80GB", { "hardware.gpu.derate.clock=0.5" });
    QCOMPARE(slow.clockScale, 0.5);
    // Memory-bound op: unchanged.
    const auto op = memoryOp(model::OperatorKind::Elementwise, 1e9, 1e6);
    QCOMPARE(compute::timeOperator(slow, op, nullptr).seconds, compute::timeOperator(full, op, nullptr).seconds);
    // Compute-bound GEMM: everything but the launch and the memory latency (tensor roof and the bytes of the on-chip
    // pipeline fill) doubles. The latency is a DRAM/L2 figure in seconds that the SM clock derate leaves alone: the
    // busiest SM runs 19 rounds of one 256x128 CTA, each waiting one mean load latency, L2 + 8/81 x (DRAM - L2)
    // = 219.9 ns on the preset (derived in tst_gemmmodel's squareGemmIsComputeBound): 4.18 us in all.
    const double launch = full.kernelLaunchSeconds;
    const double latency
        = 19.0 * (full.l2LatencySeconds + 8.0 / 81.0 * (full.hbmLatencySeconds - full.l2LatencySeconds));
    const double before = compute::timeOperator(full, squareGemm(), nullptr).seconds - launch - latency;
    const double after = compute::timeOperator(slow, squareGemm(), nullptr).seconds - launch - latency;
    QVERIFY2(near(after, 2 * before, 1e-9), qPrintable(describe(after, 2 * before)));
    // A vector-bound op doubles too.
    const auto vectorOp = memoryOp(model::OperatorKind::Norm, 1e3, 1e9);
    const double vBefore = compute::timeOperator(full, vectorOp, nullptr).seconds - launch;
    const double vAfter = compute::timeOperator(slow, vectorOp, nullptr).seconds - launch;
    QVERIFY2(near(vAfter, 2 * vBefore, 1e-12), qPrintable(describe(vAfter, 2 * vBefore)));
}

void TstOperatorTiming::gemmGoesThroughTheCache()
{
    const config::GpuSpec gpu = preset("H100-SXM5-80GB");
    compute::GemmCache cache;
    const auto first = compute::timeOperator(gpu, squareGemm(), &cache);
    const auto second = compute::timeOperator(gpu, squareGemm(), &cache);
    QCOMPARE(cache.misses(), std::uint64_t(1));
    QCOMPARE(cache.hits(), std::uint64_t(1));
    QCOMPARE(second, first);
    // Uncached gives the same answer.
    QCOMPARE(compute::timeOperator(gpu, squareGemm(), nullptr), first);
    // Naive attention's score GEMMs go through the cache as well: 2 shapes forward, then the same op hits both.
    const auto naive
        = attention(model::OperatorKind::NaiveAttention, dims(1, 8, 8, 1024, 1024, 128, true), model::Phase::Forward);
    compute::timeOperator(gpu, naive, &cache);
    QCOMPARE(cache.misses(), std::uint64_t(3));
    compute::timeOperator(gpu, naive, &cache);
    QCOMPARE(cache.hits(), std::uint64_t(3));
}

void TstOperatorTiming::timerHitsItsCacheOnASecondLayer()
{
    const config::ModelSpec model = test::projectLoader().loadModel("llama-3.1-70b");
    const config::RunSpec run = llama70bTraining();
    auto ops = model::trainingForward(model, run, parallel::layerSharding(run), false);
    const auto backward = model::trainingBackward(model, run, parallel::layerSharding(run), false);
    ops.insert(ops.end(), backward.begin(), backward.end());
    std::uint64_t gemms = 0;
    for (const model::Operator& op : ops) {
        gemms += op.kind == model::OperatorKind::Gemm ? 1 : 0;
    }
    // 4 forward GEMMs, each with a dX and a dW in the backward.
    QCOMPARE(gemms, std::uint64_t(12));
    compute::OperatorTimer timer(preset("H100-SXM5-80GB"));
    const double first = timer.layerTime(ops);
    const std::uint64_t misses = timer.cache().misses();
    QVERIFY(misses >= 1 && misses <= gemms);
    const std::uint64_t hitsAfterFirst = timer.cache().hits();
    // The second layer has the same shapes: every GEMM hits, nothing new is estimated, and the time is identical.
    const double second = timer.layerTime(ops);
    QCOMPARE(second, first);
    QCOMPARE(timer.cache().misses(), misses);
    QCOMPARE(timer.cache().hits() - hitsAfterFirst, gemms);
    // Phase filter: forward + recompute + backward add up to the whole.
    const double sum = timer.layerTime(ops, model::Phase::Forward) + timer.layerTime(ops, model::Phase::Recompute)
        + timer.layerTime(ops, model::Phase::Backward);
    QVERIFY2(near(sum, first, 1e-12), qPrintable(describe(sum, first)));
}

void TstOperatorTiming::wholeLayerOnPresets_data()
{
    QTest::addColumn<QString>("gpuName");
    QTest::addRow("a100") << QStringLiteral("A100-SXM4-80GB");
    QTest::addRow("h100") << QStringLiteral("H100-SXM5-80GB");
    QTest::addRow("b200") << QStringLiteral("B200");
}

void TstOperatorTiming::wholeLayerOnPresets()
{
    QFETCH(QString, gpuName);
    // A whole Llama-3.1-70B layer at tp 8 with 8192 tokens: the forward GEMMs do 2 x 8192 x (855,638,016 / 8)
    // = 1,752,346,656,768 FLOP (h 8192: attention 8192 x 10240 + 8192 x 8192, MLP 3 x 8192 x 28672). On any GPU the
    // forward takes longer than those FLOPs at the bf16 peak, and the backward (twice the GEMMs, 2.5x the attention,
    // and the selectively recomputed attention) longer than the forward.
    const config::GpuSpec gpu = preset(gpuName.toStdString());
    const config::ModelSpec model = test::projectLoader().loadModel("llama-3.1-70b");
    const config::RunSpec run = llama70bTraining();
    const auto forward = model::trainingForward(model, run, parallel::layerSharding(run), false);
    const auto backward = model::trainingBackward(model, run, parallel::layerSharding(run), false);
    compute::OperatorTimer timer(gpu);
    double gemmFlops = 0;
    for (const model::Operator& op : forward) {
        if (op.kind == model::OperatorKind::Gemm) {
            gemmFlops += timer.time(op).flops;
        }
    }
    QCOMPARE(gemmFlops, 1752346656768.0);
    const double forwardSeconds = timer.layerTime(forward);
    const double backwardSeconds = timer.layerTime(backward);
    QVERIFY(forwardSeconds > gemmFlops / gpu.tensorPeak(config::Precision::Bf16));
    QVERIFY(backwardSeconds > 2 * forwardSeconds * 0.9);
    QVERIFY(backwardSeconds < 4 * forwardSeconds);
}

QTEST_GUILESS_MAIN(TstOperatorTiming)
#include "tst_operatortiming.moc"
