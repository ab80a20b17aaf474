// SPDX-License-Identifier: GPL-3.0-or-later
// The event queue of the flow simulator: a hold model (pop the earliest, push one a random time later) at the queue
// sizes the congestion backend sees (10^3 to 10^6 pending events), for our 4-ary heap and for std::priority_queue as
// the baseline it must beat.
#include "sim/eventqueue.h"

#include <QTest>

#include <queue>
#include <random>

using namespace rapid;

namespace {

struct Later {
    bool operator()(const sim::Event& a, const sim::Event& b) const
    {
        return a.time > b.time || (a.time == b.time && a.sequence > b.sequence);
    }
};

/// std::priority_queue behind the same interface.
class StdHeapQueue final : public sim::EventQueue {
public:
    void push(sim::Event event) override
    {
        event.sequence = m_sequence++;
        m_queue.push(event);
    }
    sim::Event pop() override
    {
        sim::Event event = m_queue.top();
        m_queue.pop();
        return event;
    }
    const sim::Event& top() const override { return m_queue.top(); }
    bool empty() const override { return m_queue.empty(); }
    std::size_t size() const override { return m_queue.size(); }
    void clear() override { m_queue = {}; }

private:
    std::priority_queue<sim::Event, std::vector<sim::Event>, Later> m_queue;
    std::uint64_t m_sequence = 0;
};

/// One million hold operations on a queue of @p pending events; returns a checksum.
std::int64_t hold(sim::EventQueue& queue, int pending)
{
    std::mt19937_64 random(42);
    for (int i = 0; i < pending; ++i) {
        queue.push({ static_cast<sim::TimeNs>(random() % 1000000), 0, 0, 0, i });
    }
    std::int64_t checksum = 0;
    for (int i = 0; i < 1000000; ++i) {
        const sim::Event event = queue.pop();
        checksum += event.target;
        queue.push({ event.time + static_cast<sim::TimeNs>(random() % 1000000), 0, 0, 0, event.target });
    }
    queue.clear();
    return checksum;
}

} // namespace

class BenchEventQueue : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void holdMillion_data()
    {
        QTest::addColumn<int>("pending");
        QTest::addColumn<bool>("quaternary");
        for (int pending : { 1000, 100000, 1000000 }) {
            QTest::addRow("4-ary heap, %d pending", pending) << pending << true;
            QTest::addRow("std::priority_queue, %d pending", pending) << pending << false;
        }
    }
    void holdMillion()
    {
        QFETCH(int, pending);
        QFETCH(bool, quaternary);
        std::int64_t sink = 0;
        QBENCHMARK_ONCE
        {
            if (quaternary) {
                sim::QuaternaryHeapQueue queue;
                sink += hold(queue, pending);
            } else {
                StdHeapQueue queue;
                sink += hold(queue, pending);
            }
        }
        QVERIFY(sink != 0);
    }
};

QTEST_GUILESS_MAIN(BenchEventQueue)
#include "bench_eventqueue.moc"
