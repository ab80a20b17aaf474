// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "sweep/sweeprunner.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <vector>

namespace rapid::sweep {

/// Puts the rows the workers finish back into index order: each row is delivered once every row before it was, and
/// rows waiting for an earlier one sit in a ring of @p window slots. Workers take indices in increasing order, so the
/// earliest unfinished point is always in flight; a worker whose point lies beyond the window waits for it
/// (waitForRoom) instead of the ring growing.
class RowOrder {
public:
    using Deliver = std::function<void(SweepRow&& row)>;

    RowOrder(std::int64_t window, Deliver deliver);

    /// Blocks until @p index fits in the window (the worker of the next row to deliver never waits).
    void waitForRoom(std::int64_t index);
    /// Hands over a finished row; delivers it and the rows it held back, serialised, on the calling thread.
    void put(SweepRow&& row);
    /// Whether a delivery threw: the sweep should stop (deliveries stop too; rethrow() hands the exception on).
    bool failed() const { return m_failed.load(std::memory_order_relaxed); }
    void rethrow() const;

private:
    void deliver(SweepRow&& row);

    std::int64_t m_window;
    Deliver m_deliver;
    std::mutex m_mutex;
    std::condition_variable m_room;
    std::int64_t m_next = 0; ///< the index delivered next (guarded by m_mutex)
    std::atomic<std::int64_t> m_published { 0 }; ///< m_next, for waitForRoom's check without the lock
    std::vector<std::optional<SweepRow>> m_ring; ///< slot index % window
    std::atomic<bool> m_failed { false };
    std::exception_ptr m_error;
};

} // namespace rapid::sweep
