// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "sim/simtime.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace rapid::sim {

/// One scheduled event: what happens (@p kind, @p target) at @p time. @p version lets the owner invalidate events
/// lazily (an event whose version no longer matches its target's is skipped), which is cheaper than removing it.
struct Event {
    TimeNs time = 0;
    std::uint64_t sequence = 0; ///< insertion order: breaks ties so equal times pop in FIFO order (reproducible)
    std::uint32_t kind = 0;
    std::uint32_t version = 0;
    std::int64_t target = 0;
};

/// Earliest-first queue of events. Behind an interface so that simulators can be benchmarked with other
/// implementations (bench_eventqueue) without changing them.
class EventQueue {
public:
    virtual ~EventQueue() = default;
    /// Schedules @p event; its sequence number is assigned here.
    virtual void push(Event event) = 0;
    /// Removes and returns the earliest event (ties: first pushed). Undefined when empty.
    virtual Event pop() = 0;
    virtual const Event& top() const = 0;
    virtual bool empty() const = 0;
    virtual std::size_t size() const = 0;
    virtual void clear() = 0;
};

/// Implicit 4-ary min-heap: half the depth of a binary heap, the four children of a node adjacent in memory, one
/// write per level when sifting. bench_eventqueue measures it on par with std::priority_queue (within 10% either way
/// from 10^3 to 10^6 pending events); the simulators spend far more time in rate recomputation than here.
class QuaternaryHeapQueue final : public EventQueue {
public:
    void push(Event event) override;
    Event pop() override;
    const Event& top() const override { return m_heap.front(); }
    bool empty() const override { return m_heap.empty(); }
    std::size_t size() const override { return m_heap.size(); }
    void clear() override { m_heap.clear(); }
    void reserve(std::size_t count) { m_heap.reserve(count); }

private:
    std::vector<Event> m_heap;
    std::uint64_t m_sequence = 0;
};

/// The default queue of the simulators.
std::unique_ptr<EventQueue> makeEventQueue();

} // namespace rapid::sim
