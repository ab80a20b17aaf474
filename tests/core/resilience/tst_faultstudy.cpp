// SPDX-License-Identifier: GPL-3.0-or-later
// Fault studies on the default workspace (Llama-3.1-70B on a 64-GPU DGX H100 SuperPOD, tp 8 x pp 4 x dp 2): link
// classes counted by hand, a degraded link slows the step in whichever pipeline stage it is, draws that do not depend
// on the thread count, cut-off GPUs counted rather than timed, and the criticality ranking.
#include "testutils.h"

#include "network/topology.h"
#include "resilience/faultstudy.h"
#include "sim/flowsimulator.h"

#include <QTest>

#include <algorithm>
#include <atomic>

using namespace rapid;

namespace {

config::Scenario defaultWorkspace()
{
    return test::projectLoader().loadWorkspace("llama-3.1-70b-64xh100", {});
}

config::Scenario withFault(config::Scenario scenario, const std::string& link, double health)
{
    scenario.hardware.faults.push_back({ link, health });
    return scenario;
}

} // namespace

class TstFaultStudy : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void linkClassesCountedByHand()
    {
        // NVLink: one switch per node, one link per GPU: 8 nodes x 8. InfiniBand: 8 rails (one per GPU index) of 8
        // endpoints under a 2-tier fat tree of 64-port switches: one leaf with 8 GPU links and 64 / 2 = 32 uplinks,
        // one to each of 32 spines: 8 x 8 GPU-leaf and 8 x 32 leaf-spine links.
        const network::Topology topology(defaultWorkspace().hardware);
        const std::vector<resilience::LinkClass> classes = resilience::linkClasses(topology);
        QCOMPARE(classes.size(), size_t { 4 }); // and the node NICs (nodeNicsFailTogether)
        QCOMPARE(classes[0].name, std::string("nvlink GPU-switch"));
        QCOMPARE(classes[0].physicalLinks.size(), size_t { 64 });
        QCOMPARE(classes[1].name, std::string("ib GPU-leaf"));
        QCOMPARE(classes[1].physicalLinks.size(), size_t { 64 });
        QCOMPARE(classes[2].name, std::string("ib leaf-spine"));
        QCOMPARE(classes[2].physicalLinks.size(), size_t { 256 });
    }

    void nodeNicsFailTogether()
    {
        // The opt-in class "ib node NICs": one unit per node of its 8 GPUs' links into their rails (GPU g of node n is
        // endpoint n of rail g mod 8), drawn only when named.
        const config::Scenario scenario = defaultWorkspace();
        const network::Topology topology(scenario.hardware);
        const std::vector<resilience::LinkClass> classes = resilience::linkClasses(topology);
        const resilience::LinkClass& nics = classes[3];
        QCOMPARE(nics.name, std::string("ib node NICs"));
        QVERIFY(nics.optIn);
        QCOMPARE(nics.unitCount(), size_t { 8 });
        for (size_t node = 0; node < 8; ++node) {
            const resilience::FaultUnit unit = nics.unit(node);
            QCOMPARE(unit.size(), size_t { 8 });
            for (const int physical : unit) {
                const network::Link& link = topology.link(2 * physical);
                const int gpu = topology.node(link.from).isSwitch ? link.to : link.from;
                QCOMPARE(gpu / 8, static_cast<int>(node));
                QCOMPARE(topology.link(2 * physical).dimension, 1);
            }
        }
        // Every class but the opt-in one: 64 + 64 + 256 single links.
        resilience::FaultStudySpec spec;
        spec.backend = sim::NetworkBackend::Analytical;
        QCOMPARE(resilience::faultPool(topology, spec).size(), size_t { 384 });
        // Named, each trial degrades one whole node's 8 NIC links.
        spec.classes = { "ib node NICs" };
        spec.health = 0.5;
        spec.trials = 4;
        const resilience::FaultStudyResult half = resilience::runFaultStudy(scenario, spec, 2);
        QCOMPARE(half.trials.size(), size_t { 4 });
        // Each GPU's data-parallel partner (dp 2) is the same GPU index on the other node of its stage, on its own
        // rail: the 8 pairs run side by side, so a node's 8 NICs at half rate cost what one of them alone costs.
        const auto oneNic = [&](const std::string& link) {
            return resilience::stepSeconds(withFault(scenario, link, 0.5), sim::NetworkBackend::Analytical);
        };
        for (const resilience::FaultTrial& trial : half.trials) {
            QCOMPARE(trial.links.size(), size_t { 8 });
            QCOMPARE(trial.stepSeconds, oneNic(trial.links.back()));
            QVERIFY(trial.stepSeconds > half.baselineSeconds);
        }
        // Failed, they cut the node off.
        spec.health = 0;
        QCOMPARE(resilience::runFaultStudy(scenario, spec, 2).disconnected, 4);
        // The criticality map names a unit after its node and keeps its links.
        const std::vector<resilience::LinkCriticality> ranked
            = resilience::linkCriticality(scenario, 0.5, sim::NetworkBackend::Analytical, { "ib node NICs" }, 2000, 2);
        QCOMPARE(ranked.size(), size_t { 8 });
        for (const resilience::LinkCriticality& unit : ranked) {
            QCOMPARE(unit.links.size(), size_t { 8 });
            QCOMPARE(unit.linkId.rfind("ib NICs of node ", 0), size_t { 0 });
            QCOMPARE(unit.slowdown, oneNic(unit.links.front()) / half.baselineSeconds);
        }
    }

    void aDegradedLinkCountsInEveryStage()
    {
        // Stage s holds GPUs 16s..16s+15 (pp stride 16): nodes 2s and 2s+1, one per data-parallel replica. A half-rate
        // NVLink link in any stage slows that stage's tensor-parallel collectives and so the step; the two replicas of
        // a stage are alike, so either node gives the same step.
        const config::Scenario healthy = defaultWorkspace();
        const double baseline = resilience::stepSeconds(healthy, sim::NetworkBackend::Analytical);
        for (int stage = 0; stage < 4; ++stage) {
            const auto link = [](int node) { return "nvlink@" + std::to_string(node) + ":4-s1.0"; };
            const double first
                = resilience::stepSeconds(withFault(healthy, link(2 * stage), 0.5), sim::NetworkBackend::Analytical);
            const double second = resilience::stepSeconds(
                withFault(healthy, link(2 * stage + 1), 0.5), sim::NetworkBackend::Analytical);
            QVERIFY2(first > 1.01 * baseline,
                qPrintable(QStringLiteral("stage %1: %2 s vs %3 s").arg(stage).arg(first).arg(baseline)));
            QCOMPARE(first, second);
        }
    }

    void drawsDoNotDependOnTheThreads()
    {
        resilience::FaultStudySpec spec;
        spec.faultyLinks = 3;
        spec.health = 0.25;
        spec.trials = 12;
        spec.seed = 42;
        spec.backend = sim::NetworkBackend::Analytical;
        const config::Scenario scenario = defaultWorkspace();
        const resilience::FaultStudyResult one = resilience::runFaultStudy(scenario, spec, 1);
        const resilience::FaultStudyResult two = resilience::runFaultStudy(scenario, spec, 2);
        QCOMPARE(one.trials.size(), size_t { 12 });
        for (size_t i = 0; i < one.trials.size(); ++i) {
            QCOMPARE(one.trials[i].links, two.trials[i].links);
            QCOMPARE(one.trials[i].stepSeconds, two.trials[i].stepSeconds);
            QCOMPARE(one.trials[i].links.size(), size_t { 3 });
        }
        QCOMPARE(one.p90Slowdown, two.p90Slowdown);
        // Degraded links never make the step faster.
        QVERIFY(one.meanSlowdown >= 1.0);
        QVERIFY(one.p50Slowdown <= one.p90Slowdown && one.p90Slowdown <= one.maxSlowdown);
    }

    void aFailedOnlyLinkCutsTheGpuOff()
    {
        // Each GPU has exactly one link into its InfiniBand rail: failing it leaves no route, in every trial.
        resilience::FaultStudySpec spec;
        spec.faultyLinks = 1;
        spec.health = 0;
        spec.classes = { "ib GPU-leaf" };
        spec.trials = 5;
        spec.backend = sim::NetworkBackend::Analytical;
        const resilience::FaultStudyResult result = resilience::runFaultStudy(defaultWorkspace(), spec);
        QCOMPARE(result.disconnected, 5);
        // A failed leaf-spine link is routed around (31 other spines): nobody is cut off.
        spec.classes = { "ib leaf-spine" };
        QCOMPARE(resilience::runFaultStudy(defaultWorkspace(), spec).disconnected, 0);
    }

    void criticalityRanksTheLinks()
    {
        const std::vector<resilience::LinkCriticality> ranked = resilience::linkCriticality(
            defaultWorkspace(), 0.5, sim::NetworkBackend::Analytical, { "nvlink GPU-switch" }, 2000, 2);
        QCOMPARE(ranked.size(), size_t { 64 });
        for (size_t i = 0; i < ranked.size(); ++i) {
            QVERIFY2(ranked[i].slowdown > 1.01, ranked[i].linkId.c_str()); // every NVLink link carries TP traffic
            if (i > 0) {
                QVERIFY(ranked[i - 1].slowdown >= ranked[i].slowdown);
            }
        }
        // Sampling: at most 8 of the 64 links, evenly spread.
        QCOMPARE(resilience::linkCriticality(
                     defaultWorkspace(), 0.5, sim::NetworkBackend::Analytical, { "nvlink GPU-switch" }, 8, 2)
                     .size(),
            size_t { 8 });
    }

    void criticalityStopsWhenAsked()
    {
        // The workbench's Cancel: a raised flag ends the ranking with SimulationCancelled instead of a map whose
        // untimed links would read as harmless. Raised after the third link, so it stops part-way.
        std::atomic<bool> stop { false };
        int timed = 0;
        QVERIFY_THROWS_EXCEPTION(sim::SimulationCancelled,
            resilience::linkCriticality(
                defaultWorkspace(), 0.5, sim::NetworkBackend::Analytical, { "nvlink GPU-switch" }, 2000, 1,
                [&](int done) {
                    timed = done;
                    if (done == 3) {
                        stop = true;
                    }
                },
                &stop));
        QCOMPARE(timed, 3);
    }

    void slowGpusNeverStretchTheStepBeyondTheirSlowdown()
    {
        // Every compute task of the step takes at most s times as long and communication no longer, so no path of
        // the step's DAG, and so the step, grows by more than s; at least one task grows, so the step does not
        // shrink. (Slow GPUs in several data-parallel replicas once compounded their slowdowns: 6 GPUs at 1.5x gave
        // up to 2.06x.)
        resilience::FaultStudySpec spec;
        spec.slowGpus = 6;
        spec.slowdown = 1.5;
        spec.trials = 20;
        spec.backend = sim::NetworkBackend::Analytical;
        const resilience::FaultStudyResult result = resilience::runFaultStudy(defaultWorkspace(), spec);
        QCOMPARE(result.disconnected, 0);
        QVERIFY2(result.maxSlowdown <= 1.5 * (1 + 1e-9), qPrintable(QString::number(result.maxSlowdown)));
        QVERIFY(result.p50Slowdown > 1.0);
        for (const resilience::FaultTrial& trial : result.trials) {
            QCOMPARE(trial.slowGpus.size(), size_t { 6 });
            QVERIFY(std::is_sorted(trial.slowGpus.begin(), trial.slowGpus.end()));
        }
    }

    void badSpecsAreRefused()
    {
        resilience::FaultStudySpec spec;
        spec.backend = sim::NetworkBackend::Analytical;
        spec.classes = { "nvlink" };
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, resilience::runFaultStudy(defaultWorkspace(), spec));
        spec.classes = {};
        spec.health = 1.0;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, resilience::runFaultStudy(defaultWorkspace(), spec));
        spec.health = 0.5;
        spec.faultyLinks = 1000;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, resilience::runFaultStudy(defaultWorkspace(), spec));
        // One GPU (a GPU preset as the hardware): no network, so no link to fail, said as such.
        config::Scenario oneGpu = test::projectLoader().loadScenario("llama-2-7b", "a100-sxm4-80gb",
            "llama-2-7b-train-4xa100",
            { "run.parallelism.dp=1", "run.parallelism.tp=1", "run.parallelism.pp=1", "run.training.global_batch=8" });
        spec.faultyLinks = 1;
        try {
            resilience::runFaultStudy(oneGpu, spec);
            QFAIL("a fault study on one GPU ran");
        } catch (const std::invalid_argument& error) {
            QVERIFY2(std::string(error.what()).find("no links to fail") != std::string::npos, error.what());
        }
    }
};

QTEST_GUILESS_MAIN(TstFaultStudy)
#include "tst_faultstudy.moc"
