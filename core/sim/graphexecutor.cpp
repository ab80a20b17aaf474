// SPDX-License-Identifier: GPL-3.0-or-later
#include "graphexecutor.h"

#include <algorithm>

namespace rapid::sim {

using graph::ExecutionGraph;
using graph::NodeId;

IncompleteExecution::IncompleteExecution(std::string message, std::vector<graph::NodeId> stuck)
    : std::runtime_error(std::move(message))
    , m_stuck(std::move(stuck))
{
}

Schedule executeGraph(const ExecutionGraph& graph)
{
    const size_t count = graph.nodes().size();
    Schedule schedule;
    schedule.start.assign(count, 0.0);
    schedule.finish.assign(count, 0.0);

    // Each node waits for its dependencies and for its predecessor on the same stream: turn both into in-degrees
    // and run Kahn's algorithm.
    std::vector<int> waiting(count, 0);
    std::vector<std::vector<NodeId>> dependents(count);
    for (size_t i = 0; i < count; ++i) {
        for (NodeId dependency : graph.nodes()[i].dependencies) {
            dependents[static_cast<size_t>(dependency)].push_back(static_cast<NodeId>(i));
            ++waiting[i];
        }
    }
    for (int rank = 0; rank < graph.ranks(); ++rank) {
        for (int stream = 0; stream < graph::kStreamCount; ++stream) {
            const auto& order = graph.streamOrder(rank, static_cast<graph::Stream>(stream));
            for (size_t i = 1; i < order.size(); ++i) {
                dependents[static_cast<size_t>(order[i - 1])].push_back(order[i]);
                ++waiting[static_cast<size_t>(order[i])];
            }
        }
    }
    std::vector<NodeId> ready;
    for (size_t i = 0; i < count; ++i) {
        if (waiting[i] == 0) {
            ready.push_back(static_cast<NodeId>(i));
        }
    }
    std::vector<double> earliest(count, 0.0);
    size_t done = 0;
    while (!ready.empty()) {
        const NodeId id = ready.back();
        ready.pop_back();
        const size_t index = static_cast<size_t>(id);
        schedule.start[index] = earliest[index];
        schedule.finish[index] = earliest[index] + graph.nodes()[index].seconds;
        schedule.makespan = std::max(schedule.makespan, schedule.finish[index]);
        ++done;
        for (NodeId next : dependents[index]) {
            const size_t n = static_cast<size_t>(next);
            earliest[n] = std::max(earliest[n], schedule.finish[index]);
            if (--waiting[n] == 0) {
                ready.push_back(next);
            }
        }
    }
    if (done != count) {
        std::vector<NodeId> stuck;
        for (size_t i = 0; i < count; ++i) {
            if (waiting[i] > 0) {
                stuck.push_back(static_cast<NodeId>(i));
            }
        }
        std::string message = "the execution graph cannot complete: " + std::to_string(stuck.size()) + " of "
            + std::to_string(count) + " nodes never ran, e.g. ";
        for (size_t i = 0; i < stuck.size() && i < 5; ++i) {
            message += (i ? "; " : "") + graph.describe(stuck[i]);
        }
        throw IncompleteExecution(message, std::move(stuck));
    }
    return schedule;
}

} // namespace rapid::sim
