// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "sim/flowsimulator.h"

#include <QFutureWatcher>
#include <QMetaObject>
#include <QPointer>
#include <QString>
#include <QThreadPool>
#include <QtConcurrent/QtConcurrentRun>

#include <atomic>
#include <exception>
#include <memory>
#include <variant>

namespace rapid::widgets {

/// The job saw its stop flag (sim::SimulationCancelled).
struct JobStopped { };
/// What a job ended with: its result, the message of the exception it threw, or JobStopped. Exceptions do not cross
/// the thread boundary; they travel as text.
template <typename Result> using JobOutcome = std::variant<Result, QString, JobStopped>;

/// The bookkeeping of a runner that does one cancellable job at a time on its own worker thread (CongestionRunner,
/// CollectiveRunner, SweepJob, ChakraExportJob): a stop flag per job and a generation counter, so that a cancelled
/// or superseded job never applies a result and its late progress is ignored. The runner emits its own signals.
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

    /// Runs @p work(stop flag) -> Result on the worker as job @p generation (from begin()) and hands its outcome to
    /// @p deliver on @p owner's thread, unless the job was cancelled or superseded meanwhile.
    template <typename Result, typename Work, typename Deliver>
    void run(QObject* owner, quint64 generation, Work work, Deliver deliver)
    {
        using Outcome = JobOutcome<Result>;
        auto* watcher = new QFutureWatcher<Outcome>(owner);
        QObject::connect(watcher, &QFutureWatcher<Outcome>::finished, owner, [this, watcher, generation, deliver] {
            watcher->deleteLater();
            if (finish(generation)) {
                deliver(watcher->result());
            }
        });
        watcher->setFuture(QtConcurrent::run(&m_pool, [work, stop = m_stop]() -> Outcome {
            try {
                return work(stop.get());
            } catch (const sim::SimulationCancelled&) {
                return JobStopped {};
            } catch (const std::exception& error) {
                return QString::fromUtf8(error.what());
            }
        }));
    }

    /// A callable for the worker of job @p generation that posts @p notify(args...) to @p owner's thread, where it
    /// runs only while that job is still the current one (a stale job's progress is ignored). The runner's
    /// destructor waits for the worker, so the owner outlives every call.
    template <typename... Args, typename Notify>
    auto postWhileCurrent(QObject* owner, quint64 generation, Notify notify)
    {
        QPointer<QObject> guard(owner);
        return [this, guard, generation, notify](Args... args) {
            QMetaObject::invokeMethod(
                guard,
                [this, guard, generation, notify, args...] {
                    if (guard && isCurrent(generation)) {
                        notify(args...);
                    }
                },
                Qt::QueuedConnection);
        };
    }

private:
    QThreadPool m_pool;
    quint64 m_generation = 0;
    std::shared_ptr<std::atomic<bool>> m_stop;
    bool m_running = false;
};

} // namespace rapid::widgets
