// SPDX-License-Identifier: GPL-3.0-or-later
// The operator list of one transformer layer on one GPU against hand computations: GEMM FLOPs against the weight
// count, dX/dW backward GEMMs, recomputation, Megatron tensor-parallel shards, causal attention FLOPs, decode, MoE,
// MLA and the non-layer operators.
#include "model/fp8quantization.h"
#include "model/layeroperators.h"
#include "model/modelstats.h"
#include "model/ringattention.h"
#include "parallel/shardingplan.h"
#include "testutils.h"
#include "tinyllama.h"

#include <QTest>

#include <algorithm>
#include <stdexcept>

using namespace rapid;

namespace {

using test::tinyLlama;
constexpr double kTinyLayerWeights = 15204352.0;

config::RunSpec trainingRun(int microBatch, int seqLength, int tp, bool sp = false)
{
    config::RunSpec run;
    run.mode = config::RunMode::Training;
    run.microBatch = microBatch;
    run.seqLength = seqLength;
    run.parallelism.tp = tp;
    run.parallelism.sequenceParallel = sp;
    return run;
}

const model::Operator* find(const std::vector<model::Operator>& ops, const std::string& name)
{
    const auto it = std::find_if(ops.begin(), ops.end(), [&](const model::Operator& op) { return op.name == name; });
    return it == ops.end() ? nullptr : &*it;
}

double gemmFlops(const std::vector<model::Operator>& ops, model::Phase phase)
{
    double flops = 0;
    for (const model::Operator& op : ops) {
        if (op.kind == model::OperatorKind::Gemm && op.phase == phase) {
            flops += 2.0 * static_cast<double>(op.gemm.m) * static_cast<double>(op.gemm.k)
                * static_cast<double>(op.gemm.n) * static_cast<double>(op.gemm.batch);
        }
    }
    return flops;
}

int countPhase(const std::vector<model::Operator>& ops, model::Phase phase)
{
    return static_cast<int>(
        std::count_if(ops.begin(), ops.end(), [&](const model::Operator& op) { return op.phase == phase; }));
}

/// One decode step of 4 sequences with 128-token prompts at @p tp, in bf16.
config::RunSpec decodeRun(int tp)
{
    config::RunSpec run;
    run.mode = config::RunMode::Inference;
    run.batch = 4;
    run.promptLength = 128;
    run.decodeLength = 1;
    run.parallelism.tp = tp;
    return run;
}

/// The same with FP8 weights, GEMMs and KV cache beside bf16 activations.
config::RunSpec fp8DecodeRun(int tp)
{
    config::RunSpec run = decodeRun(tp);
    run.precision.compute = config::Precision::Fp8;
    run.precision.weights = config::Precision::Fp8;
    run.precision.activations = config::Precision::Bf16;
    run.precision.kvCache = config::Precision::Fp8;
    return run;
}

} // namespace

class TstLayerOperators : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void forwardGemmFlopsMatchWeights_data();
    void forwardGemmFlopsMatchWeights();
    void backwardGemmsAreDxAndDw();
    void recompute_data();
    void recompute();
    void opSacRecomputesEveryOtherLinear();
    void opSacRecomputesEveryFloat8Linear();
    void tensorParallelShards_data();
    void tensorParallelShards();
    void sequenceParallelNorms();
    void causalAttentionFlops_data();
    void causalAttentionFlops();
    void decodeAttentsToTheCache();
    void moeExpertsPerGpu();
    void foldedExpertsRunWholeExperts();
    void mlaExplicitAndAbsorbedPaths();
    void lmHeadAndOptimizer();
    void fp8CastBytesByHand();
    void fp8LayersQuantiseEveryGemmButTheHead();
    void nvfp4InferenceQuantisesActivationsPerBlock();
    void int4WeightsAreDequantisedInsideBf16Gemms();
    void mxfp4ExpertsBesideBf16Attention();
    void mxfp8ActivationsIntoMxfp4ExpertsOnly();
    void moeRunnerFusesPermutationActivationAndQuantisation();
    void fusedAllReduceCarriesResidualNormAndQuantisation();
    void fusedAllReduceWithoutQuantisationInMoeLayers();
    void residualAddRunsInTheNextRmsNormsKernel();
    void localParameters();
    void eagerPytorchRunsKernelChains();
    void pytorchModelsRunSeparateLinears();
    void nanotronRunsItsLossAsOpsAndAccumulatesInFp32();
    void fsdpSumsUnshardedGradientsOverTheStepsPasses();
    void slidingWindowLayersAttendToTheirWindow();
    void pytorchContextParallelismMergesInFp32();
    void rejectsBadInput();
};

void TstLayerOperators::forwardGemmFlopsMatchWeights_data()
{
    QTest::addColumn<int>("microBatch");
    QTest::addColumn<int>("seqLength");
    QTest::addColumn<int>("tp");
    QTest::addColumn<double>("expected");
    // Every token passes every local weight once: 2 x tokens x 15,204,352 / tp.
    // 2 x 512 tokens: 2 x 1024 x 15,204,352 = 31,138,512,896.
    QTest::addRow("tiny_llama_tp1") << 2 << 512 << 1 << 31138512896.0;
    // tp = 4 divides the 16 heads and the 4 KV heads: a quarter, 7,784,628,224.
    QTest::addRow("tiny_llama_tp4") << 2 << 512 << 4 << 7784628224.0;
    // 1 x 2048 tokens at tp = 2: 2 x 2048 x 15,204,352 / 2 = 31,138,512,896.
    QTest::addRow("tiny_llama_tp2_long") << 1 << 2048 << 2 << 31138512896.0;
}

void TstLayerOperators::forwardGemmFlopsMatchWeights()
{
    QFETCH(int, microBatch);
    QFETCH(int, seqLength);
    QFETCH(int, tp);
    QFETCH(double, expected);
    const config::ModelSpec model = tinyLlama();
    // The hand count agrees with the project's parameter counter.
    const model::LayerParameters counted = model::countParameters(model).denseLayer;
    QCOMPARE(static_cast<double>(counted.attention + counted.mlp), kTinyLayerWeights);
    const auto ops = model::trainingForward(model, trainingRun(microBatch, seqLength, tp),
        parallel::layerSharding(trainingRun(microBatch, seqLength, tp)), false);
    QCOMPARE(gemmFlops(ops, model::Phase::Forward), expected);
    // The FLOPs field of each GEMM carries the same number.
    double fieldFlops = 0;
    for (const model::Operator& op : ops) {
        fieldFlops += op.kind == model::OperatorKind::Gemm ? op.flops : 0;
    }
    QCOMPARE(fieldFlops, expected);
}

void TstLayerOperators::backwardGemmsAreDxAndDw()
{
    const config::ModelSpec model = tinyLlama();
    const config::RunSpec run = trainingRun(2, 512, 1);
    const auto forward = model::trainingForward(model, run, parallel::layerSharding(run), false);
    const auto backward = model::trainingBackward(model, run, parallel::layerSharding(run), false);
    // dX and dW each cost what the forward GEMM costs: backward GEMM FLOPs are twice the forward's.
    QCOMPARE(gemmFlops(backward, model::Phase::Backward), 2 * gemmFlops(forward, model::Phase::Forward));
    // Y[2048 x 1536] = X[2048 x 1024] W[1024 x 1536] (QKV: (16 + 2 x 4) x 64 = 1536):
    // dX[2048 x 1024] = dY[2048 x 1536] W^T; dW[1024 x 1536] = X^T[1024 x 2048] dY.
    const model::Operator* dx = find(backward, "attention.qkv_projection.dx");
    const model::Operator* dw = find(backward, "attention.qkv_projection.dw");
    QVERIFY(dx && dw);
    QCOMPARE(dx->gemm, (model::GemmDims { 1024, 1536, 1024, 1 }));
    QCOMPARE(dw->gemm, (model::GemmDims { 1024, 1024, 1536, 1 }));
    // Megatron's gradient_accumulation_fusion: dW adds into main_grad, in the gradients' format; dX writes afresh.
    QVERIFY(run.framework == config::Framework::Megatron);
    QCOMPARE(dw->accumulateInto, std::optional<config::Precision>(run.precision.gradients));
    QVERIFY(!dx->accumulateInto);
    config::RunSpec fsdp = run;
    fsdp.framework = config::Framework::PytorchFsdp;
    const auto fsdpBackward = model::trainingBackward(model, fsdp, parallel::layerSharding(fsdp), false);
    QVERIFY(!find(fsdpBackward, "attention.q_projection.dw")->accumulateInto);
    // Reverse order: the MLP's down projection is differentiated first, the attention norm last.
    QCOMPARE(backward.front().name, std::string("mlp.residual_add.backward"));
    QCOMPARE(backward.back().name, std::string("attention.norm.backward"));
    // FlashAttention's backward recomputes the scores: 2 b h pairs (3 dqk + 2 dv) = 2.5 x the forward.
    const model::Operator* core = find(forward, "attention.core");
    const model::Operator* coreBackward = find(backward, "attention.core.backward");
    QVERIFY(core && coreBackward);
    QCOMPARE(coreBackward->flops, 2.5 * core->flops);
    // Every forward operator has a backward (GEMMs two).
    const auto gemms = std::count_if(
        forward.begin(), forward.end(), [](const model::Operator& op) { return op.kind == model::OperatorKind::Gemm; });
    QCOMPARE(backward.size(), forward.size() + static_cast<size_t>(gemms));
}

void TstLayerOperators::recompute_data()
{
    QTest::addColumn<int>("recompute");
    QTest::addColumn<int>("recomputed");
    // Selective re-runs the attention core only; full re-runs the whole forward (11 operators of the tiny Llama:
    // norm, qkv, rotary, core, output, residual, norm, gate_up, activation, down, residual).
    QTest::addRow("none") << static_cast<int>(config::Recompute::None) << 0;
    QTest::addRow("selective") << static_cast<int>(config::Recompute::Selective) << 1;
    QTest::addRow("full") << static_cast<int>(config::Recompute::Full) << 11;
    // torchtitan's per-op SAC: the six norm/element-wise operators and every second linear of wq, wk, wv, wo, w1, w3,
    // w2 (wk, wo, w3), not the attention core.
    QTest::addRow("op-sac") << static_cast<int>(config::Recompute::OpSac) << 9;
}

void TstLayerOperators::recompute()
{
    QFETCH(int, recompute);
    QFETCH(int, recomputed);
    config::RunSpec run = trainingRun(1, 1024, 2);
    run.recompute = static_cast<config::Recompute>(recompute);
    const auto forward = model::trainingForward(tinyLlama(), run, parallel::layerSharding(run), false);
    QCOMPARE(forward.size(), size_t(11));
    const auto backward = model::trainingBackward(tinyLlama(), run, parallel::layerSharding(run), false);
    QCOMPARE(countPhase(backward, model::Phase::Recompute), recomputed);
    if (recomputed == 1) {
        QCOMPARE(backward.front().name, std::string("attention.core"));
        QCOMPARE(backward.front().flops, find(forward, "attention.core")->flops);
    }
    // Recomputation comes before every gradient.
    for (int i = 0; i < recomputed; ++i) {
        QCOMPARE(backward[static_cast<size_t>(i)].phase, model::Phase::Recompute);
    }
}

/// Llama 3.1 8B (meta-llama config.json: h 4,096, 32 heads and 8 KV heads of 128, gated SiLU FFN 14,336, RMSNorm),
/// one sequence of 8,192 tokens, no parallelism, under torchtitan's per-op SAC. By hand, T = 8,192 tokens:
/// - recomputed linears wk, wo, w3: 2 T h (1,024 + 4,096 + 14,336) = 2 x 8,192 x 4,096 x 19,456 = 1,305,670,057,984
///   FLOPs (68,719,476,736 + 274,877,906,944 + 962,072,674,304), 36.5% of the layer's 2 T h x 53,248 linear FLOPs;
/// - element-wise work: two RMSNorms 2 x 4 T h = 268,435,456, rotary 3 T (32 + 8) 128 = 125,829,120, SiLU and the
///   product (4 + 1) T x 14,336 = 587,202,560, two residual adds 2 T h = 67,108,864: 1,048,576,000 FLOPs;
/// - the attention core is not re-run.
void TstLayerOperators::opSacRecomputesEveryOtherLinear()
{
    const config::ModelSpec llama = test::projectLoader().loadModel("llama-3.1-8b");
    config::RunSpec run = trainingRun(1, 8192, 1);
    run.recompute = config::Recompute::OpSac;
    const auto backward = model::trainingBackward(llama, run, parallel::layerSharding(run), false);
    double gemm = 0;
    double other = 0;
    std::vector<std::string> linears;
    for (const model::Operator& op : backward) {
        if (op.phase != model::Phase::Recompute) {
            continue;
        }
        QVERIFY(op.name != "attention.core");
        if (op.kind == model::OperatorKind::Gemm) {
            gemm += op.flops;
            linears.push_back(op.name);
        } else {
            other += op.flops;
        }
    }
    QCOMPARE(linears,
        (std::vector<std::string> { "attention.k_projection", "attention.output_projection", "mlp.up_projection" }));
    QCOMPARE(gemm, 1305670057984.0);
    QCOMPARE(gemmFlops(backward, model::Phase::Recompute), 1305670057984.0);
    QCOMPARE(other, 1048576000.0);
}

/// The same layer with torchao's float8 linears (torchtitan, pytorch-fsdp, fp8 compute): Float8Linear calls
/// aten._scaled_mm, which torchtitan's save list does not name, so every linear reruns: 2 T h x 53,248 =
/// 2 x 8,192 x 4,096 x 53,248 = 3,573,412,790,272 FLOPs. Their casts rerun too; tensorwise keeps its amax
/// (aten.max is on the list), so each cast element costs h + 1 = 3 bytes instead of 2 h + 1 = 5. Compiled, the casts
/// of an input the q, k and v (or gate and up) linears share are one (AOTAutograd's CSE): x of four inputs,
/// 3 x 8,192 x 4,096 + 8,192 x 14,336 = 218,103,808 elements, W the layer's 218,103,808 weights: 436,207,616 x 3 =
/// 1,308,622,848 bytes. Eager, each of the seven Float8Linears casts its own x: 6 x 8,192 x 4,096 + 8,192 x 14,336 =
/// 318,767,104 elements, 536,870,912 x 3 = 1,610,612,736 bytes. Rowwise scales come from aten.amax, not on the list:
/// 5 bytes each, 2,181,038,080 compiled and 2,684,354,560 eager.
void TstLayerOperators::opSacRecomputesEveryFloat8Linear()
{
    const config::ModelSpec llama = test::projectLoader().loadModel("llama-3.1-8b");
    config::RunSpec run = trainingRun(1, 8192, 1);
    run.recompute = config::Recompute::OpSac;
    run.framework = config::Framework::PytorchFsdp;
    run.precision.compute = config::Precision::Fp8;
    struct Case {
        config::Fp8Scaling scaling;
        bool compiled;
        double castBytes;
    };
    for (const Case& c : { Case { config::Fp8Scaling::Tensorwise, true, 1308622848.0 },
             Case { config::Fp8Scaling::Rowwise, true, 2181038080.0 },
             Case { config::Fp8Scaling::Tensorwise, false, 1610612736.0 },
             Case { config::Fp8Scaling::Rowwise, false, 2684354560.0 } }) {
        run.precision.fp8Scaling = c.scaling;
        run.torchCompile = c.compiled;
        const double castBytes = c.castBytes;
        const auto backward = model::trainingBackward(llama, run, parallel::layerSharding(run), false);
        std::vector<std::string> linears;
        double recomputedCasts = 0;
        for (const model::Operator& op : backward) {
            if (op.phase == model::Phase::Recompute && op.kind == model::OperatorKind::Gemm) {
                linears.push_back(op.name);
            }
            if (op.phase == model::Phase::Recompute && op.name.ends_with(".fp8_cast")) {
                recomputedCasts += op.bytes;
            }
        }
        QCOMPARE(linears,
            (std::vector<std::string> { "attention.q_projection", "attention.k_projection", "attention.v_projection",
                "attention.output_projection", "mlp.gate_projection", "mlp.up_projection", "mlp.down_projection" }));
        QCOMPARE(gemmFlops(backward, model::Phase::Recompute), 3573412790272.0);
        QCOMPARE(recomputedCasts, castBytes);
    }
}

void TstLayerOperators::tensorParallelShards_data()
{
    QTest::addColumn<int>("tp");
    QTest::addColumn<qint64>("qkvN");
    QTest::addColumn<qint64>("outputK");
    QTest::addColumn<qint64>("gateUpN");
    QTest::addColumn<qint64>("downK");
    // Llama-3.1-70B: h 8192, 64 heads and 8 KV heads of 128, FFN 28672 gated.
    // tp 1: QKV n = (64 + 2 x 8) x 128 = 10240; output k = 64 x 128 = 8192; gate/up n = 2 x 28672; down k = 28672.
    QTest::addRow("llama70b_tp1") << 1 << qint64(10240) << qint64(8192) << qint64(57344) << qint64(28672);
    // tp 4 divides each by 4: 2560, 2048, 14336, 7168.
    QTest::addRow("llama70b_tp4") << 4 << qint64(2560) << qint64(2048) << qint64(14336) << qint64(7168);
    // tp 16 > 8 KV heads: 4 query heads and one replicated KV head per GPU: (4 + 2) x 128 = 768.
    QTest::addRow("llama70b_tp16_kv_replicated") << 16 << qint64(768) << qint64(512) << qint64(3584) << qint64(1792);
}

void TstLayerOperators::tensorParallelShards()
{
    QFETCH(int, tp);
    QFETCH(qint64, qkvN);
    QFETCH(qint64, outputK);
    QFETCH(qint64, gateUpN);
    QFETCH(qint64, downK);
    const config::ModelSpec model = test::projectLoader().loadModel("llama-3.1-70b");
    const auto ops = model::trainingForward(
        model, trainingRun(1, 4096, tp), parallel::layerSharding(trainingRun(1, 4096, tp)), false);
    const model::Operator* qkv = find(ops, "attention.qkv_projection");
    const model::Operator* output = find(ops, "attention.output_projection");
    const model::Operator* gateUp = find(ops, "mlp.gate_up_projection");
    const model::Operator* down = find(ops, "mlp.down_projection");
    QVERIFY(qkv && output && gateUp && down);
    // Column-parallel: n sharded, k = h whole. Row-parallel: k sharded, n = h whole. m = all 4096 tokens.
    QCOMPARE(qkv->gemm, (model::GemmDims { 4096, 8192, qkvN, 1 }));
    QCOMPARE(output->gemm, (model::GemmDims { 4096, outputK, 8192, 1 }));
    QCOMPARE(gateUp->gemm, (model::GemmDims { 4096, 8192, gateUpN, 1 }));
    QCOMPARE(down->gemm, (model::GemmDims { 4096, downK, 8192, 1 }));
    const model::Operator* core = find(ops, "attention.core");
    QCOMPARE(core->attention.heads, std::int64_t(64 / tp));
    QCOMPARE(core->attention.kvHeads, std::int64_t(std::max(1, 8 / tp)));
}

void TstLayerOperators::sequenceParallelNorms()
{
    // RMSNorm of 2 x 512 tokens x 1024 in bf16 reads and writes the activation and reads 1024 weights:
    // 2 x 1024 x 1024 x 2 + 1024 x 2 = 4,196,352 B. Sequence parallelism at tp 4 leaves 256 tokens per GPU:
    // 2 x 256 x 1024 x 2 + 2048 = 1,050,624 B. The QKV GEMM still sees all 1024 tokens.
    const auto plain = model::trainingForward(
        tinyLlama(), trainingRun(2, 512, 4, false), parallel::layerSharding(trainingRun(2, 512, 4, false)), false);
    const auto sp = model::trainingForward(
        tinyLlama(), trainingRun(2, 512, 4, true), parallel::layerSharding(trainingRun(2, 512, 4, true)), false);
    QCOMPARE(find(plain, "attention.norm")->bytes, 4196352.0);
    QCOMPARE(find(sp, "attention.norm")->bytes, 1050624.0);
    QCOMPARE(find(sp, "attention.qkv_projection")->gemm.m, std::int64_t(1024));
    // Residual add: reads two, writes one: 3 x 256 x 1024 x 2 = 1,572,864 B.
    QCOMPARE(find(sp, "mlp.residual_add")->bytes, 1572864.0);
}

void TstLayerOperators::causalAttentionFlops_data()
{
    QTest::addColumn<int>("microBatch");
    QTest::addColumn<int>("seqLength");
    QTest::addColumn<int>("tp");
    QTest::addColumn<int>("cp");
    QTest::addColumn<double>("expected");
    // Closed form: 2 b h s (s + 1) / 2 (d_qk + d_v), h the local heads.
    // b 2, s 512, 16 heads, d 64: 2 x 2 x 16 x 512 x 513 / 2 x 128 = 64 x 131,328 x 128 = 1,075,838,976.
    QTest::addRow("tiny_tp1") << 2 << 512 << 1 << 1 << 1075838976.0;
    // tp 4: 4 heads per GPU, a quarter: 268,959,744.
    QTest::addRow("tiny_tp4") << 2 << 512 << 4 << 1 << 268959744.0;
    // cp 2: each GPU computes 256 queries against 512 keys, half of the pairs (load-balanced split): 537,919,488.
    QTest::addRow("tiny_cp2") << 2 << 512 << 1 << 2 << 537919488.0;
}

void TstLayerOperators::causalAttentionFlops()
{
    QFETCH(int, microBatch);
    QFETCH(int, seqLength);
    QFETCH(int, tp);
    QFETCH(int, cp);
    QFETCH(double, expected);
    config::RunSpec run = trainingRun(microBatch, seqLength, tp);
    run.parallelism.cp = cp;
    const auto flash = model::trainingForward(tinyLlama(), run, parallel::layerSharding(run), false);
    run.flashAttention = false;
    const auto naive = model::trainingForward(tinyLlama(), run, parallel::layerSharding(run), false);
    const model::Operator* flashCore = find(flash, "attention.core");
    const model::Operator* naiveCore = find(naive, "attention.core");
    QCOMPARE(flashCore->kind, model::OperatorKind::FlashAttention);
    QCOMPARE(naiveCore->kind, model::OperatorKind::NaiveAttention);
    QCOMPARE(flashCore->flops, expected);
    // Naive attention counts the causal saving too.
    QCOMPARE(naiveCore->flops, expected);
    QCOMPARE(flashCore->attention.queryLength, std::int64_t(seqLength / cp));
    QCOMPARE(flashCore->attention.keyLength, std::int64_t(seqLength));
}

void TstLayerOperators::decodeAttentsToTheCache()
{
    config::RunSpec run;
    run.mode = config::RunMode::Inference;
    run.batch = 8;
    run.promptLength = 1000;
    run.parallelism.tp = 2;
    const auto ops = model::decodeLayer(tinyLlama(), run, parallel::layerSharding(run), false, 1500);
    const model::Operator* core = find(ops, "attention.core");
    QVERIFY(core);
    QCOMPARE(core->kind, model::OperatorKind::DecodeAttention);
    // 8 sequences, 8 query heads and 2 KV heads per GPU, one query against 1500 keys, not causal.
    QCOMPARE(core->attention.batch, std::int64_t(8));
    QCOMPARE(core->attention.heads, std::int64_t(8));
    QCOMPARE(core->attention.kvHeads, std::int64_t(2));
    QCOMPARE(core->attention.queryLength, std::int64_t(1));
    QCOMPARE(core->attention.keyLength, std::int64_t(1500));
    QVERIFY(!core->attention.causal);
    // One token per sequence through each GEMM.
    QCOMPARE(find(ops, "attention.qkv_projection")->gemm.m, std::int64_t(8));
    // The new token's K and V (2 KV heads x 2 x 64 elements) are read in bf16 and written to the bf16 cache:
    // 8 x 256 x (2 + 2) = 8192 B.
    QCOMPARE(find(ops, "attention.kv_cache_write")->bytes, 8192.0);
    // Prefill writes the whole prompt: 8 x 1000 x 256 x 4 = 8,192,000 B, and attends causally.
    const auto prefill = model::prefillLayer(tinyLlama(), run, parallel::layerSharding(run), false);
    QCOMPARE(find(prefill, "attention.kv_cache_write")->bytes, 8192000.0);
    QVERIFY(find(prefill, "attention.core")->attention.causal);
    QCOMPARE(find(prefill, "attention.qkv_projection")->gemm.m, std::int64_t(8000));
}

void TstLayerOperators::moeExpertsPerGpu()
{
    const config::ModelSpec model = test::projectLoader().loadModel("mixtral-8x7b");
    QVERIFY(model.moe);
    QCOMPARE(model.moe->numExperts, 8);
    QCOMPARE(model.moe->topK, 2);
    QCOMPARE(model.moe->expertFfnSize, std::int64_t(14336));
    config::RunSpec run = trainingRun(1, 4096, 2);
    run.parallelism.ep = 4;
    const auto ops = model::trainingForward(model, run, parallel::layerSharding(run), true);
    // 4096 tokens per rank, 4 EP ranks, top-2 of 8 experts: each expert gets 4096 x 4 x 2 / 8 = 4096 tokens; each
    // GPU holds 8 / 4 = 2 experts as one batched GEMM, FFN width 14336 / tp 2 = 7168 (gate and up: 14336).
    const model::Operator* gateUp = find(ops, "moe.expert_gate_up_projection");
    const model::Operator* down = find(ops, "moe.expert_down_projection");
    QVERIFY(gateUp && down);
    QCOMPARE(gateUp->gemm, (model::GemmDims { 4096, 4096, 14336, 2 }));
    QCOMPARE(down->gemm, (model::GemmDims { 4096, 7168, 4096, 2 }));
    // The router is replicated: [4096 x 4096] . [4096 x 8].
    QCOMPARE(find(ops, "moe.router")->gemm, (model::GemmDims { 4096, 4096, 8, 1 }));
    QVERIFY(!find(ops, "mlp.gate_up_projection"));
    // Local parameters count both local experts whatever runs: 2 x 3 x 4096 x 7168 of experts, the replicated
    // router 4096 x 8, attention (4096 x (4096 + 2 x 1024) + 4096 x 4096) / 2 = 20,971,520, norms 2 x 4096:
    // 176,160,768 + 32,768 + 20,971,520 + 8192 = 197,173,248.
    QCOMPARE(model::localLayerParameters(model, run, parallel::layerSharding(run), true), 197173248.0);
    // The busiest rank receives 1.5x its balanced 2 x 4096 rows (ep_imbalance 1.5): 12,288 rows over its 2 experts,
    // 6,144 each. A capacity factor of 1.25 drops what exceeds 1.25x: 10,240 rows, 5,120 each. The router and the
    // permutation of the rank's own tokens do not change.
    run.parallelism.expertImbalance = 1.5;
    const auto skewed = model::trainingForward(model, run, parallel::layerSharding(run), true);
    QCOMPARE(find(skewed, "moe.expert_gate_up_projection")->gemm, (model::GemmDims { 6144, 4096, 14336, 2 }));
    QCOMPARE(find(skewed, "moe.permute")->bytes, find(ops, "moe.permute")->bytes);
    run.parallelism.expertCapacityFactor = 1.25;
    QCOMPARE(find(model::trainingForward(model, run, parallel::layerSharding(run), true), "moe.expert_down_projection")
                 ->gemm,
        (model::GemmDims { 5120, 7168, 4096, 2 }));
    run.parallelism.expertImbalance = 1.0;
    run.parallelism.expertCapacityFactor = 0.0;

    // Decode of 2 sequences at ep 1: 2 x 2 = 4 routed rows but 8 local experts: only 4 experts run, one row each.
    config::RunSpec serve;
    serve.mode = config::RunMode::Inference;
    serve.batch = 2;
    const auto decode = model::decodeLayer(model, serve, parallel::layerSharding(serve), true, 100);
    QCOMPARE(find(decode, "moe.expert_gate_up_projection")->gemm, (model::GemmDims { 1, 4096, 28672, 4 }));
    QVERIFY_THROWS_EXCEPTION(
        std::invalid_argument, model::trainingForward(tinyLlama(), run, parallel::layerSharding(run), true));
}

void TstLayerOperators::foldedExpertsRunWholeExperts()
{
    const config::ModelSpec model = test::projectLoader().loadModel("mixtral-8x7b");
    // Training, tp 4 with sequence parallelism, ep 4, etp 1: each rank holds 4096 / 4 = 1,024 tokens of its own; the
    // block of 4 ranks holds 4,096, routed top-2 to 8 experts: each expert receives 4096 x 2 / 8 = 1,024 rows, and a
    // rank runs its 2 whole experts (FFN 14,336; gate and up 28,672) on them. etp = tp runs 4,096 rows per expert at a
    // quarter of the width: the same FLOPs.
    config::RunSpec run = trainingRun(1, 4096, 4, true);
    run.parallelism.ep = 4;
    run.parallelism.etp = 1;
    const auto folded = model::trainingForward(model, run, parallel::layerSharding(run), true);
    QCOMPARE(find(folded, "moe.expert_gate_up_projection")->gemm, (model::GemmDims { 1024, 4096, 28672, 2 }));
    QCOMPARE(find(folded, "moe.expert_down_projection")->gemm, (model::GemmDims { 1024, 14336, 4096, 2 }));
    run.parallelism.etp = 0;
    const auto split = model::trainingForward(model, run, parallel::layerSharding(run), true);
    QCOMPARE(find(split, "moe.expert_gate_up_projection")->gemm, (model::GemmDims { 4096, 4096, 7168, 2 }));
    QCOMPARE(find(folded, "moe.expert_gate_up_projection")->flops, find(split, "moe.expert_gate_up_projection")->flops);
    // The folded rank permutes its own 1,024 tokens, a quarter of what the gathered tensor-parallel group permutes.
    QCOMPARE(find(folded, "moe.permute")->bytes * 4, find(split, "moe.permute")->bytes);
    // Parameters: 2 whole experts 2 x 3 x 4096 x 14336 = 352,321,536, the router 32,768, attention
    // (4096 x 6144 + 4096 x 4096) / 4 = 10,485,760, norms 8,192: 362,848,256.
    run.parallelism.etp = 1;
    QCOMPARE(model::localLayerParameters(model, run, parallel::layerSharding(run), true), 362848256.0);
    // ep 2 x etp 2: the block of 4 ranks again holds 4,096 tokens, whose 8,192 routed rows go to 8 experts; a rank
    // holds 4 of them split 2 ways and runs each on the 1,024 rows its etp group gathered, at half the width (gate and
    // up 14,336): the same FLOPs once more, and the same 1,024 tokens permuted as with etp 1.
    run.parallelism.ep = 2;
    run.parallelism.etp = 2;
    const auto halves = model::trainingForward(model, run, parallel::layerSharding(run), true);
    QCOMPARE(find(halves, "moe.expert_gate_up_projection")->gemm, (model::GemmDims { 1024, 4096, 14336, 4 }));
    QCOMPARE(find(halves, "moe.expert_down_projection")->gemm, (model::GemmDims { 1024, 7168, 4096, 4 }));
    QCOMPARE(find(halves, "moe.expert_gate_up_projection")->flops, find(split, "moe.expert_gate_up_projection")->flops);
    QCOMPARE(find(halves, "moe.permute")->bytes, find(folded, "moe.permute")->bytes);

    // vLLM's expert parallelism over tp 8 (no sequence parallelism: every rank holds the batch's tokens): a prefill
    // of 2 x 1,000 tokens sends 2000 x 2 / 8 = 500 rows to each expert, one whole expert per GPU.
    config::RunSpec serve;
    serve.mode = config::RunMode::Inference;
    serve.batch = 2;
    serve.promptLength = 1000;
    serve.parallelism.tp = 8;
    serve.parallelism.ep = 8;
    serve.parallelism.etp = 1;
    const auto prefill = model::prefillLayer(model, serve, parallel::layerSharding(serve), true);
    QCOMPARE(find(prefill, "moe.expert_gate_up_projection")->gemm, (model::GemmDims { 500, 4096, 28672, 1 }));
    // Decode of 2 sequences: 4 routed rows over 8 experts, half a row per GPU on average; the busiest GPU's expert
    // runs one row with its whole weights.
    const auto decode = model::decodeLayer(model, serve, parallel::layerSharding(serve), true, 100);
    QCOMPARE(find(decode, "moe.expert_gate_up_projection")->gemm, (model::GemmDims { 1, 4096, 28672, 1 }));
    // TensorRT-LLM's moe_tp 2 x moe_ep 4 on tp 8: each GPU holds 2 experts split 2 ways; the prefill's 4,000 routed
    // rows give each expert 500, run at half the width.
    serve.parallelism.ep = 4;
    serve.parallelism.etp = 2;
    const auto split2 = model::prefillLayer(model, serve, parallel::layerSharding(serve), true);
    QCOMPARE(find(split2, "moe.expert_gate_up_projection")->gemm, (model::GemmDims { 500, 4096, 14336, 2 }));
}

void TstLayerOperators::mlaExplicitAndAbsorbedPaths()
{
    const config::ModelSpec model = test::projectLoader().loadModel("deepseek-v3");
    // Dense layer (one of the first three), tp 1: forward GEMM FLOPs = 2 x tokens x (attention + MLP weights), the
    // attention count less its two norm weights (q_lora_rank 1536 + kv_lora_rank 512).
    const model::LayerParameters dense = model::countParameters(model).denseLayer;
    const auto forward = model::trainingForward(
        model, trainingRun(1, 1024, 1), parallel::layerSharding(trainingRun(1, 1024, 1)), false);
    QCOMPARE(gemmFlops(forward, model::Phase::Forward),
        2.0 * 1024 * static_cast<double>(dense.attention - 1536 - 512 + dense.mlp));
    const model::Operator* core = find(forward, "attention.core");
    // Explicit path: 128 heads with their own keys, d_qk = 128 + 64, d_v = 128.
    QCOMPARE(core->attention.kvHeads, std::int64_t(128));
    QCOMPARE(core->attention.headDimQk, std::int64_t(192));
    QCOMPARE(core->attention.headDimV, std::int64_t(128));

    config::RunSpec run;
    run.mode = config::RunMode::Inference;
    run.batch = 4;
    run.promptLength = 512;
    run.parallelism.tp = 8;
    const auto decode = model::decodeLayer(model, run, parallel::layerSharding(run), true, 4096);
    const model::Operator* latent = find(decode, "attention.core");
    // Absorbed path: 16 heads per GPU share the latent cache of 512 + 64 elements per token; values are its first
    // 512 elements.
    QCOMPARE(latent->attention.heads, std::int64_t(16));
    QCOMPARE(latent->attention.kvHeads, std::int64_t(1));
    QCOMPARE(latent->attention.headDimQk, std::int64_t(576));
    QCOMPARE(latent->attention.headDimV, std::int64_t(512));
    QVERIFY(latent->attention.sharedKv);
    // q_absorb maps each head's 128 nope dims to the 512-wide latent; v_up maps back to 128 per head.
    QCOMPARE(find(decode, "attention.q_absorb")->gemm, (model::GemmDims { 4, 128, 512, 16 }));
    QCOMPARE(find(decode, "attention.v_up_projection")->gemm, (model::GemmDims { 4, 512, 128, 16 }));
    QVERIFY(!find(decode, "attention.kv_up_projection"));
    // The latent of the new token is cached: 4 x 576 x (2 + 2) = 9216 B.
    QCOMPARE(find(decode, "attention.kv_cache_write")->bytes, 9216.0);
}

void TstLayerOperators::fp8CastBytesByHand()
{
    // y = x W with x 4 x 8 and W 8 x 16: x has 32 elements, W 128, dy 64. bf16 sources (2 B), fp8 targets (1 B).
    const model::GemmDims gemm { 4, 8, 16, 1 };
    using config::Fp8Scaling;
    // Tensorwise dynamic: an amax pass and a cast pass, 2 + 2 + 1 = 5 B per element. Forward x and W: 160 x 5 = 800;
    // backward dy only (the forward's FP8 x and W are reused): 64 x 5 = 320.
    model::Fp8CastBytes bytes = model::fp8CastBytes(gemm, Fp8Scaling::Tensorwise, 2, false, true, false);
    QCOMPARE(bytes.forward, 800.0);
    QCOMPARE(bytes.backward, 320.0);
    QCOMPARE(bytes.forwardElements, 160.0);
    QCOMPARE(bytes.backwardLayoutCopies, 0);
    // torchao's Float8Linear also copies W, dy^T and x into _scaled_mm's layouts in the backward, reading and writing
    // one byte each: (128 + 64 + 32) x 2 = 448 B more, three kernels. Its forward operands are laid out already.
    bytes = model::fp8CastBytes(gemm, Fp8Scaling::Tensorwise, 2, false, true, true);
    QCOMPARE(bytes.forward, 800.0);
    QCOMPARE(bytes.backward, 320.0 + 448.0);
    QCOMPARE(bytes.backwardLayoutCopies, 3);
    // Rowwise (its casts write the layouts they need: no copies): dy along both axes, W and x again: 2 x 64 + 128 + 32
    // = 288 elements, 1,440 B; torchao also rescales the two backward GEMMs' outputs, dx (32) and dW (128), reading
    // and writing 2 B each: 640 B, two kernels. Transformer Engine's casts alone: 1,440 B.
    bytes = model::fp8CastBytes(gemm, Fp8Scaling::Rowwise, 2, false, true, true);
    QCOMPARE(bytes.forward, 800.0);
    QCOMPARE(bytes.backward, 1440.0 + 640.0);
    QCOMPARE(bytes.backwardRescales, 2);
    bytes = model::fp8CastBytes(gemm, Fp8Scaling::Rowwise, 2, false, true, false);
    QCOMPARE(bytes.backward, 1440.0);
    QCOMPARE(bytes.backwardRescales, 0);
    // A shared input's cast is another GEMM's, but dx is this GEMM's own: 2 x 64 + 128 = 256 elements cast, 1,280 B,
    // and the same 640 B of rescales.
    bytes = model::fp8CastBytes(gemm, Fp8Scaling::Rowwise, 2, false, true, true, true);
    QCOMPARE(bytes.backward, 1280.0 + 640.0);
    // MXFP8 blockwise: one pass (2 + 1 B) plus a scale byte per 32 elements: 3.03125 B; 160 and 288 elements.
    bytes = model::fp8CastBytes(gemm, Fp8Scaling::Blockwise, 2, false, true, true);
    QCOMPARE(bytes.forward, 485.0);
    QCOMPARE(bytes.backward, 873.0);
    // Delayed (Transformer Engine): one pass, 3 B, tensorwise operand counts: 480 and 192.
    bytes = model::fp8CastBytes(gemm, Fp8Scaling::Delayed, 2, false, true, true);
    QCOMPARE(bytes.forward, 480.0);
    QCOMPARE(bytes.backward, 192.0);
    // block128 (DeepSeek-V3): one pass, 2 + 1 B plus an fp32 scale per 1 x 128 tile of x (0.03125 B per element) and
    // per 128 x 128 block of W (4 / 16,384): 32 x 3.03125 + 128 x 3.000244140625 = 97 + 384.03125. Backward dy along
    // both axes and x again (W's square blocks serve both layouts): (2 x 64 + 32) x 3.03125 = 485.
    bytes = model::fp8CastBytes(gemm, Fp8Scaling::Block128, 2, false, true, true);
    QCOMPARE(bytes.forward, 481.03125);
    QCOMPARE(bytes.backward, 485.0);
    QCOMPARE(bytes.backwardElements, 160.0);
    // Inference with FP8 weights: only x is cast, 32 x 5 = 160 B, no backward.
    bytes = model::fp8CastBytes(gemm, Fp8Scaling::Tensorwise, 2, true, false, true);
    QCOMPARE(bytes.forward, 160.0);
    QCOMPARE(bytes.backward, 0.0);
    // A ModelOpt checkpoint's static input scale: one pass over x, 2 + 1 B per element: 32 x 3 = 96 B.
    bytes = model::fp8CastBytes(gemm, Fp8Scaling::Static, 2, true, false, true);
    QCOMPARE(bytes.forward, 96.0);
    QCOMPARE(bytes.forwardElements, 32.0);
    QCOMPARE(bytes.backward, 0.0);
}

void TstLayerOperators::fp8LayersQuantiseEveryGemmButTheHead()
{
    config::RunSpec run = trainingRun(1, 512, 1);
    run.precision.compute = config::Precision::Fp8;
    const config::ModelSpec model = tinyLlama();
    const auto forward = model::trainingForward(model, run, parallel::layerSharding(run), false);
    int gemms = 0;
    for (const model::Operator& op : forward) {
        if (op.kind == model::OperatorKind::Gemm) {
            ++gemms;
            const model::Operator* cast = find(forward, op.name + ".fp8_cast");
            QVERIFY2(cast, op.name.c_str());
            // Tensorwise: (m k + k n) x 5 B.
            const double expected
                = (static_cast<double>(op.gemm.m) * op.gemm.k + static_cast<double>(op.gemm.k) * op.gemm.n)
                * op.gemm.batch * 5.0;
            QCOMPARE(cast->bytes, expected);
        }
    }
    QVERIFY(gemms >= 4);
    // The output layer stays at the activations' precision (torchtitan skips it; Megatron's is not a TE layer).
    const auto head = model::lmHeadOperators(model, run, parallel::layerSharding(run), model::Workload::Training);
    QCOMPARE(find(head, "lm_head.projection")->precision, config::Precision::Bf16);
    QVERIFY(!find(head, "lm_head.projection.fp8_cast"));
    // bf16 compute adds no casts.
    run.precision.compute = config::Precision::Bf16;
    for (const model::Operator& op : model::trainingForward(model, run, parallel::layerSharding(run), false)) {
        QVERIFY(op.name.find("fp8_cast") == std::string::npos);
    }
}

/// A prefill of 2 x 512 tokens (one decode token) with GEMMs in @p compute on weights in @p weights, bf16 activations.
static config::RunSpec prefillOf2x512(config::Precision compute, config::Precision weights)
{
    config::RunSpec run;
    run.mode = config::RunMode::Inference;
    run.batch = 2;
    run.promptLength = 512;
    run.decodeLength = 1;
    run.precision.compute = compute;
    run.precision.weights = weights;
    run.precision.activations = config::Precision::Bf16;
    return run;
}

void TstLayerOperators::nvfp4InferenceQuantisesActivationsPerBlock()
{
    // A prefill of 2 x 512 tokens with NVFP4 weights and GEMMs: every linear layer's input x (m x k, bf16) is read once
    // and written as 4-bit values with an E4M3 scale per 16: 2 + 0.5 + 1/16 = 2.5625 B per element. The weights are
    // stored in NVFP4 already; no backward exists.
    const config::RunSpec run = prefillOf2x512(config::Precision::Nvfp4, config::Precision::Nvfp4);
    const config::ModelSpec model = tinyLlama();
    const auto layer = model::prefillLayer(model, run, parallel::layerSharding(run), false);
    int gemms = 0;
    for (const model::Operator& op : layer) {
        if (op.kind != model::OperatorKind::Gemm) {
            continue;
        }
        ++gemms;
        QCOMPARE(op.precision, config::Precision::Nvfp4);
        const model::Operator* quantize = find(layer, op.name + ".nvfp4_quantize");
        QVERIFY2(quantize, op.name.c_str());
        QCOMPARE(quantize->bytes, 1024.0 * static_cast<double>(op.gemm.k) * 2.5625);
        QVERIFY(!find(layer, op.name + ".fp8_cast"));
    }
    QCOMPARE(gemms, 4); // qkv, output projection, gate-up, down
    // The LM head stays in bf16 and is not quantised.
    const auto head = model::lmHeadOperators(model, run, parallel::layerSharding(run), model::Workload::Prefill);
    QCOMPARE(find(head, "lm_head.projection")->precision, config::Precision::Bf16);
    QVERIFY(!find(head, "lm_head.projection.nvfp4_quantize"));
}

void TstLayerOperators::int4WeightsAreDequantisedInsideBf16Gemms()
{
    // W4A16 (an AWQ or GPTQ checkpoint): every linear layer's GEMM multiplies in bf16 and reads its weights (operand
    // B) in int4; the activations are not quantised, so no cast kernel runs; the LM head keeps 16-bit weights.
    const config::RunSpec run = prefillOf2x512(config::Precision::Bf16, config::Precision::Int4);
    const config::ModelSpec model = tinyLlama();
    const auto layer = model::prefillLayer(model, run, parallel::layerSharding(run), false);
    int gemms = 0;
    for (const model::Operator& op : layer) {
        QVERIFY2(op.name.find("quantize") == std::string::npos && op.name.find("fp8_cast") == std::string::npos,
            op.name.c_str());
        if (op.kind != model::OperatorKind::Gemm) {
            continue;
        }
        ++gemms;
        QCOMPARE(op.precision, config::Precision::Bf16);
        QVERIFY2(op.storedWeights == config::Precision::Int4, op.name.c_str());
    }
    QCOMPARE(gemms, 4); // qkv, output projection, gate-up, down
    const auto head = model::lmHeadOperators(model, run, parallel::layerSharding(run), model::Workload::Prefill);
    QCOMPARE(find(head, "lm_head.projection")->precision, config::Precision::Bf16);
    QVERIFY(!find(head, "lm_head.projection")->storedWeights);
}

void TstLayerOperators::mxfp4ExpertsBesideBf16Attention()
{
    // gpt-oss-20b's checkpoint keeps the routed experts in MXFP4 and the attention projections and router in bf16
    // (config.json quantization_config, modules_to_not_convert): with expert_weights mxfp4, the expert GEMMs read
    // MXFP4 weights into bf16 math and every other GEMM reads bf16 weights; no activation is quantised.
    const config::ModelSpec model = test::projectLoader().loadModel("gpt-oss-20b");
    QVERIFY(model.moe);
    config::RunSpec run = prefillOf2x512(config::Precision::Bf16, config::Precision::Bf16);
    run.precision.expertWeights = config::Precision::Mxfp4;
    const auto layer = model::prefillLayer(model, run, parallel::layerSharding(run), true);
    int experts = 0;
    int others = 0;
    for (const model::Operator& op : layer) {
        QVERIFY2(op.name.find("quantize") == std::string::npos && op.name.find("fp8_cast") == std::string::npos,
            op.name.c_str());
        if (op.kind != model::OperatorKind::Gemm) {
            continue;
        }
        QCOMPARE(op.precision, config::Precision::Bf16);
        if (op.name.starts_with("moe.expert_")) {
            ++experts;
            QVERIFY2(op.storedWeights == config::Precision::Mxfp4, op.name.c_str());
        } else {
            ++others;
            QVERIFY2(!op.storedWeights, op.name.c_str());
        }
    }
    QCOMPARE(experts, 2); // gate-up and down, grouped over the active experts
    QCOMPARE(others, 3); // qkv, output projection, router
}

/// The 2 x 512-token prefill with bf16 GEMMs but MXFP4 routed experts multiplied with MXFP8 activations (TensorRT-LLM's
/// gpt-oss on Blackwell).
static config::RunSpec mxfp8IntoMxfp4ExpertsPrefill()
{
    config::RunSpec run = prefillOf2x512(config::Precision::Bf16, config::Precision::Bf16);
    run.precision.expertWeights = config::Precision::Mxfp4;
    run.precision.expertCompute = config::Precision::Fp8;
    run.precision.fp8Scaling = config::Fp8Scaling::Blockwise;
    return run;
}

void TstLayerOperators::mxfp8ActivationsIntoMxfp4ExpertsOnly()
{
    // gpt-oss-20b under TensorRT-LLM on Blackwell: the routed experts multiply MXFP8 activations with their MXFP4
    // weights (expert_compute fp8, fp8_scaling blockwise), everything else stays bf16. Only the two expert GEMMs are
    // fp8, and each casts only its input: the weights are already in a format the tensor cores take. A prefill of
    // 2 x 512 tokens routes 1,024 x 4 = 4,096 token copies to the experts; the gate-up GEMM's input is those rows x
    // 2,880 (hidden), the down GEMM's those rows x 2,880 (expert_ffn, no tp). Each element is read in bf16 (2 B) and
    // written as E4M3 (1 B) with one E8M0 scale byte per 32: 3.03125 B.
    const config::ModelSpec model = test::projectLoader().loadModel("gpt-oss-20b");
    config::RunSpec run = mxfp8IntoMxfp4ExpertsPrefill();
    const auto layer = model::prefillLayer(model, run, parallel::layerSharding(run), true);
    int experts = 0;
    int casts = 0;
    for (const model::Operator& op : layer) {
        if (op.name.find("fp8_cast") != std::string::npos) {
            ++casts;
            QVERIFY2(op.name.starts_with("moe.expert_"), op.name.c_str());
            QCOMPARE(op.bytes, 4096.0 * 2880 * (2 + 1 + 1.0 / 32));
            continue;
        }
        if (op.kind != model::OperatorKind::Gemm) {
            continue;
        }
        const bool expert = op.name.starts_with("moe.expert_");
        experts += expert ? 1 : 0;
        QCOMPARE(op.precision, expert ? config::Precision::Fp8 : config::Precision::Bf16);
        QVERIFY2(expert ? op.storedWeights == config::Precision::Mxfp4 : !op.storedWeights, op.name.c_str());
    }
    QCOMPARE(experts, 2);
    QCOMPARE(casts, 2);
}

void TstLayerOperators::moeRunnerFusesPermutationActivationAndQuantisation()
{
    // The same gpt-oss-20b prefill through trtllm-gen's MoE runner (RunSpec::fusedMoeRunner): the first grouped GEMM
    // gathers the routed tokens through the routing's index list (no moe.permute copy) and applies SwiGLU and the
    // MXFP8 quantisation of the second GEMM's input in its epilogue (no moe.expert_activation, no cast before the
    // down GEMM); the gate-up GEMM's input cast (4,096 rows x 2,880 at 3.03125 B) and the combine (moe.unpermute)
    // stay. Both expert GEMMs take token tiles; no other GEMM does.
    const config::ModelSpec model = test::projectLoader().loadModel("gpt-oss-20b");
    config::RunSpec run = mxfp8IntoMxfp4ExpertsPrefill();
    const auto unfused = model::prefillLayer(model, run, parallel::layerSharding(run), true);
    run.fusedMoeRunner = true;
    const auto fused = model::prefillLayer(model, run, parallel::layerSharding(run), true);
    const auto names = [](const std::vector<model::Operator>& layer) {
        std::vector<std::string> all;
        for (const model::Operator& op : layer) {
            all.push_back(op.name);
        }
        return all;
    };
    std::vector<std::string> expected = names(unfused);
    std::erase_if(expected, [](const std::string& name) {
        return name == "moe.permute" || name == "moe.expert_activation"
            || name == "moe.expert_down_projection.fp8_cast";
    });
    QCOMPARE(names(fused), expected);
    QCOMPARE(names(unfused).size(), expected.size() + 3);
    int tokenTiled = 0;
    for (const model::Operator& op : fused) {
        tokenTiled += op.tokenTiles ? 1 : 0;
        QCOMPARE(op.tokenTiles, op.kind == model::OperatorKind::Gemm && op.name.starts_with("moe.expert_"));
        if (op.name == "moe.expert_gate_up_projection.fp8_cast") {
            QCOMPARE(op.bytes, 4096.0 * 2880 * (2 + 1 + 1.0 / 32));
        }
    }
    QCOMPARE(tokenTiled, 2);
}

void TstLayerOperators::fusedAllReduceCarriesResidualNormAndQuantisation()
{
    // Decode of 4 sequences at tp 2 with FP8 weights and GEMMs, bf16 activations. Unfused, a layer runs two norms,
    // two residual adds and four input casts; fused (TensorRT-LLM's all-reduce + residual + RMSNorm + FP8 quant), the
    // all-reduce after each of the two row-parallel projections does the residual add, the next norm and the next
    // GEMM's input cast. Each epilogue over 4 x 1024 elements reads the residual (2 B), writes it (2 B) and writes
    // the normalised FP8 output (1 B), and reads the norm's 1024 bf16 weights: 4096 x 5 + 2048 = 22,528 B. It has no
    // launch of its own (0 kernels). The casts of the output and down projections' inputs stay.
    config::RunSpec run = fp8DecodeRun(2);
    const config::ModelSpec model = tinyLlama();
    const auto unfused = model::decodeLayer(model, run, parallel::layerSharding(run), false, 129);
    run.fusedAllReduceNorm = true;
    run.fusedAllReduceQuantises = true;
    const auto fused = model::decodeLayer(model, run, parallel::layerSharding(run), false, 129);
    for (const char* gone : { "attention.norm", "mlp.norm", "attention.residual_add", "mlp.residual_add",
             "attention.qkv_projection.fp8_cast", "mlp.gate_up_projection.fp8_cast" }) {
        QVERIFY2(find(unfused, gone), gone);
        QVERIFY2(!find(fused, gone), gone);
    }
    for (const char* kept : { "attention.output_projection.fp8_cast", "mlp.down_projection.fp8_cast" }) {
        QVERIFY2(find(fused, kept), kept);
    }
    for (const char* epilogue : { "attention.allreduce_residual_norm", "mlp.allreduce_residual_norm" }) {
        const model::Operator* op = find(fused, epilogue);
        QVERIFY2(op, epilogue);
        QCOMPARE(op->bytes, 22528.0);
        QCOMPARE(op->kernels, 0);
    }
    QCOMPARE(unfused.size() - fused.size(), std::size_t { 4 }); // six kernels gone, two epilogues added
    // The norms' weights are still held: the epilogues carry them.
    config::RunSpec unfusedRun = run;
    unfusedRun.fusedAllReduceNorm = false;
    QCOMPARE(model::localLayerParameters(model, run, parallel::layerSharding(run), false),
        model::localLayerParameters(model, unfusedRun, parallel::layerSharding(run), false));
    // At tp 1 there is no all-reduce to fuse into; training never fuses.
    run.parallelism.tp = 1;
    QVERIFY(find(model::decodeLayer(model, run, parallel::layerSharding(run), false, 129), "mlp.residual_add"));
}

void TstLayerOperators::fusedAllReduceWithoutQuantisationInMoeLayers()
{
    // TensorRT-LLM's Qwen3 MoE layers fuse each all-reduce with the residual add and the next RMSNorm but do not
    // quantise (AllReduceFusionOp.RESIDUAL_RMS_NORM): Qwen3-30B-A3B (hidden 2048) decoding 4 sequences at tp 2 with
    // FP8 weights and GEMMs. Each epilogue over 4 x 2048 elements reads the residual (2 B), writes it (2 B) and
    // writes the normalised output in bf16 (2 B), and reads the norm's 2048 bf16 weights: 8192 x 6 + 4096 = 53,248 B,
    // no launch of its own. The norms and residual adds are gone, the QKV projection's input cast stays.
    const config::ModelSpec model = test::projectLoader().loadModel("qwen3-30b-a3b");
    QVERIFY(model.moe);
    config::RunSpec run = fp8DecodeRun(2);
    run.fusedAllReduceNorm = true;
    const auto fused = model::decodeLayer(model, run, parallel::layerSharding(run), true, 129);
    for (const char* gone : { "attention.norm", "mlp.norm", "attention.residual_add", "mlp.residual_add" }) {
        QVERIFY2(!find(fused, gone), gone);
    }
    QVERIFY(find(fused, "attention.qkv_projection.fp8_cast"));
    for (const char* epilogue : { "attention.allreduce_residual_norm", "mlp.allreduce_residual_norm" }) {
        const model::Operator* op = find(fused, epilogue);
        QVERIFY2(op, epilogue);
        QCOMPARE(op->bytes, 53248.0);
        QCOMPARE(op->kernels, 0);
    }
}

void TstLayerOperators::residualAddRunsInTheNextRmsNormsKernel()
{
    // vLLM, SGLang and TensorRT-LLM's PyTorch backend add the residual in their RMSNorm's kernel. The tiny Llama
    // (hidden 1024) decoding 4 sequences at tp 1 in bf16: each fused kernel over 4 x 1024 elements reads the
    // sublayer's output and the residual and writes the new residual and the normalised output (4 x 2 B), and reads
    // the 1024 weights: 4096 x 8 + 2048 = 34,816 B in one launch, where an add (3 x 2 B) and a norm (2 x 2 B plus the
    // weights) apart move 43,008 B in two.
    config::RunSpec run = decodeRun(1);
    config::ModelSpec model = tinyLlama();
    const auto unfused = model::decodeLayer(model, run, parallel::layerSharding(run), false, 129);
    QCOMPARE(find(unfused, "mlp.norm")->bytes + find(unfused, "attention.residual_add")->bytes, 43008.0);
    run.fusedResidualNorm = true;
    const auto fused = model::decodeLayer(model, run, parallel::layerSharding(run), false, 129);
    for (const char* gone : { "attention.norm", "mlp.norm", "attention.residual_add", "mlp.residual_add" }) {
        QVERIFY2(!find(fused, gone), gone);
    }
    for (const char* kernel : { "attention.residual_norm", "mlp.residual_norm" }) {
        const model::Operator* op = find(fused, kernel);
        QVERIFY2(op, kernel);
        QCOMPARE(op->bytes, 34816.0);
        QCOMPARE(op->kernels, 1);
    }
    QCOMPARE(unfused.size() - fused.size(), std::size_t { 2 });
    // Training never fuses; nor does a LayerNorm model (the engines fuse RMSNorm only).
    config::RunSpec training = trainingRun(1, 128, 1);
    training.fusedResidualNorm = true;
    QVERIFY(
        find(model::trainingForward(model, training, parallel::layerSharding(training), false), "mlp.residual_add"));
    model.norm = config::NormKind::LayerNorm;
    QVERIFY(find(model::decodeLayer(model, run, parallel::layerSharding(run), false, 129), "mlp.residual_add"));
}

void TstLayerOperators::lmHeadAndOptimizer()
{
    const config::ModelSpec model = test::projectLoader().loadModel("llama-3.1-70b");
    config::RunSpec run = trainingRun(1, 8192, 8, true);
    run.crossEntropyFusion = true;
    const auto head = model::lmHeadOperators(model, run, parallel::layerSharding(run), model::Workload::Training);
    // LM head sharded over tp: [8192 x 8192] . [8192 x 128256 / 8 = 16032].
    QCOMPARE(find(head, "lm_head.projection")->gemm, (model::GemmDims { 8192, 8192, 16032, 1 }));
    QVERIFY(find(head, "lm_head.projection.dx"));
    QVERIFY(find(head, "lm_head.projection.dw"));
    // Fused cross-entropy reads the 8192 x 16032 bf16 logits twice and writes an fp32 loss per token:
    // 2 x 131,334,144 x 2 + 32,768 = 525,369,344 B. Megatron's default op chain on fp32 logits: 38 B per logit,
    // 4,990,697,472 B.
    QCOMPARE(find(head, "lm_head.cross_entropy")->bytes, 525369344.0);
    run.crossEntropyFusion = false;
    QCOMPARE(find(model::lmHeadOperators(model, run, parallel::layerSharding(run), model::Workload::Training),
                 "lm_head.cross_entropy")
                 ->bytes,
        4990697472.0);
    // Inference: only the last token of each sequence.
    config::RunSpec serve;
    serve.mode = config::RunMode::Inference;
    serve.batch = 16;
    serve.promptLength = 1000;
    serve.parallelism.tp = 8;
    const auto servingHead
        = model::lmHeadOperators(model, serve, parallel::layerSharding(serve), model::Workload::Prefill);
    QCOMPARE(servingHead.size(), size_t(2));
    QCOMPARE(find(servingHead, "lm_head.projection")->gemm.m, std::int64_t(16));

    // Adam with fp32 master weights: read master, m, v (12 B) and the bf16 gradient (2 B), write master, m, v (12 B)
    // and the bf16 weight (2 B): 28 B per parameter.
    QCOMPARE(model::adamBytesPerParameter(run.precision), 28.0);
    const model::Operator adam = model::optimizerUpdate(1e6, run);
    QCOMPARE(adam.bytes, 28e6);
    QCOMPARE(adam.flops, 14e6);
    QCOMPARE(adam.phase, model::Phase::Optimizer);
}

void TstLayerOperators::localParameters()
{
    // tp 4: a quarter of the tiny Llama's 15,204,352 GEMM weights plus both RMSNorm weights (2 x 1024), replicated:
    // 3,801,088 + 2048 = 3,803,136.
    QCOMPARE(model::localLayerParameters(
                 tinyLlama(), trainingRun(1, 128, 4), parallel::layerSharding(trainingRun(1, 128, 4)), false),
        3803136.0);
}

void TstLayerOperators::eagerPytorchRunsKernelChains()
{
    // tinyLlama, micro-batch 1 x 512 tokens, bf16, tp 1: T = 512. By hand (model/eagerkernels.h):
    // RMSNorm over T h = 524,288 elements: fused 2 x 2 B = 4 B each (2,097,152 B, 1 kernel); eager 8 kernels of
    // 6 + 8 + 4 + 8 + 6 + 4 = 36 B (18,874,368 B); backward fused 3 x 2 = 6 B, eager 14 kernels: weight 2 + 2, its
    // gradient 2 + 2 + 2 and 2, downcast 6, scale 12 + 12 + 4, broadcast 4, pow 12, sum of paths 12, upcast 6 = 80 B
    // (41,943,040 B).
    // SwiGLU over T x 4096 = 2,097,152 outputs: eager 2 kernels of 4 + 6 = 10 B (20,971,520 B); backward 3 of 6 B.
    // Rotary over T (16 + 4) 64 = 655,360 rotated elements: eager 6 kernels of 6 + 8 + 6 = 20 B (13,107,200 B).
    config::RunSpec run = trainingRun(1, 512, 1);
    run.framework = config::Framework::PytorchFsdp;
    run.torchCompile = true;
    const auto fused = model::trainingForward(tinyLlama(), run, model::LayerSharding {}, false);
    run.torchCompile = false;
    const auto eager = model::trainingForward(tinyLlama(), run, model::LayerSharding {}, false);
    const auto eagerBackward = model::trainingBackward(tinyLlama(), run, model::LayerSharding {}, false);
    QCOMPARE(find(fused, "attention.norm")->bytes, 2097152.0 + 1024 * 2);
    QCOMPARE(find(fused, "attention.norm")->kernels, 1);
    QCOMPARE(find(eager, "attention.norm")->bytes, 18874368.0);
    QCOMPARE(find(eager, "attention.norm")->kernels, 8);
    QCOMPARE(find(eagerBackward, "attention.norm.backward")->bytes, 41943040.0);
    QCOMPARE(find(eagerBackward, "attention.norm.backward")->kernels, 14);
    QCOMPARE(find(eager, "mlp.activation")->bytes, 20971520.0);
    QCOMPARE(find(eager, "mlp.activation")->kernels, 2);
    QCOMPARE(find(eagerBackward, "mlp.activation.backward")->bytes, 2097152.0 * 18);
    QCOMPARE(find(eagerBackward, "mlp.activation.backward")->kernels, 3);
    QCOMPARE(find(eager, "attention.rotary_embedding")->bytes, 13107200.0);
    QCOMPARE(find(eager, "attention.rotary_embedding")->kernels, 6);
    // The FLOPs stay the block's own; only the traffic and the kernel count change. Megatron is always fused.
    QCOMPARE(find(eager, "attention.norm")->flops, find(fused, "attention.norm")->flops);
    run.framework = config::Framework::Megatron;
    const auto megatron = model::trainingForward(tinyLlama(), run, model::LayerSharding {}, false);
    for (const char* block : { "attention.norm", "attention.rotary_embedding", "mlp.norm", "mlp.activation" }) {
        QCOMPARE(*find(megatron, block), *find(fused, block));
    }
    // Transformer Engine modules inside eager PyTorch (NeMo AutoModel's TE option): TE's RMSNorm is one fused kernel
    // (the 2,097,152 + 2,048 B above); the rotary embedding and the gated activation stay eager chains.
    run.framework = config::Framework::PytorchFsdp;
    run.transformerEngine = true;
    const auto te = model::trainingForward(tinyLlama(), run, model::LayerSharding {}, false);
    QCOMPARE(find(te, "attention.norm")->bytes, 2097152.0 + 1024 * 2);
    QCOMPARE(find(te, "attention.norm")->kernels, 1);
    QCOMPARE(find(te, "mlp.activation")->bytes, 20971520.0);
    QCOMPARE(find(te, "attention.rotary_embedding")->kernels, 6);
}

void TstLayerOperators::pytorchModelsRunSeparateLinears()
{
    // torchtitan's Llama (wq, wk, wv; w1, w3) and Hugging Face models (q/k/v_proj, gate/up_proj) under PyTorch FSDP:
    // one GEMM per linear. tinyLlama over 512 tokens: q [512 x 1024] . [1024 x 1024], k and v [1024 x 256], gate and up
    // [1024 x 4096]; the layer's GEMM FLOPs stay 2 x 512 x 15,204,352 = 15,569,256,448, as Megatron's fused GEMMs.
    config::RunSpec run = trainingRun(1, 512, 1);
    run.framework = config::Framework::PytorchFsdp;
    run.torchCompile = true;
    const auto forward = model::trainingForward(tinyLlama(), run, model::LayerSharding {}, false);
    QVERIFY(!find(forward, "attention.qkv_projection"));
    QVERIFY(!find(forward, "mlp.gate_up_projection"));
    QCOMPARE(find(forward, "attention.q_projection")->gemm, (model::GemmDims { 512, 1024, 1024, 1 }));
    QCOMPARE(find(forward, "attention.k_projection")->gemm, (model::GemmDims { 512, 1024, 256, 1 }));
    QCOMPARE(find(forward, "attention.v_projection")->gemm, (model::GemmDims { 512, 1024, 256, 1 }));
    QCOMPARE(find(forward, "mlp.gate_projection")->gemm, (model::GemmDims { 512, 1024, 4096, 1 }));
    QCOMPARE(find(forward, "mlp.up_projection")->gemm, (model::GemmDims { 512, 1024, 4096, 1 }));
    QCOMPARE(gemmFlops(forward, model::Phase::Forward), 15569256448.0);
    QVERIFY(!find(forward, "attention.qkv_input_grad_sum"));

    // Autograd sums the input gradients of the linears sharing x (512 x 1024, bf16): compiled one kernel reading each
    // and writing the sum, (3 + 1) x 1,048,576 B for q, k, v and (2 + 1) x 1,048,576 B for gate and up; eager one add
    // per extra linear, 3 x 1,048,576 B each: 2 kernels, 6,291,456 B and 1 kernel, 3,145,728 B.
    const auto backward = model::trainingBackward(tinyLlama(), run, model::LayerSharding {}, false);
    QCOMPARE(find(backward, "attention.qkv_input_grad_sum.backward")->bytes, 4194304.0);
    QCOMPARE(find(backward, "attention.qkv_input_grad_sum.backward")->kernels, 1);
    QCOMPARE(find(backward, "mlp.gate_up_input_grad_sum.backward")->bytes, 3145728.0);
    run.torchCompile = false;
    const auto eagerBackward = model::trainingBackward(tinyLlama(), run, model::LayerSharding {}, false);
    QCOMPARE(find(eagerBackward, "attention.qkv_input_grad_sum.backward")->bytes, 6291456.0);
    QCOMPARE(find(eagerBackward, "attention.qkv_input_grad_sum.backward")->kernels, 2);
    QCOMPARE(find(eagerBackward, "mlp.gate_up_input_grad_sum.backward")->bytes, 3145728.0);
    QCOMPARE(find(eagerBackward, "mlp.gate_up_input_grad_sum.backward")->kernels, 1);
    // After the q, k and v input gradients, before the norm's backward that reads their sum.
    const auto at = [&](const char* name) {
        return std::find_if(
            eagerBackward.begin(), eagerBackward.end(), [&](const model::Operator& op) { return op.name == name; });
    };
    QVERIFY(at("attention.q_projection.dx") < at("attention.qkv_input_grad_sum.backward"));
    QVERIFY(at("attention.qkv_input_grad_sum.backward") < at("attention.norm.backward"));

    // FP8, tensorwise, compiled: x is cast once for q, k and v (5 B per element: amax read, read, FP8 write), the
    // weights each: (512 x 1024 + 1024 x 1536) x 5 = 10,485,760 B over the three casts, the fused GEMM's bytes.
    run.torchCompile = true;
    run.precision.compute = config::Precision::Fp8;
    run.precision.fp8Scaling = config::Fp8Scaling::Tensorwise;
    const auto fp8 = model::trainingForward(tinyLlama(), run, model::LayerSharding {}, false);
    const double qkvCasts = find(fp8, "attention.q_projection.fp8_cast")->bytes
        + find(fp8, "attention.k_projection.fp8_cast")->bytes + find(fp8, "attention.v_projection.fp8_cast")->bytes;
    QCOMPARE(qkvCasts, 10485760.0);
    QCOMPARE(find(fp8, "attention.k_projection.fp8_cast")->bytes, 1024.0 * 256 * 5);
    // Eager each Float8Linear casts x itself: two more casts of 524,288 elements.
    run.torchCompile = false;
    const auto eagerFp8 = model::trainingForward(tinyLlama(), run, model::LayerSharding {}, false);
    QCOMPARE(find(eagerFp8, "attention.k_projection.fp8_cast")->bytes, (512.0 * 1024 + 1024.0 * 256) * 5);
}

void TstLayerOperators::nanotronRunsItsLossAsOpsAndAccumulatesInFp32()
{
    // tinyLlama, micro-batch 1 x 512 tokens, bf16 activations, fp32 gradients, tp 1. By hand (model/eagerkernels.h,
    // Megatron's _VocabParallelCrossEntropy and nanotron's copy of it on fp32 logits): 512 x 32,000 = 16,384,000
    // logits; forward cast 2 + 4, max 4, shift 4 + 4, exp 4 + 4, sum 4, division 4 + 4 = 38 B per logit
    // (622,592,000 B, 12 kernels); backward product 4 + 4 and cast back 4 + 2 = 14 B (229,376,000 B, 4 kernels).
    // Fused (Megatron's --cross-entropy-loss-fusion, and the frameworks not modelled as op chains) the loss reads and
    // writes the bf16 logits: 2 x 2 B per logit plus 4 B of loss per token = 65,538,048 B.
    config::RunSpec run = trainingRun(1, 512, 1);
    run.precision.gradients = config::Precision::Fp32;
    run.framework = config::Framework::Megatron;
    const auto megatronHead
        = model::lmHeadOperators(tinyLlama(), run, parallel::layerSharding(run), model::Workload::Training);
    QCOMPARE(find(megatronHead, "lm_head.cross_entropy")->bytes, 622592000.0);
    QVERIFY(!find(megatronHead, "lm_head.fp32_grad_accumulation"));
    // Megatron sums it in the output layer's weight-gradient GEMM instead (beta = 1 into the fp32 main_grad).
    QCOMPARE(find(megatronHead, "lm_head.projection.dw")->accumulateInto,
        std::optional<config::Precision>(config::Precision::Fp32));
    run.crossEntropyFusion = true;
    const auto fusedHead
        = model::lmHeadOperators(tinyLlama(), run, parallel::layerSharding(run), model::Workload::Training);
    QCOMPARE(find(fusedHead, "lm_head.cross_entropy")->bytes, 65538048.0);
    QCOMPARE(find(fusedHead, "lm_head.cross_entropy")->kernels, 1);
    // PyTorch's compiled loss is the same single kernel.
    run.framework = config::Framework::PytorchFsdp;
    QCOMPARE(find(model::lmHeadOperators(tinyLlama(), run, parallel::layerSharding(run), model::Workload::Training),
                 "lm_head.cross_entropy")
                 ->bytes,
        65538048.0);
    // Eager PyTorch, F.cross_entropy(logits.float()): cast 2 + 4, log_softmax three reads and a write of fp32 (16) =
    // 22 B per logit (360,448,000 B, 3 kernels); backward: nll_loss's zero fill 4, log_softmax's backward 4 x 4, cast
    // back 4 + 2 = 26 B (425,984,000 B, 4 kernels). Without the upcast everything is bf16: 4 x 2 = 8 B forward
    // (131,072,000 B, 2 kernels), 2 + 4 x 2 = 10 B backward (163,840,000 B, 3 kernels).
    run.crossEntropyFusion = false;
    const auto eagerHead
        = model::lmHeadOperators(tinyLlama(), run, parallel::layerSharding(run), model::Workload::Training);
    QCOMPARE(find(eagerHead, "lm_head.cross_entropy")->bytes, 360448000.0);
    QCOMPARE(find(eagerHead, "lm_head.cross_entropy")->kernels, 3);
    QCOMPARE(find(eagerHead, "lm_head.cross_entropy.backward")->bytes, 425984000.0);
    QCOMPARE(find(eagerHead, "lm_head.cross_entropy.backward")->kernels, 4);
    run.lossFp32Upcast = false;
    const auto bf16Head
        = model::lmHeadOperators(tinyLlama(), run, parallel::layerSharding(run), model::Workload::Training);
    QCOMPARE(find(bf16Head, "lm_head.cross_entropy")->bytes, 131072000.0);
    QCOMPARE(find(bf16Head, "lm_head.cross_entropy")->kernels, 2);
    QCOMPARE(find(bf16Head, "lm_head.cross_entropy.backward")->bytes, 163840000.0);
    QCOMPARE(find(bf16Head, "lm_head.cross_entropy.backward")->kernels, 3);
    run.lossFp32Upcast = true;
    run.framework = config::Framework::Nanotron;
    const auto head = model::lmHeadOperators(tinyLlama(), run, parallel::layerSharding(run), model::Workload::Training);
    QCOMPARE(find(head, "lm_head.cross_entropy")->bytes, 622592000.0);
    QCOMPARE(find(head, "lm_head.cross_entropy")->kernels, 12);
    QCOMPARE(find(head, "lm_head.cross_entropy.backward")->bytes, 229376000.0);
    QCOMPARE(find(head, "lm_head.cross_entropy.backward")->kernels, 4);
    // FP32GradientAccumulator after every micro-batch: each parameter's bf16 gradient read (2 B) and added into its
    // fp32 buffer (4 + 4 B). The head: 1,024 x 32,000 = 32,768,000 parameters, 327,680,000 B. A layer: its GEMM
    // weights and two RMSNorm weights, 15,204,352 + 2,048 = 15,206,400 parameters, 152,064,000 B.
    QCOMPARE(find(head, "lm_head.fp32_grad_accumulation")->bytes, 327680000.0);
    const auto backward = model::trainingBackward(tinyLlama(), run, model::LayerSharding {}, false);
    QCOMPARE(find(backward, "layer.fp32_grad_accumulation")->bytes, 152064000.0);
    // nanotron's norms (Triton) and rotary embedding (flash-attn) are fused; its GLU activation runs as two kernels.
    const auto forward = model::trainingForward(tinyLlama(), run, model::LayerSharding {}, false);
    QCOMPARE(find(forward, "attention.norm")->kernels, 1);
    QCOMPARE(find(forward, "attention.rotary_embedding")->kernels, 1);
    QCOMPARE(find(forward, "mlp.activation")->bytes, 20971520.0);
    QCOMPARE(find(forward, "mlp.activation")->kernels, 2);
    // Gradients kept in bf16: no fp32 accumulation pass.
    run.precision.gradients = config::Precision::Bf16;
    QVERIFY(!find(
        model::trainingBackward(tinyLlama(), run, model::LayerSharding {}, false), "layer.fp32_grad_accumulation"));
}

void TstLayerOperators::fsdpSumsUnshardedGradientsOverTheStepsPasses()
{
    // PyTorch FSDP2 without gradient sync over m = 4 passes, bf16 parameters (g = 2 B), fp32 reduce dtype (r = 4 B):
    // the first pass casts (g + r = 6 B per parameter), the three later ones add (g + 2 r = 10 B): 36 B per parameter
    // and step, 9 B per pass. tinyLlama's layer: 15,206,400 parameters (GEMMs and two RMSNorm weights) x 9 =
    // 136,857,600 B; its head 1,024 x 32,000 = 32,768,000 x 9 = 294,912,000 B.
    config::RunSpec run = trainingRun(1, 512, 1);
    run.framework = config::Framework::PytorchFsdp;
    run.precision.weights = config::Precision::Bf16;
    run.precision.gradients = config::Precision::Fp32;
    const model::GradientSum deferred { 4, true, false };
    const auto layer = model::trainingBackward(tinyLlama(), run, model::LayerSharding {}, false, deferred);
    QCOMPARE(find(layer, "layer.unsharded_grad_accumulation")->bytes, 136857600.0);
    QCOMPARE(find(layer, "layer.unsharded_grad_accumulation")->phase, model::Phase::Backward);
    const auto head
        = model::lmHeadOperators(tinyLlama(), run, parallel::layerSharding(run), model::Workload::Training, deferred);
    QCOMPARE(find(head, "lm_head.unsharded_grad_accumulation")->bytes, 294912000.0);
    // Reduced in bf16 there is no separate sum: autograd adds in place from the second pass on, 3 x 3 x 2 = 18 B per
    // parameter and step, 4.5 B per pass: 68,428,800 B.
    run.precision.gradients = config::Precision::Bf16;
    QCOMPARE(find(model::trainingBackward(tinyLlama(), run, model::LayerSharding {}, false, deferred),
                 "layer.unsharded_grad_accumulation")
                 ->bytes,
        68428800.0);
    // Two pipeline schedules per step, each reducing after its last backward (syncs 2): the sums restart, two periods
    // of 2 passes at 6 + 10 B: 32 B per parameter and step, 8 B per pass, 15,206,400 x 8 = 121,651,200 B. One
    // schedule per pass (syncs 4) sums nothing.
    run.precision.gradients = config::Precision::Fp32;
    QCOMPARE(find(model::trainingBackward(tinyLlama(), run, model::LayerSharding {}, false, { 4, true, false, 2 }),
                 "layer.unsharded_grad_accumulation")
                 ->bytes,
        121651200.0);
    QVERIFY(!find(model::trainingBackward(tinyLlama(), run, model::LayerSharding {}, false, { 4, true, false, 4 }),
        "layer.unsharded_grad_accumulation"));
    run.precision.gradients = config::Precision::Bf16;
    // One pass, gradients reduced as they come, or another framework: nothing.
    for (const auto& [framework, sum] :
        { std::pair(config::Framework::PytorchFsdp, model::GradientSum { 1, true, false }),
            std::pair(config::Framework::PytorchFsdp, model::GradientSum { 4, false, false }),
            std::pair(config::Framework::Megatron, deferred) }) {
        run.framework = framework;
        QVERIFY(!find(model::trainingBackward(tinyLlama(), run, model::LayerSharding {}, false, sum),
            "layer.unsharded_grad_accumulation"));
    }
    // Mixtral 8x7B at tp 2, ep 4: the GPU's 2 routed experts hold 2 x 3 x 4,096 x 7,168 = 176,160,768 parameters; the
    // rest of the layer q and o 2 x 4,096 x 4,096 / 2, k and v 2 x 4,096 x 1,024 / 2, the router 4,096 x 8 and two
    // norms of 4,096: 21,012,480. With the experts outside FSDP (autograd's bf16 sums, 18 B per step) and fp32 FSDP
    // sums for the rest (36 B): (21,012,480 x 36 + 176,160,768 x 18) / 4 = 981,835,776 B per pass; with gradients
    // reduced as they come, only the experts' sums: 176,160,768 x 18 / 4 = 792,723,456 B.
    const config::ModelSpec mixtral = test::projectLoader().loadModel("mixtral-8x7b");
    run = trainingRun(1, 4096, 2);
    run.parallelism.ep = 4;
    run.framework = config::Framework::PytorchFsdp;
    run.precision.weights = config::Precision::Bf16;
    run.precision.gradients = config::Precision::Fp32;
    const model::LayerSharding sharding = parallel::layerSharding(run);
    QCOMPARE(find(model::trainingBackward(mixtral, run, sharding, true, { 4, true, true }),
                 "layer.unsharded_grad_accumulation")
                 ->bytes,
        981835776.0);
    QCOMPARE(find(model::trainingBackward(mixtral, run, sharding, true, { 4, false, true }),
                 "layer.unsharded_grad_accumulation")
                 ->bytes,
        792723456.0);
    // Two syncs: the FSDP sums restart (32 B per step), autograd's sums of the experts run over the whole step (18 B):
    // (21,012,480 x 32 + 176,160,768 x 18) / 4 = 960,823,296 B.
    QCOMPARE(find(model::trainingBackward(mixtral, run, sharding, true, { 4, true, true, 2 }),
                 "layer.unsharded_grad_accumulation")
                 ->bytes,
        960823296.0);
}

void TstLayerOperators::slidingWindowLayersAttendToTheirWindow()
{
    // tinyLlama (2 layers, 16 heads of 64) over 8,192 tokens, a 4,096-token window in layer 1 and full attention in
    // layer 2 (full_attention_every 2): the windowed layer scores 4096 x 4097 / 2 + 4096 x 4096 = 25,167,872 pairs
    // per head, the full one 8192 x 8193 / 2 = 33,558,528; the operator stands for their mean, 29,363,200. Forward
    // FLOPs 2 x 16 heads x 29,363,200 x (64 + 64).
    config::ModelSpec model = tinyLlama();
    model.slidingWindow = 4096;
    model.fullAttentionEvery = 2;
    QCOMPARE(model.windowedLayerShare(), 0.5);
    const config::RunSpec run = trainingRun(1, 8192, 1);
    const auto forward = model::trainingForward(model, run, model::LayerSharding {}, false);
    const model::Operator* core = find(forward, "attention.core");
    QCOMPARE(core->attention.window, std::int64_t(4096));
    QCOMPARE(core->flops, 2.0 * 16 * 29363200.0 * 128);
    // Gemma 3's pattern on 62 layers (every 6th full): 10 full, 52 windowed.
    model.numLayers = 62;
    model.fullAttentionEvery = 6;
    QCOMPARE(model.windowedLayerShare(), 52.0 / 62);
    // A model FLOP count per token at 8,192 tokens of context counts the window in windowed layers.
    model.fullAttentionEvery = 0;
    QCOMPARE(model.attendedContext(8192), 4096.0);
    QCOMPARE(model.attendedContext(1000), 1000.0);
}

void TstLayerOperators::pytorchContextParallelismMergesInFp32()
{
    // The byte counts of ringattention.h by hand, bf16 (2 B), cp 4 (three later steps), Q = O = 1,000 and K + V = 500
    // elements. Forward: O x (6 + 3 x (6 + 32) + 6) + K/V x 3 x 4 = 126,000 + 6,000. Backward: Q x (4 + 4 x 10 + 6) +
    // K/V x (4 + 4 x 10 + 3 x 16 + 3 x 4 + 6) = 50,000 + 55,000. Kernels: 2 + 3 x 6 + 3 and 3 + 3 x 4 + 3 x 3 + 3.
    const model::RingAttentionBytes bytes = model::pytorchRingAttentionBytes(1000, 1000, 500, 4, 2);
    QCOMPARE(bytes.forward, 132000.0);
    QCOMPARE(bytes.backward, 105000.0);
    QCOMPARE(bytes.forwardKernels, 23);
    QCOMPARE(bytes.backwardKernels, 27);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, model::pytorchRingAttentionBytes(1, 1, 1, 1, 2));

    // In a layer: the tiny Llama (16 heads, 4 KV heads of 64), one sequence of 4,096 tokens over cp 4 under PyTorch
    // FSDP: 1,024 rows here, Q = O = 1,024 x 16 x 64 = 1,048,576 elements, K + V = 1,024 x 4 x 128 = 524,288; the
    // same counts as above give 138,412,032 B forward and 110,100,480 B backward. Full recomputation reruns the ring's
    // forward; Megatron's context parallelism (its own kernels) and cp 1 have no such operator.
    config::RunSpec run = trainingRun(1, 4096, 1);
    run.framework = config::Framework::PytorchFsdp;
    run.parallelism.cp = 4;
    run.recompute = config::Recompute::Full;
    const auto forward = model::trainingForward(tinyLlama(), run, parallel::layerSharding(run), false);
    const auto backward = model::trainingBackward(tinyLlama(), run, parallel::layerSharding(run), false);
    const model::Operator* merge = find(forward, "attention.core.ring_merge");
    QVERIFY(merge);
    QCOMPARE(merge->bytes, 138412032.0);
    QCOMPARE(merge->kernels, 23);
    const model::Operator* mergeBackward = find(backward, "attention.core.ring_merge.backward");
    QVERIFY(mergeBackward);
    QCOMPARE(mergeBackward->bytes, 110100480.0);
    const auto recomputed = std::count_if(backward.begin(), backward.end(), [](const model::Operator& op) {
        return op.name == "attention.core.ring_merge" && op.phase == model::Phase::Recompute;
    });
    QCOMPARE(recomputed, 1);
    run.recompute = config::Recompute::OpSac; // the SDPA op's output is kept: no rerun
    const auto opSac = model::trainingBackward(tinyLlama(), run, parallel::layerSharding(run), false);
    QVERIFY(!find(opSac, "attention.core.ring_merge"));
    run.framework = config::Framework::Megatron;
    QVERIFY(!find(
        model::trainingForward(tinyLlama(), run, parallel::layerSharding(run), false), "attention.core.ring_merge"));
    run.framework = config::Framework::PytorchFsdp;
    run.parallelism.cp = 1;
    QVERIFY(!find(
        model::trainingForward(tinyLlama(), run, parallel::layerSharding(run), false), "attention.core.ring_merge"));
}

void TstLayerOperators::rejectsBadInput()
{
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
        model::trainingForward(
            tinyLlama(), trainingRun(0, 512, 1), parallel::layerSharding(trainingRun(0, 512, 1)), false));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
        model::trainingForward(
            tinyLlama(), trainingRun(1, 512, 0), parallel::layerSharding(trainingRun(1, 512, 0)), false));
    config::RunSpec run;
    run.mode = config::RunMode::Inference;
    QVERIFY_THROWS_EXCEPTION(
        std::invalid_argument, model::decodeLayer(tinyLlama(), run, parallel::layerSharding(run), false, 0));
}

QTEST_GUILESS_MAIN(TstLayerOperators)
#include "tst_layeroperators.moc"
