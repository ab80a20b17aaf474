// SPDX-License-Identifier: GPL-3.0-or-later
#include "sweepjob.h"

#include <QFutureWatcher>
#include <QPointer>
#include <QtConcurrent/QtConcurrentRun>

#include <variant>

namespace rapid::widgets {

namespace {
// Exceptions must not cross the thread boundary: a failure travels as text.
using Outcome = std::variant<std::shared_ptr<sweep::SweepResult>, QString>;
} // namespace

SweepJob::SweepJob(QObject* parent)
    : QObject(parent)
{
}

SweepJob::~SweepJob() = default; // m_jobs stops the running job and waits for its worker

void SweepJob::cancel()
{
    if (m_jobs.cancel()) {
        Q_EMIT cancelled();
    }
}

void SweepJob::start(std::shared_ptr<const config::ScenarioTemplate> scenario, sweep::SweepSpace space)
{
    const quint64 generation = m_jobs.begin();
    auto* watcher = new QFutureWatcher<Outcome>(this);
    connect(watcher, &QFutureWatcher<Outcome>::finished, this, [this, watcher, generation] {
        watcher->deleteLater();
        if (!m_jobs.finish(generation)) {
            return; // cancelled or superseded
        }
        const Outcome outcome = watcher->result();
        if (const auto* result = std::get_if<std::shared_ptr<sweep::SweepResult>>(&outcome)) {
            if ((*result)->cancelled) {
                Q_EMIT cancelled(); // stopped from elsewhere (the flag is ours, so it should not happen)
            } else {
                Q_EMIT finished(**result);
            }
        } else {
            Q_EMIT failed(std::get<QString>(outcome));
        }
    });
    // The core calls progress from its worker threads (serialised); it is posted to this object's thread, tagged with
    // the generation so a stale sweep's progress is ignored. The destructor waits for the worker, so self outlives it.
    QPointer<SweepJob> self(this);
    auto report = [self, generation](std::int64_t done, std::int64_t total) {
        QMetaObject::invokeMethod(
            self,
            [self, generation, done, total] {
                if (self && self->m_jobs.isCurrent(generation)) {
                    Q_EMIT self->progressChanged(done, total);
                }
            },
            Qt::QueuedConnection);
    };
    watcher->setFuture(QtConcurrent::run(m_jobs.pool(),
        [scenario = std::move(scenario), space = std::move(space), stop = m_jobs.stopFlag(), report,
            threads = m_threads]() -> Outcome {
            try {
                sweep::SweepOptions options;
                options.threads = threads;
                options.stop = stop.get();
                options.progress = report;
                const sweep::ScenarioFactory factory
                    = [&scenario](const std::vector<std::string>& overrides) { return scenario->load(overrides); };
                return std::make_shared<sweep::SweepResult>(sweep::runSweep(space, factory, options));
            } catch (const std::exception& error) {
                return QString::fromUtf8(error.what());
            }
        }));
}

} // namespace rapid::widgets
