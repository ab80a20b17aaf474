// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace rapid::graph {

/// What a node does, for breakdowns and for colouring timelines.
enum class NodeKind {
    Compute, ///< forward/backward of a model chunk (with inline tensor/context/expert-parallel collectives)
    PipelineSend, ///< activations or gradients to the neighbouring pipeline stage
    DataParallel, ///< gradient reduction (all-reduce or reduce-scatter) across data-parallel replicas
    Optimizer, ///< optimizer update of the local parameters
    ParameterGather, ///< ZeRO/FSDP all-gather of parameters
    /// Hybrid sharding: a reduced gradient shard all-reduced over its replicas in the other shard groups, after the
    /// DataParallel reduce-scatter it follows.
    ReplicaReduction,
};
const char* toString(NodeKind kind);

/// Where the time of a node goes, for the step-time breakdown. Compute classes first, then exposed communication.
enum class TimeClass {
    Attention,
    Mlp,
    Moe,
    Norm,
    Embedding,
    LmHead,
    Loss,
    Other,
    TensorParallel,
    ContextParallel,
    ExpertParallel,
    PipelineParallel,
    DataParallel,
    Optimizer,
    /// Time the GPU waits for its host to issue the work (model/hostdispatch.h): what a pass's host-side dispatch
    /// exceeds of the GPU's own time. Neither communication nor GPU work.
    HostDispatch,
};
constexpr int kTimeClassCount = 15;
const char* toString(TimeClass timeClass);
/// Whether @p timeClass is time spent communicating (tensor, context, expert, pipeline and data parallel) rather than
/// computing (operator classes and the optimizer).
bool isCommunication(TimeClass timeClass);
/// Whether @p timeClass is time the GPU computes (the operator classes and the optimizer): neither communication nor
/// waiting for the host. A slower GPU stretches these; energy counts them as busy.
bool isGpuWork(TimeClass timeClass);
using TimeBreakdown = std::array<double, kTimeClassCount>; ///< seconds per TimeClass

/// Streams of one GPU. Nodes of one stream run one after another in the order they were added.
enum class Stream { Compute = 0, PipelineComm = 1, DataParallelComm = 2 };
constexpr int kStreamCount = 3;

using NodeId = std::int32_t;

/// Index of a time breakdown in ExecutionGraph::costs().
using CostId = std::int32_t;

/// One node of the execution graph of a representative rank. Small and allocation-free once added: the graph keeps
/// the dependencies in one edge list and the breakdowns in a shared table (a training step has ~10^4 nodes but only a
/// few distinct costs, one per stage, chunk and pass), as building and running the graph is the hot path of sweeps.
struct Node {
    NodeKind kind = NodeKind::Compute;
    int rank = 0; ///< representative rank (one per pipeline stage: ranks of a stage behave alike)
    Stream stream = Stream::Compute;
    double seconds = 0;
    double bytes = 0; ///< what a communication node moves per rank (message, collective buffer, shard); 0 for compute
    /// How `seconds` divides into classes (sums to seconds): an index returned by ExecutionGraph::addCost, or -1 for
    /// no breakdown (all classes zero). Read it back with ExecutionGraph::parts.
    CostId cost = -1;
    // Labels: what the node stands for (layer range, micro-batch, chunk, forward or backward).
    int microBatch = -1;
    int chunk = -1;
    bool backward = false;
    /// A DataParallel or ParameterGather node of the routed experts, over their own expert-data-parallel group
    /// (parallel::ChunkPlan::expertGradientReduction) rather than the dp group.
    bool expertGroup = false;
    /// Dependencies to add with the node. ExecutionGraph::add moves them into its edge list, so they are empty in
    /// nodes(); read them back with ExecutionGraph::dependencies or dependencyLists.
    std::vector<NodeId> dependencies;
};

/// One dependency: `node` starts after `dependsOn` has finished.
struct Edge {
    NodeId node = 0;
    NodeId dependsOn = 0;
};

/// The per-rank DAG of one training step or inference request: compute and communication nodes with their
/// dependencies and stream assignment. Built by the step builders; executed by sim::executeGraph.
class ExecutionGraph {
public:
    explicit ExecutionGraph(int ranks = 1);

    /// Reserves room for @p nodes nodes and @p edges dependencies (optional; saves reallocations).
    void reserve(size_t nodes, size_t edges);
    NodeId add(Node node);
    void addDependency(NodeId node, NodeId dependsOn);
    /// Adds a breakdown to the table nodes refer to by Node::cost.
    CostId addCost(const TimeBreakdown& parts);
    const Node& node(NodeId id) const { return m_nodes[static_cast<size_t>(id)]; }
    const std::vector<Node>& nodes() const { return m_nodes; }
    int ranks() const { return m_ranks; }
    /// The nodes of one stream of one rank, in execution order.
    const std::vector<NodeId>& streamOrder(int rank, Stream stream) const;
    /// How a node's seconds divide into classes (all zero when the node has no cost).
    const TimeBreakdown& parts(NodeId id) const;
    const std::vector<TimeBreakdown>& costs() const { return m_costs; }
    /// Every dependency in the order it was added (with the node, then by addDependency).
    const std::vector<Edge>& edges() const { return m_edges; }
    /// The dependencies of one node in the order they were added. O(edges): for all nodes use dependencyLists.
    std::vector<NodeId> dependencies(NodeId id) const;
    /// The dependencies of every node (by node id), each in the order they were added. O(nodes + edges).
    std::vector<std::vector<NodeId>> dependencyLists() const;
    /// A short readable name ("rank 2 F mb 5 chunk 1", "rank 0 optimizer").
    std::string describe(NodeId id) const;

private:
    void checkId(NodeId id) const;

    int m_ranks;
    std::vector<Node> m_nodes;
    std::vector<Edge> m_edges;
    std::vector<TimeBreakdown> m_costs;
    std::vector<std::array<std::vector<NodeId>, kStreamCount>> m_streams;
};

} // namespace rapid::graph
