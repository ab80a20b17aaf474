// SPDX-License-Identifier: GPL-3.0-or-later
#include "topology/congestionrunner.h"

#include "analysis/evaluation.h"
#include "sim/flowsimulator.h"

namespace rapid::widgets {

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
    auto report = m_jobs.postWhileCurrent<double>(
        this, generation, [this](double fraction) { Q_EMIT progressChanged(fraction); });
    m_jobs.run<CongestionOutcome>(
        this, generation,
        [scenario, report](const std::atomic<bool>* stop) {
            CongestionOutcome outcome;
            analysis::EvaluationOptions options;
            options.backend = sim::NetworkBackend::Congestion;
            options.stop = stop;
            options.progress = report;
            outcome.congestion = *analysis::evaluateScenario(scenario, options).training;
            options = {};
            options.timeline = false;
            outcome.analyticalStepSeconds = analysis::evaluateScenario(scenario, options).training->stepTimeSeconds;
            return outcome;
        },
        [this](const JobOutcome<CongestionOutcome>& outcome) {
            if (const auto* result = std::get_if<CongestionOutcome>(&outcome)) {
                Q_EMIT finished(*result);
            } else if (const auto* message = std::get_if<QString>(&outcome)) {
                Q_EMIT failed(*message);
            } else {
                Q_EMIT cancelled();
            }
        });
}

} // namespace rapid::widgets
