// SPDX-License-Identifier: GPL-3.0-or-later
#include "sweeps/sweepjob.h"

namespace rapid::widgets {

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
    // The core calls progress from its worker threads (serialised).
    auto report = m_jobs.postWhileCurrent<std::int64_t, std::int64_t>(
        this, generation, [this](std::int64_t done, std::int64_t total) { Q_EMIT progressChanged(done, total); });
    m_jobs.run<std::shared_ptr<sweep::SweepResult>>(
        this, generation,
        [scenario = std::move(scenario), space = std::move(space), report, threads = m_threads](
            const std::atomic<bool>* stop) {
            sweep::SweepOptions options;
            options.threads = threads;
            options.stop = stop;
            options.progress = report;
            const sweep::ScenarioFactory factory
                = [&scenario](const std::vector<std::string>& overrides) { return scenario->load(overrides); };
            return std::make_shared<sweep::SweepResult>(sweep::runSweep(space, factory, options));
        },
        [this](const JobOutcome<std::shared_ptr<sweep::SweepResult>>& outcome) {
            if (const auto* result = std::get_if<std::shared_ptr<sweep::SweepResult>>(&outcome)) {
                if ((*result)->cancelled) {
                    Q_EMIT cancelled(); // stopped from elsewhere (the flag is ours, so it should not happen)
                } else {
                    Q_EMIT finished(**result);
                }
            } else if (const auto* message = std::get_if<QString>(&outcome)) {
                Q_EMIT failed(*message);
            } else {
                Q_EMIT cancelled();
            }
        });
}

} // namespace rapid::widgets
