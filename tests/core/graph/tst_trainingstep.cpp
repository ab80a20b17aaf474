// SPDX-License-Identifier: GPL-3.0-or-later
// The training-step graph executed with synthetic costs: pipeline bubbles against their closed forms, pp = 1 with
// several micro-batches (the reference tool stopped after the first), gradient-reduction overlap, and a graph that
// cannot complete.
#include "core/graph/pipelinetestutils.h"
#include "graph/trainingstep.h"
#include "report/stepresult.h"
#include "sim/graphexecutor.h"

#include <QTest>

#include <algorithm>

using namespace rapid;
using graph::TimeClass;
using test::pipelineRun;
using test::uniformCosts;

namespace {

/// Stage 0's exposed time by class in @p graph as @p schedule ran it.
report::StepBreakdown stageZero(const graph::ExecutionGraph& graph, const sim::Schedule& schedule)
{
    return report::breakdownOfStage(graph, schedule.start, schedule.finish, schedule.makespan, 0);
}

} // namespace

class TstTrainingStep : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void pipelineBubbleClosedForms_data();
    void pipelineBubbleClosedForms();
    void singleStageRunsEveryMicroBatch();
    void gradientReductionHidesBehindBackward();
    void eachScheduleReducesAndGathersAgain();
    void overlappedCollectivesSlowTheComputeBesideThem();
    void aSlowedPassSendsItsOutputWhenItEnds();
    void incompleteGraphNamesStuckNodes();
    void coScheduledPairsTakeTheirPairCosts();
};

void TstTrainingStep::pipelineBubbleClosedForms_data()
{
    QTest::addColumn<int>("schedule");
    QTest::addColumn<int>("pp");
    QTest::addColumn<int>("microBatches");
    QTest::addColumn<int>("virtualStages");
    QTest::addColumn<double>("expectedStep");
    QTest::addColumn<double>("expectedBubble");
    // Forward 1 s, backward 2 s per chunk. 1F1B and GPipe: (m + p - 1)(f + b); the bubble is (p - 1)(f + b),
    // i.e. (p - 1)/m of the ideal m(f + b). 2 stages, 4 micro-batches: 15 s, bubble 3 s = 1/4 of 12 s.
    QTest::addRow("1f1b_2_stages_4_mb") << int(config::PipelineSchedule::OneFOneB) << 2 << 4 << 1 << 15.0 << 3.0;
    QTest::addRow("gpipe_2_stages_4_mb") << int(config::PipelineSchedule::Gpipe) << 2 << 4 << 1 << 15.0 << 3.0;
    // 4 stages, 8 micro-batches: (8 + 3) * 3 = 33 s, bubble 9 s.
    QTest::addRow("1f1b_4_stages_8_mb") << int(config::PipelineSchedule::OneFOneB) << 4 << 8 << 1 << 33.0 << 9.0;
    // Interleaved with v chunks of f/v and b/v... here each chunk costs f = 1, b = 2, so a micro-batch costs v(f + b)
    // per stage and the bubble shrinks to (p - 1)(f + b): 2 stages, 2 chunks, 4 micro-batches: 4*2*3 + 3 = 27 s.
    QTest::addRow("interleaved_2_stages_2_chunks_4_mb")
        << int(config::PipelineSchedule::Interleaved) << 2 << 4 << 2 << 27.0 << 3.0;
}

void TstTrainingStep::pipelineBubbleClosedForms()
{
    QFETCH(int, schedule);
    QFETCH(int, pp);
    QFETCH(int, microBatches);
    QFETCH(int, virtualStages);
    QFETCH(double, expectedStep);
    QFETCH(double, expectedBubble);
    const parallel::ShardingPlan run = pipelineRun(pp, microBatches, config::PipelineSchedule(schedule), virtualStages);
    const int chunks = schedule == int(config::PipelineSchedule::Interleaved) ? virtualStages : 1;
    const graph::ExecutionGraph graph = graph::buildTrainingStep(run, uniformCosts(pp, chunks, 1.0, 2.0));
    const sim::Schedule schedule_ = sim::executeGraph(graph);
    QCOMPARE(schedule_.makespan, expectedStep);
    const report::StepBreakdown breakdown = stageZero(graph, schedule_);
    QCOMPARE(breakdown.bubbleSeconds, expectedBubble);
    QCOMPARE(breakdown.total(), expectedStep);
}

void TstTrainingStep::singleStageRunsEveryMicroBatch()
{
    // pp = 1 with 6 micro-batches: 6 * (1 + 2) = 18 s of compute plus a 0.5 s optimizer. The reference tool
    // reported the first micro-batch only.
    const parallel::ShardingPlan run = pipelineRun(1, 6, config::PipelineSchedule::OneFOneB);
    std::vector<graph::StageCost> costs = uniformCosts(1, 1, 1.0, 2.0);
    costs[0].optimizerSeconds = 0.5;
    const graph::ExecutionGraph graph = graph::buildTrainingStep(run, costs);
    QCOMPARE(int(graph.nodes().size()), 13); // 6 forward, 6 backward, 1 optimizer
    const sim::Schedule schedule = sim::executeGraph(graph);
    QCOMPARE(schedule.makespan, 18.5);
}

void TstTrainingStep::gradientReductionHidesBehindBackward()
{
    // Interleaved, 2 stages, 2 chunks, 4 micro-batches (step 27 s without reduction). Stage 0's chunk 1 finishes its
    // backward before chunk 0's last backwards, so a 1 s reduction of chunk 1 hides; chunk 0's 1 s reduction runs
    // after the last backward and is exposed: 28 s.
    parallel::ShardingPlan run = pipelineRun(2, 4, config::PipelineSchedule::Interleaved, 2);
    run.overlapGradientReduction = true;
    std::vector<graph::StageCost> costs = uniformCosts(2, 2, 1.0, 2.0);
    for (graph::StageCost& stage : costs) {
        stage.dataParallelSeconds = { 1.0, 1.0 };
    }
    const graph::ExecutionGraph overlapped = graph::buildTrainingStep(run, costs);
    const sim::Schedule schedule = sim::executeGraph(overlapped);
    QCOMPARE(schedule.makespan, 28.0);
    const report::StepBreakdown breakdown = stageZero(overlapped, schedule);
    QCOMPARE(breakdown.parts[size_t(TimeClass::DataParallel)], 1.0);
    // Without overlap both reductions wait for the last backward: 2 s exposed.
    run.overlapGradientReduction = false;
    QCOMPARE(sim::executeGraph(graph::buildTrainingStep(run, costs)).makespan, 29.0);
}

void TstTrainingStep::overlappedCollectivesSlowTheComputeBesideThem()
{
    // pp = 1, 3 micro-batches of 1 s forward and 2 s backward: 9 s. A 1.5 s reduction leaves under the last backward
    // (7-9 s) and slows it by 0.3 s (StageCost::reductionContentionSeconds, a node of its own after it): the backward
    // work ends at 9.3 s, after the reduction (8.5 s), and its 0.5 s last bucket follows it: 9.8 s, the 0.8 s beyond
    // the compute data-parallel time (0.3 s of slower backward, 0.5 s of waiting). The hidden gather slows the first
    // forward by 0.2 s: 10 s.
    parallel::ShardingPlan run = pipelineRun(1, 3, config::PipelineSchedule::OneFOneB);
    run.overlapGradientReduction = true;
    std::vector<graph::StageCost> costs = uniformCosts(1, 1, 1.0, 2.0);
    costs[0].dataParallelSeconds = { 1.5 };
    costs[0].dataParallelLastBucketSeconds = { 0.5 };
    costs[0].dataParallelLastBucketBytes = { 1.0 };
    costs[0].reductionContentionSeconds = { 0.3 };
    const graph::ExecutionGraph reduced = graph::buildTrainingStep(run, costs);
    const sim::Schedule schedule = sim::executeGraph(reduced);
    QCOMPARE(schedule.makespan, 9.8);
    const report::StepBreakdown breakdown = stageZero(reduced, schedule);
    QCOMPARE(breakdown.parts[size_t(TimeClass::DataParallel)], 0.8);
    QCOMPARE(breakdown.parts[size_t(TimeClass::Mlp)], 9.0);
    // Only the last backward is slower: one node of 0.3 s after it; the passes keep the chunk's cost.
    int slowed = 0;
    for (const graph::Node& node : reduced.nodes()) {
        if (node.kind == graph::NodeKind::Compute && node.chunk < 0) {
            QVERIFY(node.backward);
            QCOMPARE(node.microBatch, 2);
            QCOMPARE(node.seconds, 0.3);
            ++slowed;
        }
    }
    QCOMPARE(slowed, 1);
    costs[0].gatherContentionSeconds = 0.2;
    QCOMPARE(sim::executeGraph(graph::buildTrainingStep(run, costs)).makespan, 10.0);
}

void TstTrainingStep::aSlowedPassSendsItsOutputWhenItEnds()
{
    // 1F1B, 2 stages, 2 micro-batches, f 1 s, b 2 s, free sends: stage 1 runs F0 1-2, B0 2-4, F1 4-5, B1 5-7 and
    // stage 0 B0 4-6, B1 7-9: 9 s. The reduction beside stage 1's last backward slows it by 0.5 s (7-7.5 s): the
    // gradient it sends stage 0 is ready then, so stage 0's B1 runs 7.5-9.5 s.
    const parallel::ShardingPlan run = pipelineRun(2, 2, config::PipelineSchedule::OneFOneB);
    std::vector<graph::StageCost> costs = uniformCosts(2, 1, 1.0, 2.0);
    QCOMPARE(sim::executeGraph(graph::buildTrainingStep(run, costs)).makespan, 9.0);
    costs[1].reductionContentionSeconds = { 0.5 };
    QCOMPARE(sim::executeGraph(graph::buildTrainingStep(run, costs)).makespan, 9.5);
    // The gather beside stage 0's first forward slows it by 0.25 s: its activation leaves at 1.25 s and everything
    // after it on stage 1 shifts by 0.25 s (B1 5.25-7.25, slowed to 7.75); stage 0's B1 7.75-9.75 s.
    costs[0].gatherContentionSeconds = 0.25;
    QCOMPARE(sim::executeGraph(graph::buildTrainingStep(run, costs)).makespan, 9.75);
}

void TstTrainingStep::eachScheduleReducesAndGathersAgain()
{
    // One stage, 4 micro-batches in 2 schedules (f 1 s, b 2 s), the stage kept gathered (FSDP2 under pipelining):
    // reduction 1.5 s after a schedule's last backward, a gather whose exposed part (0.5 s) the forward waits for and
    // whose rest (2 s) runs beside it, no optimizer time.
    // Once per step: the 12 s of compute, then the reduction (13.5 s) and the exposed gather of the next step: 14 s.
    parallel::ShardingPlan run = pipelineRun(1, 4, config::PipelineSchedule::OneFOneB);
    run.pipelineFlushes = 2;
    run.keepsStageGathered = true;
    std::vector<graph::StageCost> costs = uniformCosts(1, 1, 1.0, 2.0);
    costs[0].dataParallelSeconds = { 1.5 };
    costs[0].dataParallelBytes = { 1.0 };
    costs[0].parameterGatherSeconds = 0.5;
    costs[0].parameterGatherHiddenSeconds = 2.0;
    const graph::ExecutionGraph once = graph::buildTrainingStep(run, costs);
    QCOMPARE(sim::executeGraph(once).makespan, 14.0);
    // Each schedule: the first ends at 6 s; its reduction runs to 7.5 s, the next gather's exposed part to 8 s, when
    // the second schedule's first forward starts; it computes to 14 s, reduces to 15.5 s, gathers the next step's
    // exposed part to 16 s. The hidden part (8-10 s) runs beside the forward.
    run.gathersEachFlush = true;
    const graph::ExecutionGraph each = graph::buildTrainingStep(run, costs);
    const sim::Schedule schedule = sim::executeGraph(each);
    QCOMPARE(schedule.makespan, 16.0);
    int reductions = 0;
    int gathers = 0;
    for (const graph::Node& node : each.nodes()) {
        reductions += node.kind == graph::NodeKind::DataParallel ? 1 : 0;
        gathers += node.kind == graph::NodeKind::ParameterGather ? 1 : 0;
    }
    QCOMPARE(reductions, 2);
    QCOMPARE(gathers, 4); // exposed and hidden parts, at the step's start and at the second schedule's
    const report::StepBreakdown breakdown = stageZero(each, schedule);
    QCOMPARE(breakdown.parts[size_t(TimeClass::DataParallel)], 4.0); // 2 x (1.5 + 0.5) exposed
}

void TstTrainingStep::incompleteGraphNamesStuckNodes()
{
    graph::ExecutionGraph graph(1);
    graph::Node a;
    a.seconds = 1;
    const graph::NodeId first = graph.add(a);
    const graph::NodeId second = graph.add(a);
    graph.addDependency(first, second); // second runs after first on the stream, and first waits for second
    try {
        sim::executeGraph(graph);
        QFAIL("a cyclic graph must not complete");
    } catch (const sim::IncompleteExecution& error) {
        QCOMPARE(error.stuckNodes().size(), size_t(2));
        QVERIFY(std::string(error.what()).find("never ran") != std::string::npos);
    }
}

void TstTrainingStep::coScheduledPairsTakeTheirPairCosts()
{
    // Combined 1F1B, pp = 1, 4 micro-batches of forward 1 s and backward 2 s; a co-scheduled pair takes 2 s (forward
    // 0.5 + backward 1.5) instead of 3: F0 alone (1), three pairs (6), B3 alone (2) = 9 s.
    parallel::ShardingPlan run = pipelineRun(1, 4, config::PipelineSchedule::OneFOneB);
    run.combinedOneFOneB = true;
    std::vector<graph::StageCost> costs = uniformCosts(1, 1, 1.0, 2.0);
    graph::ChunkCost pair;
    pair.forward[static_cast<size_t>(TimeClass::Mlp)] = 0.5;
    pair.backward[static_cast<size_t>(TimeClass::Mlp)] = 1.5;
    costs[0].coScheduled = { pair };
    QCOMPARE(sim::executeGraph(graph::buildTrainingStep(run, costs)).makespan, 9.0);

    // Interleaved, 2 stages of 2 chunks, 4 micro-batches: every co-scheduled forward also waits for the gradients its
    // backward partner receives (the pair starts once both inputs are there), where that backward has a next chunk.
    run = pipelineRun(2, 4, config::PipelineSchedule::Interleaved, 2);
    run.combinedOneFOneB = true;
    costs = uniformCosts(2, 2, 1.0, 2.0);
    for (graph::StageCost& stage : costs) {
        stage.coScheduled.assign(4, pair);
    }
    const graph::ExecutionGraph graph = graph::buildTrainingStep(run, costs);
    const auto lists = graph.dependencyLists();
    auto findNode = [&](graph::NodeKind kind, int rank, int microBatch, int chunk, bool backward) {
        for (size_t id = 0; id < graph.nodes().size(); ++id) {
            const graph::Node& node = graph.nodes()[id];
            if (node.kind == kind && node.rank == rank && node.microBatch == microBatch && node.chunk == chunk
                && node.backward == backward) {
                return static_cast<graph::NodeId>(id);
            }
        }
        return graph::NodeId(-1);
    };
    int checked = 0;
    for (int stage = 0; stage < 2; ++stage) {
        const std::vector<parallel::PipelineStep> steps = run.steps(stage);
        for (size_t i = 0; i + 1 < steps.size(); ++i) {
            if (!steps[i].coScheduled || steps[i].pass != parallel::Pass::Forward) {
                continue;
            }
            const parallel::PipelineStep& partner = steps[i + 1];
            const int next = partner.chunk * 2 + stage + 1; // the model chunk after the partner's
            if (next >= 4) {
                continue;
            }
            const graph::NodeId forward
                = findNode(graph::NodeKind::Compute, stage, steps[i].microBatch, steps[i].chunk, false);
            const graph::NodeId gradient
                = findNode(graph::NodeKind::PipelineSend, next % 2, partner.microBatch, next / 2, true);
            QVERIFY(forward >= 0 && gradient >= 0);
            const auto& dependencies = lists[static_cast<size_t>(forward)];
            QVERIFY(std::find(dependencies.begin(), dependencies.end(), gradient) != dependencies.end());
            ++checked;
        }
    }
    QVERIFY(checked > 0);
    QVERIFY(sim::executeGraph(graph).makespan > 0); // no cycle
}

QTEST_GUILESS_MAIN(TstTrainingStep)
#include "tst_trainingstep.moc"
