// SPDX-License-Identifier: GPL-3.0-or-later
// The training step on the congestion backend: the whole step's pipeline sends, gradient reductions and parameter
// gathers simulated together. Where no links are shared it reproduces the analytical step; where the SPMD
// data-parallel groups share oversubscribed uplinks it is slower, by the amount the collective-level closed forms
// (tst_congestionnetwork) give; cancellation stops it.
#include "config/diagnostic.h"
#include "sim/congestionnetwork.h"
#include "sim/congestionstepbackend.h"
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
            "run.parallelism.pp=" + std::to_string(pp), "run.training.global_batch=64",
            "run.parallelism.dp_overlap=false" }); // reductions after the backward: only the uplinks are shared
}

/// 8 A100: two nodes of 4 on an NVLink switch (300 GB/s per direction), the nodes joined by an InfiniBand switch
/// (25 GB/s). Llama-2-7B, TP 4 inside each node, DP 2 across them, 2 micro-batches of 1 x 4096 tokens.
config::Scenario nvlinkScenario(const QTemporaryDir& dir)
{
    const std::string hardware = test::writeFile(dir, "two-nodes.yaml",
        "hardware:\n"
        "  name: 2 x 4 A100\n"
        "  gpu: A100-SXM4-80GB\n"
        "  cluster:\n"
        "    gpus_per_node: 4\n"
        "    network:\n"
        "      - name: nvlink\n"
        "        kind: switch\n"
        "        size: 4\n"
        "        link_bandwidth_GBps: 300\n"
        "        latency_ns: 300\n"
        "      - name: ib\n"
        "        kind: switch\n"
        "        size: 2\n"
        "        link_bandwidth_GBps: 25\n"
        "        latency_ns: 700\n");
    return test::projectLoader().loadScenario("llama-2-7b", hardware, "llama-2-7b-train-4xa100",
        { "run.framework=megatron", "run.parallelism.tp=4", "run.parallelism.dp=2", "run.training.global_batch=4" });
}

/// 4 A100 on one flat switch (25 GB/s per direction, 500 ns): every GPU has one uplink and one downlink that all of
/// its traffic shares. Llama-2-7B with TP 2 ({0,1}, {2,3}), DP 2 ({0,2}, {1,3}) and ZeRO-3, one micro-batch of 1 x 1024
/// tokens: each pass all-gathers the parameters of the data-parallel shard beside the compute, while the TP
/// all-reduces of the same pass cross the same GPU links.
config::Scenario flatSwitchScenario(const QTemporaryDir& dir)
{
    const std::string hardware = test::writeFile(dir, "flat-switch.yaml",
        "hardware:\n"
        "  name: 4 A100 on one switch\n"
        "  gpu: A100-SXM4-80GB\n"
        "  cluster:\n"
        "    gpus_per_node: 4\n"
        "    network:\n"
        "      - name: sw\n"
        "        kind: switch\n"
        "        size: 4\n"
        "        link_bandwidth_GBps: 25\n"
        "        latency_ns: 500\n");
    return test::projectLoader().loadScenario("llama-2-7b", hardware, "llama-2-7b-train-4xa100",
        { "run.framework=megatron", "run.parallelism.tp=2", "run.parallelism.dp=2", "run.parallelism.zero_stage=3",
            "run.training.global_batch=2", "run.training.seq_length=1024",
            "run.parallelism.dp_overlap=false" }); // the reduction runs alone after the backward
}

/// @p gpus A100 on one flat switch (25 GB/s, 500 ns): all traffic of a GPU shares its one uplink and downlink.
std::string flatSwitch(const QTemporaryDir& dir, int gpus)
{
    return test::writeFile(dir, "switch-" + std::to_string(gpus) + ".yaml",
        "hardware:\n"
        "  name: A100 on one switch\n"
        "  gpu: A100-SXM4-80GB\n"
        "  cluster:\n"
        "    gpus_per_node: "
            + std::to_string(gpus)
            + "\n"
              "    network:\n"
              "      - name: sw\n"
              "        kind: switch\n"
              "        size: "
            + std::to_string(gpus)
            + "\n"
              "        link_bandwidth_GBps: 25\n"
              "        latency_ns: 500\n");
}

} // namespace

class TestCongestionStep : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void refusesMoreMicroBatchesThanItsBudgetBeforeBuildingAnything()
    {
        // 65,537 micro-batches on one stage: one pass over the congestion backend's 2^16, refused at once with the
        // key to change and the cheaper backend named; the analytical backend (budget 2^20) evaluates it.
        const config::Scenario scenario = test::llama7bOn8(
            { "run.parallelism.dp=8", "run.training.global_batch=" + std::to_string(8 * (65536 + 1)) });
        const auto backend = std::make_shared<sim::CongestionStepBackend>(scenario.hardware);
        QCOMPARE(backend->microBatchPassBudget(), std::int64_t(65536));
        sim::StepModel congestion(scenario, backend);
        try {
            congestion.training(false);
            QFAIL("the congestion backend took 65,537 micro-batch passes");
        } catch (const config::InputLimitError& error) {
            const QString message = QString::fromUtf8(error.what());
            QVERIFY2(message.contains(QStringLiteral("run.training.global_batch"))
                    && message.contains(QStringLiteral("analytical backend")),
                error.what());
        }
        const double analytical = sim::StepModel(scenario).training(false).stepTimeSeconds;
        QVERIFY(std::isfinite(analytical) && analytical > 0);
    }

    void reproducesTheAnalyticalStepWhereNothingIsShared()
    {
        // The default workspace: TP on NVLink inside a node, DP and PP on a rail-optimised, non-blocking fat tree.
        // Groups of different TP ranks use different rails, so no two concurrent collectives share a link and the
        // step can only differ by the nanosecond rounding of the simulator and the sends it overlaps differently.
        const config::Scenario scenario = test::projectLoader().loadWorkspace("llama-3.1-70b-64xh100");
        const double analytical = sim::StepModel(scenario).training(false).stepTimeSeconds;
        const auto modelBackend = std::make_shared<sim::CongestionStepBackend>(scenario.hardware);
        sim::StepModel model(scenario, modelBackend);
        const double congestion = model.training(false).stepTimeSeconds;
        qInfo("default workspace: analytical %.6f s, congestion %.6f s, %d inline collective sets on the network",
            analytical, congestion, modelBackend->inlineCollectivesOnNetwork());
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
        const auto congestionModelBackend = std::make_shared<sim::CongestionStepBackend>(tapered.hardware);
        sim::StepModel congestionModel(tapered, congestionModelBackend);
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
        const auto modelBackend = std::make_shared<sim::CongestionStepBackend>(scenario.hardware);
        sim::StepModel model(scenario, modelBackend);
        std::vector<double> fractions;
        model.setProgressCallback([&](double fraction) { fractions.push_back(fraction); });
        const report::TrainingResult result = model.training(false);
        QCOMPARE(static_cast<int>(result.linkUtilisation.size()), modelBackend->network().topology().linkCount());
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

    void tensorParallelInsideNvlinkStaysFoldedAndShowsOnNvlink()
    {
        // The TP all-reduces use only the NVLink links of their node, which no send or reduction touches (DP runs over
        // InfiniBand): they stay folded, so the step is exactly the one with every inline collective folded.
        QTemporaryDir dir;
        const config::Scenario scenario = nvlinkScenario(dir);
        const auto modelBackend = std::make_shared<sim::CongestionStepBackend>(scenario.hardware);
        sim::StepModel model(scenario, modelBackend);
        const report::TrainingResult result = model.training(false);
        QCOMPARE(modelBackend->inlineCollectivesOnNetwork(), 0);
        const auto foldedModelBackend = std::make_shared<sim::CongestionStepBackend>(scenario.hardware);
        sim::StepModel foldedModel(scenario, foldedModelBackend);
        foldedModelBackend->setInlineCollectivesOnNetwork(false);
        const report::TrainingResult folded = foldedModel.training(false);
        QVERIFY(std::abs(result.stepTimeSeconds - folded.stepTimeSeconds) <= 1e-9 * folded.stepTimeSeconds);
        QVERIFY(result.linkUtilisation == folded.linkUtilisation);

        // By hand: H = 1 x 4096 tokens x 4096 hidden x 2 bytes. An all-reduce of H over 4 GPUs on a switch (ring or
        // direct) sends 2 x 3/4 x H out of every GPU and into every GPU. 4 all-reduces per layer (2 forward, 2
        // backward, no recomputation) x 32 layers x 2 micro-batches. Every NVLink direction carries that much.
        const double hidden = 4096.0 * 4096.0 * 2.0;
        const double bytes = 2 * 32 * 4 * 1.5 * hidden;
        const double expected = bytes / (300e9 * result.stepTimeSeconds);
        const network::Topology& topology = modelBackend->network().topology();
        int nvlinkLinks = 0;
        for (int link = 0; link < topology.linkCount(); ++link) {
            if (topology.link(link).dimension != 0) {
                continue;
            }
            ++nvlinkLinks;
            QCOMPARE(topology.link(link).bandwidth, 300e9);
            const double utilisation = result.linkUtilisation[static_cast<size_t>(link)];
            QVERIFY2(std::abs(utilisation - expected) <= 1e-9 * expected,
                qPrintable(QStringLiteral("link %1: %2, by hand %3").arg(link).arg(utilisation).arg(expected)));
        }
        QCOMPARE(nvlinkLinks, 16); // 8 GPUs, one link each way to their node's switch
        qInfo("NVLink utilisation %.4f over a %.6f s step", expected, result.stepTimeSeconds);
    }

    void tensorParallelSharingGpuLinksJoinsTheSimulation()
    {
        // On the flat switch the TP all-reduce {0,1} leaves GPU 0 on the same uplink as the ZeRO-3 parameter
        // all-gather {0,2} (and likewise on every GPU link), so both run in the step's simulation.
        QTemporaryDir dir;
        const config::Scenario scenario = flatSwitchScenario(dir);
        const auto modelBackend = std::make_shared<sim::CongestionStepBackend>(scenario.hardware);
        sim::StepModel model(scenario, modelBackend);
        const report::TrainingResult result = model.training(true);
        QCOMPARE(modelBackend->inlineCollectivesOnNetwork(), 2); // TP and the ZeRO-3 gathers of the one stage
        const auto foldedModelBackend = std::make_shared<sim::CongestionStepBackend>(scenario.hardware);
        sim::StepModel foldedModel(scenario, foldedModelBackend);
        foldedModelBackend->setInlineCollectivesOnNetwork(false);
        const report::TrainingResult folded = foldedModel.training(false);
        const double analytical = sim::StepModel(scenario).training(false).stepTimeSeconds;
        QVERIFY(std::abs(folded.stepTimeSeconds - analytical) <= 1e-6 * analytical);
        QVERIFY(result.stepTimeSeconds >= folded.stepTimeSeconds);

        // By hand. The gather of a pass sends G/2 bytes each way over every GPU link (G: the TP shard's parameters
        // in bf16; a 2-GPU ring all-gather is one exchange of halves). It starts with the pass and, at 25 GB/s, far
        // outlasts the pass's compute, so folded the pass takes launch + G/2 / B + 2 hops of latency. Co-simulated,
        // each GPU uplink (and downlink) carries the gather and one TP flow at a time, max-min fair: B/2 each while
        // a TP flow runs, the whole B for the gather otherwise. The link never idles before the gather's last byte,
        // so the gather ends exactly T / B later, T being the TP bytes the link carries in the pass: 2 all-reduces
        // per layer x 32 layers, each sending H/2 twice (reduce-scatter, all-gather), H = 1024 x 4096 x 2 bytes.
        // Forward and backward both stretch by T / B; the reduction and optimizer after them run alone.
        const double hidden = 1024.0 * 4096.0 * 2.0;
        const double perPass = 32 * 2 * 2 * (hidden / 2);
        const double expected = folded.stepTimeSeconds + 2 * perPass / 25e9;
        qInfo("flat switch: analytical %.9f s, folded %.9f s, co-simulated %.9f s, by hand %.9f s", analytical,
            folded.stepTimeSeconds, result.stepTimeSeconds, expected);
        // The simulator rounds every drain up to the next nanosecond: at most 1 ns per rate change of the gather, i.e.
        // per start and finish of a TP flow (2 x 64 all-reduces x 2 flows on the link per pass).
        const double rounding = 2 * 64 * 2 * 2 * 1e-9;
        QVERIFY2(std::abs(result.stepTimeSeconds - expected) <= rounding,
            qPrintable(QStringLiteral("co-simulated %1 s, by hand %2 s").arg(result.stepTimeSeconds).arg(expected)));
        // The stretch is reported as exposed communication, not bubble; the timeline spans the step.
        QVERIFY(result.breakdown.bubbleSeconds <= folded.breakdown.bubbleSeconds + 1e-9);
        QVERIFY(std::abs(result.breakdown.total() - result.stepTimeSeconds) <= 1e-6 * result.stepTimeSeconds);
        for (const report::TimelineEvent& event : result.timeline) {
            QVERIFY(event.finish >= event.start && event.finish <= result.stepTimeSeconds + 1e-12);
        }
    }

    void inlineProgramsTakeTheirClosedFormTimeWhenNothingOverlaps_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QStringList>("overrides");
        QTest::addColumn<int>("dp");
        QTest::addColumn<int>("sets");
        QTest::newRow("tp all-reduces") << QStringLiteral("llama-2-7b")
                                        << QStringList { QStringLiteral("run.parallelism.tp=2") } << 4 << 1;
        QTest::newRow("tp sp overlapped, full recompute")
            << QStringLiteral("llama-2-7b")
            << QStringList { QStringLiteral("run.parallelism.tp=2"), QStringLiteral("run.parallelism.sp=true"),
                   QStringLiteral("run.parallelism.tp_comm_overlap=true"),
                   QStringLiteral("run.training.recompute=full") }
            << 4 << 1;
        QTest::newRow("tp and cp") << QStringLiteral("llama-2-7b")
                                   << QStringList { QStringLiteral("run.parallelism.tp=2"),
                                          QStringLiteral("run.parallelism.cp=2") }
                                   << 2 << 2;
        // Long sequences: the ring hides behind the attention core, which its kernels slow (the larger part).
        QTest::newRow("cp ring beside a long attention core")
            << QStringLiteral("llama-2-7b")
            << QStringList { QStringLiteral("run.parallelism.cp=2"), QStringLiteral("model.max_context=16384"),
                   QStringLiteral("run.training.seq_length=16384") }
            << 4 << 1;
        QTest::newRow("ep") << QStringLiteral("mixtral-8x7b") << QStringList { QStringLiteral("run.parallelism.ep=2") }
                            << 8 << 1;
        // The all-to-alls beside the shared expert's two windows, each slowed by their SMs; again for the recompute.
        QTest::newRow("ep beside a shared expert, full recompute")
            << QStringLiteral("mixtral-8x7b")
            << QStringList { QStringLiteral("run.parallelism.ep=2"), QStringLiteral("model.moe.shared_experts=1"),
                   QStringLiteral("run.parallelism.ep_shared_expert_overlap=true"),
                   QStringLiteral("run.training.recompute=full") }
            << 8 << 1;
    }

    void inlineProgramsTakeTheirClosedFormTimeWhenNothingOverlaps()
    {
        // One stage, one micro-batch: forward, backward, then the gradient reduction alone. The inline collectives
        // share every GPU link with the reduction, so they run on the network, but never at the same time as it: the
        // step must be the folded one (up to the nanosecond rounding of each inline program's delays).
        QFETCH(QString, model);
        QFETCH(QStringList, overrides);
        QFETCH(int, dp);
        QFETCH(int, sets);
        QTemporaryDir dir;
        std::vector<std::string> settings { "run.framework=megatron", "run.training.seq_length=1024",
            "run.parallelism.dp=" + std::to_string(dp), "run.training.global_batch=" + std::to_string(dp),
            "run.parallelism.dp_overlap=false" }; // no gradient buckets under the backward
        for (const QString& setting : overrides) {
            settings.push_back(setting.toStdString());
        }
        config::Scenario scenario = test::projectLoader().loadScenario(
            model.toStdString(), flatSwitch(dir, 8), "llama-2-7b-train-4xa100", settings);
        const auto congestionBackend = std::make_shared<sim::CongestionStepBackend>(scenario.hardware);
        sim::StepModel congestion(scenario, congestionBackend);
        const report::TrainingResult result = congestion.training(false);
        QCOMPARE(congestionBackend->inlineCollectivesOnNetwork(), sets);
        const auto foldedModelBackend = std::make_shared<sim::CongestionStepBackend>(scenario.hardware);
        sim::StepModel foldedModel(scenario, foldedModelBackend);
        foldedModelBackend->setInlineCollectivesOnNetwork(false);
        const double folded = foldedModel.training(false).stepTimeSeconds;
        qInfo("co-simulated %.9f s, folded %.9f s", result.stepTimeSeconds, folded);
        QVERIFY2(std::abs(result.stepTimeSeconds - folded) <= 1e-6 * folded,
            qPrintable(QStringLiteral("co-simulated %1 s, folded %2 s").arg(result.stepTimeSeconds).arg(folded)));
    }

    void cancellationStopsATrainingStep()
    {
        const config::Scenario scenario = test::projectLoader().loadWorkspace("llama-3.1-70b-64xh100");
        const auto modelBackend = std::make_shared<sim::CongestionStepBackend>(scenario.hardware);
        sim::StepModel model(scenario, modelBackend);
        std::atomic<bool> stop { true };
        model.setStopFlag(&stop);
        QVERIFY_THROWS_EXCEPTION(sim::SimulationCancelled, model.training(false));
    }
};

QTEST_APPLESS_MAIN(TestCongestionStep)
#include "tst_congestionstep.moc"
