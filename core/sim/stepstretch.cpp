// SPDX-License-Identifier: GPL-3.0-or-later
// How a training result's breakdown names the time a backend stretched compute nodes by (StepModel::attributeStretch).
#include "stepmodel.h"
#include "stepparts_p.h"

#include <algorithm>

namespace rapid::sim {

using detail::at;
using graph::TimeClass;

void StepModel::attributeStretch(const StepExecution& execution, const graph::ExecutionGraph& graph,
    const Schedule& schedule, report::StepBreakdown& breakdown)
{
    const auto stage = static_cast<size_t>(breakdown.stage);
    if (execution.stretchedNodes.empty() || stage >= execution.stretchedClasses.size()) {
        return;
    }
    // Compute nodes whose collectives ran on the network last longer than their closed-form seconds: that excess is
    // exposed communication of those classes (by their closed-form share), not pipeline bubble.
    double excess = 0;
    for (graph::NodeId id : graph.streamOrder(breakdown.stage, graph::Stream::Compute)) {
        const auto index = static_cast<size_t>(id);
        if (execution.stretchedNodes[index]) {
            excess += std::max(0.0, schedule.finish[index] - schedule.start[index] - graph.node(id).seconds);
        }
    }
    const std::vector<TimeClass>& classes = execution.stretchedClasses[stage];
    if (excess <= 0 || classes.empty()) {
        return;
    }
    double weights = 0;
    for (TimeClass timeClass : classes) {
        weights += at(breakdown.parts, timeClass);
    }
    const auto kinds = static_cast<double>(classes.size());
    for (TimeClass timeClass : classes) {
        const double share = weights > 0 ? at(breakdown.parts, timeClass) / weights : 1.0 / kinds;
        at(breakdown.parts, timeClass) += excess * share;
    }
    breakdown.bubbleSeconds = std::max(0.0, breakdown.bubbleSeconds - excess);
}

} // namespace rapid::sim
