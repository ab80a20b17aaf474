// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "evaluation/evaluation.h"

#include "common/jobtracker.h"

#include "config/configloader.h"

#include <QObject>

#include <memory>

namespace rapid::widgets {

class ScenarioEvaluator;

/// Runs a ScenarioEvaluator off the GUI thread (JobTracker): a result that arrives after a newer request is dropped,
/// so a slow evaluation never overwrites the display of a later edit. Keyed requests (pinned runs restored from a
/// file, each needing its own result) share the same worker but are never dropped: each comes back with its key.
class EvaluationRunner : public QObject {
    Q_OBJECT
public:
    explicit EvaluationRunner(std::shared_ptr<const ScenarioEvaluator> evaluator, QObject* parent = nullptr);
    ~EvaluationRunner() override;

    void request(const config::Scenario& scenario);
    /// Evaluates @p scenario without superseding anything or being superseded; the result carries @p key. Another
    /// @p backend than the analytical one replaces a training step's figures by that backend's step (what Pin Run
    /// pins while the dashboard shows the congestion step), and the evaluation says so in its backend.
    void requestKeyed(
        quint64 key, const config::Scenario& scenario, sim::NetworkBackend backend = sim::NetworkBackend::Analytical);
    /// Evaluations still running (keyed ones too), including superseded ones whose results will be dropped.
    bool isBusy() const { return m_jobs.jobsInFlight() > 0; }
    quint64 generation() const { return m_jobs.generation(); }

Q_SIGNALS:
    void evaluationAvailable(const rapid::widgets::Evaluation& evaluation);
    void evaluationFailed(const QString& message);
    void keyedEvaluationAvailable(quint64 key, const rapid::widgets::Evaluation& evaluation);
    void keyedEvaluationFailed(quint64 key, const QString& message);

private:
    std::shared_ptr<const ScenarioEvaluator> m_evaluator;
    JobTracker m_jobs; ///< one worker: requests queue up rather than compete for the two cores
};

} // namespace rapid::widgets
