// SPDX-License-Identifier: GPL-3.0-or-later
// LoRA fine-tuning's kernels, trainable parameters and memory, against values derived by hand for a small model.
#include "config/hardwarespec.h"
#include "memory/memorymodel.h"
#include "model/layeroperators.h"
#include "model/loraadapters.h"
#include "parallel/shardingplan.h"
#include "tinyllama.h"

#include <QTest>

#include <algorithm>

using namespace rapid;

namespace {

using test::tinyLlama; // its linears: q and o [1024 x 1024], k and v [1024 x 256], gate and up [1024 x 4096]

/// One sequence of 512 tokens per micro-batch, eager PyTorch FSDP (Hugging Face's separate linears), rank 16.
config::RunSpec loraRun()
{
    config::RunSpec run;
    run.mode = config::RunMode::Training;
    run.framework = config::Framework::PytorchFsdp;
    run.globalBatch = 4;
    run.microBatch = 1;
    run.seqLength = 512;
    run.loraRank = 16;
    run.loraDropout = 0.1;
    return run;
}

// Adapter parameters per layer, r (in + out) per linear: q and o 16 x 2,048 = 32,768 each; k and v 16 x 1,280 =
// 20,480 each; gate, up and down 16 x 5,120 = 81,920 each: 352,256.
constexpr double kAdapterParametersPerLayer = 352256;
// On the LM head (lora_targets all_linear): 16 x (1,024 + 32,000) = 528,384.
constexpr double kHeadAdapterParameters = 528384;

const model::Operator* find(const std::vector<model::Operator>& ops, const std::string& name)
{
    const auto it = std::find_if(ops.begin(), ops.end(), [&](const model::Operator& op) { return op.name == name; });
    return it == ops.end() ? nullptr : &*it;
}

} // namespace

class TstLoraAdapters : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void adapterKernelsBesideEveryLinear();
    void frozenLinearsComputeOnlyTheirInputGradient();
    void compiledAdaptersFuseTheirElementwiseSteps();
    void trainableParametersAreTheAdapters();
    void headAdapterOnlyWithAllLinear();
    void memoryHoldsGradientsAndStatesOfTheAdaptersOnly();
    void modelFlopsLeaveOutTheFrozenWeightGradients();
};

void TstLoraAdapters::modelFlopsLeaveOutTheFrozenWeightGradients()
{
    // tinyLlama's forward per token: GEMMs 2 x (2 x 15,204,352 + 32,000 x 1,024) = 126,353,408, attention over 512
    // keys 2 x 2 layers x 16 heads x 512 x 128 = 4,194,304: 130,547,712. Full training 3x: 391,643,136. LoRA drops
    // the frozen weights' gradients (126,353,408) and adds 6 per adapter parameter (2 x 352,256): 269,516,800.
    config::RunSpec run = loraRun();
    QCOMPARE(model::trainingModelFlopsPerToken(tinyLlama(), run), 269516800.0);
    run.loraRank = 0;
    QCOMPARE(model::trainingModelFlopsPerToken(tinyLlama(), run), 391643136.0);
}

void TstLoraAdapters::adapterKernelsBesideEveryLinear()
{
    const config::RunSpec run = loraRun();
    const auto forward = model::trainingForward(tinyLlama(), run, model::LayerSharding {}, false);
    // lora_A [512 x in] . [in x 16], lora_B [512 x 16] . [16 x out].
    QCOMPARE(find(forward, "attention.q_projection.lora_a")->gemm, (model::GemmDims { 512, 1024, 16, 1 }));
    QCOMPARE(find(forward, "attention.q_projection.lora_b")->gemm, (model::GemmDims { 512, 16, 1024, 1 }));
    QCOMPARE(find(forward, "attention.k_projection.lora_b")->gemm, (model::GemmDims { 512, 16, 256, 1 }));
    QCOMPARE(find(forward, "mlp.down_projection.lora_a")->gemm, (model::GemmDims { 512, 4096, 16, 1 }));
    QCOMPARE(find(forward, "mlp.down_projection.lora_b")->gemm, (model::GemmDims { 512, 16, 1024, 1 }));
    // q's output is 512 x 1,024 bf16 = 1,048,576 B: the scale reads and writes 512 x 16 x 2 B each way (32,768 B);
    // the dropout reads it and writes it (2 x 1,048,576) and a one-byte mask (524,288): 2,621,440 B; the add reads
    // two and writes one: 3,145,728 B. Each is one eager kernel.
    QCOMPARE(find(forward, "attention.q_projection.lora_scale")->bytes, 32768.0);
    QCOMPARE(find(forward, "attention.q_projection.lora_dropout")->bytes, 2621440.0);
    QCOMPARE(find(forward, "attention.q_projection.lora_add")->bytes, 3145728.0);
    QCOMPARE(find(forward, "attention.q_projection.lora_add")->kernels, 1);
    // In order: base GEMM, lora_A, scale, lora_B, dropout, add.
    const auto at = [&](const char* name) {
        return std::find_if(forward.begin(), forward.end(), [&](const model::Operator& op) { return op.name == name; });
    };
    QVERIFY(at("attention.q_projection") < at("attention.q_projection.lora_a"));
    QVERIFY(at("attention.q_projection.lora_b") < at("attention.q_projection.lora_dropout"));
    QVERIFY(at("attention.q_projection.lora_add") < at("attention.k_projection"));
    // Without dropout there is no dropout kernel.
    config::RunSpec plain = run;
    plain.loraDropout = 0;
    QVERIFY(!find(model::trainingForward(tinyLlama(), plain, model::LayerSharding {}, false),
        "attention.q_projection.lora_dropout"));
    // What the adapters save: lora_B's input 512 x 16 x 2 B = 16,384 B per linear (7: 114,688 B) and the masks,
    // 512 x (1,024 + 256 + 256 + 1,024 + 4,096 + 4,096 + 1,024) = 6,029,312 B: 6,144,000 B.
    QCOMPARE(model::loraSavedBytes(forward, run, 2.0), 6144000.0);
    QCOMPARE(
        model::loraSavedBytes(model::trainingForward(tinyLlama(), plain, model::LayerSharding {}, false), plain, 2.0),
        114688.0);
}

void TstLoraAdapters::frozenLinearsComputeOnlyTheirInputGradient()
{
    const config::RunSpec run = loraRun();
    const auto backward = model::trainingBackward(tinyLlama(), run, model::LayerSharding {}, false);
    for (const char* linear : { "attention.q_projection", "attention.k_projection", "attention.v_projection",
             "attention.output_projection", "mlp.gate_projection", "mlp.up_projection", "mlp.down_projection" }) {
        QVERIFY2(find(backward, std::string(linear) + ".dx"), linear);
        QVERIFY2(!find(backward, std::string(linear) + ".dw"), linear);
        QVERIFY2(find(backward, std::string(linear) + ".lora_a.dw"), linear);
        QVERIFY2(find(backward, std::string(linear) + ".lora_b.dw"), linear);
    }
    // dA = x^T . d(xA): [1024 x 512] . [512 x 16]; dB = (xA)^T . dy: [16 x 512] . [512 x 1024].
    QCOMPARE(find(backward, "attention.q_projection.lora_a.dw")->gemm, (model::GemmDims { 1024, 512, 16, 1 }));
    QCOMPARE(find(backward, "attention.q_projection.lora_b.dw")->gemm, (model::GemmDims { 16, 512, 1024, 1 }));
    // x's two gradients (the base's and the adapter's, 512 x 1,024 bf16) are summed: 3 x 1,048,576 B; the add
    // passes its gradient on without a kernel.
    QCOMPARE(find(backward, "attention.q_projection.lora_input_grad_sum.backward")->bytes, 3145728.0);
    QVERIFY(!find(backward, "attention.q_projection.lora_add.backward"));
    // The frozen embedding takes no gradient.
    const auto embedding
        = model::embeddingOperators(tinyLlama(), run, model::LayerSharding {}, model::Workload::Training);
    QCOMPARE(embedding.size(), size_t(1));
}

void TstLoraAdapters::compiledAdaptersFuseTheirElementwiseSteps()
{
    // Compiled, the dropout and the add ride in the neighbouring element-wise kernels: each reads its extra operand
    // (512 x 1,024 x 2 B = 1,048,576 B; the dropout also writes its mask, 524,288 B) and launches nothing. The scale
    // between the two cuBLAS GEMMs stays a kernel.
    config::RunSpec run = loraRun();
    run.torchCompile = true;
    const auto forward = model::trainingForward(tinyLlama(), run, model::LayerSharding {}, false);
    QCOMPARE(find(forward, "attention.q_projection.lora_add")->bytes, 1048576.0);
    QCOMPARE(find(forward, "attention.q_projection.lora_add")->kernels, 0);
    QCOMPARE(find(forward, "attention.q_projection.lora_dropout")->bytes, 1572864.0);
    QCOMPARE(find(forward, "attention.q_projection.lora_scale")->kernels, 1);
}

void TstLoraAdapters::trainableParametersAreTheAdapters()
{
    const config::RunSpec run = loraRun();
    config::RunSpec full = run;
    full.loraRank = 0;
    full.loraDropout = 0;
    const model::LayerSharding one {};
    QCOMPARE(model::localLayerTrainableParameters(tinyLlama(), run, one, false), kAdapterParametersPerLayer);
    QCOMPARE(model::localLayerParameters(tinyLlama(), run, one, false),
        model::localLayerParameters(tinyLlama(), full, one, false) + kAdapterParametersPerLayer);
    QCOMPARE(model::localLayerTrainableParameters(tinyLlama(), full, one, false),
        model::localLayerParameters(tinyLlama(), full, one, false));
    QCOMPARE(model::loraAdapterParameters(1024, 4096, 16), 81920.0);
    // Under tensor parallelism 2 each GPU holds its shard's adapters: column-parallel q, k, v, gate, up keep A whole
    // and split B (16 x (1,024 + 512), 16 x (1,024 + 128) twice, 16 x (1,024 + 2,048) twice); row-parallel o and down
    // split A and keep B whole (16 x (512 + 1,024), 16 x (2,048 + 1,024)): 24,576 + 36,864 + 98,304 + 24,576 +
    // 49,152 = 233,472.
    config::RunSpec tp2 = run;
    tp2.parallelism.tp = 2;
    QCOMPARE(model::localLayerTrainableParameters(tinyLlama(), tp2, parallel::layerSharding(tp2), false), 233472.0);
}

void TstLoraAdapters::headAdapterOnlyWithAllLinear()
{
    config::RunSpec run = loraRun();
    const model::LayerSharding one {};
    auto head = model::lmHeadOperators(tinyLlama(), run, one, model::Workload::Training);
    QVERIFY(find(head, "lm_head.projection.dx"));
    QVERIFY(!find(head, "lm_head.projection.dw"));
    QVERIFY(!find(head, "lm_head.projection.lora_a"));
    run.loraTargets = config::LoraTargets::AllLinear;
    head = model::lmHeadOperators(tinyLlama(), run, one, model::Workload::Training);
    QCOMPARE(find(head, "lm_head.projection.lora_b")->gemm, (model::GemmDims { 512, 16, 32000, 1 }));
    QVERIFY(find(head, "lm_head.projection.lora_b.dw"));
    QVERIFY(!find(head, "lm_head.projection.dw"));
    const parallel::ShardingPlan plan = parallel::planSharding(tinyLlama(), run);
    QCOMPARE(plan.stageShares.front().trainableParameters, 2 * kAdapterParametersPerLayer + kHeadAdapterParameters);
}

void TstLoraAdapters::memoryHoldsGradientsAndStatesOfTheAdaptersOnly()
{
    // One GPU, bf16 weights and gradients, fp32 master weights and Adam moments: the adapters' 1,232,896 parameters
    // (two layers and the head) hold 2 B of gradient, 4 B of master weight and 8 B of moments each.
    config::RunSpec run = loraRun();
    run.loraTargets = config::LoraTargets::AllLinear;
    run.precision.gradients = config::Precision::Bf16;
    config::GpuSpec gpu;
    gpu.name = "test";
    gpu.hbmCapacityBytes = 80.0 * (1LL << 30);
    const memory::MemoryEstimate estimate = memory::estimateMemory(tinyLlama(), gpu, run);
    constexpr double trainable = 2 * kAdapterParametersPerLayer + kHeadAdapterParameters;
    QCOMPARE(estimate.bytes(memory::MemoryCategory::Gradients), trainable * 2);
    QCOMPARE(estimate.bytes(memory::MemoryCategory::MasterWeights), trainable * 4);
    QCOMPARE(estimate.bytes(memory::MemoryCategory::OptimizerStates), trainable * 8);

    // FSDP over 2 ranks: the adapters' shards are the master copies, and the frozen rest keeps its bf16 shard:
    // 2 layers x (15,204,352 + 2 norms of 1,024) + the embedding 32,768,000 + the final norm 1,024 and the head
    // 32,768,000 = 95,949,824 parameters, half of them per rank at 2 B: 95,949,824 B.
    run.parallelism.dp = 2;
    run.parallelism.zeroStage = 3;
    run.parallelism.sharding = config::ShardingStrategy::Fsdp;
    const memory::MemoryEstimate sharded = memory::estimateMemory(tinyLlama(), gpu, run);
    QCOMPARE(sharded.bytes(memory::MemoryCategory::Weights), 95949824.0);
    QCOMPARE(sharded.bytes(memory::MemoryCategory::MasterWeights), trainable / 2 * 4);
}

QTEST_APPLESS_MAIN(TstLoraAdapters)
#include "tst_loraadapters.moc"
