// SPDX-License-Identifier: GPL-3.0-or-later
#include "networkedexecutor.h"

#include "sim/flowprogram.h"
#include "sim/flowsimulator.h"

#include <algorithm>

namespace rapid::sim {

namespace {

/// Node ids in an order where every node follows its dependencies and its stream predecessor (Kahn's algorithm).
std::vector<graph::NodeId> topologicalOrder(
    const graph::ExecutionGraph& graph, std::vector<std::vector<graph::NodeId>>& waitsFor)
{
    const size_t count = graph.nodes().size();
    waitsFor = graph.dependencyLists();
    for (int rank = 0; rank < graph.ranks(); ++rank) {
        for (int stream = 0; stream < graph::kStreamCount; ++stream) {
            const auto& order = graph.streamOrder(rank, static_cast<graph::Stream>(stream));
            for (size_t i = 1; i < order.size(); ++i) {
                waitsFor[static_cast<size_t>(order[i])].push_back(order[i - 1]);
            }
        }
    }
    std::vector<std::vector<graph::NodeId>> dependants(count);
    std::vector<int> waiting(count, 0);
    for (size_t node = 0; node < count; ++node) {
        waiting[node] = static_cast<int>(waitsFor[node].size());
        for (graph::NodeId dependency : waitsFor[node]) {
            dependants[static_cast<size_t>(dependency)].push_back(static_cast<graph::NodeId>(node));
        }
    }
    std::vector<graph::NodeId> order;
    order.reserve(count);
    for (size_t node = 0; node < count; ++node) {
        if (waiting[node] == 0) {
            order.push_back(static_cast<graph::NodeId>(node));
        }
    }
    for (size_t next = 0; next < order.size(); ++next) {
        for (graph::NodeId dependant : dependants[static_cast<size_t>(order[next])]) {
            if (--waiting[static_cast<size_t>(dependant)] == 0) {
                order.push_back(dependant);
            }
        }
    }
    if (order.size() != count) {
        std::vector<graph::NodeId> stuck;
        for (size_t node = 0; node < count; ++node) {
            if (waiting[node] > 0) {
                stuck.push_back(static_cast<graph::NodeId>(node));
            }
        }
        throw IncompleteExecution("the execution graph cannot complete: " + std::to_string(stuck.size())
                + " nodes wait on a cycle, e.g. " + graph.describe(stuck.front()),
            std::move(stuck));
    }
    return order;
}

} // namespace

Schedule executeGraphOnNetwork(const graph::ExecutionGraph& graph, CongestionNetwork& network,
    const NodeCollective& collectiveOf, const std::atomic<bool>* stop, const std::function<void(double)>& progress,
    std::vector<double>* linkBytes)
{
    const size_t count = graph.nodes().size();
    std::vector<std::vector<graph::NodeId>> waitsFor;
    const std::vector<graph::NodeId> order = topologicalOrder(graph, waitsFor);

    // One flow program for the whole graph. Per node: an entry flow (ready -> start) and an exit flow (finish).
    FlowProgram program;
    RouteCache& routes = network.routes();
    const TimeNs launch = toNanoseconds(network::kCollectiveLaunchSeconds);
    std::vector<int> entry(count, -1);
    std::vector<int> exit(count, -1);
    std::vector<int> dependencies;
    for (graph::NodeId id : order) {
        const graph::Node& node = graph.node(id);
        dependencies.clear();
        for (graph::NodeId dependency : waitsFor[static_cast<size_t>(id)]) {
            dependencies.push_back(exit[static_cast<size_t>(dependency)]);
        }
        const network::CollectiveRequest* request = collectiveOf ? collectiveOf(id) : nullptr;
        const int gpu = request && !request->gpus.empty() ? request->gpus.front() : 0;
        FlowProgram::Flow delay;
        delay.src = delay.dst = gpu;
        delay.route = routes.route(gpu, gpu);
        delay.tag = id;
        if (!request || request->gpus.size() < 2) {
            // Compute (or closed-form) node: a zero-byte flow that finishes `seconds` after it is ready.
            delay.delay = toNanoseconds(node.seconds);
            entry[static_cast<size_t>(id)] = exit[static_cast<size_t>(id)] = program.add(delay, dependencies);
            continue;
        }
        // Communication node: the launch, then the collective's flows (all replicas start together), then a
        // barrier on every last flow.
        delay.delay = launch;
        const int start = program.add(delay, dependencies);
        entry[static_cast<size_t>(id)] = start;
        const std::vector<int> last = network.appendFlows(program, *request, id, start);
        FlowProgram::Flow done = delay;
        done.delay = 0;
        exit[static_cast<size_t>(id)] = program.add(done, last);
    }

    FlowSimulator simulator(routes);
    const std::vector<FlowId> ids = addProgram(simulator, program);
    simulator.run(stop, progress);
    if (linkBytes) {
        *linkBytes = simulator.linkBytes();
    }

    Schedule schedule;
    schedule.start.resize(count);
    schedule.finish.resize(count);
    for (size_t node = 0; node < count; ++node) {
        const auto first = static_cast<size_t>(entry[node]);
        // A node starts when its entry flow became ready: the entry's start minus its own delay.
        schedule.start[node] = toSeconds(simulator.startTime(ids[first]) - program.flows[first].delay);
        schedule.finish[node] = toSeconds(simulator.finishTime(ids[static_cast<size_t>(exit[node])]));
        schedule.makespan = std::max(schedule.makespan, schedule.finish[node]);
    }
    return schedule;
}

} // namespace rapid::sim
