// SPDX-License-Identifier: GPL-3.0-or-later
#include "evaluation/evaluationrunner.h"

#include "evaluation/scenarioevaluator.h"

#include "analysis/evaluation.h"

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

namespace {

/// @p scenario's evaluation with its training step from @p backend: the figures a run pinned from the Topology tab's
/// congestion step showed (the step as CongestionRunner computes it; memory, operators and placement stay the
/// evaluator's). Throws what the step model throws, so a run that no longer simulates shows why.
Evaluation evaluateOn(const ScenarioEvaluator& evaluator, const config::Scenario& scenario, sim::NetworkBackend backend,
    const std::atomic<bool>* stop)
{
    Evaluation evaluation = evaluator.evaluate(scenario);
    if (backend == sim::NetworkBackend::Analytical || !evaluation.training) {
        return evaluation; // inference is pinned from the analytical model only
    }
    analysis::EvaluationOptions options;
    options.backend = backend;
    options.stop = stop;
    evaluation.training = analysis::evaluateScenario(scenario, options).training;
    evaluation.backend = backend;
    return evaluation;
}

} // namespace

void EvaluationRunner::requestKeyed(quint64 key, const config::Scenario& scenario, sim::NetworkBackend backend)
{
    m_jobs.runDetached<Evaluation>(
        this,
        [evaluator = m_evaluator, scenario, backend](
            const std::atomic<bool>* stop) { return evaluateOn(*evaluator, scenario, backend, stop); },
        [this, key](const JobOutcome<Evaluation>& outcome) {
            if (const auto* evaluation = std::get_if<Evaluation>(&outcome)) {
                Q_EMIT keyedEvaluationAvailable(key, *evaluation);
            } else if (const auto* failure = std::get_if<QString>(&outcome)) {
                Q_EMIT keyedEvaluationFailed(key, *failure);
            }
        });
}

} // namespace rapid::widgets
