// SPDX-License-Identifier: GPL-3.0-or-later
#include "evaluationrunner.h"

#include "scenarioevaluator.h"

#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>

#include <variant>

namespace rapid::widgets {

namespace {
// A failure travels as text: exceptions must not cross the thread boundary unhandled.
using Outcome = std::variant<Evaluation, QString>;
} // namespace

EvaluationRunner::EvaluationRunner(std::shared_ptr<const ScenarioEvaluator> evaluator, QObject* parent)
    : QObject(parent)
    , m_evaluator(std::move(evaluator))
{
    m_pool.setMaxThreadCount(1);
}

EvaluationRunner::~EvaluationRunner()
{
    // Workers hold only their own copies, but the watchers are children of this object: finish first.
    m_pool.waitForDone();
}

void EvaluationRunner::request(const config::Scenario& scenario)
{
    const quint64 generation = ++m_generation;
    start(scenario, [this, generation](bool canceled, const Evaluation* evaluation, const QString& failure) {
        if (generation != m_generation || canceled) {
            return; // a newer request supersedes this result
        }
        if (evaluation) {
            Q_EMIT evaluationAvailable(*evaluation);
        } else {
            Q_EMIT evaluationFailed(failure);
        }
    });
}

void EvaluationRunner::requestKeyed(quint64 key, const config::Scenario& scenario)
{
    start(scenario, [this, key](bool canceled, const Evaluation* evaluation, const QString& failure) {
        if (canceled) {
            return;
        }
        if (evaluation) {
            Q_EMIT keyedEvaluationAvailable(key, *evaluation);
        } else {
            Q_EMIT keyedEvaluationFailed(key, failure);
        }
    });
}

void EvaluationRunner::start(const config::Scenario& scenario,
    std::function<void(bool canceled, const Evaluation* evaluation, const QString& failure)> deliver)
{
    ++m_pending;
    auto* watcher = new QFutureWatcher<Outcome>(this);
    connect(watcher, &QFutureWatcher<Outcome>::finished, this, [this, watcher, deliver = std::move(deliver)] {
        watcher->deleteLater();
        --m_pending;
        if (watcher->isCanceled()) {
            deliver(true, nullptr, {});
            return;
        }
        const Outcome outcome = watcher->result();
        const auto* evaluation = std::get_if<Evaluation>(&outcome);
        deliver(false, evaluation, evaluation ? QString() : std::get<QString>(outcome));
    });
    watcher->setFuture(QtConcurrent::run(&m_pool, [evaluator = m_evaluator, scenario]() -> Outcome {
        try {
            return evaluator->evaluate(scenario);
        } catch (const std::exception& error) {
            return QString::fromUtf8(error.what());
        }
    }));
}

} // namespace rapid::widgets
