// SPDX-License-Identifier: GPL-3.0-or-later
#include "roworder_p.h"

#include <algorithm>

namespace rapid::sweep {

RowOrder::RowOrder(std::int64_t window, Deliver deliver)
    : m_window(std::max<std::int64_t>(1, window))
    , m_deliver(std::move(deliver))
    , m_ring(static_cast<size_t>(m_window))
{
}

void RowOrder::waitForRoom(std::int64_t index)
{
    if (index < m_published.load(std::memory_order_acquire) + m_window) {
        return;
    }
    std::unique_lock<std::mutex> lock(m_mutex);
    m_room.wait(lock, [&] { return index < m_next + m_window; });
}

void RowOrder::put(SweepRow&& row)
{
    const std::lock_guard<std::mutex> lock(m_mutex);
    if (row.index != m_next) {
        m_ring[static_cast<size_t>(row.index % m_window)] = std::move(row);
        return;
    }
    deliver(std::move(row));
    for (;;) {
        std::optional<SweepRow>& slot = m_ring[static_cast<size_t>(m_next % m_window)];
        if (!slot || slot->index != m_next) {
            break;
        }
        deliver(std::move(*slot));
        slot.reset();
    }
    m_published.store(m_next, std::memory_order_release);
    m_room.notify_all();
}

void RowOrder::deliver(SweepRow&& row)
{
    ++m_next;
    if (m_failed.load(std::memory_order_relaxed)) {
        return;
    }
    try {
        m_deliver(std::move(row));
    } catch (...) {
        m_error = std::current_exception();
        m_failed.store(true, std::memory_order_relaxed);
    }
}

void RowOrder::rethrow() const
{
    if (m_error) {
        std::rethrow_exception(m_error);
    }
}

} // namespace rapid::sweep
