// SPDX-License-Identifier: GPL-3.0-or-later
// graph::astraConfigFor (rapid chakra astra-config): ASTRA-sim's network, system and remote-memory files for a
// hardware preset. Expected values are the presets' own numbers, written out by hand.
#include "graph/astraconfig.h"
#include "testutils.h"

#include <QTest>

#include <nlohmann/json.hpp>

using namespace rapid;

class TstAstraConfig : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void oneSwitchNode()
    {
        // hgx-a100-8gpu: one NVSwitch of 8 GPUs, 300 GB/s per link of which 0.775 carries data (232.5 GB/s), 300 ns;
        // A100-SXM4-80GB HBM 2,039 GB/s. NCCL's measured ring step (1,410 ns) has no place in ASTRA-sim's network
        // file: named as the one approximation.
        const graph::AstraConfig config = graph::astraConfigFor(test::projectLoader().loadHardware("hgx-a100-8gpu"));
        QVERIFY2(
            config.network.find("topology: [ Switch ]\nnpus_count: [ 8 ]\nbandwidth: [ 232.5 ]") != std::string::npos,
            config.network.c_str());
        QVERIFY(config.network.find("latency: [ 300 ]") != std::string::npos);
        QCOMPARE(config.approximations.size(), size_t { 1 });
        QVERIFY2(config.approximations[0].find("NCCL's measured ring step (1410 ns)") != std::string::npos,
            config.approximations[0].c_str());
        QVERIFY(config.network.find("# approximated: nvlink: NCCL's measured ring step") != std::string::npos);
        const auto system = nlohmann::json::parse(config.system);
        QCOMPARE(system["all-reduce-implementation"].size(), size_t { 1 });
        QCOMPARE(system["all-reduce-implementation"][0].get<std::string>(), std::string("ring"));
        QCOMPARE(system["local-mem-bw"].get<double>(), 2039.0);
        QCOMPARE(nlohmann::json::parse(config.remoteMemory)["memory-type"].get<std::string>(),
            std::string("NO_MEMORY_EXPANSION"));
    }

    void fatTreeAndFaultsAreApproximatedAndSaid()
    {
        // dgx-h100-superpod: NVSwitch (8, 450 GB/s of which 0.822 carries data: 369.9, 300 ns) then a 2-tier
        // InfiniBand fat tree (8 nodes, 50 GB/s of which 0.94 carries data: 47, 675 ns): two Switch dimensions, the fat
        // tree, NVLink SHARP and a failed link named as approximations; ring algorithms on both dimensions.
        const graph::AstraConfig config = graph::astraConfigFor(test::projectLoader().loadHardware(
            "dgx-h100-superpod", { "hardware.faults=[{link: \"nvlink:0-s1.0\", health: 0}]" }));
        QVERIFY2(config.network.find("topology: [ Switch, Switch ]\nnpus_count: [ 8, 8 ]\nbandwidth: [ 369.9, 47 ]")
                != std::string::npos,
            config.network.c_str());
        QVERIFY(config.network.find("latency: [ 300, 675 ]") != std::string::npos);
        QCOMPARE(config.approximations.size(), size_t { 3 });
        QCOMPARE(nlohmann::json::parse(config.system)["all-gather-implementation"].size(), size_t { 2 });
    }

    void torusAxesBecomeRings()
    {
        // torus2d-4x4: one ring of 4 per axis at 100 GB/s and 500 ns.
        const graph::AstraConfig config = graph::astraConfigFor(test::projectLoader().loadHardware("torus2d-4x4"));
        QVERIFY2(config.network.find("topology: [ Ring, Ring ]\nnpus_count: [ 4, 4 ]\nbandwidth: [ 100, 100 ]")
                != std::string::npos,
            config.network.c_str());
        QVERIFY(config.approximations.empty());
    }
};

QTEST_GUILESS_MAIN(TstAstraConfig)
#include "tst_astraconfig.moc"
