// SPDX-License-Identifier: GPL-3.0-or-later
// Overlapped tensor parallelism splits the GEMMs beside its collectives into tp sequential steps: which GEMMs are
// split, and what a split costs, composed by hand from the GEMM model's own estimates; and the reduction that ends a
// fused reduce-scatter, from its bytes.
#include "compute/gemmmodel.h"
#include "sim/pipelinedtensorgemms.h"
#include "testutils.h"

#include <QTest>

using namespace rapid;

namespace {

model::Operator gemm(const std::string& name, model::OperatorClass opClass, model::Phase phase, std::int64_t m,
    std::int64_t k, std::int64_t n)
{
    model::Operator op;
    op.name = name;
    op.kind = model::OperatorKind::Gemm;
    op.opClass = opClass;
    op.phase = phase;
    op.gemm = { m, k, n, 1 };
    op.flops = 2.0 * m * k * n;
    return op;
}

double gemmSeconds(const config::GpuSpec& gpu, std::int64_t m, std::int64_t k, std::int64_t n)
{
    return compute::estimateGemm(gpu, { m, k, n, 1, config::Precision::Bf16, std::nullopt }).totalSeconds;
}

} // namespace

class TstPipelinedTensorGemms : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void splitsTheGemmsBesideTheCollectives();
    void nothingToSplitWithoutTensorParallelism();
    void aFusedReduceScatterEndsInItsReduction();
};

void TstPipelinedTensorGemms::splitsTheGemmsBesideTheCollectives()
{
    // Llama 3.1 8B at tp 8 on one 8,192-token micro-batch: QKV [8192 x 4096] . [4096 x 768] in forward and the down
    // projection's input gradient [8192 x 4096] . [4096 x 1792] in backward are split into eight 1,024-row steps. A
    // weight gradient is not split even when its rows equal the token count (the name decides), nor an MoE expert
    // GEMM, nor the LM head, nor a GEMM over other rows.
    const config::GpuSpec gpu = test::projectLoader().loadHardware("H100-SXM5-80GB").gpu;
    const std::int64_t tokens = 8192;
    const std::vector<model::Operator> ops = {
        gemm("attention.qkv_projection", model::OperatorClass::Attention, model::Phase::Forward, tokens, 4096, 768),
        gemm("mlp.down_projection.dx", model::OperatorClass::Mlp, model::Phase::Backward, tokens, 4096, 1792),
        gemm("attention.output_projection.dw", model::OperatorClass::Attention, model::Phase::Backward, tokens, 8192,
            4096),
        gemm("moe.expert_up_projection", model::OperatorClass::Moe, model::Phase::Forward, tokens, 4096, 1024),
        gemm("lm_head.output", model::OperatorClass::LmHead, model::Phase::Forward, tokens, 4096, 16032),
        gemm("attention.k_projection", model::OperatorClass::Attention, model::Phase::Recompute, 4096, 4096, 128),
    };
    compute::OperatorTimer timer(gpu);
    const sim::PipelinedGemmCost cost = sim::pipelinedGemmCost(timer, ops, 8, tokens);
    const double attention = 8 * gemmSeconds(gpu, 1024, 4096, 768) - gemmSeconds(gpu, tokens, 4096, 768);
    const double mlp = 8 * gemmSeconds(gpu, 1024, 4096, 1792) - gemmSeconds(gpu, tokens, 4096, 1792);
    QVERIFY(attention > 0 && mlp > 0); // eight 1,024-row GEMMs fill the GPU worse than one of 8,192 rows
    QVERIFY2(std::abs(cost.attention / attention - 1) < 1e-12, qPrintable(QString::number(cost.attention)));
    QVERIFY2(std::abs(cost.mlp / mlp - 1) < 1e-12, qPrintable(QString::number(cost.mlp)));
    QCOMPARE(cost.total(), cost.attention + cost.mlp);
}

void TstPipelinedTensorGemms::nothingToSplitWithoutTensorParallelism()
{
    const config::GpuSpec gpu = test::projectLoader().loadHardware("H100-SXM5-80GB").gpu;
    compute::OperatorTimer timer(gpu);
    const std::vector<model::Operator> ops = { gemm(
        "attention.qkv_projection", model::OperatorClass::Attention, model::Phase::Forward, 8192, 4096, 6144) };
    QCOMPARE(sim::pipelinedGemmCost(timer, ops, 1, 8192).total(), 0.0);
}

void TstPipelinedTensorGemms::aFusedReduceScatterEndsInItsReduction()
{
    // Llama 3.1 8B at tp 8, one 8,192-token micro-batch: the output projection's 8,192 x 4,096 bf16 output is
    // 67,108,864 B. The eight stacked partials (8 x 1,024 rows) are read once and the rank's 1,024 rows written:
    // 67,108,864 x 9/8 = 75,497,472 B at the read-write stream rate of an H100 SXM5 (3,350 GB/s x 0.887), plus one
    // launch (4 us). Without tensor parallelism there is nothing to reduce.
    const config::GpuSpec gpu = test::projectLoader().loadHardware("H100-SXM5-80GB").gpu;
    compute::OperatorTimer timer(gpu);
    const double expected = 75497472.0 / (3350e9 * 0.887) + 4e-6;
    const double seconds = sim::fusedReduceScatterSumSeconds(timer, 67108864.0, 8);
    QVERIFY2(std::abs(seconds / expected - 1) < 1e-9, qPrintable(QString::number(seconds)));
    QCOMPARE(sim::fusedReduceScatterSumSeconds(timer, 67108864.0, 1), 0.0);
    // The all-gather side starts with the rank's 1,024-row shard (8,388,608 B) copied into symmetric memory, read
    // and written, and a barrier kernel: 16,777,216 B at the same rate plus two launches.
    const double setup = 16777216.0 / (3350e9 * 0.887) + 2 * 4e-6;
    QVERIFY(std::abs(sim::fusedAllGatherSetupSeconds(timer, 8388608.0) / setup - 1) < 1e-9);
}

QTEST_GUILESS_MAIN(TstPipelinedTensorGemms)
#include "tst_pipelinedtensorgemms.moc"
