// SPDX-License-Identifier: GPL-3.0-or-later
// The flow-level simulator against completion times derived by hand: a lone flow, fair sharing of one link, max-min
// fairness with two bottlenecks of different capacity, dependencies and delays, ECMP weights, integer-ns rounding,
// the event queue's order, and cancellation.
#include "../network/networktestutils.h"
#include "config/diagnostic.h"
#include "sim/eventqueue.h"
#include "sim/flowsimulator.h"

#include <QTest>

#include <random>

using namespace rapid;
using config::NetworkKind;

namespace {

/// 3x2 mesh at 100 GB/s (= 100 bytes/ns) per direction and 500 ns per hop: GPU 0 - 1 - 2 in the first row.
config::HardwareSpec mesh(std::vector<config::LinkFault> faults = {})
{
    return test::hardware({ test::dimension("mesh", NetworkKind::Mesh2d, 6, 100, 500, { 3, 2 }) }, std::move(faults));
}

struct Fixture {
    explicit Fixture(const config::HardwareSpec& hardware)
        : topology(std::make_shared<network::Topology>(hardware))
        , routes(topology)
        , simulator(routes)
    {
    }
    sim::FlowId flow(int from, int to, double bytes, std::vector<sim::FlowId> dependencies = {}, sim::TimeNs delay = 0)
    {
        return simulator.add({ routes.route(from, to), bytes, delay, 0 }, dependencies);
    }
    std::shared_ptr<network::Topology> topology;
    sim::RouteCache routes;
    sim::FlowSimulator simulator;
};

} // namespace

class TestFlowSimulator : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void eventQueuePopsEarliestFirstAndTiesInInsertionOrder()
    {
        sim::QuaternaryHeapQueue queue;
        std::mt19937 random(7);
        std::vector<std::pair<sim::TimeNs, int>> expected;
        for (int i = 0; i < 5000; ++i) {
            const sim::TimeNs time = static_cast<sim::TimeNs>(random() % 100);
            queue.push({ time, 0, 0, 0, i });
            expected.push_back({ time, i });
        }
        std::stable_sort(
            expected.begin(), expected.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        for (const auto& [time, target] : expected) {
            QVERIFY(!queue.empty());
            const sim::Event event = queue.pop();
            QCOMPARE(event.time, time);
            QCOMPARE(event.target, static_cast<std::int64_t>(target));
        }
        QVERIFY(queue.empty());
    }

    void loneFlowTakesBytesOverBandwidthPlusLatency()
    {
        Fixture f(mesh());
        // 1.2 MB at 100 B/ns = 12,000 ns, two hops of 500 ns.
        const sim::FlowId id = f.flow(0, 2, 1.2e6);
        f.simulator.run();
        QCOMPARE(f.simulator.finishTime(id), sim::TimeNs(12000 + 1000));
        QCOMPARE(f.simulator.startTime(id), sim::TimeNs(0));
    }

    void twoFlowsSharingOneLinkEachGetHalf()
    {
        Fixture f(mesh());
        // 0->2 and 1->2 share only the link 1->2: 50 B/ns each, 1.2 MB takes 24,000 ns, plus 2 and 1 hops.
        const sim::FlowId a = f.flow(0, 2, 1.2e6);
        const sim::FlowId b = f.flow(1, 2, 1.2e6);
        f.simulator.run();
        QCOMPARE(f.simulator.finishTime(a), sim::TimeNs(24000 + 1000));
        QCOMPARE(f.simulator.finishTime(b), sim::TimeNs(24000 + 500));
        // The shared link carried both flows' bytes.
        const int shared = f.topology->findLink("mesh:1-2");
        QCOMPARE(f.simulator.linkBytes()[static_cast<size_t>(shared)], 2.4e6);
    }

    void maxMinFairnessGivesTheSpareCapacityToTheUnconstrainedFlow()
    {
        // Link 1-2 degraded to 50 B/ns. Flow A 0->2 crosses 0-1 and 1-2, B 0->1 crosses 0-1, C 1->2 crosses 1-2.
        // Max-min: 1-2 is the bottleneck, A = C = 25 B/ns; B takes the rest of 0-1: 75 B/ns (an equal split of
        // 0-1 would give it 50). B: 1.2 MB / 75 = 16,000 ns (+500). A and C stay at 25 B/ns (1-2 still binds):
        // 1.2 MB / 25 = 48,000 ns (+1000 and +500).
        Fixture f(mesh({ { "mesh:1-2", 0.5 } }));
        const sim::FlowId a = f.flow(0, 2, 1.2e6);
        const sim::FlowId b = f.flow(0, 1, 1.2e6);
        const sim::FlowId c = f.flow(1, 2, 1.2e6);
        f.simulator.run();
        QCOMPARE(f.simulator.finishTime(b), sim::TimeNs(16000 + 500));
        QCOMPARE(f.simulator.finishTime(a), sim::TimeNs(48000 + 1000));
        QCOMPARE(f.simulator.finishTime(c), sim::TimeNs(48000 + 500));
    }

    void flowSpeedsUpWhenItsCompetitorFinishes()
    {
        // 0->2 (1.2 MB) and 1->2 (0.6 MB) share 1->2 at 50 B/ns each; the short one drains at 12,000 ns, then the
        // long one has 0.6 MB left at 100 B/ns: 6,000 ns more. Finish: 18,000 + 1,000.
        Fixture f(mesh());
        const sim::FlowId big = f.flow(0, 2, 1.2e6);
        const sim::FlowId small = f.flow(1, 2, 0.6e6);
        // The clock ends at the last arrival: the big flow's first drain estimate (24,000 ns at 50 B/ns), superseded
        // when it sped up, must not advance it (found by the ns-3 cross-check).
        QCOMPARE(f.simulator.run(), sim::TimeNs(18000 + 1000));
        QCOMPARE(f.simulator.finishTime(small), sim::TimeNs(12000 + 500));
        QCOMPARE(f.simulator.finishTime(big), sim::TimeNs(18000 + 1000));
    }

    void dependenciesAndDelaysChain()
    {
        // first: 12,000 + 500; second waits for it, then 250 ns of delay, then 12,000 + 500.
        Fixture f(mesh());
        const sim::FlowId first = f.flow(0, 1, 1.2e6);
        const sim::FlowId second = f.flow(1, 2, 1.2e6, { first }, 250);
        const sim::FlowId joined = f.flow(2, 2, 0, { first, second });
        f.simulator.run();
        QCOMPARE(f.simulator.finishTime(first), sim::TimeNs(12500));
        QCOMPARE(f.simulator.startTime(second), sim::TimeNs(12750));
        QCOMPARE(f.simulator.finishTime(second), sim::TimeNs(25250));
        // A zero-byte flow from a GPU to itself finishes when it becomes ready.
        QCOMPARE(f.simulator.finishTime(joined), sim::TimeNs(25250));
        QCOMPARE(f.simulator.pendingFlows(), 0);
    }

    void queuedBehindAFlowStartsAtItsTransmitEnd()
    {
        // 1.2e6 bytes at 100 B/ns: 12,000 ns on the wire, then 500 ns of latency. The second message, queued behind
        // the first on the same connection (afterSent), leaves from 12,000 to 24,000 ns and arrives at 24,500;
        // waiting for the first to arrive it would have finished at 25,000. An empty message queued behind the
        // second is sent when it starts, so the one behind it starts then too (24,000 ns).
        Fixture f(mesh());
        const sim::FlowId first = f.flow(0, 1, 1.2e6);
        const std::vector<sim::FlowId> behindFirst { first };
        const sim::FlowId second = f.simulator.add({ f.routes.route(0, 1), 1.2e6, 0, 0 }, {}, behindFirst);
        const std::vector<sim::FlowId> behindSecond { second };
        const sim::FlowId empty = f.simulator.add({ f.routes.route(0, 1), 0, 0, 0 }, {}, behindSecond);
        const std::vector<sim::FlowId> behindEmpty { empty };
        const sim::FlowId last = f.simulator.add({ f.routes.route(0, 1), 0, 0, 0 }, {}, behindEmpty);
        f.simulator.run();
        QCOMPARE(f.simulator.finishTime(first), sim::TimeNs(12500));
        QCOMPARE(f.simulator.startTime(second), sim::TimeNs(12000));
        QCOMPARE(f.simulator.finishTime(second), sim::TimeNs(24500));
        QCOMPARE(f.simulator.startTime(empty), sim::TimeNs(24000));
        QCOMPARE(f.simulator.startTime(last), sim::TimeNs(24000));
        QCOMPARE(f.simulator.pendingFlows(), 0);
    }

    void drainsRoundUpToWholeNanoseconds()
    {
        // 1,000,001 bytes at 100 B/ns = 10,000.01 ns: the last byte leaves in the 10,001st ns.
        Fixture f(mesh());
        const sim::FlowId id = f.flow(0, 1, 1000001);
        f.simulator.run();
        QCOMPARE(f.simulator.finishTime(id), sim::TimeNs(10001 + 500));
    }

    void ecmpWeightsLimitTheFlowByItsBusiestShare()
    {
        // A 2x2-port fat tree of 4 GPUs (radix 4: 2 leaves of 2 GPUs, 2 spines). GPU 0 -> GPU 2 splits over both
        // spines: each uplink carries half the flow, the endpoint links all of it: 100 B/ns. Two such flows (0->2,
        // 1->3) share both uplinks of leaf 0 (each uplink: 2 x half = 1 flow's worth), so they still run at 100 B/ns:
        // 1.2 MB in 12,000 ns, plus 4 hops of 500 ns.
        Fixture f(test::hardware({ test::fatTree("ib", 4, 2, 4, 1.0, 100, 500) }));
        const sim::FlowId a = f.flow(0, 2, 1.2e6);
        const sim::FlowId b = f.flow(1, 3, 1.2e6);
        f.simulator.run();
        QCOMPARE(f.simulator.finishTime(a), sim::TimeNs(12000 + 2000));
        QCOMPARE(f.simulator.finishTime(b), sim::TimeNs(12000 + 2000));
    }

    void flowsAddedByACallbackRunInTheSameSimulation()
    {
        // The step co-simulation adds a collective's flows when a graph node becomes ready.
        Fixture f(mesh());
        sim::FlowId follow = -1;
        f.simulator.onFinish = [&](sim::FlowId id, int) {
            if (follow < 0 && id == 0) {
                follow = f.simulator.add({ f.routes.route(1, 2), 1.2e6, 0, 7 });
            }
        };
        f.flow(0, 1, 1.2e6);
        f.simulator.run();
        QVERIFY(follow >= 0);
        QCOMPARE(f.simulator.startTime(follow), sim::TimeNs(12500));
        QCOMPARE(f.simulator.finishTime(follow), sim::TimeNs(25000));
    }

    void timesBeyondTheCeilingAreInputLimitsNotWrappedNumbers()
    {
        // 10^18 B at 100 B/ns is 10^16 ns, under the 10^17 ns ceiling: exact. 10^22 B would take 10^20 ns, and
        // twenty chained transfers of 5 x 10^17 B sum past the ceiling though each one is under it: both refused.
        Fixture exact(mesh());
        const sim::FlowId big = exact.flow(0, 2, 1e18);
        exact.simulator.run();
        QCOMPARE(exact.simulator.finishTime(big), sim::TimeNs(10'000'000'000'000'000) + 1000);
        Fixture huge(mesh());
        huge.flow(0, 2, 1e22);
        QVERIFY_THROWS_EXCEPTION(config::InputLimitError, huge.simulator.run());
        Fixture chained(mesh());
        sim::FlowId previous = chained.flow(0, 1, 5e17);
        for (int i = 1; i < 20; ++i) {
            previous = chained.flow(0, 1, 5e17, { previous });
        }
        QVERIFY_THROWS_EXCEPTION(config::InputLimitError, chained.simulator.run());
        QVERIFY_THROWS_EXCEPTION(config::InputLimitError, sim::toNanoseconds(1e9)); // 31 years
        QVERIFY_THROWS_EXCEPTION(config::InputLimitError, sim::toNanoseconds(std::nan("")));
        QCOMPARE(sim::toNanoseconds(1e8), sim::kMaxSimulatedTime);
    }

    void rejectsBadInput()
    {
        Fixture f(mesh());
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, f.simulator.add({ 0, -1.0, 0, 0 }));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, f.simulator.add({ 999, 1.0, 0, 0 }));
        const sim::FlowId later[] = { 5 };
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, f.simulator.add({ f.routes.route(0, 1), 1.0, 0, 0 }, later));
    }

    void cancellationStopsTheRun()
    {
        Fixture f(mesh());
        sim::FlowId previous = f.flow(0, 1, 1000);
        for (int i = 0; i < 5000; ++i) {
            const sim::FlowId dependencies[] = { previous };
            previous = f.simulator.add({ f.routes.route(0, 1), 1000, 0, 0 }, dependencies);
        }
        std::atomic<bool> stop { true };
        QVERIFY_THROWS_EXCEPTION(sim::SimulationCancelled, f.simulator.run(&stop));
        QVERIFY(f.simulator.pendingFlows() > 0);
    }
};

QTEST_APPLESS_MAIN(TestFlowSimulator)
#include "tst_flowsimulator.moc"
