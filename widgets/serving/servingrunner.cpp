// SPDX-License-Identifier: GPL-3.0-or-later
#include "serving/servingrunner.h"

#include "sim/flowsimulator.h"

namespace rapid::widgets {

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
            // Every load checked before the first point, so a bad one fails at once.
            for (const double load : request.loads) {
                serving::sweepWorkload(request.workload, request.load, load, request.requestsPerPoint);
            }
            auto curve = std::make_shared<ServingCurve>();
            curve->load = request.load;
            curve->loads = request.loads;
            curve->slo = request.slo;
            std::vector<serving::ServingSummary> summaries;
            for (const double load : request.loads) {
                if (stop->load()) {
                    throw sim::SimulationCancelled();
                }
                curve->results.push_back(serving::simulateServing(scenario,
                    serving::sweepWorkload(request.workload, request.load, load, request.requestsPerPoint),
                    request.options, request.slo));
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
