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
    ++m_pending;
    auto* watcher = new QFutureWatcher<Outcome>(this);
    connect(watcher, &QFutureWatcher<Outcome>::finished, this, [this, watcher, generation] {
        watcher->deleteLater();
        --m_pending;
        if (generation != m_generation || watcher->isCanceled()) {
            return; // a newer request supersedes this result
        }
        const Outcome outcome = watcher->result();
        if (const auto* evaluation = std::get_if<Evaluation>(&outcome)) {
            Q_EMIT evaluationAvailable(*evaluation);
        } else {
            Q_EMIT evaluationFailed(std::get<QString>(outcome));
        }
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
