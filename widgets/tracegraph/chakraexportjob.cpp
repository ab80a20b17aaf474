// SPDX-License-Identifier: GPL-3.0-or-later
#include "tracegraph/chakraexportjob.h"

#include "analysis/stepexport.h"

namespace rapid::widgets {

ChakraExportJob::ChakraExportJob(QObject* parent)
    : QObject(parent)
{
}

ChakraExportJob::~ChakraExportJob() = default; // m_jobs stops the running job and waits for its worker

void ChakraExportJob::cancel()
{
    if (m_jobs.cancel()) {
        Q_EMIT cancelled();
    }
}

void ChakraExportJob::start(const config::Scenario& scenario, const QString& directory, sim::ChakraDetail detail)
{
    const quint64 generation = m_jobs.begin();
    auto report = m_jobs.postWhileCurrent<double>(
        this, generation, [this](double fraction) { Q_EMIT progressChanged(fraction); });
    m_jobs.run<sim::ChakraExportSummary>(
        this, generation,
        [scenario, path = directory.toStdString(), detail, report](
            const std::atomic<bool>* stop) { return analysis::exportStepTraces(scenario, path, detail, stop, report); },
        [this, directory](const JobOutcome<sim::ChakraExportSummary>& outcome) {
            if (const auto* summary = std::get_if<sim::ChakraExportSummary>(&outcome)) {
                Q_EMIT finished(*summary, directory);
            } else if (const auto* message = std::get_if<QString>(&outcome)) {
                Q_EMIT failed(*message);
            } else {
                Q_EMIT cancelled();
            }
        });
}

} // namespace rapid::widgets
