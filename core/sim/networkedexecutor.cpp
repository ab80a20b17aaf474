// SPDX-License-Identifier: GPL-3.0-or-later
#include "networkedexecutor.h"

#include "sim/flowprogram.h"
#include "sim/flowsimulator.h"

#include <algorithm>
#include <span>
#include <utility>

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

/// A zero-byte flow (a delay on GPU 0) after @p dependencies; returns its index.
int delayFlow(FlowProgram& program, RouteCache& routes, int tag, TimeNs delay, std::span<const int> dependencies)
{
    FlowProgram::Flow flow;
    flow.route = routes.route(0, 0);
    flow.tag = tag;
    flow.delay = delay;
    return program.add(flow, dependencies);
}

/// Appends @p collectives one after another after flow @p after, the first one also @p delay later; returns the
/// index of the flow that finishes with the last of them (@p after when there are none and no delay).
int appendChain(FlowProgram& program, CongestionNetwork& network,
    std::span<const network::CollectiveRequest* const> collectives, int tag, int after, TimeNs delay)
{
    RouteCache& routes = network.routes();
    const TimeNs launch = toNanoseconds(network::kCollectiveLaunchSeconds);
    int previous = after;
    for (const network::CollectiveRequest* request : collectives) {
        const int start = delayFlow(program, routes, tag, delay + launch, std::span<const int>(&previous, 1));
        delay = 0;
        const std::vector<int> last = network.appendFlows(program, *request, tag, start);
        previous = delayFlow(program, routes, tag, 0, last);
    }
    if (delay > 0) {
        previous = delayFlow(program, routes, tag, delay, std::span<const int>(&previous, 1));
    }
    return previous;
}

/// Appends the flows of a compute node with an inline program; returns its entry flow (ready -> start) and its exit
/// flow (finish).
std::pair<int, int> appendInline(FlowProgram& program, CongestionNetwork& network, const InlineProgram& inlineProgram,
    int tag, std::span<const int> dependencies)
{
    RouteCache& routes = network.routes();
    const int ready = delayFlow(program, routes, tag, 0, dependencies);
    const int entry = inlineProgram.leadSeconds > 0
        ? delayFlow(program, routes, tag, toNanoseconds(inlineProgram.leadSeconds), std::span<const int>(&ready, 1))
        : ready;
    const int alongside = appendChain(program, network, inlineProgram.alongside, tag, entry, 0);
    int previous = entry;
    TimeNs pending = 0; // compute not yet emitted: merged into the next collective's launch
    for (const InlineBlock& block : inlineProgram.blocks) {
        const TimeNs compute = toNanoseconds(block.seconds);
        if (!block.overlapped || block.collectives.empty()) {
            if (block.collectives.empty()) {
                pending += compute;
                continue;
            }
            previous = appendChain(program, network, block.collectives, tag, previous, pending + compute);
            pending = 0;
            continue;
        }
        if (pending > 0) {
            previous = delayFlow(program, routes, tag, pending, std::span<const int>(&previous, 1));
            pending = 0;
        }
        const int computeEnd = delayFlow(program, routes, tag, compute, std::span<const int>(&previous, 1));
        const int communicationEnd = appendChain(program, network, block.collectives, tag, previous, 0);
        const int both[] = { computeEnd, communicationEnd };
        previous = delayFlow(program, routes, tag, 0, both);
    }
    if (alongside == entry) {
        return { ready, delayFlow(program, routes, tag, pending, std::span<const int>(&previous, 1)) };
    }
    if (pending > 0) {
        previous = delayFlow(program, routes, tag, pending, std::span<const int>(&previous, 1));
    }
    const int ends[] = { previous, alongside };
    return { ready, delayFlow(program, routes, tag, 0, ends) };
}

} // namespace

Schedule executeGraphOnNetwork(const graph::ExecutionGraph& graph, CongestionNetwork& network,
    const NodeCollective& collectiveOf, const std::atomic<bool>* stop, const std::function<void(double)>& progress,
    std::vector<double>* linkBytes, const NodeInlineProgram& inlineOf)
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
        const InlineProgram* inlineProgram = !request && inlineOf ? inlineOf(id) : nullptr;
        if (inlineProgram) {
            const auto [start, finish] = appendInline(program, network, *inlineProgram, id, dependencies);
            entry[static_cast<size_t>(id)] = start;
            exit[static_cast<size_t>(id)] = finish;
            continue;
        }
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
