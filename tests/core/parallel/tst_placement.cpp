// SPDX-License-Identifier: GPL-3.0-or-later
// Rank placement on the network: tensor parallelism inside the NVLink domain, and mappings that cannot hold.
#include "parallel/placement.h"
#include "testutils.h"

#include <QTest>

#include <numeric>

using namespace rapid;

class TstPlacement : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void defaultWorkspaceKeepsTensorParallelInsideNodes();
    void reportsMappingsThatCannotHold();
    void groupsOfARank();
    void replicasOfAStagesCollectives();
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
    QCOMPARE(std::string(parallel::toString(placement.axes[0].axis)), std::string("tp"));
    QCOMPARE(placement.axes[0].stride, 1);
    QCOMPARE(placement.axes[0].dimensions, std::vector<int> { 0 });
    QCOMPARE(std::string(parallel::toString(placement.axes[1].axis)), std::string("dp"));
    QCOMPARE(placement.axes[1].stride, 8);
    QCOMPARE(placement.axes[1].dimensions, std::vector<int> { 1 });
    QCOMPARE(std::string(parallel::toString(placement.axes[2].axis)), std::string("pp"));
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

void TstPlacement::groupsOfARank()
{
    // Default workspace: tp 8 (stride 1), dp 2 (stride 8), pp 4 (stride 16). Rank 19 = tp index 3, dp index 0
    // ((19 / 8) % 2), pp index 1 ((19 / 16) % 4).
    const config::Scenario scenario = test::projectLoader().loadWorkspace("llama-3.1-70b-64xh100");
    const parallel::Placement placement
        = parallel::placeRanks(scenario.hardware, scenario.run, scenario.locations, nullptr);
    using parallel::Axis;
    QCOMPARE(placement.groupOf(Axis::Tp, 19), (std::vector<int> { 16, 17, 18, 19, 20, 21, 22, 23 }));
    QCOMPARE(placement.groupOf(Axis::Dp, 19), (std::vector<int> { 19, 27 }));
    QCOMPARE(placement.groupOf(Axis::Pp, 19), (std::vector<int> { 3, 19, 35, 51 }));
    QCOMPARE(placement.groupOf(Axis::Cp, 19), std::vector<int> { 19 }); // cp 1
    QCOMPARE(placement.groupOf(Axis::Ep, 19), std::vector<int> { 19 }); // ep 1: every rank holds all experts
    QCOMPARE(placement.coordinate(Axis::Tp, 19), 3);
    QCOMPARE(placement.stageOf(19), 1);
    QCOMPARE(placement.representativeRank(2), 32);
    // Groups numbered densely by their lowest rank: tp groups 0..7 (rank 19 in the third), pp groups 0..15.
    QCOMPARE(placement.groupNumber(Axis::Tp, 19), 2);
    QCOMPARE(placement.groupNumber(Axis::Pp, 19), 3);

    // Expert parallelism 2 inside dp 4 (tp 8, dp 4, pp 2): ep groups are halves of each dp group.
    const config::Scenario wider = test::projectLoader().loadWorkspace(
        "llama-3.1-70b-64xh100", { "run.parallelism.dp=4", "run.parallelism.pp=2" });
    parallel::Placement expert = parallel::placeRanks(wider.hardware, wider.run, wider.locations, nullptr);
    expert.expertDegree = 2; // as placeRanks sets it from run.parallelism.ep of a mixture-of-experts model
    QCOMPARE(expert.groupOf(Axis::Dp, 3), (std::vector<int> { 3, 11, 19, 27 }));
    QCOMPARE(expert.groupOf(Axis::Ep, 3), (std::vector<int> { 3, 11 }));
    QCOMPARE(expert.groupOf(Axis::Ep, 27), (std::vector<int> { 19, 27 }));
}

void TstPlacement::replicasOfAStagesCollectives()
{
    // Stage 0 of the default workspace is ranks 0..15 (pp stride 16). Its other tp group starts at 8; its dp groups
    // {r, r + 8} start at 1..7; a send from rank 0 is repeated by every other rank of the stage.
    const config::Scenario scenario = test::projectLoader().loadWorkspace("llama-3.1-70b-64xh100");
    const parallel::Placement placement
        = parallel::placeRanks(scenario.hardware, scenario.run, scenario.locations, nullptr);
    QCOMPARE(placement.replicaOffsets({ 0, 1, 2, 3, 4, 5, 6, 7 }, false, 64), std::vector<int> { 8 });
    QCOMPARE(placement.replicaOffsets({ 0, 8 }, false, 64), (std::vector<int> { 1, 2, 3, 4, 5, 6, 7 }));
    std::vector<int> senders(15);
    std::iota(senders.begin(), senders.end(), 1);
    QCOMPARE(placement.replicaOffsets({ 0, 16 }, true, 64), senders);
}

QTEST_GUILESS_MAIN(TstPlacement)
#include "tst_placement.moc"
