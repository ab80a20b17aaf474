// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/configloader.h"
#include "sweep/sweeprunner.h"

#include "common/jobtracker.h"

#include <QObject>

#include <atomic>
#include <memory>

namespace rapid::widgets {

/// Runs a sweep (sweep::runSweep over a config::ScenarioTemplate) off the GUI thread, on every core: seconds to
/// minutes for big spaces, so it reports progress and can be cancelled. The template is shared with the worker, so it
/// stays the documents the sweep started from whatever the editors do meanwhile. Starting a new sweep or cancelling
/// raises the running one's stop flag, and a result that arrives after that is dropped: a cancelled or superseded
/// sweep never applies a result.
class SweepJob : public QObject {
    Q_OBJECT
public:
    explicit SweepJob(QObject* parent = nullptr);
    ~SweepJob() override;

    void start(std::shared_ptr<const config::ScenarioTemplate> scenario, sweep::SweepSpace space);
    void cancel();
    bool isRunning() const { return m_jobs.isRunning(); }
    /// Worker threads of the sweep; 0 (the default) = one per hardware thread.
    void setThreads(int threads) { m_threads = threads; }

Q_SIGNALS:
    /// Points finished and the total, about every 1% (posted from the workers to this object's thread).
    void progressChanged(qint64 done, qint64 total);
    void finished(const rapid::sweep::SweepResult& result);
    void failed(const QString& message);
    void cancelled();

private:
    JobTracker m_jobs;
    int m_threads = 0;
};

} // namespace rapid::widgets
