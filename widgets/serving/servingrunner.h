// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "common/jobtracker.h"

#include "config/configloader.h"
#include "serving/servingsimulator.h"
#include "serving/servingsweep.h"

#include <QObject>

#include <memory>
#include <vector>

namespace rapid::widgets {

/// What the Serving tab asks for: a workload served at each of several loads.
struct ServingRequest {
    serving::WorkloadSpec workload; ///< lengths, prefix; the load fields are set per point
    serving::SweepLoad load = serving::SweepLoad::Concurrency;
    std::vector<double> loads;
    int requestsPerPoint = 0; ///< 0: 10 x the clients, or serving::defaultPoissonRequests at a rate
    serving::EngineOptions options;
    serving::ServingSlo slo;
    /// Disaggregated serving when both are set (`rapid serve --prefill-workers/--decode-workers`): workers per pool
    /// and their tensor parallelism (0: the run's).
    int prefillWorkers = 0;
    int decodeWorkers = 0;
    int prefillTp = 0;
    int decodeTp = 0;
};

/// The latency-throughput curve of a run: every point's whole result (its summary and one replica's trace, for the
/// request timeline and the KV-cache occupancy), in the order of the loads, and which points are on the Pareto front.
struct ServingCurve {
    serving::SweepLoad load = serving::SweepLoad::Concurrency;
    std::vector<double> loads;
    std::vector<serving::ServingResult> results;
    std::vector<bool> pareto;
    serving::ServingSlo slo;
    serving::WorkloadSpec workload; ///< as requested, the load fields aside (how the arrivals and lengths were drawn)
    int prefillWorkers = 0; ///< disaggregated pools (0: aggregated serving)
    int decodeWorkers = 0;
};

/// Serves the workspace's inference run at every load off the GUI thread (serving::simulateServing per point, as
/// `rapid serve --concurrency 1,2,4,...` does, or serving::simulateDisaggregated with pools), with progress per point
/// and Cancel between points: a cancelled run shows nothing, and a new run supersedes the one running.
class ServingRunner : public QObject {
    Q_OBJECT
public:
    explicit ServingRunner(QObject* parent = nullptr);
    ~ServingRunner() override;

    void run(config::Scenario scenario, ServingRequest request);
    void cancel();
    bool isRunning() const { return m_jobs.isRunning(); }

Q_SIGNALS:
    void progressChanged(qint64 done, qint64 total);
    void finished(const std::shared_ptr<const rapid::widgets::ServingCurve>& curve);
    void failed(const QString& message);
    void cancelled();

private:
    JobTracker m_jobs;
};

} // namespace rapid::widgets
