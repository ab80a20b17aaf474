// SPDX-License-Identifier: GPL-3.0-or-later
// A long pipeline timed from two shorter ones (sim/steadystate.h, StepModel::steadyStateTraining): the period a
// repeating schedule adds against the pipeline closed forms, what the check refuses, and the step model's result
// against running the whole graph on schedules, frameworks and parallelisms that build different graphs.
#include "core/graph/pipelinetestutils.h"
#include "graph/trainingstep.h"
#include "sim/graphexecutor.h"
#include "sim/steadystate.h"
#include "sim/stepmodel.h"
#include "testutils.h"

#include <QTest>

#include <cmath>

using namespace rapid;
using graph::TimeClass;
using test::pipelineRun;
using test::uniformCosts;

namespace {

std::optional<double> periodOf(const parallel::ShardingPlan& plan, const std::vector<graph::StageCost>& costs)
{
    const graph::ExecutionGraph graph = graph::buildTrainingStep(plan, costs);
    return sim::steadyPeriodSeconds(graph, sim::executeGraph(graph), plan.stages);
}

bool near(double a, double b)
{
    return std::fabs(a - b) <= 1e-9 * std::max({ std::fabs(a), std::fabs(b), 1e-12 });
}

} // namespace

class TstSteadyState : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void aPeriodAddsTheSlowestStagesWork_data();
    void aPeriodAddsTheSlowestStagesWork();
    void aShortPipelineIsNotShownPeriodic();
    void theStepModelGivesWhatTheWholeGraphGives_data();
    void theStepModelGivesWhatTheWholeGraphGives();
    void timelinesAndTheCongestionBackendRunTheWholeGraph();
};

void TstSteadyState::aPeriodAddsTheSlowestStagesWork_data()
{
    QTest::addColumn<int>("pp");
    QTest::addColumn<int>("chunks");
    QTest::addColumn<int>("slowStage");
    QTest::addColumn<double>("period");
    // 1F1B of p stages with forward 1 s and backward 2 s per micro-batch: (m + p - 1)(f + b), so p more micro-batches
    // add p (f + b) = 12 s on 4 stages. Interleaved with v chunks per stage: each micro-batch passes every stage v
    // times, p more add p v (f + b) = 24 s. A stage at 1.5x its work sets the pace: p x 1.5 x 3 = 18 s. One stage:
    // every micro-batch adds f + b.
    QTest::newRow("1f1b") << 4 << 1 << -1 << 12.0;
    QTest::newRow("interleaved") << 4 << 2 << -1 << 24.0;
    QTest::newRow("1f1b_slow_stage") << 4 << 1 << 2 << 18.0;
    QTest::newRow("one_stage") << 1 << 1 << -1 << 3.0;
}

void TstSteadyState::aPeriodAddsTheSlowestStagesWork()
{
    QFETCH(int, pp);
    QFETCH(int, chunks);
    QFETCH(int, slowStage);
    QFETCH(double, period);
    const auto schedule = chunks > 1 ? config::PipelineSchedule::Interleaved : config::PipelineSchedule::OneFOneB;
    const std::optional<double> shift
        = periodOf(pipelineRun(pp, 12 * pp, schedule, chunks), uniformCosts(pp, chunks, 1.0, 2.0, slowStage, 1.5));
    QVERIFY(shift.has_value());
    QVERIFY2(near(*shift, period), std::to_string(*shift).c_str());
}

void TstSteadyState::aShortPipelineIsNotShownPeriodic()
{
    // Four micro-batches on four stages are all warm-up and drain: nothing repeats, nothing is claimed.
    QVERIFY(!periodOf(pipelineRun(4, 4, config::PipelineSchedule::OneFOneB), uniformCosts(4, 1, 1.0, 2.0)));
}

void TstSteadyState::theStepModelGivesWhatTheWholeGraphGives_data()
{
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("hardware");
    QTest::addColumn<QString>("run");
    QTest::addColumn<QStringList>("overrides");
    QTest::addColumn<bool>("extrapolated");
    const QString gpt = QStringLiteral("megatron-gpt-train");
    // Each row runs at least 26 periods of micro-batches (the least the step model extrapolates from 6 and 7).
    QTest::newRow("llama70b_1f1b_pp8") << QStringLiteral("llama-3.1-70b") << QStringLiteral("dgx-h100-superpod") << gpt
                                       << QStringList { QStringLiteral("hardware.cluster.network[ib].size=8"),
                                              QStringLiteral("run.parallelism={tp: 8, pp: 8, dp: 1, schedule: 1f1b, "
                                                             "mapping: {tp: nvlink}}"),
                                              QStringLiteral("run.training.global_batch=512") }
                                       << true;
    QTest::newRow("llama70b_interleaved_dp_overlap")
        << QStringLiteral("llama-3.1-70b") << QStringLiteral("dgx-h100-superpod") << gpt
        << QStringList { QStringLiteral("hardware.cluster.network[ib].size=16"),
               QStringLiteral("run.parallelism={tp: 8, pp: 4, dp: 4, schedule: interleaved, virtual_stages: 2, "
                              "zero_stage: 1, dp_overlap: true, tp_comm_overlap: true, mapping: {tp: nvlink}}"),
               QStringLiteral("run.training.global_batch=1024") }
        << true;
    // GPipe runs every forward before the first backward: the first backward waits on the last forward, as far back
    // as the pipeline is long, so no window is shorter than the run and the whole graph runs.
    QTest::newRow("gpt_gpipe") << QStringLiteral("gpt-3-175b") << QStringLiteral("dgx-a100") << gpt
                               << QStringList { QStringLiteral("hardware.cluster.network[ib].size=8"),
                                      QStringLiteral("run.parallelism={tp: 8, pp: 8, dp: 1, schedule: gpipe, "
                                                     "mapping: {tp: nvlink}}"),
                                      QStringLiteral("run.training.global_batch=256") }
                               << false;
    QTest::newRow("no_pipeline_accumulation")
        << QStringLiteral("llama-3.1-8b") << QStringLiteral("hgx-h100-8gpu") << gpt
        << QStringList { QStringLiteral("run.parallelism={tp: 1, pp: 1, dp: 8, zero_stage: 1, dp_overlap: true}"),
               QStringLiteral("run.training.global_batch=512") }
        << true;
    QTest::newRow("fsdp_pipeline") << QStringLiteral("llama-3.1-70b") << QStringLiteral("dgx-h100-superpod")
                                   << QStringLiteral("torchtitan-llama3-train")
                                   << QStringList { QStringLiteral("hardware.cluster.network[ib].size=16"),
                                          QStringLiteral("run.parallelism={fsdp: true, tp: 8, pp: 4, dp: 4, "
                                                         "schedule: 1f1b, mapping: {tp: nvlink}}"),
                                          QStringLiteral("run.training.global_batch=2048") }
                                   << true;
    QTest::newRow("stragglers") << QStringLiteral("llama-3.1-70b") << QStringLiteral("dgx-h100-superpod") << gpt
                                << QStringList { QStringLiteral("hardware.cluster.network[ib].size=16"),
                                       QStringLiteral("run.parallelism={tp: 8, pp: 4, dp: 4, schedule: 1f1b, "
                                                      "mapping: {tp: nvlink}}"),
                                       QStringLiteral("run.training.global_batch=1024"),
                                       QStringLiteral("hardware.stragglers=[{gpu: 40, slowdown: 1.3}]") }
                                << true;
    QTest::newRow("moe_combined_1f1b")
        << QStringLiteral("qwen3-235b-a22b") << QStringLiteral("dgx-h100-superpod") << gpt
        << QStringList { QStringLiteral("hardware.cluster.network[ib].size=32"),
               QStringLiteral("run.precision.compute=fp8"), QStringLiteral("run.precision.weights=fp8"),
               QStringLiteral("run.precision.gradients=bf16"), QStringLiteral("run.training.global_batch=8192"),
               QStringLiteral("run.training.seq_length=4096"), QStringLiteral("run.training.recompute=none"),
               QStringLiteral("run.flash_attention=true"),
               QStringLiteral("run.parallelism={tp: 2, sp: true, pp: 8, schedule: interleaved, virtual_stages: 4, "
                              "dp: 16, ep: 32, etp: 1, zero_stage: 1, ep_a2a_overlap: true, ep_delay_wgrad: true}") }
        << true;
}

void TstSteadyState::theStepModelGivesWhatTheWholeGraphGives()
{
    QFETCH(QString, model);
    QFETCH(QString, hardware);
    QFETCH(QString, run);
    QFETCH(QStringList, overrides);
    QFETCH(bool, extrapolated);
    std::vector<std::string> sets;
    for (const QString& set : overrides) {
        sets.push_back(set.toStdString());
    }
    const config::Scenario scenario
        = test::projectLoader().loadScenario(model.toStdString(), hardware.toStdString(), run.toStdString(), sets);
    sim::StepModel steady(scenario);
    sim::StepModel whole(scenario);
    const report::TrainingResult fast = steady.training(false);
    const report::TrainingResult full = whole.training(true); // a timeline needs the whole graph
    QCOMPARE(fast.steadyStateFrom > 0, extrapolated);
    QCOMPARE(full.steadyStateFrom, 0);
    QVERIFY2(near(fast.stepTimeSeconds, full.stepTimeSeconds),
        qPrintable(QStringLiteral("%1 s against %2 s").arg(fast.stepTimeSeconds).arg(full.stepTimeSeconds)));
    QCOMPARE(fast.breakdown.stage, full.breakdown.stage);
    for (size_t i = 0; i < full.breakdown.parts.size(); ++i) {
        QVERIFY2(std::fabs(fast.breakdown.parts[i] - full.breakdown.parts[i]) <= 1e-9 * full.stepTimeSeconds,
            qPrintable(QStringLiteral("class %1: %2 against %3")
                           .arg(i)
                           .arg(fast.breakdown.parts[i])
                           .arg(full.breakdown.parts[i])));
    }
    QVERIFY(std::fabs(fast.breakdown.bubbleSeconds - full.breakdown.bubbleSeconds) <= 1e-9 * full.stepTimeSeconds);
    QCOMPARE(fast.graphNodes, full.graphNodes);
    QVERIFY(near(fast.energy.joules, full.energy.joules));
    QVERIFY(near(fast.mfu, full.mfu));
    QCOMPARE(fast.limitingStragglers, full.limitingStragglers);
    QCOMPARE(fast.memory.peakBytes, full.memory.peakBytes);
}

void TstSteadyState::timelinesAndTheCongestionBackendRunTheWholeGraph()
{
    const config::Scenario scenario
        = test::projectLoader().loadScenario("llama-3.1-70b", "dgx-h100-superpod", "megatron-gpt-train",
            { "hardware.cluster.network[ib].size=8",
                "run.parallelism={tp: 8, pp: 8, dp: 1, schedule: 1f1b, mapping: {tp: nvlink}}",
                "run.training.global_batch=512" });
    sim::StepModel analytical(scenario);
    QVERIFY(analytical.training(false).steadyStateFrom > 0);
    QCOMPARE(analytical.training(true).steadyStateFrom, 0);
    sim::StepModel congestion(scenario, sim::NetworkBackend::Congestion);
    QCOMPARE(congestion.training(false).steadyStateFrom, 0);
}

QTEST_GUILESS_MAIN(TstSteadyState)
#include "tst_steadystate.moc"
