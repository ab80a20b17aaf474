// SPDX-License-Identifier: GPL-3.0-or-later
// Topology factories: one row per invalid parameter, link counts against closed forms, multi-dimensional
// replication, and link ids that round-trip through config::parseLinkId.
#include "network/dimensionlayout.h"
#include "network/topology.h"
#include "networktestutils.h"

#include "config/linkid.h"

#include <QTest>

#include <functional>
#include <set>

using namespace rapid;
using config::NetworkKind;

using Factory = std::function<network::DimensionLayout()>;
Q_DECLARE_METATYPE(Factory)
Q_DECLARE_METATYPE(rapid::config::NetworkDimension)

class TstTopology : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void invalidParameterThrows_data();
    void invalidParameterThrows();
    void linkCounts_data();
    void linkCounts();
    void dimensionsReplicateOverOtherCoordinates();
    void linkIdsRoundTrip();
    void faultsScaleBandwidth();
    void faultOnMissingLinkThrows();
};

void TstTopology::invalidParameterThrows_data()
{
    QTest::addColumn<Factory>("factory");
    QTest::addColumn<QString>("message");
    const double b = 100e9;
    QTest::addRow("ring_size_1") << Factory([=] { return network::makeRing("r", 1, b, 0); })
                                 << QStringLiteral("below 2");
    QTest::addRow("ring_zero_bandwidth") << Factory([=] { return network::makeRing("r", 4, 0, 0); })
                                         << QStringLiteral("bandwidth");
    QTest::addRow("ring_negative_latency")
        << Factory([=] { return network::makeRing("r", 4, b, -1e-9); }) << QStringLiteral("latency");
    QTest::addRow("switch_size_0") << Factory([=] { return network::makeSwitch("s", 0, b, 0); })
                                   << QStringLiteral("below 2");
    QTest::addRow("fully_connected_nan_bandwidth")
        << Factory([=] { return network::makeFullyConnected("f", 4, std::nan(""), 0); }) << QStringLiteral("bandwidth");
    QTest::addRow("torus2d_extent_1") << Factory([=] { return network::makeTorus2d("t", 1, 4, b, 0); })
                                      << QStringLiteral("extent x");
    QTest::addRow("torus3d_extent_z_1") << Factory([=] { return network::makeTorus3d("t", 2, 2, 1, b, 0); })
                                        << QStringLiteral("extent z");
    QTest::addRow("mesh2d_extent_y_0") << Factory([=] { return network::makeMesh2d("m", 3, 0, b, 0); })
                                       << QStringLiteral("extent y");
    QTest::addRow("empty_name") << Factory([=] { return network::makeRing("", 4, b, 0); }) << QStringLiteral("name");
    QTest::addRow("fat_tree_radix_too_small_for_endpoints")
        << Factory([=] { return network::makeFatTree("ib", 100, 2, 8, 1, b, 0); })
        << QStringLiteral("holds at most 32");
    QTest::addRow("fat_tree_one_tier_radix_too_small")
        << Factory([=] { return network::makeFatTree("ib", 20, 1, 16, 1, b, 0); })
        << QStringLiteral("holds at most 16");
    QTest::addRow("fat_tree_odd_radix") << Factory([=] { return network::makeFatTree("ib", 8, 2, 7, 1, b, 0); })
                                        << QStringLiteral("odd");
    QTest::addRow("fat_tree_radix_1") << Factory([=] { return network::makeFatTree("ib", 8, 1, 1, 1, b, 0); })
                                      << QStringLiteral("radix 1");
    QTest::addRow("fat_tree_zero_tiers") << Factory([=] { return network::makeFatTree("ib", 8, 0, 16, 1, b, 0); })
                                         << QStringLiteral("tiers");
    QTest::addRow("fat_tree_oversubscription_below_1")
        << Factory([=] { return network::makeFatTree("ib", 8, 2, 16, 0.5, b, 0); })
        << QStringLiteral("oversubscription");
    QTest::addRow("shape_product_mismatch") << Factory([] {
        return network::makeDimension(test::dimension("t", NetworkKind::Torus2d, 15, 100, 0, { 4, 4 }));
    }) << QStringLiteral("does not match the shape");
    QTest::addRow("shape_rank_mismatch") << Factory([] {
        return network::makeDimension(test::dimension("t", NetworkKind::Torus3d, 16, 100, 0, { 4, 4 }));
    }) << QStringLiteral("shape of 3");
}

void TstTopology::invalidParameterThrows()
{
    QFETCH(Factory, factory);
    QFETCH(QString, message);
    try {
        factory();
        QFAIL("no std::invalid_argument");
    } catch (const std::invalid_argument& error) {
        QVERIFY2(QString::fromStdString(error.what()).contains(message), error.what());
    }
}

void TstTopology::linkCounts_data()
{
    QTest::addColumn<config::NetworkDimension>("dimension");
    QTest::addColumn<int>("links");
    QTest::addColumn<int>("switches");
    QTest::addRow("ring_8_links_p") << test::dimension("r", NetworkKind::Ring, 8, 100, 0) << 8 << 0;
    QTest::addRow("ring_2_single_link") << test::dimension("r", NetworkKind::Ring, 2, 100, 0) << 1 << 0;
    QTest::addRow("fully_connected_6_p_p-1_over_2")
        << test::dimension("f", NetworkKind::FullyConnected, 6, 100, 0) << 15 << 0;
    QTest::addRow("switch_8") << test::dimension("s", NetworkKind::Switch, 8, 100, 0) << 8 << 1;
    QTest::addRow("torus2d_4x5_xy2") << test::dimension("t", NetworkKind::Torus2d, 20, 100, 0, { 4, 5 }) << 40 << 0;
    QTest::addRow("torus3d_3x4x5_xyz3") << test::dimension("t", NetworkKind::Torus3d, 60, 100, 0, { 3, 4, 5 }) << 180
                                        << 0;
    QTest::addRow("mesh2d_4x5") << test::dimension("m", NetworkKind::Mesh2d, 20, 100, 0, { 4, 5 }) << 3 * 5 + 4 * 4
                                << 0;
    QTest::addRow("fat_tree_1_tier") << test::fatTree("ib", 10, 1, 16, 1, 50, 0) << 10 << 1;
    // k = 4: 8 leaves with 4 uplinks each to 4 spines.
    QTest::addRow("fat_tree_2_tiers_radix_8") << test::fatTree("ib", 32, 2, 8, 1, 50, 0) << 32 + 8 * 4 << 12;
    // The k = 4 three-tier fat tree of Al-Fares et al.: 16 hosts, 8 edge, 8 aggregation, 4 core switches, 48 links.
    QTest::addRow("fat_tree_3_tiers_radix_4") << test::fatTree("ib", 16, 3, 4, 1, 50, 0) << 48 << 20;
    // SuperPOD rail of 128 nodes on QM9700 (radix 64): 4 leaves x 32 uplinks to 32 spines.
    QTest::addRow("fat_tree_superpod_rail_128") << test::fatTree("ib", 128, 2, 64, 1, 50, 0) << 128 + 4 * 32 << 4 + 32;
}

void TstTopology::linkCounts()
{
    QFETCH(config::NetworkDimension, dimension);
    QFETCH(int, links);
    QFETCH(int, switches);
    const network::Topology topology(test::hardware({ dimension }));
    QCOMPARE(topology.physicalLinkCount(), links);
    QCOMPARE(topology.linkCount(), 2 * links);
    QCOMPARE(topology.nodeCount(), dimension.size + switches);
    for (int node = 0; node < topology.nodeCount(); ++node) {
        if (topology.node(node).isSwitch && dimension.kind == NetworkKind::FatTree) {
            QVERIFY(static_cast<int>(topology.outLinks(node).size()) <= dimension.switchRadix);
        }
    }
}

void TstTopology::dimensionsReplicateOverOtherCoordinates()
{
    // 4 nodes of 8 GPUs: an NVSwitch per node, one single-switch InfiniBand rail per local GPU index.
    const network::Topology topology(test::hardware(
        { test::dimension("nvlink", NetworkKind::Switch, 8, 450, 300), test::fatTree("ib", 4, 1, 8, 1, 50, 675) }));
    QCOMPARE(topology.gpuCount(), 32);
    QCOMPARE(topology.physicalLinkCount(), 4 * 8 + 8 * 4);
    QCOMPARE(topology.replicaCount(0), 4);
    QCOMPARE(topology.replicaCount(1), 8);
    // GPU 13 = local GPU 5 of node 1.
    QCOMPARE(topology.localIndex(13, 0), 5);
    QCOMPARE(topology.localIndex(13, 1), 1);
    QCOMPARE(topology.replicaOf(13, 0), 1);
    QCOMPARE(topology.replicaOf(13, 1), 5);
    QCOMPARE(topology.gpuAt(1, 5, 3), 29);
    std::set<int> neighbours;
    for (int link : topology.outLinks(13)) {
        const network::Node& next = topology.node(topology.link(link).to);
        QVERIFY(next.isSwitch);
        neighbours.insert(next.dimension * 100 + next.replica);
    }
    QCOMPARE(neighbours, (std::set<int> { 1, 105 }));
}

void TstTopology::linkIdsRoundTrip()
{
    const config::HardwareSpec spec = test::hardware(
        { test::dimension("nvlink", NetworkKind::Switch, 4, 450, 300), test::fatTree("ib", 8, 2, 4, 2, 50, 675),
            test::dimension("torus", NetworkKind::Torus2d, 9, 100, 500, { 3, 3 }) });
    const network::Topology topology(spec);
    std::set<std::string> ids;
    for (int link = 0; link < topology.linkCount(); link += 2) {
        const std::string id = topology.linkId(link);
        QVERIFY2(ids.insert(id).second, id.c_str());
        QCOMPARE(topology.findLink(id), link);
        // Every copy of a dimension round-trips through the config's parser (YAML faults may name any copy).
        std::string why;
        const auto parts = config::parseLinkId(id, spec.cluster, &why);
        QVERIFY2(parts.has_value(), why.c_str());
        QCOMPARE(parts->replica, topology.link(link).replica);
        QCOMPARE(config::formatLinkId(*parts, spec.cluster), id);
        QCOMPARE(id.find('@') != std::string::npos, topology.link(link).replica != 0);
    }
    QCOMPARE(static_cast<int>(ids.size()), topology.physicalLinkCount());
    // Either orientation names the same link; the reverse direction is the odd index.
    QCOMPARE(topology.findLink("torus:1-0"), topology.findLink("torus:0-1") + 1);
    QCOMPARE(topology.linkId(topology.findLink("ib:s2.1-s1.0")), std::string("ib:s1.0-s2.1"));
}

void TstTopology::faultsScaleBandwidth()
{
    const network::Topology topology(test::hardware(
        { test::dimension("ring", NetworkKind::Ring, 4, 100, 0) }, { { "ring:1-2", 0.25 }, { "ring:3-0", 0.0 } }));
    const int degraded = topology.findLink("ring:1-2");
    QCOMPARE(topology.link(degraded).effectiveBandwidth(), 25e9);
    QCOMPARE(topology.link(degraded + 1).effectiveBandwidth(), 25e9);
    QVERIFY(topology.link(topology.findLink("ring:0-3")).failed());
    QVERIFY(!topology.link(topology.findLink("ring:0-1")).failed());
    QVERIFY(topology.replicaHasFaults(0, 0));
}

void TstTopology::faultOnMissingLinkThrows()
{
    // 0 and 2 are not neighbours in a ring of 4: the id parses but names no link.
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
        network::Topology(
            test::hardware({ test::dimension("ring", NetworkKind::Ring, 4, 100, 0) }, { { "ring:0-2", 0.5 } })));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
        network::Topology(
            test::hardware({ test::dimension("ring", NetworkKind::Ring, 4, 100, 0) }, { { "mesh:0-1", 0.5 } })));
}

QTEST_GUILESS_MAIN(TstTopology)
#include "tst_topology.moc"
