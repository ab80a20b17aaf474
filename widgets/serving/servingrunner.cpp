// SPDX-License-Identifier: GPL-3.0-or-later
#include "serving/servingrunner.h"

#include "serving/disaggregation.h"
#include "sim/flowsimulator.h"

#include <stdexcept>
#include <string>

namespace rapid::widgets {

namespace {

/// One pool's scenario: the run at the pool's tp (0: the run's) with as many replicas as fill the cluster.
config::Scenario poolScenario(config::Scenario scenario, int tp)
{
    config::ParallelismSpec& parallelism = scenario.run.parallelism;
    parallelism.tp = tp > 0 ? tp : parallelism.tp;
    const int workerGpus = parallelism.tp * parallelism.pp * parallelism.cp;
    const int clusterGpus = scenario.hardware.cluster.totalGpus();
    if (clusterGpus % workerGpus != 0) {
        throw std::invalid_argument("a worker of " + std::to_string(workerGpus) + " GPUs (tp x pp x cp) does not "
            + "divide the cluster's " + std::to_string(clusterGpus) + " GPUs");
    }
    parallelism.dp = clusterGpus / workerGpus;
    parallelism.mapping.clear();
    return scenario;
}

/// One load of @p request: aggregated, or on prefill and decode pools.
serving::ServingResult serveOneLoad(
    const config::Scenario& scenario, const ServingRequest& request, const serving::WorkloadSpec& workload)
{
    if (request.prefillWorkers == 0 || request.decodeWorkers == 0) {
        return serving::simulateServing(scenario, workload, request.options, request.slo);
    }
    const serving::DisaggregatedSpec spec { poolScenario(scenario, request.prefillTp), request.prefillWorkers,
        request.options, poolScenario(scenario, request.decodeTp), request.decodeWorkers, request.options };
    return serving::simulateDisaggregated(spec, workload, request.slo).servingResult();
}

} // namespace

ServingRunner::ServingRunner(QObject* parent)
    : QObject(parent)
{
}

ServingRunner::~ServingRunner() = default; // m_jobs stops the running job and waits for its worker

void ServingRunner::cancel()
{
    if (m_jobs.cancel()) {
        Q_EMIT cancelled();
    }
}

void ServingRunner::run(config::Scenario scenario, ServingRequest request)
{
    const quint64 generation = m_jobs.begin();
    const auto total = static_cast<qint64>(request.loads.size());
    auto report = m_jobs.postWhileCurrent<qint64>(
        this, generation, [this, total](qint64 done) { Q_EMIT progressChanged(done, total); });
    using Result = std::shared_ptr<const ServingCurve>;
    m_jobs.run<Result>(
        this, generation,
        [scenario = std::move(scenario), request = std::move(request), report](
            const std::atomic<bool>* stop) -> Result {
            // Prefill and decode pools take every request; a replica set shares them.
            const bool pools = request.prefillWorkers > 0 && request.decodeWorkers > 0;
            const int replicas = pools ? 1 : scenario.run.parallelism.dp;
            // Every load checked before the first point, so a bad one fails at once.
            for (const double load : request.loads) {
                serving::sweepWorkload(request.workload, request.load, load, request.requestsPerPoint, replicas);
            }
            auto curve = std::make_shared<ServingCurve>();
            curve->load = request.load;
            curve->loads = request.loads;
            curve->slo = request.slo;
            curve->workload = request.workload;
            if (pools) {
                curve->prefillWorkers = request.prefillWorkers;
                curve->decodeWorkers = request.decodeWorkers;
            }
            std::vector<serving::ServingSummary> summaries;
            for (const double load : request.loads) {
                if (stop->load()) {
                    throw sim::SimulationCancelled();
                }
                curve->results.push_back(serveOneLoad(scenario, request,
                    serving::sweepWorkload(request.workload, request.load, load, request.requestsPerPoint, replicas)));
                summaries.push_back(curve->results.back().summary);
                report(static_cast<qint64>(curve->results.size()));
            }
            curve->pareto = serving::paretoFront(summaries);
            return curve;
        },
        [this](const JobOutcome<Result>& outcome) {
            if (const auto* curve = std::get_if<Result>(&outcome)) {
                Q_EMIT finished(*curve);
            } else if (const auto* message = std::get_if<QString>(&outcome)) {
                Q_EMIT failed(*message);
            } else {
                Q_EMIT cancelled();
            }
        });
}

} // namespace rapid::widgets
