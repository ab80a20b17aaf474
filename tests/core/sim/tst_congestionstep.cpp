// SPDX-License-Identifier: GPL-3.0-or-later
// The training step on the congestion backend: the whole step's pipeline sends, gradient reductions and parameter
// gathers simulated together. Where no links are shared it reproduces the analytical step; where the SPMD
// data-parallel groups share oversubscribed uplinks it is slower, by the amount the collective-level closed forms
// (tst_congestionnetwork) give; cancellation stops it.
#include "sim/congestionnetwork.h"
#include "sim/flowsimulator.h"
#include "sim/stepmodel.h"
#include "testutils.h"

#include <QTemporaryDir>
#include <QTest>

using namespace rapid;

namespace {

/// 32 A100 on one two-tier fat tree (radix 8: 8 leaves of 4 GPUs, 4 spines), 25 GB/s per link, leaf uplinks at
/// 25 / oversubscription GB/s. Llama-2-7B with TP 4 inside each leaf and DP 8 across the leaves.
config::Scenario fatTreeScenario(const QTemporaryDir& dir, double oversubscription, int pp)
{
    const std::string hardware = test::writeFile(dir, "fat-tree.yaml",
        "hardware:\n"
        "  name: 32 A100 on a fat tree\n"
        "  gpu: A100-SXM4-80GB\n"
        "  cluster:\n"
        "    gpus_per_node: 4\n"
        "    network:\n"
        "      - name: ib\n"
        "        kind: fat-tree\n"
        "        size: 32\n"
        "        tiers: 2\n"
        "        switch_radix: 8\n"
        "        oversubscription: "
            + std::to_string(oversubscription)
            + "\n"
              "        link_bandwidth_GBps: 25\n"
              "        latency_ns: 700\n");
    return test::projectLoader().loadScenario("llama-2-7b", hardware, "llama-2-7b-train-4xa100",
        { "run.framework=megatron", "run.parallelism.tp=4", "run.parallelism.dp=" + std::to_string(8 / pp),
            "run.parallelism.pp=" + std::to_string(pp), "run.training.global_batch=64" });
}

} // namespace

class TestCongestionStep : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void reproducesTheAnalyticalStepWhereNothingIsShared()
    {
        // The default workspace: TP on NVLink inside a node, DP and PP on a rail-optimised, non-blocking fat tree.
        // Groups of different TP ranks use different rails, so no two concurrent collectives share a link and the
        // step can only differ by the nanosecond rounding of the simulator and the sends it overlaps differently.
        const config::Scenario scenario = test::projectLoader().loadWorkspace("llama-3.1-70b-64xh100");
        const double analytical = sim::StepModel(scenario).training(false).stepTimeSeconds;
        const double congestion
            = sim::StepModel(scenario, sim::NetworkBackend::Congestion).training(false).stepTimeSeconds;
        QVERIFY2(std::abs(congestion - analytical) <= 1e-3 * analytical,
            qPrintable(QStringLiteral("analytical %1 s, congestion %2 s").arg(analytical).arg(congestion)));
    }

    void sharedOversubscribedUplinksSlowTheStep()
    {
        QTemporaryDir dir;
        // Without oversubscription the 4 DP groups of a leaf fit its 4 uplinks: no slowdown.
        const config::Scenario open = fatTreeScenario(dir, 1.0, 1);
        const double openAnalytical = sim::StepModel(open).training(false).stepTimeSeconds;
        const double openCongestion
            = sim::StepModel(open, sim::NetworkBackend::Congestion).training(false).stepTimeSeconds;
        QVERIFY(std::abs(openCongestion - openAnalytical) <= 1e-3 * openAnalytical);
        // At 2:1 the analytical model (one group alone sees 4 uplinks of 12.5 GB/s, more than its one flow needs)
        // predicts the same step, but the 4 concurrent groups halve each other's rate on the uplinks.
        const config::Scenario tapered = fatTreeScenario(dir, 2.0, 1);
        sim::StepModel analyticalModel(tapered);
        const report::TrainingResult analytical = analyticalModel.training(false);
        sim::StepModel congestionModel(tapered, sim::NetworkBackend::Congestion);
        const report::TrainingResult congestion = congestionModel.training(false);
        const auto dp = static_cast<size_t>(graph::TimeClass::DataParallel);
        qInfo("2:1 tree: analytical step %.6f s (DP exposed %.6f s), congestion %.6f s (DP exposed %.6f s)",
            analytical.stepTimeSeconds, analytical.breakdown.parts[dp], congestion.stepTimeSeconds,
            congestion.breakdown.parts[dp]);
        QVERIFY(std::abs(analytical.stepTimeSeconds - openAnalytical) <= 1e-9 * openAnalytical);
        QVERIFY(congestion.stepTimeSeconds > analytical.stepTimeSeconds * 1.001);
        QVERIFY(congestion.breakdown.parts[dp] > analytical.breakdown.parts[dp]);
    }

    void pipelineSendsAndReductionsShareTheNetwork()
    {
        // With PP 2 the step runs on the networked executor with sends and reductions in one simulation; it must
        // complete and never be faster than the analytical step on a tapered tree.
        QTemporaryDir dir;
        const config::Scenario scenario = fatTreeScenario(dir, 2.0, 2);
        const double analytical = sim::StepModel(scenario).training(false).stepTimeSeconds;
        const report::TrainingResult congestion
            = sim::StepModel(scenario, sim::NetworkBackend::Congestion).training(true);
        QVERIFY(congestion.stepTimeSeconds >= analytical * (1 - 1e-6));
        QVERIFY(!congestion.timeline.empty());
        for (const report::TimelineEvent& event : congestion.timeline) {
            QVERIFY(event.finish >= event.start);
            QVERIFY(event.finish <= congestion.stepTimeSeconds + 1e-12);
        }
    }

    void reportsLinkUtilisationAndProgress()
    {
        // Utilisation is bytes carried / (bandwidth x step): within [0, 1] for every link, non-zero on the links the
        // data-parallel rings cross; progress is reported as a growing fraction.
        QTemporaryDir dir;
        const config::Scenario scenario = fatTreeScenario(dir, 2.0, 2);
        sim::StepModel model(scenario, sim::NetworkBackend::Congestion);
        std::vector<double> fractions;
        model.setProgressCallback([&](double fraction) { fractions.push_back(fraction); });
        const report::TrainingResult result = model.training(false);
        QCOMPARE(static_cast<int>(result.linkUtilisation.size()), model.congestionNetwork()->topology().linkCount());
        double busiest = 0;
        for (double utilisation : result.linkUtilisation) {
            QVERIFY(utilisation >= 0 && utilisation <= 1 + 1e-9);
            busiest = std::max(busiest, utilisation);
        }
        QVERIFY(busiest > 0);
        QVERIFY(std::is_sorted(fractions.begin(), fractions.end()));
        QVERIFY(fractions.empty() || (fractions.front() >= 0 && fractions.back() <= 1));
        QVERIFY(sim::StepModel(scenario).training(false).linkUtilisation.empty());
    }

    void cancellationStopsATrainingStep()
    {
        const config::Scenario scenario = test::projectLoader().loadWorkspace("llama-3.1-70b-64xh100");
        sim::StepModel model(scenario, sim::NetworkBackend::Congestion);
        std::atomic<bool> stop { true };
        model.setStopFlag(&stop);
        QVERIFY_THROWS_EXCEPTION(sim::SimulationCancelled, model.training(false));
    }
};

QTEST_APPLESS_MAIN(TestCongestionStep)
#include "tst_congestionstep.moc"
