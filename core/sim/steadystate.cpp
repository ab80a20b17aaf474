// SPDX-License-Identifier: GPL-3.0-or-later
#include "steadystate.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <span>
#include <utility>
#include <vector>

namespace rapid::sim {

namespace {

using graph::ExecutionGraph;
using graph::NodeId;

/// A micro-batch's nodes in the order the builder added them (each micro-batch's pattern comes out in the same
/// order), and each node's place among its micro-batch's.
struct MicroBatchNodes {
    std::vector<std::vector<NodeId>> owned;
    std::vector<int> position; ///< by node id; -1 for a node no micro-batch owns
};

MicroBatchNodes microBatchNodes(const ExecutionGraph& graph)
{
    MicroBatchNodes result;
    const std::vector<graph::Node>& nodes = graph.nodes();
    result.position.assign(nodes.size(), -1);
    for (size_t i = 0; i < nodes.size(); ++i) {
        const int microBatch = nodes[i].microBatch;
        if (microBatch < 0) {
            continue;
        }
        if (static_cast<size_t>(microBatch) >= result.owned.size()) {
            result.owned.resize(static_cast<size_t>(microBatch) + 1);
        }
        std::vector<NodeId>& owned = result.owned[static_cast<size_t>(microBatch)];
        result.position[i] = static_cast<int>(owned.size());
        owned.push_back(static_cast<NodeId>(i));
    }
    return result;
}

/// What each node waits for, its dependencies and the node before it on its stream, flat: node n's are
/// at[offsets[n] .. offsets[n + 1]) (one allocation for the graph, not one per node).
struct Predecessors {
    std::vector<size_t> offsets;
    std::vector<NodeId> at;
    std::span<const NodeId> of(size_t node) const
    {
        return { at.data() + offsets[node], at.data() + offsets[node + 1] };
    }
};

Predecessors predecessors(const ExecutionGraph& graph)
{
    const size_t count = graph.nodes().size();
    std::vector<NodeId> streamPrevious(count, -1);
    for (int rank = 0; rank < graph.ranks(); ++rank) {
        for (int stream = 0; stream < graph::kStreamCount; ++stream) {
            const std::vector<NodeId>& order = graph.streamOrder(rank, static_cast<graph::Stream>(stream));
            for (size_t i = 1; i < order.size(); ++i) {
                streamPrevious[static_cast<size_t>(order[i])] = order[i - 1];
            }
        }
    }
    Predecessors result;
    result.offsets.assign(count + 1, 0);
    for (const graph::Edge& edge : graph.edges()) {
        ++result.offsets[static_cast<size_t>(edge.node) + 1];
    }
    for (size_t i = 0; i < count; ++i) {
        result.offsets[i + 1] += result.offsets[i] + (streamPrevious[i] >= 0 ? 1 : 0);
    }
    result.at.resize(result.offsets[count]);
    std::vector<size_t> fill(result.offsets.begin(), result.offsets.end() - 1);
    for (const graph::Edge& edge : graph.edges()) {
        result.at[fill[static_cast<size_t>(edge.node)]++] = edge.dependsOn;
    }
    for (size_t i = 0; i < count; ++i) {
        if (streamPrevious[i] >= 0) {
            result.at[fill[i]++] = streamPrevious[i];
        }
    }
    return result;
}

/// A predecessor as a node of the pattern sees it: how many micro-batches back (or ahead) and its place there.
using RelativePredecessor = std::pair<int, int>;

/// @p node's predecessors relative to it, sorted; false when one of them belongs to no micro-batch.
bool relativePredecessors(const ExecutionGraph& graph, const MicroBatchNodes& owned,
    std::span<const NodeId> predecessorsOfNode, NodeId node, std::vector<RelativePredecessor>& out)
{
    out.clear();
    const int microBatch = graph.node(node).microBatch;
    for (NodeId predecessor : predecessorsOfNode) {
        const int theirs = graph.node(predecessor).microBatch;
        if (theirs < 0) {
            return false;
        }
        out.emplace_back(theirs - microBatch, owned.position[static_cast<size_t>(predecessor)]);
    }
    std::sort(out.begin(), out.end());
    return true;
}

bool sameLabels(const graph::Node& a, const graph::Node& b)
{
    return a.kind == b.kind && a.rank == b.rank && a.stream == b.stream && a.chunk == b.chunk
        && a.backward == b.backward && a.expertGroup == b.expertGroup && a.cost == b.cost && a.seconds == b.seconds
        && a.bytes == b.bytes;
}

/// The largest difference of micro-batch index between a node and what it waits for.
int dependencyReach(const ExecutionGraph& graph, const Predecessors& predecessorsOf)
{
    int reach = 0;
    for (size_t i = 0; i < graph.nodes().size(); ++i) {
        const int mine = graph.nodes()[i].microBatch;
        if (mine < 0) {
            continue;
        }
        for (NodeId predecessor : predecessorsOf.of(i)) {
            const int theirs = graph.node(predecessor).microBatch;
            if (theirs >= 0) {
                reach = std::max(reach, std::abs(theirs - mine));
            }
        }
    }
    return reach;
}

} // namespace

std::optional<double> steadyPeriodSeconds(const ExecutionGraph& graph, const Schedule& schedule, int period)
{
    const size_t count = graph.nodes().size();
    if (period < 1 || schedule.start.size() != count || schedule.finish.size() != count) {
        return std::nullopt;
    }
    const MicroBatchNodes owned = microBatchNodes(graph);
    const Predecessors predecessorsOf = predecessors(graph);
    const int microBatches = static_cast<int>(owned.owned.size());
    const int window = std::max(dependencyReach(graph, predecessorsOf), period);
    // Compare each micro-batch with its twin `period` later. The warm-up does not repeat (or not yet in time); then
    // the pattern does until the drain ends it. Once a window of twins keeps one distance in time, every twin after it
    // must keep it too.
    const double tolerance = 1e-9 * std::max(schedule.makespan, 1e-9);
    std::optional<double> shift;
    std::vector<RelativePredecessor> mine;
    std::vector<RelativePredecessor> twins;
    int compared = 0; // consecutive twins at one shift so far
    for (int j = 1; j + period < microBatches; ++j) {
        const std::vector<NodeId>& earlier = owned.owned[static_cast<size_t>(j)];
        const std::vector<NodeId>& later = owned.owned[static_cast<size_t>(j + period)];
        bool repeats = !earlier.empty() && earlier.size() == later.size();
        for (size_t k = 0; repeats && k < earlier.size(); ++k) {
            const NodeId a = earlier[k];
            const NodeId b = later[k];
            // A node waiting for one no micro-batch owns (a reduction of the drain) is not the pattern either.
            repeats = relativePredecessors(graph, owned, predecessorsOf.of(static_cast<size_t>(a)), a, mine)
                && relativePredecessors(graph, owned, predecessorsOf.of(static_cast<size_t>(b)), b, twins)
                && sameLabels(graph.node(a), graph.node(b)) && mine == twins;
        }
        if (!repeats) {
            if (compared >= window) {
                break; // the drain
            }
            compared = 0; // still the warm-up
            shift.reset();
            continue;
        }
        bool sameShift = true;
        double first = 0;
        for (size_t k = 0; k < earlier.size() && sameShift; ++k) {
            const auto a = static_cast<size_t>(earlier[k]);
            const auto b = static_cast<size_t>(later[k]);
            const double startShift = schedule.start[b] - schedule.start[a];
            const double finishShift = schedule.finish[b] - schedule.finish[a];
            first = k == 0 ? startShift : first;
            const double expected = compared > 0 ? *shift : first;
            sameShift = std::fabs(startShift - expected) <= tolerance && std::fabs(finishShift - expected) <= tolerance;
        }
        if (!sameShift) {
            if (compared >= window) {
                return std::nullopt; // the schedule stopped repeating after a whole window did: not shown
            }
            compared = 0;
            shift.reset();
            continue;
        }
        if (compared == 0) {
            shift = first;
        }
        ++compared;
    }
    if (compared < window || !shift || *shift < 0) {
        return std::nullopt;
    }
    return shift;
}

} // namespace rapid::sim
