// SPDX-License-Identifier: GPL-3.0-or-later
// Activation memory per layer against Korthikanti et al. 2022 (Table 2 and section 4): 34sbh + 5as^2b bytes per
// layer without parallelism, and its forms with tensor and sequence parallelism and selective recomputation.
#include "memory/activationmemory.h"
#include "parallel/shardingplan.h"

#include "testutils.h"

#include <QTest>

using namespace rapid;

namespace {
constexpr double s = 128, b = 2, h = 64, a = 4;

config::ModelSpec gptLayer()
{
    config::ModelSpec model;
    model.name = "gpt-test";
    model.numLayers = 1;
    model.hiddenSize = 64;
    model.numHeads = 4;
    model.numKvHeads = 4;
    model.headDim = 16;
    model.ffnSize = 256; // 4h
    model.ffnGated = false;
    model.activation = config::Activation::Gelu;
    model.norm = config::NormKind::LayerNorm;
    model.linearBias = true;
    model.vocabSize = 1000;
    model.positionEmbedding = config::PositionEmbedding::Learned;
    model.maxContext = 2048;
    return model;
}

config::RunSpec gptRun(int tp, bool sp, config::Recompute recompute)
{
    config::RunSpec run;
    run.mode = config::RunMode::Training;
    run.framework = config::Framework::Megatron;
    run.seqLength = 128;
    run.microBatch = 2;
    run.globalBatch = 2;
    run.flashAttention = false; // Korthikanti's accounting keeps the S x S softmax
    run.dropout = true;
    run.recompute = recompute;
    run.parallelism.tp = tp;
    run.parallelism.sequenceParallel = sp;
    return run;
}

double perLayer(int tp, bool sp, config::Recompute recompute)
{
    const config::RunSpec run = gptRun(tp, sp, recompute);
    return memory::savedActivationsPerLayer(
        gptLayer(), run, parallel::layerSharding(run), false, memory::frameworkProfile(run))
        .total();
}
} // namespace

class TstActivationMemory : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void expertsKeepTheRowsTheirEtpGroupGathered();
    void korthikantiForms_data();
    void korthikantiForms();
    void fullRecomputeKeepsOnlyTheLayerInput();
    void flashAttentionHasNoQuadraticTerm();
    void opSacKeepsEveryOtherLinear();
    void transformerEngineFp8KeepsQuantisedLinearInputs();
};

void TstActivationMemory::korthikantiForms_data()
{
    QTest::addColumn<int>("tp");
    QTest::addColumn<bool>("sp");
    QTest::addColumn<int>("recompute");
    QTest::addColumn<double>("expected");
    // No parallelism: 34sbh + 5as^2b = 34*128*2*64 + 5*4*128^2*2 = 557,056 + 655,360.
    QTest::addRow("no_parallelism") << 1 << false << int(config::Recompute::None) << 34 * s * b * h + 5 * a * s * s * b;
    // Tensor parallelism t=4 without sequence parallelism: sbh(10 + 24/t + 5as/(ht)).
    QTest::addRow("tensor_parallel_4") << 4 << false << int(config::Recompute::None)
                                       << s * b * h * (10 + 24.0 / 4 + 5 * a * s / (h * 4));
    // With sequence parallelism everything is divided by t: sbh/t (34 + 5as/h).
    QTest::addRow("tensor_and_sequence_parallel_4")
        << 4 << true << int(config::Recompute::None) << s * b * h / 4 * (34 + 5 * a * s / h);
    // Selective recomputation drops the attention-core term: 34sbh/t.
    QTest::addRow("selective_recompute_sp_4") << 4 << true << int(config::Recompute::Selective) << 34 * s * b * h / 4;
    // Selective without tensor parallelism: 34sbh.
    QTest::addRow("selective_recompute_tp1") << 1 << false << int(config::Recompute::Selective) << 34 * s * b * h;
}

void TstActivationMemory::korthikantiForms()
{
    QFETCH(int, tp);
    QFETCH(bool, sp);
    QFETCH(int, recompute);
    QFETCH(double, expected);
    QCOMPARE(perLayer(tp, sp, config::Recompute(recompute)), expected);
}

void TstActivationMemory::fullRecomputeKeepsOnlyTheLayerInput()
{
    // Full recomputation checkpoints the 2-byte layer input: 2sbh, divided by t with sequence parallelism.
    QCOMPARE(perLayer(1, false, config::Recompute::Full), 2 * s * b * h);
    QCOMPARE(perLayer(4, true, config::Recompute::Full), 2 * s * b * h / 4);
}

void TstActivationMemory::flashAttentionHasNoQuadraticTerm()
{
    config::RunSpec run = gptRun(1, false, config::Recompute::None);
    run.flashAttention = true;
    run.dropout = false;
    const double total = memory::savedActivationsPerLayer(
        gptLayer(), run, parallel::layerSharding(run), false, memory::frameworkProfile(run))
                             .total();
    // Without dropout masks and the S x S tensors: norm inputs 4sbh, QKV input 2sbh, Q and K 4sbh, V 2sbh, output
    // 2sbh, fp32 log-sum-exp 4*s*b*a, MLP inputs 2sbh + 8sbh + 8sbh = 32sbh + 4sba.
    QCOMPARE(total, 32 * s * b * h + 4 * s * b * a);
}

/// torchtitan's per-op SAC on a Llama 3.1 8B layer (h 4,096, 32 heads and 8 KV heads of 128, FFN 14,336), one sequence
/// of 8,192 tokens in bf16, no parallelism. Kept per token, by hand: the layer input 2h = 8,192 B, wq's output 2 x
/// 4,096 = 8,192, wv's 2 x 1,024 = 2,048, w1's 2 x 14,336 = 28,672, w2's 2h = 8,192, the attention output 8,192 and its
/// fp32 log-sum-exp 32 x 4 = 128: 63,616 B, x 8,192 tokens = 521,142,272 B. Compiled, the block's backward never reads
/// w2's output (it only feeds the residual sum): 63,616 - 8,192 = 55,424 B per token, 454,033,408 B.
void TstActivationMemory::opSacKeepsEveryOtherLinear()
{
    const config::ModelSpec model = test::projectLoader().loadModel("llama-3.1-8b");
    config::RunSpec run = gptRun(1, false, config::Recompute::OpSac);
    run.framework = config::Framework::PytorchFsdp;
    run.seqLength = 8192;
    run.microBatch = 1;
    run.flashAttention = true;
    run.dropout = false;
    const memory::SavedActivations saved = memory::savedActivationsPerLayer(
        model, run, parallel::layerSharding(run), false, memory::frameworkProfile(run));
    QCOMPARE(saved.tensors.size(), size_t(7));
    QCOMPARE(saved.total(), 521142272.0);
    run.torchCompile = true;
    const memory::SavedActivations compiled = memory::savedActivationsPerLayer(
        model, run, parallel::layerSharding(run), false, memory::frameworkProfile(run));
    QCOMPARE(compiled.tensors.size(), size_t(6));
    QCOMPARE(compiled.total(), 454033408.0);
}

/// Megatron-Core's FP8 runs through Transformer Engine, whose linears keep the FP8 copy of their input for the
/// weight-gradient GEMM instead of the 2-byte one. On the flash-attention GPT layer above (32sbh + 4sba in 16-bit,
/// flashAttentionHasNoQuadraticTerm), by hand: the QKV input sbh (was 2sbh), the up-projection input sbh (was 2sbh),
/// the down-projection input 4sbh (was 8sbh), and the out-projection's FP8 copy sbh beside the attention output the
/// fused attention keeps: 32sbh - 5sbh = 27sbh + 4sba. MXFP8 adds one scale byte per 32 of those 7sbh elements.
/// torchao's linears (PyTorch FSDP without Transformer Engine) and full recomputation keep what they kept.
void TstActivationMemory::transformerEngineFp8KeepsQuantisedLinearInputs()
{
    config::RunSpec run = gptRun(1, false, config::Recompute::None);
    run.flashAttention = true;
    run.dropout = false;
    run.precision.compute = config::Precision::Fp8;
    auto total = [&](const config::RunSpec& r) {
        return memory::savedActivationsPerLayer(
            gptLayer(), r, parallel::layerSharding(r), false, memory::frameworkProfile(r))
            .total();
    };
    QCOMPARE(total(run), 27 * s * b * h + 4 * s * b * a);
    run.precision.fp8Scaling = config::Fp8Scaling::Blockwise;
    QCOMPARE(total(run), 27 * s * b * h + 7 * s * b * h / 32 + 4 * s * b * a);
    run.precision.fp8Scaling = config::Fp8Scaling::Tensorwise;
    config::RunSpec torchao = run;
    torchao.framework = config::Framework::PytorchFsdp;
    QCOMPARE(total(torchao), 32 * s * b * h + 4 * s * b * a);
    run.recompute = config::Recompute::Full;
    QCOMPARE(total(run), 2 * s * b * h);
}

void TstActivationMemory::expertsKeepTheRowsTheirEtpGroupGathered()
{
    // Mixtral (hidden 4096, expert FFN 14,336, top-2 of 8), one sequence of 4,096 tokens on tp 4 with sequence
    // parallelism, bf16. Folded experts save the rows they ran on: with etp 1 (ep 4) a rank's own 1,024 tokens' 2
    // copies, 2,048 rows; with etp 2 (ep 2) the 2 x 2,048 rows its etp group gathered. Up-projection input: rows x 4096
    // x 2 B = 16 MiB and 32 MiB; gate and up outputs: rows x 2 x 14,336 / etp x 2 B = 112 MiB both times.
    const config::ModelSpec model = test::projectLoader().loadModel("mixtral-8x7b");
    config::RunSpec run = gptRun(4, true, config::Recompute::None);
    run.seqLength = 4096;
    run.microBatch = 1;
    run.flashAttention = true;
    run.dropout = false;
    const auto bytesOf = [&](int ep, int etp, const std::string& name) {
        run.parallelism.ep = ep;
        run.parallelism.etp = etp;
        const memory::SavedActivations saved = memory::savedActivationsPerLayer(
            model, run, parallel::layerSharding(run), true, memory::frameworkProfile(run));
        for (const memory::SavedTensor& tensor : saved.tensors) {
            if (tensor.name == name) {
                return tensor.bytes;
            }
        }
        return -1.0;
    };
    QCOMPARE(bytesOf(4, 1, "experts: up-projection input"), 16777216.0);
    QCOMPARE(bytesOf(2, 2, "experts: up-projection input"), 33554432.0);
    QCOMPARE(bytesOf(4, 1, "experts: gate and up outputs"), 117440512.0);
    QCOMPARE(bytesOf(2, 2, "experts: gate and up outputs"), 117440512.0);
}

QTEST_GUILESS_MAIN(TstActivationMemory)
#include "tst_activationmemory.moc"
