// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "graph/executiongraph.h"
#include "network/collective.h"
#include "sim/congestionnetwork.h"
#include "sim/graphexecutor.h"

#include <atomic>
#include <functional>

namespace rapid::sim {

/// The collective a communication node of a graph stands for (with its SPMD replicas), or null for a node that
/// simply takes its `seconds` (compute, optimizer, or communication the caller keeps closed-form).
using NodeCollective = std::function<const network::CollectiveRequest*(graph::NodeId)>;

/// Runs @p graph with its communication nodes simulated together on one congestion-aware network: every node becomes
/// flows of a single flow program (a compute node is a delay on its GPU; a communication node is its collective's
/// flows, replicas included, after the collective launch cost), so that pipeline sends, gradient reductions and
/// parameter gathers of all stages contend wherever they share links, at the times they really overlap.
/// A node's start is when it was ready to run (dependencies and stream predecessor finished); its finish when its
/// last flow arrived. Throws IncompleteExecution for a graph that cannot complete (cycle), SimulationCancelled when
/// @p stop becomes true, network::UnreachableError when faults cut a collective's members apart.
/// @p progress receives the fraction of flows finished now and then; @p linkBytes, when given, receives the bytes
/// each directed link carried.
Schedule executeGraphOnNetwork(const graph::ExecutionGraph& graph, CongestionNetwork& network,
    const NodeCollective& collectiveOf, const std::atomic<bool>* stop = nullptr,
    const std::function<void(double)>& progress = {}, std::vector<double>* linkBytes = nullptr);

} // namespace rapid::sim
