// SPDX-License-Identifier: GPL-3.0-or-later
#include "resilience/resiliencerunner.h"

#include "resilience/linkclasses.h"
#include "sim/flowsimulator.h"

#include <algorithm>

namespace rapid::widgets {

ResilienceRunner::ResilienceRunner(QObject* parent)
    : QObject(parent)
{
}

ResilienceRunner::~ResilienceRunner() = default; // m_jobs stops the running job and waits for its worker

void ResilienceRunner::cancel()
{
    if (m_jobs.cancel()) {
        Q_EMIT cancelled();
    }
}

template <typename Result> void ResilienceRunner::reportProblem(const JobOutcome<Result>& outcome)
{
    if (const auto* message = std::get_if<QString>(&outcome)) {
        Q_EMIT failed(*message);
    } else if (std::holds_alternative<JobStopped>(outcome)) {
        Q_EMIT cancelled();
    }
}

void ResilienceRunner::runStudies(config::Scenario scenario, std::vector<resilience::FaultStudySpec> specs)
{
    const quint64 generation = m_jobs.begin();
    qint64 total = 0;
    for (const resilience::FaultStudySpec& spec : specs) {
        total += spec.trials;
    }
    auto report = m_jobs.postWhileCurrent<qint64>(
        this, generation, [this, total](qint64 done) { Q_EMIT progressChanged(done, total); });
    using Result = std::shared_ptr<const StudyRows>;
    m_jobs.run<Result>(
        this, generation,
        [scenario = std::move(scenario), specs = std::move(specs), report, threads = m_threads](
            const std::atomic<bool>* stop) -> Result {
            auto rows = std::make_shared<StudyRows>();
            // Every row's classes and counts checked before the first trial, so a bad row fails at once.
            const network::Topology topology(scenario.hardware);
            for (const resilience::FaultStudySpec& spec : specs) {
                resilience::faultPool(topology, spec);
            }
            qint64 before = 0;
            for (const resilience::FaultStudySpec& spec : specs) {
                rows->specs.push_back(spec);
                rows->results.push_back(resilience::runFaultStudy(
                    scenario, spec, threads, [&report, before](int done) { report(before + done); }, stop));
                // A stopped study returns the trials it finished: a partial row must not pass for a whole one.
                if (stop->load()) {
                    throw sim::SimulationCancelled();
                }
                before += spec.trials;
            }
            return rows;
        },
        [this](const JobOutcome<Result>& outcome) {
            if (const auto* rows = std::get_if<Result>(&outcome)) {
                Q_EMIT studiesFinished(*rows);
            } else {
                reportProblem(outcome);
            }
        });
}

void ResilienceRunner::runCriticality(config::Scenario scenario, double health, sim::NetworkBackend backend,
    std::vector<std::string> classes, int maxLinks)
{
    const quint64 generation = m_jobs.begin();
    auto report = m_jobs.postWhileCurrent<qint64, qint64>(
        this, generation, [this](qint64 done, qint64 total) { Q_EMIT progressChanged(done, total); });
    using Result = std::shared_ptr<const CriticalityMap>;
    m_jobs.run<Result>(
        this, generation,
        [scenario = std::move(scenario), health, backend, classes = std::move(classes), maxLinks, report,
            threads = m_threads](const std::atomic<bool>* stop) -> Result {
            auto map = std::make_shared<CriticalityMap>();
            auto topology = std::make_shared<const network::Topology>(scenario.hardware);
            qint64 total = 0;
            for (const resilience::LinkClass& linkClass : resilience::linkClasses(*topology)) {
                if (classes.empty() || std::find(classes.begin(), classes.end(), linkClass.name) != classes.end()) {
                    total += static_cast<qint64>(linkClass.physicalLinks.size());
                }
            }
            total = std::min<qint64>(total, maxLinks);
            map->ranked = resilience::linkCriticality(
                scenario, health, backend, classes, maxLinks, threads,
                [&report, total](int done) { report(done, std::max<qint64>(total, done)); }, stop);
            map->topology = std::move(topology);
            map->health = health;
            map->backend = backend;
            return map;
        },
        [this](const JobOutcome<Result>& outcome) {
            if (const auto* map = std::get_if<Result>(&outcome)) {
                Q_EMIT criticalityFinished(*map);
            } else {
                reportProblem(outcome);
            }
        });
}

void ResilienceRunner::runGoodput(config::Scenario scenario, GoodputInputs inputs)
{
    const quint64 generation = m_jobs.begin();
    const qint64 total = static_cast<qint64>(inputs.trials) * kSimulatedPoints;
    auto report = m_jobs.postWhileCurrent<qint64>(
        this, generation, [this, total](qint64 done) { Q_EMIT progressChanged(done, total); });
    m_jobs.run<GoodputFigures>(
        this, generation,
        [scenario = std::move(scenario), inputs, report, total](const std::atomic<bool>* stop) {
            GoodputFigures figures = computeGoodput(scenario, inputs);
            // A posted event per trial would flood the GUI thread with 10^5 of them; a few hundred steps are smooth.
            const qint64 step = std::max<qint64>(1, total / 256);
            simulateGoodput(
                figures, inputs,
                [&report, step, total](qint64 done) {
                    if (done % step == 0 || done == total) {
                        report(done);
                    }
                },
                stop);
            return figures;
        },
        [this](const JobOutcome<GoodputFigures>& outcome) {
            if (const auto* figures = std::get_if<GoodputFigures>(&outcome)) {
                Q_EMIT goodputFinished(*figures);
            } else {
                reportProblem(outcome);
            }
        });
}

} // namespace rapid::widgets
