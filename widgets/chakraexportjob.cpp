// SPDX-License-Identifier: GPL-3.0-or-later
#include "chakraexportjob.h"

#include "sim/flowsimulator.h"

#include <QFutureWatcher>
#include <QPointer>
#include <QtConcurrent/QtConcurrentRun>

#include <variant>

namespace rapid::widgets {

namespace {
// Exceptions must not cross the thread boundary: a failure travels as text, a cancellation as this tag.
struct Cancelled { };
using Outcome = std::variant<sim::ChakraExportSummary, QString, Cancelled>;
} // namespace

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
    auto* watcher = new QFutureWatcher<Outcome>(this);
    connect(watcher, &QFutureWatcher<Outcome>::finished, this, [this, watcher, generation, directory] {
        watcher->deleteLater();
        if (!m_jobs.finish(generation)) {
            return; // cancelled or superseded
        }
        const Outcome outcome = watcher->result();
        if (const auto* summary = std::get_if<sim::ChakraExportSummary>(&outcome)) {
            Q_EMIT finished(*summary, directory);
        } else if (const auto* message = std::get_if<QString>(&outcome)) {
            Q_EMIT failed(*message);
        } else {
            Q_EMIT cancelled();
        }
    });
    // Progress is posted to this object's thread, tagged with the generation so a stale export's is ignored.
    QPointer<ChakraExportJob> self(this);
    auto report = [self, generation](double fraction) {
        QMetaObject::invokeMethod(
            self,
            [self, generation, fraction] {
                if (self && self->m_jobs.isCurrent(generation)) {
                    Q_EMIT self->progressChanged(fraction);
                }
            },
            Qt::QueuedConnection);
    };
    watcher->setFuture(QtConcurrent::run(m_jobs.pool(),
        [scenario, path = directory.toStdString(), detail, stop = m_jobs.stopFlag(), report]() -> Outcome {
            try {
                sim::StepModel model(scenario);
                return sim::writeStepChakraTraces(path, model, detail, stop.get(), report);
            } catch (const sim::SimulationCancelled&) {
                return Cancelled {};
            } catch (const std::exception& error) {
                return QString::fromUtf8(error.what());
            }
        }));
}

} // namespace rapid::widgets
