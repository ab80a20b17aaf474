// SPDX-License-Identifier: GPL-3.0-or-later
#include "evaluation/evaluationrunner.h"

#include "evaluation/scenarioevaluator.h"

namespace rapid::widgets {

EvaluationRunner::EvaluationRunner(std::shared_ptr<const ScenarioEvaluator> evaluator, QObject* parent)
    : QObject(parent)
    , m_evaluator(std::move(evaluator))
{
}

// The tracker's destructor waits for the worker: workers hold only their own copies, but the watchers are children
// of this object.
EvaluationRunner::~EvaluationRunner() = default;

void EvaluationRunner::request(const config::Scenario& scenario)
{
    const quint64 generation = m_jobs.begin();
    m_jobs.run<Evaluation>(
        this, generation,
        [evaluator = m_evaluator, scenario](const std::atomic<bool>*) { return evaluator->evaluate(scenario); },
        [this](const JobOutcome<Evaluation>& outcome) {
            if (const auto* evaluation = std::get_if<Evaluation>(&outcome)) {
                Q_EMIT evaluationAvailable(*evaluation);
            } else if (const auto* failure = std::get_if<QString>(&outcome)) {
                Q_EMIT evaluationFailed(*failure);
            }
        });
}

void EvaluationRunner::requestKeyed(quint64 key, const config::Scenario& scenario)
{
    m_jobs.runDetached<Evaluation>(
        this, [evaluator = m_evaluator, scenario](const std::atomic<bool>*) { return evaluator->evaluate(scenario); },
        [this, key](const JobOutcome<Evaluation>& outcome) {
            if (const auto* evaluation = std::get_if<Evaluation>(&outcome)) {
                Q_EMIT keyedEvaluationAvailable(key, *evaluation);
            } else if (const auto* failure = std::get_if<QString>(&outcome)) {
                Q_EMIT keyedEvaluationFailed(key, *failure);
            }
        });
}

} // namespace rapid::widgets
