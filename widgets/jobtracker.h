// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QThreadPool>

#include <atomic>
#include <memory>

namespace rapid::widgets {

/// The bookkeeping of a runner that does one cancellable job at a time on its own worker thread (CongestionRunner,
/// SweepJob): a stop flag per job and a generation counter, so that a cancelled or superseded job never applies a
/// result and its late progress is ignored. The runner emits its own signals.
class JobTracker {
public:
    JobTracker() { m_pool.setMaxThreadCount(1); }
    /// Stops the running job and waits for the worker, so nothing a job captured outlives its runner.
    ~JobTracker()
    {
        if (m_stop) {
            m_stop->store(true);
        }
        m_pool.waitForDone();
    }
    JobTracker(const JobTracker&) = delete;
    JobTracker& operator=(const JobTracker&) = delete;

    /// Stops the running job, if any, and tracks a new one; returns its generation.
    quint64 begin()
    {
        if (m_running) {
            m_stop->store(true);
        }
        m_stop = std::make_shared<std::atomic<bool>>(false);
        m_running = true;
        return ++m_generation;
    }
    /// Stops the running job and forgets it (whatever it still returns is dropped); false when none runs.
    bool cancel()
    {
        if (!m_running) {
            return false;
        }
        m_stop->store(true);
        ++m_generation;
        m_running = false;
        return true;
    }
    /// A job's result arrived: true (and the job is over) when it is the current one, false when it was cancelled
    /// or superseded and its result must be dropped.
    bool finish(quint64 generation)
    {
        if (generation != m_generation) {
            return false;
        }
        m_running = false;
        return true;
    }
    bool isCurrent(quint64 generation) const { return generation == m_generation; }
    bool isRunning() const { return m_running; }
    /// The current job's stop flag (shared with its worker).
    std::shared_ptr<std::atomic<bool>> stopFlag() const { return m_stop; }
    QThreadPool* pool() { return &m_pool; }

private:
    QThreadPool m_pool;
    quint64 m_generation = 0;
    std::shared_ptr<std::atomic<bool>> m_stop;
    bool m_running = false;
};

} // namespace rapid::widgets
