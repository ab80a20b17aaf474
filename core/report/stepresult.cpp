// SPDX-License-Identifier: GPL-3.0-or-later
#include "stepresult.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace rapid::report {

double StepBreakdown::total() const
{
    return std::accumulate(parts.begin(), parts.end(), 0.0) + bubbleSeconds;
}

StepBreakdown breakdownOfStage(const graph::ExecutionGraph& graph, const std::vector<double>& start,
    const std::vector<double>& finish, double makespan, int stage)
{
    StepBreakdown result;
    result.stage = stage;
    const auto dp = static_cast<size_t>(graph::TimeClass::DataParallel);
    // Gathers a forward waits for inside the step (a schedule that resharded the stage, ShardingPlan::gathersEachFlush;
    // labelled with the micro-batch they release): the compute idle before that pass is data-parallel communication
    // (the schedule's reductions queued ahead of the gather included), not bubble.
    std::vector<std::pair<int, double>> releasingGathers; // micro-batch released, when
    for (graph::NodeId id : graph.streamOrder(stage, graph::Stream::DataParallelComm)) {
        const graph::Node& node = graph.node(id);
        if (node.kind == graph::NodeKind::ParameterGather && node.microBatch >= 0) {
            releasingGathers.emplace_back(node.microBatch, finish[static_cast<size_t>(id)]);
        }
    }
    double busy = 0;
    double lastComputeFinish = 0;
    double optimizerStart = 0;
    double optimizerFinish = 0;
    double gatherWait = 0;
    for (graph::NodeId id : graph.streamOrder(stage, graph::Stream::Compute)) {
        const graph::Node& node = graph.node(id);
        const size_t index = static_cast<size_t>(id);
        if (node.kind == graph::NodeKind::Optimizer) {
            optimizerStart = start[index];
            optimizerFinish = finish[index];
        } else {
            const double idle = start[index] - lastComputeFinish;
            const auto released = [&](const std::pair<int, double>& gather) {
                return gather.first == node.microBatch && !node.backward
                    && std::abs(gather.second - start[index]) <= 1e-12 * start[index];
            };
            if (lastComputeFinish > 0 && idle > 0
                && std::any_of(releasingGathers.begin(), releasingGathers.end(), released)) {
                gatherWait += idle;
            }
            lastComputeFinish = std::max(lastComputeFinish, finish[index]);
        }
        const graph::TimeBreakdown& parts = graph.parts(id);
        for (size_t i = 0; i < parts.size(); ++i) {
            result.parts[i] += parts[i];
        }
        if (node.kind != graph::NodeKind::Optimizer) {
            busy += node.seconds;
        }
    }
    // Waiting between the last backward and the optimizer is gradient reduction that backward could not hide.
    result.parts[dp] += std::max(0.0, optimizerStart - lastComputeFinish) + gatherWait;
    double stageEnd = std::max(optimizerFinish, lastComputeFinish);
    for (graph::NodeId id : graph.streamOrder(stage, graph::Stream::DataParallelComm)) {
        if (graph.node(id).kind == graph::NodeKind::ParameterGather) {
            result.parts[dp] += std::max(0.0, finish[static_cast<size_t>(id)] - stageEnd);
            stageEnd = std::max(stageEnd, finish[static_cast<size_t>(id)]);
        }
    }
    // Idle compute before the last backward, and waiting for slower stages at the end, is pipeline bubble.
    result.bubbleSeconds = std::max(0.0, lastComputeFinish - busy - gatherWait) + std::max(0.0, makespan - stageEnd);
    return result;
}

} // namespace rapid::report
