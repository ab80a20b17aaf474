// SPDX-License-Identifier: GPL-3.0-or-later
// The packet-level simulator against completion times derived by hand: store-and-forward pipelining of a lone
// flow, partial last packets and headers, two flows alternating packet by packet on a shared port, dependencies and
// delays, zero-byte and self flows, the ring all-reduce closed form, convergence to the fluid model for long
// messages, cancellation and bad options.
#include "../network/networktestutils.h"
#include "config/diagnostic.h"
#include "sim/congestionnetwork.h"
#include "sim/flowsimulator.h"
#include "sim/packetsimulator.h"

#include <QTest>

#include <algorithm>
#include <cmath>

using namespace rapid;
using config::NetworkKind;

namespace {

constexpr double kNs = 1e-9;

/// 3x2 mesh at 100 GB/s (= 100 bytes/ns) per direction and 500 ns per hop: GPU 0 - 1 - 2 in the first row.
network::Topology mesh()
{
    return network::Topology(test::hardware({ test::dimension("mesh", NetworkKind::Mesh2d, 6, 100, 500, { 3, 2 }) }));
}

int addFlow(sim::FlowProgram& program, int src, int dst, double bytes, std::vector<int> dependencies = {},
    sim::TimeNs delay = 0)
{
    sim::FlowProgram::Flow flow;
    flow.src = src;
    flow.dst = dst;
    flow.bytes = bytes;
    flow.delay = delay;
    return program.add(flow, dependencies);
}

/// 1,000-byte packets without header: 10 ns on a 100 B/ns link.
sim::PacketOptions kilobytePackets(double header = 0)
{
    return { 1000, header };
}

bool nanosecondsEqual(double seconds, double expectedNs)
{
    return std::abs(seconds / kNs - expectedNs) < 1e-6;
}

} // namespace

class TestPacketSimulator : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void loneFlowPipelinesItsPacketsHopByHop()
    {
        // 10 packets over two hops (0 -> 1 -> 2): the first link sends them back to back in 100 ns; the last one is
        // forwarded whole by GPU 1 (10 ns more on the second link); two hops of 500 ns. 100 + 10 + 1000 = 1110 ns,
        // which is the fluid model's time plus one packet of store-and-forward.
        sim::FlowProgram program;
        addFlow(program, 0, 2, 10000);
        const sim::PacketRun run = sim::simulatePackets(program, mesh(), kilobytePackets());
        QVERIFY2(nanosecondsEqual(run.finishSeconds[0], 1110), qPrintable(QString::number(run.finishSeconds[0])));
        QCOMPARE(run.packets, std::uint64_t(10));
        QVERIFY(nanosecondsEqual(run.completionSeconds, 1110));
    }

    void lastPacketCarriesTheRemainderAndEveryPacketItsHeader()
    {
        // 1,000-byte packets with 100 header bytes carry 900 payload bytes: 2,000 bytes are 900 + 900 + 200, on the
        // wire 1000 + 1000 + 300 = 2,300 bytes = 23 ns on one hop, plus 500 ns.
        sim::FlowProgram program;
        addFlow(program, 0, 1, 2000);
        const network::Topology topology = mesh();
        const sim::PacketRun run = sim::simulatePackets(program, topology, kilobytePackets(100));
        QVERIFY(nanosecondsEqual(run.finishSeconds[0], 523));
        QCOMPARE(run.packets, std::uint64_t(3));
        QCOMPARE(run.linkBytes[static_cast<size_t>(topology.findLink("mesh:0-1"))], 2300.0);
    }

    void twoFlowsAlternatePacketByPacketOnASharedPort()
    {
        // 0 -> 2 and 1 -> 2 (100 packets each) share the port 1 -> 2. The second waits 510 ns, when the first
        // one's first packet reaches GPU 1, so both are backlogged there from 510 ns on (the first flow's packets
        // keep arriving every 10 ns, faster than its half of the port drains them). Fair queueing alternates: the
        // port sends 200 packets in 2,000 ns, the last two finish sending at 2,500 and 2,510 ns and arrive 500 ns
        // later.
        sim::FlowProgram program;
        addFlow(program, 0, 2, 100000);
        addFlow(program, 1, 2, 100000, {}, 510);
        const sim::PacketRun run = sim::simulatePackets(program, mesh(), kilobytePackets());
        std::vector<double> finish = run.finishSeconds;
        std::sort(finish.begin(), finish.end());
        QVERIFY2(nanosecondsEqual(finish[0], 3000), qPrintable(QString::number(finish[0] / kNs)));
        QVERIFY2(nanosecondsEqual(finish[1], 3010), qPrintable(QString::number(finish[1] / kNs)));
    }

    void dependenciesDelaysAndEmptyFlows()
    {
        // first: 10 packets on one hop, 100 + 500 ns. second waits for it, then 250 ns, then 100 + 500: 1,450 ns.
        // An empty flow over two hops arrives after their latency (1,000 ns after it starts at 1,450); a flow from a
        // GPU to itself finishes when it starts.
        sim::FlowProgram program;
        const int first = addFlow(program, 0, 1, 10000);
        const int second = addFlow(program, 1, 2, 10000, { first }, 250);
        const int empty = addFlow(program, 0, 2, 0, { second });
        const int self = addFlow(program, 2, 2, 5000, { second });
        const sim::PacketRun run = sim::simulatePackets(program, mesh(), kilobytePackets());
        QVERIFY(nanosecondsEqual(run.finishSeconds[static_cast<size_t>(first)], 600));
        QVERIFY(nanosecondsEqual(run.finishSeconds[static_cast<size_t>(second)], 1450));
        QVERIFY(nanosecondsEqual(run.finishSeconds[static_cast<size_t>(empty)], 2450));
        QVERIFY(nanosecondsEqual(run.finishSeconds[static_cast<size_t>(self)], 1450));
        QVERIFY(nanosecondsEqual(run.completionSeconds, 2450));
    }

    void queuedBehindAFlowFollowsItsLastPacket()
    {
        // 10 packets of 10 ns on one hop (0 -> 1): the last leaves at 100 ns and arrives at 600. A message queued
        // behind it (sent dependency) starts at 100 ns, its packets leave by 200 and the last arrives at 700; one
        // waiting for the first to arrive finishes at 600 + 100 + 500 = 1,200.
        sim::FlowProgram program;
        const int first = addFlow(program, 0, 1, 10000);
        sim::FlowProgram::Flow queued;
        queued.src = 0;
        queued.dst = 1;
        queued.bytes = 10000;
        const std::vector<int> behind { first };
        const int second = program.add(queued, {}, behind);
        const int after = addFlow(program, 0, 1, 10000, { first });
        const sim::PacketRun run = sim::simulatePackets(program, mesh(), kilobytePackets());
        QVERIFY(nanosecondsEqual(run.finishSeconds[static_cast<size_t>(first)], 600));
        QVERIFY2(nanosecondsEqual(run.finishSeconds[static_cast<size_t>(second)], 700),
            qPrintable(QString::number(run.finishSeconds[static_cast<size_t>(second)] / kNs)));
        QVERIFY(nanosecondsEqual(run.finishSeconds[static_cast<size_t>(after)], 1200));
    }

    void ringAllReduceMatchesTheClosedForm()
    {
        // Ring all-reduce on an idle 4-GPU ring: 2(p-1) = 6 steps, each a 10,000-byte chunk (S/p, 10 packets) to the
        // neighbour over one hop: 100 ns + 1,000 ns. 2(p-1)/p S/B + 2(p-1) alpha = 600 + 6,000 ns; no launch.
        sim::CongestionOptions options;
        options.launchSeconds = 0;
        sim::CongestionNetwork network(
            test::hardware({ test::dimension("ring", NetworkKind::Ring, 4, 100, 1000) }), options);
        network::CollectiveRequest request;
        request.kind = network::CollectiveKind::AllReduce;
        request.bytes = 40000;
        request.gpus = test::allGpus(4);
        request.algorithm = network::CollectiveAlgorithm::Ring;
        const network::CollectiveRequest requests[] = { request };
        const sim::CongestionRun run = network.runPackets(requests, kilobytePackets());
        QVERIFY2(nanosecondsEqual(run.seconds[0], 6600), qPrintable(QString::number(run.seconds[0] / kNs)));
        QCOMPARE(run.packets, std::uint64_t(4 * 6 * 10));
    }

    void longMessagesConvergeToTheFluidModel()
    {
        // With thousands of packets per path, packets are a fine grain: a 64 MiB all-to-all on a two-tier fat tree
        // of 16 (ECMP over 4 spines, every flow split in four) takes what the max-min fluid model with the same
        // store-and-forward term says, within 1%.
        const config::HardwareSpec hardware = test::hardware({ test::fatTree("ib", 16, 2, 8, 1.0, 25, 675) });
        network::CollectiveRequest request;
        request.kind = network::CollectiveKind::AllToAll;
        request.bytes = 64.0 * 1048576;
        request.gpus = test::allGpus(16);
        const network::CollectiveRequest requests[] = { request };
        sim::CongestionOptions fluidOptions;
        fluidOptions.packetBytes = 4096;
        const double fluid = sim::CongestionNetwork(hardware, fluidOptions).run(requests).seconds[0];
        const double packets = sim::CongestionNetwork(hardware).runPackets(requests, { 4096, 0 }).seconds[0];
        QVERIFY2(std::abs(packets / fluid - 1) < 0.01,
            qPrintable(QStringLiteral("packet %1 s, fluid %2 s").arg(packets).arg(fluid)));
    }

    void cancellationStopsTheRun()
    {
        // 100,000 packets: more events than the simulator handles between two looks at the stop flag.
        sim::FlowProgram program;
        addFlow(program, 0, 1, 1e8);
        std::atomic<bool> stop { true };
        QVERIFY_THROWS_EXCEPTION(
            sim::SimulationCancelled, sim::simulatePackets(program, mesh(), kilobytePackets(), &stop));
    }

    void rejectsPacketsWithoutPayloadAndBackwardDependencies()
    {
        sim::FlowProgram program;
        addFlow(program, 0, 1, 1000);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, sim::simulatePackets(program, mesh(), { 100, 100 }));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, sim::simulatePackets(program, mesh(), { 0, 0 }));
        sim::FlowProgram backwards;
        addFlow(backwards, 0, 1, 1000);
        backwards.flows[0].firstDependency = 0;
        backwards.flows[0].dependencyCount = 1;
        backwards.dependencies = { 0 };
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, sim::simulatePackets(backwards, mesh(), kilobytePackets()));
        // Too big to simulate packet by packet: refused before anything runs. 10 packets over 2 hops are 20
        // packet-hops.
        sim::FlowProgram big;
        addFlow(big, 0, 2, 10000);
        sim::PacketOptions limited = kilobytePackets();
        limited.maxPacketHops = 19;
        QVERIFY_THROWS_EXCEPTION(config::InputLimitError, sim::simulatePackets(big, mesh(), limited));
        limited.maxPacketHops = 20;
        QVERIFY(nanosecondsEqual(sim::simulatePackets(big, mesh(), limited).completionSeconds, 1110));
    }
};

QTEST_APPLESS_MAIN(TestPacketSimulator)
#include "tst_packetsimulator.moc"
