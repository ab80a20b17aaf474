// SPDX-License-Identifier: GPL-3.0-or-later
// The congestion backend against closed forms and against the analytical backend: one collective on an idle network
// takes the analytical time (up to nanosecond rounding) on every topology kind; SPMD replicas that share links slow
// down by exactly the sharing; a failed torus link lengthens exactly the routes that crossed it.
#include "../network/networktestutils.h"
#include "network/router.h"
#include "sim/congestionnetwork.h"

#include <QTest>

#include <cmath>

using namespace rapid;
using config::NetworkKind;
using network::CollectiveAlgorithm;
using network::CollectiveKind;

namespace {

constexpr double kMiB = 1048576.0;

network::CollectiveRequest request(CollectiveKind kind, double bytes, std::vector<int> gpus,
    std::optional<CollectiveAlgorithm> algorithm = std::nullopt, std::vector<int> replicas = {})
{
    network::CollectiveRequest result;
    result.kind = kind;
    result.bytes = bytes;
    result.gpus = std::move(gpus);
    result.algorithm = algorithm;
    result.replicaOffsets = std::move(replicas);
    return result;
}

struct NamedHardware {
    const char* name;
    config::HardwareSpec hardware;
};

std::vector<NamedHardware> topologyKinds()
{
    return {
        { "ring-8", test::hardware({ test::dimension("ring", NetworkKind::Ring, 8, 100, 1000) }) },
        { "switch-8", test::hardware({ test::dimension("nvlink", NetworkKind::Switch, 8, 450, 300) }) },
        { "fully-connected-4", test::hardware({ test::dimension("fc", NetworkKind::FullyConnected, 4, 50, 700) }) },
        { "torus-4x4", test::hardware({ test::dimension("torus", NetworkKind::Torus2d, 16, 50, 500, { 4, 4 }) }) },
        { "torus-4x2x2", test::hardware({ test::dimension("torus", NetworkKind::Torus3d, 16, 50, 500, { 4, 2, 2 }) }) },
        { "mesh-4x4", test::hardware({ test::dimension("mesh", NetworkKind::Mesh2d, 16, 50, 500, { 4, 4 }) }) },
        { "fat-tree-1-tier", test::hardware({ test::fatTree("ib", 8, 1, 16, 1.0, 50, 600) }) },
        { "fat-tree-2-tier", test::hardware({ test::fatTree("ib", 16, 2, 8, 1.0, 50, 600) }) },
        { "nvlink-x-fat-tree",
            test::hardware({ test::dimension("nvlink", NetworkKind::Switch, 4, 450, 300),
                test::fatTree("ib", 8, 2, 4, 1.0, 50, 600) }) },
    };
}

} // namespace

class TestCongestionNetwork : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void ringAllReduceOnAnIdleRingMatchesTheClosedForm()
    {
        // 2(p-1)/p * S/B + 2(p-1) * alpha + launch: p = 8, S = 64 MiB, B = 100 GB/s, alpha = 1 us.
        sim::CongestionNetwork network(test::hardware({ test::dimension("ring", NetworkKind::Ring, 8, 100, 1000) }));
        const double bytes = 64 * kMiB;
        const double expected = 2.0 * 7 / 8 * bytes / 100e9 + 14 * 1e-6 + network::kCollectiveLaunchSeconds;
        const double seconds
            = network.time(request(CollectiveKind::AllReduce, bytes, test::allGpus(8), CollectiveAlgorithm::Ring));
        // 14 sequential steps, each rounded up to a whole nanosecond at most.
        QVERIFY2(std::abs(seconds - expected) <= 14e-9, qPrintable(QString::number(seconds - expected)));
    }

    void degradedRingLinkSlowsEveryStepOfTheRing()
    {
        // Link 3-4 at health 0.5: member 3 sends each step when its previous (slow) send has left and the chunk it
        // forwards has arrived; the others' steps (S/8 at 100 GB/s + 1 us) always deliver that chunk in time, so
        // member 3 sends its 14 chunks back to back at 50 GB/s and only the last one's hop latency adds: exactly 1/h
        // of the healthy ring's transfer time.
        sim::CongestionNetwork network(
            test::hardware({ test::dimension("ring", NetworkKind::Ring, 8, 100, 1000) }, { { "ring:3-4", 0.5 } }));
        const double bytes = 64 * kMiB;
        const double expected = 14 * (bytes / 8 / 50e9) + 1e-6 + network::kCollectiveLaunchSeconds;
        const network::CollectiveRequest r
            = request(CollectiveKind::AllReduce, bytes, test::allGpus(8), CollectiveAlgorithm::Ring);
        QVERIFY(std::abs(network.time(r) - expected) <= 14e-9);
        // The analytical backend's degraded ring is the same closed form.
        QVERIFY(std::abs(network.analytical().time(r).seconds - expected) <= 1e-12);
    }

    void failedTorusLinkLengthensExactlyTheRoutesThatCrossedIt()
    {
        // 4x4 torus, 50 GB/s and 500 ns per hop; link 0-1 (x direction) fails. An empty send/recv between every
        // pair (its time is the route's latency) is unchanged unless the healthy dimension-order route used link 0-1;
        // those are rerouted, never shorter, and longer where no other path of the same length survives.
        const config::HardwareSpec healthy
            = test::hardware({ test::dimension("torus", NetworkKind::Torus2d, 16, 50, 500, { 4, 4 }) });
        config::HardwareSpec faulty = healthy;
        faulty.faults = { { "torus:0-1", 0.0 } };
        sim::CongestionNetwork before(healthy);
        sim::CongestionNetwork after(faulty);
        const network::Router router(before.topology());
        const int failedForward = before.topology().findLink("torus:0-1");
        const double bytes = 0; // an empty message: the time is the launch and the route's latency
        int crossing = 0;
        std::vector<std::pair<int, int>> longer;
        for (int from = 0; from < 16; ++from) {
            for (int to = 0; to < 16; ++to) {
                if (from == to) {
                    continue;
                }
                bool crossed = false;
                for (const network::RouteSegment& segment : router.route(from, to).segments) {
                    for (const network::WeightedPath& path : segment.paths) {
                        for (int link : path.links) {
                            crossed = crossed || link / 2 == failedForward / 2;
                        }
                    }
                }
                const network::CollectiveRequest r = request(CollectiveKind::SendRecv, bytes, { from, to });
                const double t0 = before.time(r);
                const double t1 = after.time(r);
                if (!crossed) {
                    QCOMPARE(t1, t0);
                    continue;
                }
                ++crossing;
                QVERIFY(t1 >= t0 - 1e-12);
                if (t1 > t0 + 1e-12) {
                    longer.push_back({ from, to });
                }
            }
        }
        // Routes run x first, so a route crosses 0-1 when its x leg in row y=0 does: 0->1, 0->2 (a tie goes the
        // increasing way), 1->0 and 3->1 (tie: 3->0->1), each followed by a y leg to any of the 4 rows: 16 routes.
        QCOMPARE(crossing, 16);
        // All but two have a surviving path of the same length (through the other x direction or a y detour);
        // 0 -> 1 and 1 -> 0 grow from 1 hop to 3.
        QCOMPARE(longer, (std::vector<std::pair<int, int>> { { 0, 1 }, { 1, 0 } }));
        // 0 -> 1 by hand with 8 MiB. Three 3-hop paths survive (0-3-2-1, 0-4-5-1, 0-12-13-1). Static routing (the
        // default) recomputes one of them: S / 50 GB/s + 3 x 500 ns + launch. ECMP shares the flow evenly over the
        // three, which use disjoint links, so it runs at 3 x 50 GB/s: S / 150 GB/s + 3 x 500 ns + launch.
        const double large = 8 * kMiB;
        const double rerouted = after.time(request(CollectiveKind::SendRecv, large, { 0, 1 }));
        QVERIFY(std::abs(rerouted - (large / 50e9 + 1.5e-6 + network::kCollectiveLaunchSeconds)) <= 2e-9);
        config::HardwareSpec ecmp = faulty;
        ecmp.cluster.dimensions[0].routing = config::Routing::Ecmp;
        sim::CongestionNetwork split(ecmp);
        const double spread = split.time(request(CollectiveKind::SendRecv, large, { 0, 1 }));
        QVERIFY(std::abs(spread - (large / 150e9 + 1.5e-6 + network::kCollectiveLaunchSeconds)) <= 2e-9);
    }

    void replicasSharingOversubscribedUplinksSlowDown()
    {
        // A 32-GPU two-tier fat tree (radix 8: 8 leaves of 4 GPUs, 4 spines), 50 GB/s, 600 ns per hop, leaf uplinks
        // at 25 GB/s (oversubscription 2). A data-parallel ring over one GPU per leaf ({0, 4, ..., 28}) alone: each
        // flow leaves its leaf over 4 uplinks (ECMP, 1/4 each), so it runs at the 50 GB/s of its endpoint link.
        // With its three SPMD replicas ({1, 5, ...}, ...) the 4 uplinks of a leaf carry 4 flows: 25 GB/s each.
        // ECMP (routing: ecmp): under static routing a flow takes one uplink (tst_fabrics).
        config::NetworkDimension tree = test::fatTree("ib", 32, 2, 8, 2.0, 50, 600);
        tree.routing = config::Routing::Ecmp;
        const config::HardwareSpec hardware = test::hardware({ tree });
        sim::CongestionNetwork network(hardware);
        const double bytes = 64 * kMiB;
        const std::vector<int> ring = { 0, 4, 8, 12, 16, 20, 24, 28 };
        const double alone = network.time(request(CollectiveKind::AllReduce, bytes, ring, CollectiveAlgorithm::Ring));
        const double shared
            = network.time(request(CollectiveKind::AllReduce, bytes, ring, CollectiveAlgorithm::Ring, { 1, 2, 3 }));
        const double launch = network::kCollectiveLaunchSeconds;
        QVERIFY(std::abs(alone - (14 * (bytes / 8 / 50e9 + 4 * 600e-9) + launch)) <= 14e-9);
        QVERIFY(std::abs(shared - (14 * (bytes / 8 / 25e9 + 4 * 600e-9) + launch)) <= 14e-9);
        // The analytical backend does not see the replicas.
        const double analytical
            = network.analytical()
                  .time(request(CollectiveKind::AllReduce, bytes, ring, CollectiveAlgorithm::Ring, { 1, 2, 3 }))
                  .seconds;
        QVERIFY(std::abs(analytical - alone) <= 14e-9);
    }

    void concurrentCollectivesReportEachCompletion()
    {
        // Two rings on disjoint halves of an 8-GPU switch do not interact; a third collective over all 8 GPUs
        // started at the same time shares every GPU's link with them.
        sim::CongestionNetwork network(test::hardware({ test::dimension("nvlink", NetworkKind::Switch, 8, 100, 0) }));
        const double bytes = 64 * kMiB;
        const network::CollectiveRequest left
            = request(CollectiveKind::AllGather, bytes, { 0, 1, 2, 3 }, CollectiveAlgorithm::Ring);
        const network::CollectiveRequest right
            = request(CollectiveKind::AllGather, bytes, { 4, 5, 6, 7 }, CollectiveAlgorithm::Ring);
        const network::CollectiveRequest pair[] = { left, right };
        const sim::CongestionRun run = network.run(pair);
        // 3 steps of S/4 at 100 GB/s, no hop latency.
        const double expected = 3 * bytes / 4 / 100e9 + network::kCollectiveLaunchSeconds;
        QVERIFY(std::abs(run.seconds[0] - expected) <= 4e-9);
        QVERIFY(std::abs(run.seconds[1] - expected) <= 4e-9);
        QVERIFY(std::abs(run.makespan - expected) <= 4e-9);
        // Every GPU's uplink carried 3 x S/4.
        const int uplink = network.topology().findLink("nvlink:0-s1.0");
        QVERIFY(std::abs(run.linkBytes[static_cast<size_t>(uplink)] - 0.75 * bytes) < 1);
    }

    void channelRingsAcrossNodesShareTheDataOverEveryRail()
    {
        // 4 nodes x 8 GPUs (NVSwitch at 450 GB/s inside, a 4-node InfiniBand ring per rail at 50 GB/s): a 1 GiB
        // all-reduce over all 32 runs NCCL's eight channels, channel j entering every node at GPU j. Each channel's
        // ring crosses between nodes 4 times per step, on rail j only, so every rail link carries 62 steps of
        // S / (8 x 32). The rail senders are the slow hops (50 GB/s per channel against 450 / 8 over NVLink) and send
        // back to back; the NVLink steps' latency hides: 2(p-1)/p S / min(450, 8 x 50 GB/s) + one rail hop (1.6 us).
        // (Each channel's path is not exactly back to back: allow a hop's latency.)
        sim::CongestionNetwork network(test::hardware({ test::dimension("nvlink", NetworkKind::Switch, 8, 450, 300),
            test::dimension("ib", NetworkKind::Ring, 4, 50, 1000) }));
        const double bytes = 1024 * kMiB;
        const network::CollectiveRequest requests[] = { request(CollectiveKind::AllReduce, bytes, test::allGpus(32)) };
        const sim::CongestionRun run = network.run(requests);
        const double expected = 2 * 31.0 / 32 * bytes / 400e9 + 1.6e-6 + network::kCollectiveLaunchSeconds;
        QVERIFY2(std::abs(run.seconds[0] - expected) <= 600e-9, qPrintable(QString::number(run.seconds[0] - expected)));
        for (int rail = 0; rail < 8; ++rail) {
            const int link = network.topology().findLink("ib@" + std::to_string(rail) + ":0-1");
            QVERIFY(link >= 0);
            QVERIFY2(std::abs(run.linkBytes[static_cast<size_t>(link)] - 62 * bytes / 256) < 1,
                qPrintable(QString::number(run.linkBytes[static_cast<size_t>(link)])));
        }
    }

    void agreesWithTheAnalyticalBackendOnAnIdleNetwork_data()
    {
        QTest::addColumn<int>("topology");
        QTest::addColumn<int>("kind");
        QTest::addColumn<double>("bytes");
        const std::vector<NamedHardware> kinds = topologyKinds();
        const CollectiveKind ops[] = { CollectiveKind::AllReduce, CollectiveKind::ReduceScatter,
            CollectiveKind::AllGather, CollectiveKind::AllToAll, CollectiveKind::Broadcast, CollectiveKind::SendRecv };
        for (size_t t = 0; t < kinds.size(); ++t) {
            for (CollectiveKind op : ops) {
                for (double bytes : { 64 * 1024.0, 256 * kMiB }) {
                    QTest::addRow("%s %s %.0f", kinds[t].name, network::toString(op), bytes)
                        << static_cast<int>(t) << static_cast<int>(op) << bytes;
                }
            }
        }
    }
    void agreesWithTheAnalyticalBackendOnAnIdleNetwork()
    {
        QFETCH(int, topology);
        QFETCH(int, kind);
        QFETCH(double, bytes);
        const config::HardwareSpec hardware = topologyKinds()[static_cast<size_t>(topology)].hardware;
        sim::CongestionNetwork congestion(hardware);
        const int gpus = congestion.topology().gpuCount();
        std::vector<int> group = test::allGpus(gpus);
        if (static_cast<CollectiveKind>(kind) == CollectiveKind::SendRecv) {
            group = { 0, gpus - 1 };
        }
        const network::CollectiveRequest r = request(static_cast<CollectiveKind>(kind), bytes, group);
        std::vector<network::CollectivePhase> phases;
        const network::CollectiveTime analytical = congestion.analytical().time(r, &phases);
        const double simulated = congestion.time(r);
        qInfo("%s: analytical %.9f s (%s, %zu phases), congestion %.9f s, diff %.1f ns", QTest::currentDataTag(),
            analytical.seconds, network::toString(analytical.algorithm), phases.size(), simulated,
            (simulated - analytical.seconds) * 1e9);
        if (phases.front().pipelineChunks > 1) {
            // Pipelined by chunk: the closed form is the overlap bound (every axis busy from the first chunk's arrival
            // to the last chunk's departure); the flows' own schedule leaves an axis idle now and then, most in an
            // all-gather, whose bottleneck axis comes last (measured: -0.03% to +3.1%).
            // The bound charges every phase's step latencies once; the chunks overlap some of them (-0.03%).
            QVERIFY(simulated >= analytical.seconds * (1 - 1e-3));
            QVERIFY(simulated <= analytical.seconds * 1.04);
        } else {
            QVERIFY(std::abs(simulated - analytical.seconds) <= 1e-9 * 64);
        }
    }

    void ncclStepsLastAsLongInBothBackends()
    {
        // NCCL's measured step (1.41 us against the switch's 600 ns path) lengthens every ring step of a collective
        // NCCL runs: on one switch 14 steps of an all-reduce, on a node x fat-tree group the switch's steps of each
        // phase (or of the flat ring, whichever the analytical model chose). The flows pay the same per step.
        for (const bool twoTier : { false, true }) {
            config::HardwareSpec hardware = twoTier
                ? test::hardware({ test::dimension("nvlink", NetworkKind::Switch, 4, 450, 300),
                    test::fatTree("ib", 8, 2, 4, 1.0, 50, 600) })
                : test::hardware({ test::dimension("nvlink", NetworkKind::Switch, 8, 450, 300) });
            hardware.cluster.dimensions[0].ncclStepSeconds = 1.41e-6;
            sim::CongestionNetwork congestion(hardware);
            for (const CollectiveKind kind : { CollectiveKind::AllReduce, CollectiveKind::ReduceScatter }) {
                for (const double bytes : { 8192.0, 64 * 1024.0 }) {
                    network::CollectiveRequest r
                        = request(kind, bytes, test::allGpus(congestion.topology().gpuCount()));
                    r.library = network::CollectiveLibrary::Nccl;
                    std::vector<network::CollectivePhase> phases;
                    const network::CollectiveTime analytical = congestion.analytical().time(r, &phases);
                    const double simulated = congestion.time(r);
                    qInfo("%s %s %.0f: analytical %.9f s (%s), congestion %.9f s", twoTier ? "two-tier" : "switch",
                        network::toString(kind), bytes, analytical.seconds, network::toString(analytical.algorithm),
                        simulated);
                    if (phases.front().pipelineChunks > 1) {
                        QVERIFY(simulated >= analytical.seconds * (1 - 1e-3));
                        QVERIFY(simulated <= analytical.seconds * 1.04);
                    } else {
                        QVERIFY(std::abs(simulated - analytical.seconds) <= 1e-9 * 64);
                    }
                }
            }
        }
    }

    void pipelinedTorusAllReduceHidesTheOtherAxisBehindADegradedLink()
    {
        // A 4x4 torus (100 GB/s, 500 ns per hop), 256 MiB all-reduce: reduce-scatter along x, all-reduce of the
        // quarter along y, all-gather along x, 8 chunks (256 MiB / (4 x 2 MiB) = 32 loop iterations, capped at 8).
        // With link 5-6 at half rate row 1's x rings run at 50 GB/s: its links carry 2 x 3/4 x 64 MiB at 50 GB/s,
        // W_x = 8.05 ms. Pipelined, the y phase (1.0 ms) overlaps it: the whole takes W_x plus one chunk's share of
        // latency and fill; one phase after another it took W_x + W_y = 9.07 ms, 12% more.
        const config::HardwareSpec hardware = test::hardware(
            { test::dimension("torus", NetworkKind::Torus2d, 16, 100, 500, { 4, 4 }) }, { { "torus:5-6", 0.5 } });
        sim::CongestionNetwork network(hardware);
        const double bytes = 256 * kMiB;
        const double xSlow = 2 * 0.75 * bytes / 50e9;
        const double y = 2 * 0.75 * (bytes / 4) / 100e9;
        const double simulated = network.time(request(CollectiveKind::AllReduce, bytes, test::allGpus(16)));
        qInfo("simulated %.6f ms, bound %.6f ms, one phase after another %.6f ms", simulated * 1e3, xSlow * 1e3,
            (xSlow + y) * 1e3);
        QVERIFY(simulated >= xSlow);
        QVERIFY(simulated <= xSlow * 1.01 + 20e-6);
        QVERIFY(simulated < (xSlow + y) / 1.1);
    }
};

QTEST_APPLESS_MAIN(TestCongestionNetwork)
#include "tst_congestionnetwork.moc"
