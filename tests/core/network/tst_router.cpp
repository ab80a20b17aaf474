// SPDX-License-Identifier: GPL-3.0-or-later
// Routing: dimension-order hops in tori, up-down ECMP in fat trees, routes across dimensions, rerouting around a
// failed link (exactly the routes that crossed it change), and the error for a pair cut apart.
#include "network/router.h"
#include "networktestutils.h"

#include <QTest>

#include <algorithm>

using namespace rapid;
Q_DECLARE_METATYPE(rapid::config::NetworkDimension)
using config::NetworkKind;

namespace {

bool crosses(const network::Route& route, int link)
{
    for (const network::RouteSegment& segment : route.segments) {
        for (const network::WeightedPath& path : segment.paths) {
            if (std::find(path.links.begin(), path.links.end(), link) != path.links.end()) {
                return true;
            }
        }
    }
    return false;
}

config::HardwareSpec torus5x5(std::vector<config::LinkFault> faults = {})
{
    return test::hardware({ test::dimension("torus", NetworkKind::Torus2d, 25, 100, 500, { 5, 5 }) }, faults);
}

} // namespace

class TstRouter : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void torusDimensionOrderHops_data();
    void torusDimensionOrderHops();
    void torusRoutesXBeforeY();
    void fatTreeUpDownWithEcmp_data();
    void fatTreeUpDownWithEcmp();
    void routesGoInnermostDimensionFirst();
    void failedTorusLinkReroutesExactlyTheRoutesThatCrossedIt();
    void failedSpineLinkLeavesTheOtherEqualCostPaths();
    void unreachablePairNamesBothGpus();
};

void TstRouter::torusDimensionOrderHops_data()
{
    QTest::addColumn<int>("from");
    QTest::addColumn<int>("to");
    QTest::addColumn<int>("hops");
    // GPU = x + 5y; each ring the shorter way: |dx| and |dy| at most 2.
    QTest::addRow("neighbour_x") << 0 << 1 << 1;
    QTest::addRow("wrap_x") << 0 << 4 << 1;
    QTest::addRow("two_x") << 0 << 2 << 2;
    QTest::addRow("wrap_y") << 0 << 20 << 1;
    QTest::addRow("diagonal") << 0 << 6 << 2;
    QTest::addRow("farthest") << 0 << 12 << 4;
    QTest::addRow("wrap_both") << 6 << 24 << 4;
}

void TstRouter::torusDimensionOrderHops()
{
    QFETCH(int, from);
    QFETCH(int, to);
    QFETCH(int, hops);
    const network::Topology topology(torus5x5());
    const network::Route route = network::Router(topology).route(from, to);
    QCOMPARE(route.hops(), hops);
    QCOMPARE(route.segments.size(), size_t(1));
    QCOMPARE(route.segments[0].paths.size(), size_t(1));
}

void TstRouter::torusRoutesXBeforeY()
{
    const network::Topology topology(torus5x5());
    const network::Route route = network::Router(topology).route(0, 6);
    const std::vector<int>& links = route.segments[0].paths[0].links;
    QCOMPARE(links.size(), size_t(2));
    QCOMPARE(topology.linkId(links[0]), std::string("torus:0-1"));
    QCOMPARE(topology.linkId(links[1]), std::string("torus:1-6"));
}

void TstRouter::fatTreeUpDownWithEcmp_data()
{
    QTest::addColumn<config::NetworkDimension>("dimension");
    QTest::addColumn<int>("from");
    QTest::addColumn<int>("to");
    QTest::addColumn<int>("hops");
    QTest::addColumn<int>("paths");
    // ECMP (routing: ecmp); the default, static routing, takes one of these paths (tst_fabrics).
    config::NetworkDimension twoTier = test::fatTree("ib", 16, 2, 8, 1, 50, 675); // k = 4
    config::NetworkDimension threeTier = test::fatTree("ib", 16, 3, 4, 1, 50, 675); // k = 2
    twoTier.routing = threeTier.routing = config::Routing::Ecmp;
    QTest::addRow("two_tier_same_leaf") << twoTier << 0 << 3 << 2 << 1;
    QTest::addRow("two_tier_across_leaves_4_spines") << twoTier << 0 << 5 << 4 << 4;
    QTest::addRow("three_tier_same_leaf") << threeTier << 0 << 1 << 2 << 1;
    QTest::addRow("three_tier_same_pod") << threeTier << 0 << 2 << 4 << 2;
    QTest::addRow("three_tier_across_pods_k_squared") << threeTier << 0 << 15 << 6 << 4;
}

void TstRouter::fatTreeUpDownWithEcmp()
{
    QFETCH(config::NetworkDimension, dimension);
    QFETCH(int, from);
    QFETCH(int, to);
    QFETCH(int, hops);
    QFETCH(int, paths);
    const network::Topology topology(test::hardware({ dimension }));
    const network::Router router(topology);
    const network::Route route = router.route(from, to);
    QCOMPARE(route.hops(), hops);
    QCOMPARE(static_cast<int>(route.segments[0].paths.size()), paths);
    for (const network::WeightedPath& path : route.segments[0].paths) {
        QCOMPARE(path.fraction, 1.0 / paths);
        QCOMPARE(static_cast<int>(path.links.size()), hops);
    }
    // One flow alone runs at the endpoint link's rate: the spread over spines never limits it.
    QCOMPARE(router.flowBandwidth(route.segments[0]), 50e9);
}

void TstRouter::routesGoInnermostDimensionFirst()
{
    const network::Topology topology(test::hardware(
        { test::dimension("nvlink", NetworkKind::Switch, 8, 450, 300), test::fatTree("ib", 4, 1, 8, 1, 50, 675) }));
    // GPU 1 (local 1, node 0) to GPU 26 (local 2, node 3): NVLink to local 2 on node 0 (GPU 2), then rail 2.
    const network::Route route = network::Router(topology).route(1, 26);
    QCOMPARE(route.segments.size(), size_t(2));
    QCOMPARE(route.segments[0].dimension, 0);
    QCOMPARE(route.segments[0].toGpu, 2);
    QCOMPARE(route.segments[1].dimension, 1);
    QCOMPARE(route.segments[1].fromGpu, 2);
    QCOMPARE(route.hops(), 4);
    QCOMPARE(topology.linkId(route.segments[1].paths[0].links[0]), std::string("ib@2:0-s1.0"));
}

void TstRouter::failedTorusLinkReroutesExactlyTheRoutesThatCrossedIt()
{
    const network::Topology healthy(torus5x5());
    const network::Topology faulted(torus5x5({ { "torus:0-1", 0.0 } }));
    const network::Router before(healthy);
    const network::Router after(faulted);
    const int failed = healthy.findLink("torus:0-1");
    int crossed = 0;
    for (int from = 0; from < 25; ++from) {
        for (int to = 0; to < 25; ++to) {
            const network::Route old = before.route(from, to);
            const network::Route now = after.route(from, to);
            if (!crosses(old, failed) && !crosses(old, failed + 1)) {
                QCOMPARE(now, old);
                continue;
            }
            ++crossed;
            QVERIFY(!crosses(now, failed) && !crosses(now, failed + 1));
            QVERIFY(now.hops() >= old.hops());
        }
    }
    QVERIFY(crossed > 0);
    // Along the broken row the detour is strictly longer: 0 -> 1 takes 3 hops, 0 -> 2 goes the other way round.
    QCOMPARE(after.route(0, 1).hops(), 3);
    QCOMPARE(after.route(1, 0).hops(), 3);
    QCOMPARE(after.route(0, 2).hops(), 3);
    QCOMPARE(before.route(0, 2).hops(), 2);
}

void TstRouter::failedSpineLinkLeavesTheOtherEqualCostPaths()
{
    config::NetworkDimension tree = test::fatTree("ib", 16, 2, 8, 1, 50, 675);
    tree.routing = config::Routing::Ecmp;
    const network::Topology topology(test::hardware({ tree }, { { "ib:s1.0-s2.1", 0.0 } }));
    const network::Route route = network::Router(topology).route(0, 5);
    QCOMPARE(route.hops(), 4);
    QCOMPARE(route.segments[0].paths.size(), size_t(3));
}

void TstRouter::unreachablePairNamesBothGpus()
{
    // Ring 0-1-2-3-0 without 0-1 and 2-3 splits into {1, 2} and {3, 0}.
    const network::Topology topology(test::hardware(
        { test::dimension("ring", NetworkKind::Ring, 4, 100, 0) }, { { "ring:0-1", 0.0 }, { "ring:2-3", 0.0 } }));
    const network::Router router(topology);
    QCOMPARE(router.route(0, 3).hops(), 1);
    QCOMPARE(router.route(1, 2).hops(), 1);
    try {
        router.route(0, 2);
        QFAIL("no UnreachableError");
    } catch (const network::UnreachableError& error) {
        const std::string message = error.what();
        QVERIFY2(
            message.find("GPU 0") != std::string::npos && message.find("GPU 2") != std::string::npos, error.what());
    }
}

QTEST_GUILESS_MAIN(TstRouter)
#include "tst_router.moc"
