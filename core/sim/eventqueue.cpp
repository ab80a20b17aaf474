// SPDX-License-Identifier: GPL-3.0-or-later
#include "eventqueue.h"

#include <utility>

namespace rapid::sim {

namespace {

bool earlier(const Event& a, const Event& b)
{
    return a.time < b.time || (a.time == b.time && a.sequence < b.sequence);
}

} // namespace

void QuaternaryHeapQueue::push(Event event)
{
    event.sequence = m_sequence++;
    size_t index = m_heap.size();
    m_heap.push_back(event);
    // Sift up: move parents down until the event's place is found (one write per level).
    while (index > 0) {
        const size_t parent = (index - 1) / 4;
        if (!earlier(event, m_heap[parent])) {
            break;
        }
        m_heap[index] = m_heap[parent];
        index = parent;
    }
    m_heap[index] = event;
}

Event QuaternaryHeapQueue::pop()
{
    const Event result = m_heap.front();
    const Event last = m_heap.back();
    m_heap.pop_back();
    const size_t count = m_heap.size();
    if (count == 0) {
        return result;
    }
    size_t index = 0;
    while (true) {
        const size_t first = index * 4 + 1;
        if (first >= count) {
            break;
        }
        size_t best = first;
        const size_t end = first + 4 < count ? first + 4 : count;
        for (size_t child = first + 1; child < end; ++child) {
            if (earlier(m_heap[child], m_heap[best])) {
                best = child;
            }
        }
        if (!earlier(m_heap[best], last)) {
            break;
        }
        m_heap[index] = m_heap[best];
        index = best;
    }
    m_heap[index] = last;
    return result;
}

std::unique_ptr<EventQueue> makeEventQueue()
{
    return std::make_unique<QuaternaryHeapQueue>();
}

} // namespace rapid::sim
