// SPDX-License-Identifier: GPL-3.0-or-later
// The fabric keys of a network dimension: the explicit leaf-spine structure of a fat tree (hosts_per_leaf,
// uplinks_per_leaf, spines, uplink_bandwidth), the rail-optimized kind, routing, and NIC faults. Each wrong value
// is refused where it enters, naming its key.
#include "testutils.h"

#include <QTest>

using namespace rapid;

namespace {

/// A hardware document of 8 single-GPU nodes on one fat tree whose dimension keys are @p keys (indented 8 spaces),
/// followed by @p tail (faults).
std::string hardware(const std::string& keys, const std::string& tail = "", const std::string& inner = "")
{
    return "hardware:\n"
           "  name: fabric test\n"
           "  gpu: H100-SXM5-80GB\n"
           "  cluster:\n"
           "    gpus_per_node: "
        + std::string(inner.empty() ? "1" : "8") + "\n    network:\n" + inner
        + "      - name: ib\n"
          "        link_bandwidth_GBps: 12.5\n"
          "        latency_ns: 700\n"
        + keys + tail;
}

/// The 4 hosts x 100 Gb/s under 2 spines x 100 Gb/s leaf of the issue: 8 hosts on 2 leaves.
const std::string kLeafSpine = "        kind: fat-tree\n"
                               "        size: 8\n"
                               "        tiers: 2\n"
                               "        switch_radix: 64\n"
                               "        hosts_per_leaf: 4\n"
                               "        uplinks_per_leaf: 2\n"
                               "        spines: 2\n"
                               "        uplink_bandwidth_GBps: 12.5\n";

const std::string kNvlink = "      - name: nvlink\n"
                            "        kind: switch\n"
                            "        size: 8\n"
                            "        link_bandwidth_GBps: 450\n"
                            "        latency_ns: 300\n";

config::HardwareSpec load(const std::string& text)
{
    QTemporaryDir dir;
    return test::projectLoader().loadHardware(test::writeFile(dir, "hardware.yaml", text));
}

std::vector<config::Diagnostic> errors(const std::string& text)
{
    return test::expectConfigError([&] { load(text); });
}

} // namespace

class TstFabricConfig : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void explicitLeafSpineLoads();
    void leafSpineDefaults();
    void railOptimizedLoads();
    void nicFaultsLoad();
    void wrongValuesNameTheirKey_data();
    void wrongValuesNameTheirKey();
};

void TstFabricConfig::explicitLeafSpineLoads()
{
    const config::HardwareSpec spec = load(hardware(kLeafSpine));
    const config::NetworkDimension& ib = spec.cluster.dimensions[0];
    QCOMPARE(ib.hostsPerLeaf, 4);
    QCOMPARE(ib.uplinksPerLeaf, 2);
    QCOMPARE(ib.spines, 2);
    QCOMPARE(ib.uplinkBandwidth, 12.5e9);
    // 4 x 12.5 GB/s down, 2 x 12.5 GB/s up: 2:1.
    QCOMPARE(ib.oversubscription, 2.0);
    QCOMPARE(ib.routing, config::Routing::Auto);
    QCOMPARE(config::effectiveRouting(ib), config::Routing::Ecmp); // fat-tree's auto (rail-optimized: static)
}

void TstFabricConfig::leafSpineDefaults()
{
    // spines alone: one uplink per spine, the rest of the radix down; the uplink rate is the link rate.
    const config::NetworkDimension a = load(hardware("        kind: fat-tree\n        size: 8\n        tiers: 2\n"
                                                     "        switch_radix: 8\n        spines: 2\n"))
                                           .cluster.dimensions[0];
    QCOMPARE(a.uplinksPerLeaf, 2);
    QCOMPARE(a.hostsPerLeaf, 6);
    QCOMPARE(a.uplinkBandwidth, 12.5e9);
    // hosts_per_leaf alone: the rest of the radix up, one spine per uplink.
    const config::NetworkDimension b = load(hardware("        kind: fat-tree\n        size: 8\n        tiers: 2\n"
                                                     "        switch_radix: 8\n        hosts_per_leaf: 2\n"))
                                           .cluster.dimensions[0];
    QCOMPARE(b.uplinksPerLeaf, 6);
    QCOMPARE(b.spines, 6);
    QCOMPARE(b.routing, config::Routing::Auto);
}

void TstFabricConfig::railOptimizedLoads()
{
    // A DGX H100 SuperPOD scalable unit (NVIDIA DGX SuperPOD RA, DGX H100): 32 nodes, 8 rails, a rail's leaf holds
    // GPU k of all 32 nodes and has 32 uplinks, 2 cables to each of 16 spines; a spine then uses 1 leaf x 2 cables
    // x 8 rails = 16 of its 64 ports.
    const std::string rail = "        kind: rail-optimized\n        size: 32\n        switch_radix: 64\n"
                             "        hosts_per_leaf: 32\n        uplinks_per_leaf: 32\n        spines: 16\n"
                             "        routing: ecmp\n";
    const config::HardwareSpec spec = load(hardware(rail, "", kNvlink));
    const config::NetworkDimension& ib = spec.cluster.dimensions[1];
    QCOMPARE(ib.kind, config::NetworkKind::RailOptimized);
    QCOMPARE(ib.tiers, 2);
    QCOMPARE(ib.spines, 16);
    QCOMPARE(ib.oversubscription, 1.0);
    QCOMPARE(ib.routing, config::Routing::Ecmp);
}

void TstFabricConfig::nicFaultsLoad()
{
    const std::string faults = "  faults:\n"
                               "    - {nic: {node: 1}, health: 0.5}\n"
                               "    - {nic: {gpu: 10, dimension: nvlink}, health: 0}\n";
    const std::string tree = "        kind: fat-tree\n        size: 4\n        tiers: 1\n        switch_radix: 8\n";
    const config::HardwareSpec spec = load(hardware(tree, faults, kNvlink));
    QCOMPARE(spec.faults.size(), size_t(2));
    QCOMPARE(spec.faults[0].nicNode, 1);
    QCOMPARE(spec.faults[0].nicDimension, std::string("ib")); // the outermost dimension by default
    QCOMPARE(spec.faults[0].health, 0.5);
    QCOMPARE(spec.faults[0].describe(), std::string("NICs of node 1 (ib)"));
    QCOMPARE(spec.faults[1].nicGpu, 10);
    QCOMPARE(spec.faults[1].nicDimension, std::string("nvlink"));
}

void TstFabricConfig::wrongValuesNameTheirKey_data()
{
    QTest::addColumn<QString>("document");
    QTest::addColumn<QString>("key");
    QTest::addColumn<QString>("text");
    const std::string tree = "        kind: fat-tree\n        size: 4\n        tiers: 1\n        switch_radix: 8\n";
    auto leafSpine = [](const std::string& extra, int size = 8, int radix = 8) {
        return "        kind: fat-tree\n        size: " + std::to_string(size) + "\n        tiers: 2\n"
            + "        switch_radix: " + std::to_string(radix) + "\n" + extra;
    };
    // 4 endpoint ports + 6 uplinks do not fit 8 ports.
    QTest::addRow("uplinks_exceed_radix")
        << QString::fromStdString(hardware(leafSpine("        hosts_per_leaf: 4\n        uplinks_per_leaf: 6\n")))
        << "hardware.cluster.network[0].uplinks_per_leaf"
        << "cannot hold 4 endpoint ports";
    QTest::addRow("spines_do_not_divide_uplinks")
        << QString::fromStdString(hardware(leafSpine("        uplinks_per_leaf: 4\n        spines: 3\n")))
        << "hardware.cluster.network[0].spines"
        << "3 spines must divide uplinks_per_leaf";
    // 40 hosts, 4 a leaf: 10 leaves, each with one cable to every spine: 10 ports on an 8-port spine.
    QTest::addRow("spine_ports_exceed_radix")
        << QString::fromStdString(hardware(leafSpine("        hosts_per_leaf: 4\n        spines: 4\n", 40)))
        << "hardware.cluster.network[0].spines"
        << "needs 10 ports (10 leaves x 1 cable(s))";
    QTest::addRow("oversubscription_with_leaf_keys")
        << QString::fromStdString(hardware(leafSpine("        spines: 2\n        oversubscription: 2\n")))
        << "hardware.cluster.network[0].oversubscription"
        << "give one or the other";
    QTest::addRow("leaf_keys_need_two_tiers") << QString::fromStdString(hardware(
        "        kind: fat-tree\n        size: 8\n        tiers: 3\n        switch_radix: 8\n        spines: 2\n"))
                                              << "hardware.cluster.network[0].spines"
                                              << "two-tier";
    // 256 nodes, 32 a rail leaf: 8 leaves x 2 cables x 8 rails = 128 ports on a 64-port spine.
    QTest::addRow("rail_spine_ports_count_every_rail")
        << QString::fromStdString(hardware("        kind: rail-optimized\n        size: 256\n        switch_radix: 64\n"
                                           "        hosts_per_leaf: 32\n        uplinks_per_leaf: 32\n"
                                           "        spines: 16\n",
               "", kNvlink))
        << "hardware.cluster.network[1].spines"
        << "x 8 rails";
    QTest::addRow("rail_has_no_tiers") << QString::fromStdString(hardware(
        "        kind: rail-optimized\n        size: 8\n        tiers: 2\n"
        "        switch_radix: 64\n")) << "hardware.cluster.network[0].tiers"
                                       << "always has two tiers";
    QTest::addRow("hosts_per_leaf_range") << QString::fromStdString(hardware(leafSpine("        hosts_per_leaf: 0\n")))
                                          << "hardware.cluster.network[0].hosts_per_leaf"
                                          << "1";
    QTest::addRow("routing_word") << QString::fromStdString(hardware(tree + "        routing: random\n"))
                                  << "hardware.cluster.network[0].routing"
                                  << "static";
    QTest::addRow("routing_on_a_switch") << QString::fromStdString(
        hardware("        kind: switch\n        size: 4\n        routing: ecmp\n"))
                                         << "hardware.cluster.network[0].routing"
                                         << "one path per pair";
    QTest::addRow("uplink_rate_on_a_ring")
        << QString::fromStdString(hardware("        kind: ring\n        size: 4\n        uplink_bandwidth_GBps: 5\n"))
        << "hardware.cluster.network[0]"
        << "uplink_bandwidth applies only";
    QTest::addRow("nic_node_outside_cluster")
        << QString::fromStdString(hardware(tree, "  faults:\n    - {nic: {node: 4}, health: 0}\n"))
        << "hardware.faults[0].nic.node"
        << "nodes 0-3";
    QTest::addRow("nic_node_and_gpu") << QString::fromStdString(
        hardware(tree, "  faults:\n    - {nic: {node: 1, gpu: 1}, health: 0}\n"))
                                      << "hardware.faults[0].nic"
                                      << "exactly one";
    QTest::addRow("nic_unknown_dimension")
        << QString::fromStdString(hardware(tree, "  faults:\n    - {nic: {gpu: 1, dimension: eth}, health: 0}\n"))
        << "hardware.faults[0].nic.dimension"
        << "no dimension \"eth\"";
    QTest::addRow("fault_names_neither") << QString::fromStdString(hardware(tree, "  faults:\n    - {health: 0}\n"))
                                         << "hardware.faults[0]"
                                         << "names a link";
    QTest::addRow("fault_names_both") << QString::fromStdString(
        hardware(tree, "  faults:\n    - {link: \"ib:0-s1.0\", nic: {gpu: 0}, health: 0}\n"))
                                      << "hardware.faults[0]"
                                      << "not both";
}

void TstFabricConfig::wrongValuesNameTheirKey()
{
    QFETCH(QString, document);
    QFETCH(QString, key);
    QFETCH(QString, text);
    const std::vector<config::Diagnostic> found = errors(document.toStdString());
    QVERIFY(!found.empty());
    bool matched = false;
    std::string all;
    for (const config::Diagnostic& diagnostic : found) {
        all += diagnostic.toString() + "\n";
        matched = matched
            || (diagnostic.keyPath == key.toStdString()
                && diagnostic.message.find(text.toStdString()) != std::string::npos && diagnostic.location.line > 0);
    }
    QVERIFY2(matched, all.c_str());
}

QTEST_GUILESS_MAIN(TstFabricConfig)
#include "tst_fabricconfig.moc"
