// SPDX-License-Identifier: GPL-3.0-or-later
#include "congestionrunner.h"

#include "sim/flowsimulator.h"
#include "sim/stepmodel.h"

#include <QFutureWatcher>
#include <QPointer>
#include <QtConcurrent/QtConcurrentRun>

#include <variant>

namespace rapid::widgets {

namespace {
// Exceptions must not cross the thread boundary: a failure travels as text, a cancellation as this tag.
struct Cancelled { };
using Outcome = std::variant<CongestionOutcome, QString, Cancelled>;
} // namespace

CongestionRunner::CongestionRunner(QObject* parent)
    : QObject(parent)
{
}

CongestionRunner::~CongestionRunner() = default; // m_jobs stops the running job and waits for its worker

void CongestionRunner::cancel()
{
    if (m_jobs.cancel()) {
        Q_EMIT cancelled();
    }
}

void CongestionRunner::start(const config::Scenario& scenario)
{
    const quint64 generation = m_jobs.begin();
    auto* watcher = new QFutureWatcher<Outcome>(this);
    connect(watcher, &QFutureWatcher<Outcome>::finished, this, [this, watcher, generation] {
        watcher->deleteLater();
        if (!m_jobs.finish(generation)) {
            return; // cancelled or superseded
        }
        const Outcome outcome = watcher->result();
        if (const auto* result = std::get_if<CongestionOutcome>(&outcome)) {
            Q_EMIT finished(*result);
        } else if (const auto* message = std::get_if<QString>(&outcome)) {
            Q_EMIT failed(*message);
        } else {
            Q_EMIT cancelled();
        }
    });
    // Progress is posted to this object's thread, tagged with the generation so a stale run's progress is ignored.
    QPointer<CongestionRunner> self(this);
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
    watcher->setFuture(QtConcurrent::run(m_jobs.pool(), [scenario, stop = m_jobs.stopFlag(), report]() -> Outcome {
        try {
            CongestionOutcome outcome;
            sim::StepModel congestion(scenario, sim::NetworkBackend::Congestion);
            congestion.setStopFlag(stop.get());
            congestion.setProgressCallback(report);
            outcome.congestion = congestion.training(true);
            outcome.analyticalStepSeconds = sim::StepModel(scenario).training(false).stepTimeSeconds;
            return outcome;
        } catch (const sim::SimulationCancelled&) {
            return Cancelled {};
        } catch (const std::exception& error) {
            return QString::fromUtf8(error.what());
        }
    }));
}

} // namespace rapid::widgets
