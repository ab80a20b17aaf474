// SPDX-License-Identifier: GPL-3.0-or-later
// A long pipeline's training step timed from two shorter ones (StepModel::steadyStateTraining, sim/steadystate.h).
#include "stepmodel.h"
#include "stepparts_p.h"

#include "memory/memorymodel.h"
#include "sim/steadystate.h"

#include <cmath>
#include <utility>

namespace rapid::sim {

using detail::withComputeSlowdown;

namespace {

/// What one executed step graph says, for the quantities training() reports.
struct StepFigures {
    double makespan = 0;
    std::vector<double> stageCompute; ///< per stage, the seconds its compute stream runs
    double busyGpuSeconds = 0;
    double nodes = 0;
};

/// @p a moved on by @p periods times what @p b adds to it (b is a one period longer).
double onwards(double a, double b, double periods)
{
    return a + periods * (b - a);
}

report::StepBreakdown onwards(const report::StepBreakdown& a, const report::StepBreakdown& b, double periods)
{
    report::StepBreakdown result = a;
    for (size_t i = 0; i < result.parts.size(); ++i) {
        result.parts[i] = onwards(a.parts[i], b.parts[i], periods);
    }
    result.bubbleSeconds = onwards(a.bubbleSeconds, b.bubbleSeconds, periods);
    return result;
}

/// The first stage whose compute stream runs longest (training()'s rule: ties keep the earlier stage).
int busiestStage(const std::vector<double>& compute)
{
    int busiest = 0;
    for (size_t stage = 1; stage < compute.size(); ++stage) {
        if (compute[stage] > compute[static_cast<size_t>(busiest)]) {
            busiest = static_cast<int>(stage);
        }
    }
    return busiest;
}

} // namespace

StepModel::StepRun StepModel::runStep(
    const std::vector<graph::StageCost>& stages, const ExposedGathers& exposedGathers, int microBatches)
{
    parallel::ShardingPlan sharding = m_plan.sharding;
    sharding.microBatches = microBatches;
    StepRun run { graph::buildTrainingStep(sharding, stages), {} };
    const TrainingStepInput input { m_plan, m_scenario.model, m_scenario.run, stages, run.graph,
        [this](int stage, bool moe) -> const LayerTimes& { return layerTimes(stage, moe); }, exposedGathers };
    run.execution = m_backend->executeTraining(input);
    return run;
}

std::optional<report::TrainingResult> StepModel::steadyStateTraining(
    const std::vector<graph::StageCost>& stages, const ExposedGathers& exposedGathers)
{
    const parallel::ShardingPlan& sharding = m_plan.sharding;
    const int period = std::max(1, sharding.stages);
    const int microBatches = sharding.microBatches;
    // Worth it only where the two shorter pipelines (below) take under half the whole's work.
    auto shorterOf = [&](int periods) { return microBatches % period + periods * period; };
    auto worthIt = [&](int shorter) { return 2 * (2 * shorter + period) <= microBatches; };
    if (!m_backend->schedulesGraphAlone() || sharding.pipelineFlushes > 1 || !worthIt(shorterOf(8))) {
        return std::nullopt;
    }
    // The replicas whose steps training() compares: the healthy one, then each with a slow GPU.
    std::vector<std::pair<std::vector<graph::StageCost>, std::vector<int>>> replicas { { stages, {} } };
    for (const parallel::SlowReplica& slow : m_plan.slowReplicas) {
        replicas.emplace_back(withComputeSlowdown(stages, slow.stageSlowdowns), slow.slowGpus);
    }
    // Shorter pipelines of as many micro-batches modulo the period (the interleaved order needs whole groups of
    // `period`), long enough for the warm-up, a compared window and the drain: 8 periods (an interleaved schedule's
    // warm-up on the first stage is up to 2 (pp - 1) + (v - 1) pp + 1 chunk passes, two periods of micro-batches and
    // more), 16 if the schedule needs longer to settle.
    for (const int periods : { 8, 16 }) {
        const int shorter = shorterOf(periods);
        if (!worthIt(shorter)) {
            return std::nullopt;
        }
        const double onward = static_cast<double>(microBatches - shorter) / period;
        struct Candidate {
            StepRun a;
            StepRun b;
            double makespan = 0;
        };
        std::optional<Candidate> chosen;
        size_t chosenReplica = 0;
        bool shown = true;
        for (size_t r = 0; r < replicas.size() && shown; ++r) {
            StepRun a = runStep(replicas[r].first, exposedGathers, shorter);
            StepRun b = runStep(replicas[r].first, exposedGathers, shorter + period);
            const std::optional<double> shift = steadyPeriodSeconds(a.graph, a.execution.schedule, period);
            const double added = b.execution.schedule.makespan - a.execution.schedule.makespan;
            // The drain of the longer run must be the shorter run's, one period later, too.
            shown = shift && std::fabs(added - *shift) <= 1e-9 * std::max(b.execution.schedule.makespan, 1e-9);
            const double makespan = onwards(a.execution.schedule.makespan, b.execution.schedule.makespan, onward);
            if (shown && (!chosen || makespan > chosen->makespan)) {
                chosen = Candidate { std::move(a), std::move(b), makespan };
                chosenReplica = r;
            }
        }
        if (!shown || !chosen) {
            continue;
        }
        auto figures = [&](const StepRun& run) {
            StepFigures f { run.execution.schedule.makespan, {}, busyGpuSeconds(run.graph),
                static_cast<double>(run.graph.nodes().size()) };
            for (int stage = 0; stage < run.graph.ranks(); ++stage) {
                double busy = 0;
                for (graph::NodeId id : run.graph.streamOrder(stage, graph::Stream::Compute)) {
                    busy += run.graph.node(id).seconds;
                }
                f.stageCompute.push_back(busy);
            }
            return f;
        };
        const StepFigures a = figures(chosen->a);
        const StepFigures b = figures(chosen->b);
        std::vector<double> compute(a.stageCompute.size());
        for (size_t stage = 0; stage < compute.size(); ++stage) {
            compute[stage] = onwards(a.stageCompute[stage], b.stageCompute[stage], onward);
        }
        const int busiest = busiestStage(compute);
        auto breakdown = [&](const StepRun& run) {
            const Schedule& schedule = run.execution.schedule;
            return report::breakdownOfStage(run.graph, schedule.start, schedule.finish, schedule.makespan, busiest);
        };
        report::TrainingResult result;
        result.stepTimeSeconds = chosen->makespan;
        result.breakdown = onwards(breakdown(chosen->a), breakdown(chosen->b), onward);
        result.graphNodes = static_cast<int>(std::lround(onwards(a.nodes, b.nodes, onward)));
        result.steadyStateFrom = shorter;
        result.limitingStragglers = replicas[chosenReplica].second;
        result.faultLimitedGroups = m_backend->faultLimitedGroups();
        if (result.faultLimitedGroups.size() > 5) {
            result.faultLimitedGroups.resize(5);
        }
        addThroughputAndEnergy(result, onwards(a.busyGpuSeconds, b.busyGpuSeconds, onward));
        result.memory = memory::estimateMemory(m_scenario.model, m_scenario.hardware.gpu, m_scenario.run, sharding);
        return result;
    }
    return std::nullopt;
}

} // namespace rapid::sim
