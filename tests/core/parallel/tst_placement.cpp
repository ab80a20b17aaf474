// SPDX-License-Identifier: GPL-3.0-or-later
// Rank placement on the network: tensor parallelism inside the NVLink domain, and mappings that cannot hold.
#include "parallel/placement.h"
#include "testutils.h"

#include <QTest>

using namespace rapid;

class TstPlacement : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void defaultWorkspaceKeepsTensorParallelInsideNodes();
    void reportsMappingsThatCannotHold();
};

void TstPlacement::defaultWorkspaceKeepsTensorParallelInsideNodes()
{
    const config::Scenario scenario = test::projectLoader().loadWorkspace("llama-3.1-70b-64xh100");
    std::vector<config::Diagnostic> problems;
    const parallel::Placement placement
        = parallel::placeRanks(scenario.hardware, scenario.run, scenario.locations, &problems);
    QVERIFY(problems.empty());
    // tp 8 (stride 1) fills one 8-GPU NVLink node; dp 2 (stride 8) and pp 4 (stride 16) cross the InfiniBand
    // dimension; cp 1 last.
    QCOMPARE(placement.axes[0].axis, std::string("tp"));
    QCOMPARE(placement.axes[0].stride, 1);
    QCOMPARE(placement.axes[0].dimensions, std::vector<int> { 0 });
    QCOMPARE(placement.axes[1].axis, std::string("dp"));
    QCOMPARE(placement.axes[1].stride, 8);
    QCOMPARE(placement.axes[1].dimensions, std::vector<int> { 1 });
    QCOMPARE(placement.axes[2].axis, std::string("pp"));
    QCOMPARE(placement.axes[2].firstGroup, (std::vector<int> { 0, 16, 32, 48 }));
    // GPU 19 = node 2 (19 / 8), local GPU 3.
    QCOMPARE(parallel::networkCoordinates(19, scenario.hardware.cluster), (std::vector<int> { 3, 2 }));
}

void TstPlacement::reportsMappingsThatCannotHold()
{
    // tp 16 cannot stay inside an 8-GPU NVLink node.
    const config::Scenario scenario = test::projectLoader().loadWorkspace(
        "llama-3.1-70b-64xh100", { "run.parallelism.tp=16", "run.parallelism.pp=2" });
    std::vector<config::Diagnostic> problems;
    parallel::placeRanks(scenario.hardware, scenario.run, scenario.locations, &problems);
    QCOMPARE(problems.size(), size_t(1));
    QCOMPARE(problems[0].keyPath, std::string("run.parallelism.mapping.tp"));
    QVERIFY(problems[0].message.find("must span the network dimension \"ib\"") != std::string::npos);
    QVERIFY(problems[0].location.line > 0);
}

QTEST_GUILESS_MAIN(TstPlacement)
#include "tst_placement.moc"
