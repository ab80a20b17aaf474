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

/// The one way widgets run work off the GUI thread (EvaluationRunner, CongestionRunner, CollectiveRunner, SweepJob,
/// ChakraExportJob, the Graph tab's layouts): a stop flag per job and a generation counter, so that a cancelled or
/// superseded job never applies a result and its late progress is ignored (latest wins); jobs that must each deliver
/// (runDetached) share the worker. The runner emits its own signals.
class JobTracker {
public:
    /// Jobs run one at a time on the tracker's own worker thread, which its destructor waits for.
    JobTracker() { m_ownPool.setMaxThreadCount(1); }
    /// Jobs run on @p shared (e.g. QThreadPool::globalInstance()) and are not waited for on destruction: for work
    /// that cannot be interrupted (Graphviz) and holds only what it owns, so closing a view never blocks.
    explicit JobTracker(QThreadPool* shared)
        : m_pool(shared)
    {
    }
    /// Stops the running job and (own worker) waits for it, so nothing a job captured outlives its runner.
    ~JobTracker()
    {
        if (m_stop) {
            m_stop->store(true);
        }
        if (m_pool == &m_ownPool) {
            m_ownPool.waitForDone();
        }
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
    quint64 generation() const { return m_generation; }
    /// Jobs whose outcome has not come back yet, superseded and detached ones included.
    int jobsInFlight() const { return m_inFlight; }
    /// The current job's stop flag (shared with its worker).
    std::shared_ptr<std::atomic<bool>> stopFlag() const { return m_stop; }
    QThreadPool* pool() { return m_pool; }

    /// Runs @p work(stop flag) -> Result on the worker as job @p generation (from begin()) and hands its outcome to
    /// @p deliver on @p owner's thread, unless the job was cancelled or superseded meanwhile.
    template <typename Result, typename Work, typename Deliver>
    void run(QObject* owner, quint64 generation, Work work, Deliver deliver)
    {
        start<Result>(owner, m_stop, work, [this, generation, deliver](const JobOutcome<Result>& outcome) {
            if (finish(generation)) {
                deliver(outcome);
            }
        });
    }

    /// Runs @p work(stop flag) -> Result on the worker outside the latest-wins order: it neither supersedes the
    /// current job nor is superseded, and @p deliver always receives its outcome (a request that needs its own answer).
    template <typename Result, typename Work, typename Deliver>
    void runDetached(QObject* owner, Work work, Deliver deliver)
    {
        start<Result>(owner, std::make_shared<std::atomic<bool>>(false), work, deliver);
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
    template <typename Result, typename Work, typename Deliver>
    void start(QObject* owner, std::shared_ptr<std::atomic<bool>> stop, Work work, Deliver deliver)
    {
        using Outcome = JobOutcome<Result>;
        ++m_inFlight;
        auto* watcher = new QFutureWatcher<Outcome>(owner);
        QObject::connect(watcher, &QFutureWatcher<Outcome>::finished, owner, [this, watcher, deliver] {
            watcher->deleteLater();
            --m_inFlight;
            deliver(watcher->result());
        });
        watcher->setFuture(QtConcurrent::run(m_pool, [work, stop]() -> Outcome {
            try {
                return work(stop.get());
            } catch (const sim::SimulationCancelled&) {
                return JobStopped {};
            } catch (const std::exception& error) {
                return QString::fromUtf8(error.what());
            }
        }));
    }

    QThreadPool m_ownPool;
    QThreadPool* m_pool = &m_ownPool;
    int m_inFlight = 0;
    quint64 m_generation = 0;
    std::shared_ptr<std::atomic<bool>> m_stop;
    bool m_running = false;
};

} // namespace rapid::widgets
