// SPDX-License-Identifier: GPL-3.0-or-later
// Fabrics: explicit leaf-spine trees, the routing modes (static, ecmp, adaptive) and NIC faults, against values
// derived by hand.
#include "network/axismodel.h"
#include "network/router.h"
#include "network/topology.h"
#include "networktestutils.h"

#include <QTest>

#include <map>

using namespace rapid;
using config::NetworkKind;
using config::Routing;

namespace {

/// A two-tier tree of @p size endpoints with an explicit leaf (GB/s).
config::NetworkDimension leafSpine(
    int size, int hosts, int uplinks, int spines, double bandwidthGBps, double uplinkGBps, Routing routing)
{
    config::NetworkDimension result = test::fatTree("ib", size, 2, 64, 1, bandwidthGBps, 700);
    result.hostsPerLeaf = hosts;
    result.uplinksPerLeaf = uplinks;
    result.spines = spines;
    result.uplinkBandwidth = uplinkGBps * 1e9;
    result.routing = routing;
    return result;
}

config::NetworkDimension withRouting(config::NetworkDimension dimension, Routing routing)
{
    dimension.routing = routing;
    return dimension;
}

/// Load (bytes) on every directed link of an all-to-all where every member sends @p bytes to every other.
std::map<int, double> allToAllLoad(const network::Topology& topology, const std::vector<int>& gpus, double bytes)
{
    const network::Router router(topology);
    std::map<int, double> load;
    for (int from : gpus) {
        for (int to : gpus) {
            if (from == to) {
                continue;
            }
            for (const network::RouteSegment& segment : router.route(from, to).segments) {
                for (const network::WeightedPath& path : segment.paths) {
                    for (int link : path.links) {
                        load[link] += bytes * path.fraction;
                    }
                }
            }
        }
    }
    return load;
}

/// Time of the busiest link: load / effective bandwidth.
double busiestSeconds(const network::Topology& topology, const std::map<int, double>& load)
{
    double worst = 0;
    for (const auto& [link, bytes] : load) {
        worst = std::max(worst, bytes / topology.link(link).effectiveBandwidth());
    }
    return worst;
}

} // namespace

class TstFabrics : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void leafSpineStructure();
    void allToAllAcrossLeavesIsLimitedByTheUplinks();
    void staticRoutingPutsALoneFlowOnOneSpine();
    void staticRoutingSpreadsDestinationsOverSpines();
    void routingModesAroundADegradedUplink();
    void staticDetourIsOneSurvivingPath();
    void torusEcmpSplitsOverMinimalPaths();
    void nicFaultDegradesTheNodesScaleOutLinks();
    void railOptimizedRoutesRailAlignedTrafficInOneLeaf();
};

void TstFabrics::leafSpineStructure()
{
    // 8 hosts, 4 a leaf: 2 leaves; 4 uplinks over 2 spines: 2 cables of 12.5 GB/s per leaf-spine pair = one link of
    // 25 GB/s. Links: 8 endpoint links + 2 leaves x 2 spines = 12.
    const network::Topology topology(test::hardware({ leafSpine(8, 4, 4, 2, 12.5, 12.5, Routing::Static) }));
    const network::DimensionLayout& layout = topology.layout(0);
    QCOMPARE(layout.switchesPerTier, (std::vector<int> { 2, 2 }));
    QCOMPARE(topology.physicalLinkCount(), 12);
    QCOMPARE(layout.cablesPerSpine, 2);
    QCOMPARE(layout.leafUplinkBandwidth, 50e9);
    QCOMPARE(topology.link(topology.findLink("ib:s1.1-s2.0")).bandwidth, 25e9);
    QCOMPARE(topology.link(topology.findLink("ib:5-s1.1")).bandwidth, 12.5e9);
}

void TstFabrics::allToAllAcrossLeavesIsLimitedByTheUplinks()
{
    // The leaf: 4 hosts x 100 Gb/s (12.5 GB/s) under 2 spines x 100 Gb/s: 2:1 oversubscribed. An all-to-all
    // of 8 members, each sending S/8 to every other: a member's link carries 7/8 S (7/8 S / 12.5 GB/s); leaf 0 sends
    // 4 members x 4 remote members x S/8 = 2 S over its 2 x 12.5 GB/s uplinks: 2 S / 25 GB/s = S / 12.5 GB/s, 8/7 of
    // the endpoint time. Direct bandwidth = 7/8 S / (S / 12.5 GB/s) = 10.9375 GB/s.
    for (const Routing routing : { Routing::Static, Routing::Ecmp, Routing::Adaptive }) {
        const network::Topology topology(test::hardware({ leafSpine(8, 4, 2, 2, 12.5, 12.5, routing) }));
        const std::vector<network::Axis> axes = network::buildAxes({ topology.layout(0) });
        const network::AxisCost cost = network::healthyAxisCost(axes[0], 0, 0, test::allGpus(8));
        QCOMPARE(cost.directBandwidth, 10.9375e9);
        QCOMPARE(cost.directBottleneck, std::string("ib:s1.0-s2.0"));
        // The routed loads agree (S = 8 bytes: 1 byte a pair): the busiest link is an uplink with 8 bytes at 12.5 GB/s
        // (static: destinations 4 and 6 go by spine 0, 5 and 7 by spine 1; 4 senders x 2 = 8 bytes on each).
        const std::map<int, double> load = allToAllLoad(topology, test::allGpus(8), 1.0);
        QCOMPARE(busiestSeconds(topology, load), 8.0 / 12.5e9);
        QCOMPARE(load.at(topology.findLink("ib:s1.0-s2.0")), 8.0);
        QCOMPARE(load.at(topology.findLink("ib:0-s1.0")), 7.0);
    }
}

void TstFabrics::staticRoutingPutsALoneFlowOnOneSpine()
{
    // 4 hosts a leaf, 2 spines with one 6.25 GB/s uplink each (12.5 GB/s per leaf, 2:1). A lone flow 0 -> 4 under
    // ECMP splits over both spines: min(12.5, 6.25 / 0.5) = 12.5 GB/s; under static routing it takes one spine:
    // 6.25 GB/s. The analytical ring of {0, 4} says the same.
    for (const auto& [routing, expected] : { std::pair { Routing::Static, 6.25e9 }, { Routing::Ecmp, 12.5e9 } }) {
        const network::Topology topology(test::hardware({ leafSpine(8, 4, 2, 2, 12.5, 6.25, routing) }));
        const network::Router router(topology);
        QCOMPARE(router.flowBandwidth(router.route(0, 4).segments[0]), expected);
        const std::vector<network::Axis> axes = network::buildAxes({ topology.layout(0) });
        QCOMPARE(network::healthyAxisCost(axes[0], 0, 0, { 0, 4 }).ringBandwidth, expected);
        QCOMPARE(network::healthyPointToPoint(axes[0], 0, 0, 0, 4).bandwidth, expected);
    }
}

void TstFabrics::staticRoutingSpreadsDestinationsOverSpines()
{
    // k = 4 two-tier tree (radix 8): D-mod-k sends destination d up to spine d mod 4, whoever the source.
    const network::Topology topology(
        test::hardware({ withRouting(test::fatTree("ib", 16, 2, 8, 1, 50, 675), Routing::Static) }));
    const network::Router router(topology);
    for (int to = 4; to < 16; ++to) {
        const network::Route route = router.route(to % 4, to);
        QCOMPARE(route.segments[0].paths.size(), size_t(1));
        QCOMPARE(topology.linkId(route.segments[0].paths[0].links[1]),
            "ib:s1." + std::to_string((to % 4) / 4) + "-s2." + std::to_string(to % 4));
    }
}

void TstFabrics::routingModesAroundADegradedUplink()
{
    // k = 4 tree of 50 GB/s links; leaf 0's uplink to spine 1 at health 0.1 (5 GB/s). Flow 0 -> 5 (leaf 1):
    // - static: destination 5 mod 4 = spine 1, the degraded link alone: 5 GB/s;
    // - ecmp: a quarter on each spine: the degraded link limits it to 5 / 0.25 = 20 GB/s;
    // - adaptive: shares in proportion to the path bottlenecks 50, 5, 50, 50 (of 155): 5 / (5/155) = 155 GB/s on
    //   that link, so the endpoint link's 50 GB/s is the limit.
    const config::NetworkDimension tree = test::fatTree("ib", 16, 2, 8, 1, 50, 675);
    const std::vector<config::LinkFault> faults = { { "ib:s1.0-s2.1", 0.1 } };
    const std::pair<Routing, double> cases[]
        = { { Routing::Static, 5e9 }, { Routing::Ecmp, 20e9 }, { Routing::Adaptive, 50e9 } };
    for (const auto& [routing, expected] : cases) {
        const network::Topology topology(test::hardware({ withRouting(tree, routing) }, faults));
        const network::Router router(topology);
        const network::RouteSegment segment = router.route(0, 5).segments[0];
        QVERIFY(std::abs(router.flowBandwidth(segment) - expected) < 1e-3);
        if (routing == Routing::Adaptive) {
            QCOMPARE(segment.paths.size(), size_t(4));
            QVERIFY(std::abs(segment.paths[1].fraction - 5.0 / 155.0) < 1e-12);
        }
    }
}

void TstFabrics::staticDetourIsOneSurvivingPath()
{
    // Leaf 0's uplink to spine 1 failed: static routing recomputes one path for 0 -> 5 over the surviving spines
    // (0, 2, 3; D-mod-k picks 5 mod 3 = 2: spine 3), ECMP splits over all three.
    const config::NetworkDimension tree = test::fatTree("ib", 16, 2, 8, 1, 50, 675);
    const std::vector<config::LinkFault> faults = { { "ib:s1.0-s2.1", 0.0 } };
    const network::Topology statically(test::hardware({ withRouting(tree, Routing::Static) }, faults));
    const network::RouteSegment one = network::Router(statically).route(0, 5).segments[0];
    QCOMPARE(one.paths.size(), size_t(1));
    QCOMPARE(one.hops(), 4);
    QCOMPARE(statically.linkId(one.paths[0].links[1]), std::string("ib:s1.0-s2.3"));
    const network::Topology ecmp(test::hardware({ withRouting(tree, Routing::Ecmp) }, faults));
    QCOMPARE(network::Router(ecmp).route(0, 5).segments[0].paths.size(), size_t(3));
}

void TstFabrics::torusEcmpSplitsOverMinimalPaths()
{
    // 5x5 torus, 0 -> 6 (one step in x and one in y): dimension order (static) takes x then y; ECMP splits over the
    // two minimal paths (x-y and y-x).
    const config::NetworkDimension torus = test::dimension("torus", NetworkKind::Torus2d, 25, 100, 0, { 5, 5 });
    const network::Topology statically(test::hardware({ torus }));
    const network::Topology ecmp(test::hardware({ withRouting(torus, Routing::Ecmp) }));
    const network::RouteSegment one = network::Router(statically).route(0, 6).segments[0];
    QCOMPARE(one.paths.size(), size_t(1));
    QCOMPARE(statically.linkId(one.paths[0].links[0]), std::string("torus:0-1"));
    const network::RouteSegment two = network::Router(ecmp).route(0, 6).segments[0];
    QCOMPARE(two.paths.size(), size_t(2));
    QCOMPARE(two.paths[0].fraction, 0.5);
}

void TstFabrics::nicFaultDegradesTheNodesScaleOutLinks()
{
    // NVLink (8) x InfiniBand (4 nodes): node 1's NICs are GPU 8..15's links to their rail switches, ib@r:1-s1.0
    // for rails r = 0..7; nothing else changes. A GPU's NIC is its one link; in a torus a GPU's NIC drives all 4
    // of its links.
    config::HardwareSpec spec = test::hardware(
        { test::dimension("nvlink", NetworkKind::Switch, 8, 450, 300), test::fatTree("ib", 4, 1, 8, 1, 50, 675) });
    spec.cluster.gpusPerNode = 8;
    config::LinkFault node;
    node.nicNode = 1;
    node.health = 0.5;
    config::LinkFault gpu;
    gpu.nicGpu = 18; // node 2, rail 2
    gpu.health = 0;
    spec.faults = { node, gpu };
    const network::Topology topology(spec);
    int degraded = 0;
    for (int link = 0; link < topology.linkCount(); link += 2) {
        const double health = topology.link(link).health;
        if (health < 1) {
            ++degraded;
            const std::string id = topology.linkId(link);
            QVERIFY2((health == 0.5 && id.find(":1-s1.0") != std::string::npos) || (health == 0 && id == "ib@2:2-s1.0"),
                id.c_str());
        }
    }
    QCOMPARE(degraded, 9);
    config::LinkFault torusNic;
    torusNic.nicGpu = 12;
    torusNic.health = 0.25;
    const network::Topology torus(
        test::hardware({ test::dimension("torus", NetworkKind::Torus2d, 25, 100, 0, { 5, 5 }) }, { torusNic }));
    int torusDegraded = 0;
    for (int link = 0; link < torus.linkCount(); link += 2) {
        torusDegraded += torus.link(link).health == 0.25 ? 1 : 0;
    }
    QCOMPARE(torusDegraded, 4);
}

void TstFabrics::railOptimizedRoutesRailAlignedTrafficInOneLeaf()
{
    // NVLink (8) x rail-optimized (8 nodes, one rail leaf of 8 hosts, 4 uplinks to 4 spines). GPU 3 of node 0 to
    // GPU 3 of node 5 stays on rail 3's leaf: 2 hops. GPU 2 of node 0 to GPU 3 of node 5 crosses NVLink first (to
    // GPU 3 of node 0, the PXN path), then rail 3: 4 hops, never a spine.
    config::NetworkDimension rail = leafSpine(8, 8, 4, 4, 50, 50, Routing::Static);
    rail.kind = NetworkKind::RailOptimized;
    config::HardwareSpec spec = test::hardware({ test::dimension("nvlink", NetworkKind::Switch, 8, 450, 300), rail });
    spec.cluster.gpusPerNode = 8;
    const network::Topology topology(spec);
    const network::Router router(topology);
    const network::Route aligned = router.route(3, 5 * 8 + 3);
    QCOMPARE(aligned.hops(), 2);
    QCOMPARE(topology.linkId(aligned.segments[0].paths[0].links[0]), std::string("ib@3:0-s1.0"));
    const network::Route crossed = router.route(2, 5 * 8 + 3);
    QCOMPARE(crossed.hops(), 4);
    QCOMPARE(crossed.segments[0].dimension, 0);
    QCOMPARE(crossed.segments[1].fromGpu, 3);
}

QTEST_GUILESS_MAIN(TstFabrics)
#include "tst_fabrics.moc"
