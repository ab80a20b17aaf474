// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "evaluation.h"

#include "config/configloader.h"

#include <QObject>
#include <QThreadPool>

#include <memory>

namespace rapid::widgets {

class ScenarioEvaluator;

/// Runs a ScenarioEvaluator off the GUI thread. Every request bumps a generation counter; a result that arrives
/// after a newer request is dropped, so a slow evaluation never overwrites the display of a later edit.
class EvaluationRunner : public QObject {
    Q_OBJECT
public:
    explicit EvaluationRunner(std::shared_ptr<const ScenarioEvaluator> evaluator, QObject* parent = nullptr);
    ~EvaluationRunner() override;

    void request(const config::Scenario& scenario);
    /// Evaluations still running, including superseded ones whose results will be dropped.
    bool isBusy() const { return m_pending > 0; }
    quint64 generation() const { return m_generation; }

Q_SIGNALS:
    void evaluationAvailable(const rapid::widgets::Evaluation& evaluation);
    void evaluationFailed(const QString& message);

private:
    std::shared_ptr<const ScenarioEvaluator> m_evaluator;
    QThreadPool m_pool; ///< one worker: requests queue up rather than compete for the two cores
    quint64 m_generation = 0;
    int m_pending = 0;
};

} // namespace rapid::widgets
