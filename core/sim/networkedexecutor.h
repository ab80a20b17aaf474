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

/// A stretch of a compute node's work whose inline collectives (tensor/context/expert parallel, ZeRO-3 gathers) run
/// on the network: `seconds` of compute, and collectives (each with its SPMD replicas, each after the collective
/// launch cost) one after another. Blocking: the collectives follow the compute. Overlapped: they run alongside it
/// and the block ends when both have (Megatron's tp-comm-overlap, a CP ring under the attention core).
struct InlineBlock {
    double seconds = 0;
    std::vector<const network::CollectiveRequest*> collectives;
    bool overlapped = false;
};

/// The work of one compute node when some of its inline collectives run on the network: its blocks one after
/// another, and `alongside` collectives (one after another) that run beside all the blocks from the node's start
/// (ZeRO-3/FSDP parameter prefetch), both after `leadSeconds` of waiting. The node finishes when both have. On an
/// idle network it takes the closed-form seconds it stands for (compute + exposed communication).
struct InlineProgram {
    std::vector<InlineBlock> blocks;
    std::vector<const network::CollectiveRequest*> alongside;
    double leadSeconds = 0;
};

/// The inline program of a compute node, or null for a node that simply takes its `seconds`.
using NodeInlineProgram = std::function<const InlineProgram*(graph::NodeId)>;

/// Runs @p graph with its communication nodes simulated together on one congestion-aware network: every node becomes
/// flows of a single flow program (a compute node is a delay on its GPU; a communication node is its collective's
/// flows, replicas included, after the collective launch cost), so that pipeline sends, gradient reductions and
/// parameter gathers of all stages contend wherever they share links, at the times they really overlap.
/// A node's start is when it was ready to run (dependencies and stream predecessor finished); its finish when its
/// last flow arrived. Throws IncompleteExecution for a graph that cannot complete (cycle), SimulationCancelled when
/// @p stop becomes true, network::UnreachableError when faults cut a collective's members apart.
/// @p progress receives the fraction of flows finished now and then; @p linkBytes, when given, receives the bytes
/// each directed link carried. @p inlineOf, when given, names the compute nodes whose inline collectives run on the
/// network too (InlineProgram); their start is when they were ready, their finish when the program's last block and
/// alongside collective have finished.
Schedule executeGraphOnNetwork(const graph::ExecutionGraph& graph, CongestionNetwork& network,
    const NodeCollective& collectiveOf, const std::atomic<bool>* stop = nullptr,
    const std::function<void(double)>& progress = {}, std::vector<double>* linkBytes = nullptr,
    const NodeInlineProgram& inlineOf = {});

} // namespace rapid::sim
