// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/configloader.h"
#include "report/stepresult.h"

#include "common/jobtracker.h"

#include <QObject>

#include <atomic>
#include <memory>

namespace rapid::widgets {

/// What a congestion-backend run of a training step gave, with the analytical step for comparison.
struct CongestionOutcome {
    report::TrainingResult congestion; ///< step, breakdown and per-link utilisation on the simulated network
    double analyticalStepSeconds = 0;
};

/// Runs the congestion backend's training step (sim::StepModel with NetworkBackend::Congestion) off the GUI thread:
/// seconds for large clusters, so it reports progress and can be cancelled. Starting a new run or cancelling stops
/// the running one through its stop flag, and a result that arrives after that is dropped: a cancelled or superseded
/// run never applies a result.
class CongestionRunner : public QObject {
    Q_OBJECT
public:
    explicit CongestionRunner(QObject* parent = nullptr);
    ~CongestionRunner() override;

    void start(const config::Scenario& scenario);
    void cancel();
    bool isRunning() const { return m_jobs.isRunning(); }

Q_SIGNALS:
    void progressChanged(double fraction); ///< 0..1, now and then
    void finished(const rapid::widgets::CongestionOutcome& outcome);
    void failed(const QString& message);
    void cancelled();

private:
    JobTracker m_jobs;
};

} // namespace rapid::widgets
