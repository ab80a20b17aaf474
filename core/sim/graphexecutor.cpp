// SPDX-License-Identifier: GPL-3.0-or-later
#include "graphexecutor.h"

#include <algorithm>
#include <stdexcept>

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
    const std::vector<graph::Edge>& edges = graph.edges();
    Schedule schedule;
    schedule.start.assign(count, 0.0); // doubles as each node's earliest start until it runs
    schedule.finish.assign(count, 0.0);

    // Each node waits for its dependencies and for its predecessor on the same stream: turn both into in-degrees
    // and run Kahn's algorithm. Dependents are kept flat (CSR: the dependents of n are
    // dependents[offsets[n] .. offsets[n + 1])), the stream successor apart, so running a graph of 10^4 nodes costs a
    // handful of allocations. Start times are maxima of finish times, so they do not depend on the order nodes run.
    std::vector<int> waiting(count, 0);
    std::vector<NodeId> offsets(count + 1, 0);
    for (const graph::Edge& edge : edges) {
        if (edge.node < 0 || edge.dependsOn < 0 || static_cast<size_t>(edge.node) >= count
            || static_cast<size_t>(edge.dependsOn) >= count) {
            throw std::out_of_range("execution graph: dependency on a node that does not exist");
        }
        ++offsets[static_cast<size_t>(edge.dependsOn) + 1];
        ++waiting[static_cast<size_t>(edge.node)];
    }
    for (size_t i = 0; i < count; ++i) {
        offsets[i + 1] += offsets[i];
    }
    std::vector<NodeId> dependents(edges.size());
    {
        std::vector<NodeId> fill(offsets.begin(), offsets.end() - 1);
        for (const graph::Edge& edge : edges) {
            dependents[static_cast<size_t>(fill[static_cast<size_t>(edge.dependsOn)]++)] = edge.node;
        }
    }
    std::vector<NodeId> streamNext(count, -1);
    for (int rank = 0; rank < graph.ranks(); ++rank) {
        for (int stream = 0; stream < graph::kStreamCount; ++stream) {
            const auto& order = graph.streamOrder(rank, static_cast<graph::Stream>(stream));
            for (size_t i = 1; i < order.size(); ++i) {
                streamNext[static_cast<size_t>(order[i - 1])] = order[i];
                ++waiting[static_cast<size_t>(order[i])];
            }
        }
    }
    std::vector<NodeId> ready;
    ready.reserve(count);
    for (size_t i = 0; i < count; ++i) {
        if (waiting[i] == 0) {
            ready.push_back(static_cast<NodeId>(i));
        }
    }
    const std::vector<graph::Node>& nodes = graph.nodes();
    size_t done = 0;
    auto release = [&](NodeId next, double finish) {
        const size_t n = static_cast<size_t>(next);
        schedule.start[n] = std::max(schedule.start[n], finish);
        if (--waiting[n] == 0) {
            ready.push_back(next);
        }
    };
    while (!ready.empty()) {
        const NodeId id = ready.back();
        ready.pop_back();
        const size_t index = static_cast<size_t>(id);
        const double finish = schedule.start[index] + nodes[index].seconds;
        schedule.finish[index] = finish;
        schedule.makespan = std::max(schedule.makespan, finish);
        ++done;
        for (NodeId i = offsets[index]; i < offsets[index + 1]; ++i) {
            release(dependents[static_cast<size_t>(i)], finish);
        }
        if (streamNext[index] >= 0) {
            release(streamNext[index], finish);
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
