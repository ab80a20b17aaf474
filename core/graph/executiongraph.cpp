// SPDX-License-Identifier: GPL-3.0-or-later
#include "executiongraph.h"

#include <stdexcept>

namespace rapid::graph {

const char* toString(NodeKind kind)
{
    switch (kind) {
    case NodeKind::Compute:
        return "compute";
    case NodeKind::PipelineSend:
        return "pipeline send";
    case NodeKind::DataParallel:
        return "data-parallel reduction";
    case NodeKind::Optimizer:
        return "optimizer";
    case NodeKind::ParameterGather:
        return "parameter gather";
    case NodeKind::ReplicaReduction:
        return "shard replica reduction";
    }
    return "?";
}

bool isCommunication(TimeClass timeClass)
{
    switch (timeClass) {
    case TimeClass::TensorParallel:
    case TimeClass::ContextParallel:
    case TimeClass::ExpertParallel:
    case TimeClass::PipelineParallel:
    case TimeClass::DataParallel:
        return true;
    default:
        return false;
    }
}

bool isGpuWork(TimeClass timeClass)
{
    return !isCommunication(timeClass) && timeClass != TimeClass::HostDispatch;
}

const char* toString(TimeClass timeClass)
{
    switch (timeClass) {
    case TimeClass::Attention:
        return "attention";
    case TimeClass::Mlp:
        return "mlp";
    case TimeClass::Moe:
        return "moe";
    case TimeClass::Norm:
        return "norm";
    case TimeClass::Embedding:
        return "embedding";
    case TimeClass::LmHead:
        return "lm_head";
    case TimeClass::Loss:
        return "loss";
    case TimeClass::Other:
        return "other";
    case TimeClass::TensorParallel:
        return "tp_comm";
    case TimeClass::ContextParallel:
        return "cp_comm";
    case TimeClass::ExpertParallel:
        return "ep_comm";
    case TimeClass::PipelineParallel:
        return "pp_comm";
    case TimeClass::DataParallel:
        return "dp_comm";
    case TimeClass::Optimizer:
        return "optimizer";
    case TimeClass::HostDispatch:
        return "host_dispatch";
    }
    return "?";
}

ExecutionGraph::ExecutionGraph(int ranks)
    : m_ranks(ranks < 1 ? 1 : ranks)
    , m_streams(static_cast<size_t>(m_ranks))
{
}

void ExecutionGraph::reserve(size_t nodes, size_t edges)
{
    m_nodes.reserve(nodes);
    m_edges.reserve(edges);
}

void ExecutionGraph::checkId(NodeId id) const
{
    if (static_cast<size_t>(id) >= m_nodes.size()) { // negative ids wrap to huge values
        throw std::out_of_range("execution graph: dependency on a node that does not exist");
    }
}

NodeId ExecutionGraph::add(Node node)
{
    if (node.rank < 0 || node.rank >= m_ranks) {
        throw std::out_of_range("execution graph: node rank outside the graph");
    }
    if (node.cost < -1 || node.cost >= static_cast<CostId>(m_costs.size())) {
        throw std::out_of_range("execution graph: node cost outside the cost table");
    }
    const NodeId id = static_cast<NodeId>(m_nodes.size());
    if (!node.dependencies.empty()) {
        for (NodeId dependency : node.dependencies) {
            m_edges.push_back({ id, dependency }); // may name a node added later; the executor checks
        }
        node.dependencies = {}; // kept in m_edges; releases the node's buffer
    }
    m_streams[static_cast<size_t>(node.rank)][static_cast<size_t>(node.stream)].push_back(id);
    m_nodes.push_back(std::move(node));
    return id;
}

void ExecutionGraph::addDependency(NodeId node, NodeId dependsOn)
{
    if (static_cast<size_t>(node) >= m_nodes.size() || static_cast<size_t>(dependsOn) >= m_nodes.size()) {
        checkId(node);
        checkId(dependsOn);
    }
    m_edges.push_back({ node, dependsOn });
}

CostId ExecutionGraph::addCost(const TimeBreakdown& parts)
{
    m_costs.push_back(parts);
    return static_cast<CostId>(m_costs.size() - 1);
}

const TimeBreakdown& ExecutionGraph::parts(NodeId id) const
{
    static const TimeBreakdown kNone {};
    const CostId cost = node(id).cost;
    return cost < 0 ? kNone : m_costs[static_cast<size_t>(cost)];
}

std::vector<NodeId> ExecutionGraph::dependencies(NodeId id) const
{
    std::vector<NodeId> result;
    for (const Edge& edge : m_edges) {
        if (edge.node == id) {
            result.push_back(edge.dependsOn);
        }
    }
    return result;
}

std::vector<std::vector<NodeId>> ExecutionGraph::dependencyLists() const
{
    std::vector<std::vector<NodeId>> result(m_nodes.size());
    for (const Edge& edge : m_edges) {
        result[static_cast<size_t>(edge.node)].push_back(edge.dependsOn);
    }
    return result;
}

const std::vector<NodeId>& ExecutionGraph::streamOrder(int rank, Stream stream) const
{
    return m_streams.at(static_cast<size_t>(rank))[static_cast<size_t>(stream)];
}

std::string ExecutionGraph::describe(NodeId id) const
{
    const Node& n = node(id);
    std::string text = "rank " + std::to_string(n.rank) + " " + toString(n.kind);
    if (n.microBatch >= 0) {
        text += std::string(n.backward ? " backward" : " forward") + " micro-batch " + std::to_string(n.microBatch);
    }
    if (n.chunk >= 0) {
        text += " chunk " + std::to_string(n.chunk);
    }
    return text;
}

} // namespace rapid::graph
