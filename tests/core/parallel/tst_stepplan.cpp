// SPDX-License-Identifier: GPL-3.0-or-later
// The step plan: the collectives each parallel axis implies, with bytes, groups and counts derived by hand.
#include "model/modelstats.h"
#include "parallel/stepplan.h"
#include "testutils.h"

#include <QTest>

#include <cmath>

using namespace rapid;
using network::CollectiveKind;
using parallel::Axis;

namespace {

using test::llama7bOn8;

} // namespace

class TstStepPlan : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void tensorParallelLayerCollectives();
    void pipelineSendsAndGradientReductions();
    void zero3GathersEveryChunk();
};

void TstStepPlan::tensorParallelLayerCollectives()
{
    // Megatron TP 8 without SP: per block an all-reduce of s * b * h * 2 bytes = 2048 * 1 * 4096 * 2 = 16,777,216,
    // twice per pass; full recomputation repeats the forward's two in the backward.
    const parallel::StepPlan plan = parallel::planStep(llama7bOn8({ "run.parallelism.tp=8", "run.parallelism.dp=1",
        "run.training.global_batch=1", "run.training.recompute=full" }));
    QCOMPARE(plan.stages.size(), size_t(1));
    const parallel::LayerCollectives& layer = plan.stages[0].layer;
    QCOMPARE(layer.tensorPair.size(), size_t(1));
    QCOMPARE(layer.tensorPair[0].kind, CollectiveKind::AllReduce);
    QCOMPARE(layer.tensorPair[0].bytes, 16777216.0);
    QCOMPARE(layer.tensorPair[0].group, (std::vector<int> { 0, 1, 2, 3, 4, 5, 6, 7 }));
    QCOMPARE(layer.tensorPairsForward, 2);
    QCOMPARE(layer.tensorPairsBackward, 4);
    QVERIFY(!layer.contextStep && !layer.expertAllToAll);
    // tp 8 fills the node: no other tp group to replicate.
    QVERIFY(plan.withReplicas(layer.tensorPair[0]).replicaOffsets.empty());
}

void TstStepPlan::pipelineSendsAndGradientReductions()
{
    // tp 2 x pp 2 x dp 2 on 8 GPUs (Megatron order: tp stride 1, dp stride 2, pp stride 4). Stage 1's representative
    // rank is 4; it sends one micro-batch's hidden state split over tp (2048 * 4096 * 2 / 2 = 8 MiB) to rank 0 (the
    // next stage wraps around) and its gradients go back to rank 0 too. Its dp group is {4, 6}.
    const parallel::StepPlan plan = parallel::planStep(llama7bOn8(
        { "run.parallelism.tp=2", "run.parallelism.pp=2", "run.parallelism.dp=2", "run.training.global_batch=8" }));
    QCOMPARE(plan.stages.size(), size_t(2));
    const parallel::StagePlan& last = plan.stages[1];
    QCOMPARE(last.representativeRank, 4);
    QVERIFY(last.sendForward && last.sendBackward);
    QCOMPARE(last.sendForward->bytes, 8388608.0);
    QCOMPARE(last.sendForward->group, (std::vector<int> { 4, 0 }));
    QCOMPARE(last.sendBackward->group, (std::vector<int> { 4, 0 }));
    QCOMPARE(last.chunks.size(), size_t(1));
    QCOMPARE(last.chunks[0].layers.size(), size_t(16)); // 32 layers over 2 stages
    QVERIFY(last.chunks[0].holdsHead && !last.chunks[0].holdsEmbedding);
    const parallel::PlannedCollective& reduction = last.chunks[0].gradientReduction;
    QCOMPARE(reduction.kind, CollectiveKind::AllReduce); // ZeRO 0
    QCOMPARE(reduction.group, (std::vector<int> { 4, 6 }));
    // The stage's gradients (fp32 main gradients in this run: 4 bytes per parameter) of its tp-sharded parameters.
    QCOMPARE(reduction.bytes, last.parameters * 4);
    QVERIFY(!last.parameterGather);
    // The other dp group of stage 1 is {5, 7}: one replica, 1 rank further.
    QCOMPARE(plan.withReplicas(reduction).replicaOffsets, std::vector<int> { 1 });
}

void TstStepPlan::zero3GathersEveryChunk()
{
    // FSDP on 8 GPUs, pp 1, tp 1: one chunk holding the whole model. Its bf16 parameters (2 bytes each) are gathered
    // before each pass and its gradients reduce-scattered; the optimizer updates a 1/8 shard.
    const parallel::StepPlan plan = parallel::planStep(
        llama7bOn8({ "run.parallelism.dp=8", "run.parallelism.fsdp=true", "run.training.global_batch=8" }));
    const parallel::StagePlan& stage = plan.stages.at(0);
    const double modelParams = static_cast<double>(
        model::countParameters(llama7bOn8({ "run.parallelism.dp=8", "run.parallelism.fsdp=true" }).model).total());
    QVERIFY(stage.chunks[0].parameterGather);
    QCOMPARE(stage.chunks[0].parameterGather->kind, CollectiveKind::AllGather);
    QVERIFY(std::fabs(stage.chunks[0].parameterGather->bytes / (2 * modelParams) - 1) < 1e-6);
    QCOMPARE(stage.chunks[0].gradientReduction.kind, CollectiveKind::ReduceScatter);
    QVERIFY(std::fabs(stage.optimizerParameters * 8 / modelParams - 1) < 1e-6);
    QVERIFY(!stage.sendForward);
}

QTEST_GUILESS_MAIN(TstStepPlan)
#include "tst_stepplan.moc"
