// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "common/jobtracker.h"
#include "resilience/goodputfigures.h"

#include "config/configloader.h"
#include "network/topology.h"
#include "resilience/faultstudy.h"

#include <QObject>

#include <memory>
#include <vector>

namespace rapid::widgets {

/// Fault or straggler studies run one after another: a row per spec, in the order asked for.
struct StudyRows {
    std::vector<resilience::FaultStudySpec> specs;
    std::vector<resilience::FaultStudyResult> results;
};

/// The criticality map and the network it was computed on (drawn by the map, whatever the workspace is now).
struct CriticalityMap {
    std::shared_ptr<const network::Topology> topology;
    std::vector<resilience::LinkCriticality> ranked;
    double health = 0;
    sim::NetworkBackend backend = sim::NetworkBackend::Congestion;
};

/// The Resilience tab's computations off the GUI thread, through one JobTracker: fault and straggler studies
/// (resilience::runFaultStudy per row), the criticality map (resilience::linkCriticality) and the goodput figures
/// (one step-model evaluation and the simulated runs). Each page owns a runner, so a study on one page does not
/// supersede another's. Starting again or cancel() raises the running job's stop flag and drops whatever it still
/// returns: a cancelled computation never shows a result, and cancelled() is emitted at once (the worker stops at the
/// next trial or link).
class ResilienceRunner : public QObject {
    Q_OBJECT
public:
    explicit ResilienceRunner(QObject* parent = nullptr);
    ~ResilienceRunner() override;

    /// Every spec of @p specs on @p scenario, in order; progress counts trials over all of them.
    void runStudies(config::Scenario scenario, std::vector<resilience::FaultStudySpec> specs);
    /// Each link of @p classes (all when empty) alone at @p health; progress counts links (total: the classes'
    /// links, at most @p maxLinks).
    void runCriticality(config::Scenario scenario, double health, sim::NetworkBackend backend,
        std::vector<std::string> classes, int maxLinks);
    /// The goodput figures and curve, then @p inputs.trials simulated runs at each of kSimulatedPoints intervals;
    /// progress counts trials over all of them.
    void runGoodput(config::Scenario scenario, GoodputInputs inputs);
    void cancel();
    bool isRunning() const { return m_jobs.isRunning(); }
    /// Worker threads of a study or map; 0 (the default) = one per hardware thread.
    void setThreads(unsigned threads) { m_threads = threads; }

Q_SIGNALS:
    void progressChanged(qint64 done, qint64 total);
    void studiesFinished(const std::shared_ptr<const rapid::widgets::StudyRows>& rows);
    void criticalityFinished(const std::shared_ptr<const rapid::widgets::CriticalityMap>& map);
    void goodputFinished(const rapid::widgets::GoodputFigures& figures);
    void failed(const QString& message);
    void cancelled();

private:
    /// Emits failed() or cancelled() for an outcome that is not a result.
    template <typename Result> void reportProblem(const JobOutcome<Result>& outcome);

    JobTracker m_jobs;
    unsigned m_threads = 0;
};

} // namespace rapid::widgets
