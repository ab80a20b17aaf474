// SPDX-License-Identifier: GPL-3.0-or-later
// The congestion backend of the step model: the step's collectives as one flow program, and which collectives inline
// with compute (TP, CP, EP, ZeRO-3 gathers) join it, split around the compute of the nodes that carry them.
#include "congestionstepbackend.h"

#include <algorithm>
#include <cmath>

namespace rapid::sim {

using graph::TimeClass;

namespace {

bool onNetwork(const network::CollectiveRequest& request)
{
    return request.gpus.size() >= 2 && request.bytes > 0;
}

} // namespace

CongestionStepBackend::CongestionStepBackend(const config::HardwareSpec& hardware)
    : m_network(std::make_shared<CongestionNetwork>(hardware))
{
}

void CongestionStepBackend::buildRequests(const parallel::StepPlan& plan)
{
    m_stages.assign(plan.stages.size(), {});
    for (size_t s = 0; s < plan.stages.size(); ++s) {
        const parallel::StagePlan& stage = plan.stages[s];
        StageRequests& requests = m_stages[s];
        if (stage.sendForward) {
            requests.sendForward = plan.withReplicas(*stage.sendForward);
            requests.sendBackward = plan.withReplicas(*stage.sendBackward);
        }
        for (const parallel::ChunkPlan& chunk : stage.chunks) {
            requests.dataParallel.push_back(plan.withReplicas(chunk.gradientReduction));
            requests.replicaReduction.push_back(
                chunk.replicaReduction ? plan.withReplicas(*chunk.replicaReduction) : network::CollectiveRequest {});
            requests.expertDataParallel.push_back(chunk.expertGradientReduction
                    ? plan.withReplicas(*chunk.expertGradientReduction)
                    : network::CollectiveRequest {});
            if (chunk.parameterGather || chunk.expertParameterGather) {
                requests.chunkGather.push_back(
                    chunk.parameterGather ? plan.withReplicas(*chunk.parameterGather) : network::CollectiveRequest {});
                requests.expertChunkGather.push_back(chunk.expertParameterGather
                        ? plan.withReplicas(*chunk.expertParameterGather)
                        : network::CollectiveRequest {});
            }
        }
        if (stage.parameterGather) {
            requests.parameterGather = plan.withReplicas(*stage.parameterGather);
        }
        if (stage.expertParameterGather) {
            requests.expertParameterGather = plan.withReplicas(*stage.expertParameterGather);
        }
        for (const parallel::PlannedCollective& part : stage.layer.tensorPair) {
            requests.tensorPair.push_back(plan.withReplicas(part));
        }
        if (stage.layer.contextStep) {
            requests.contextStep = plan.withReplicas(*stage.layer.contextStep);
        }
        for (const parallel::PlannedCollective& wait : stage.layer.contextForward) {
            requests.contextForward.push_back(plan.withReplicas(wait));
        }
        for (const parallel::PlannedCollective& wait : stage.layer.contextBackward) {
            requests.contextBackward.push_back(plan.withReplicas(wait));
        }
        if (stage.layer.expertAllToAll) {
            requests.expertAllToAll = plan.withReplicas(*stage.layer.expertAllToAll);
        }
        for (const parallel::PlannedCollective& part : stage.layer.expertTensorPair) {
            requests.expertTensorPair.push_back(plan.withReplicas(part));
        }
    }
}

const network::CollectiveRequest* CongestionStepBackend::collectiveOfNode(
    const graph::ExecutionGraph& graph, graph::NodeId id) const
{
    const graph::Node& node = graph.node(id);
    if (node.rank < 0 || static_cast<size_t>(node.rank) >= m_stages.size()) {
        return nullptr;
    }
    const StageRequests& stage = m_stages[static_cast<size_t>(node.rank)];
    const network::CollectiveRequest* result = nullptr;
    switch (node.kind) {
    case graph::NodeKind::PipelineSend:
        result = node.backward ? &stage.sendBackward : &stage.sendForward;
        break;
    case graph::NodeKind::DataParallel:
    case graph::NodeKind::ReplicaReduction: {
        const auto& perChunk = node.kind == graph::NodeKind::ReplicaReduction ? stage.replicaReduction
            : node.expertGroup                                                ? stage.expertDataParallel
                                                                              : stage.dataParallel;
        if (node.chunk >= 0 && static_cast<size_t>(node.chunk) < perChunk.size()) {
            result = &perChunk[static_cast<size_t>(node.chunk)];
        }
        break;
    }
    case graph::NodeKind::ParameterGather:
        result = node.expertGroup ? &stage.expertParameterGather : &stage.parameterGather;
        break;
    default:
        break;
    }
    if (!result || !onNetwork(*result)) {
        return nullptr;
    }
    // Bucketed reductions and gathers split a chunk's collective over two nodes: each moves its part of the bytes.
    if (node.bytes > 0 && std::abs(node.bytes - result->bytes) > 1e-9 * result->bytes) {
        auto [scaled, inserted] = m_partialRequests.try_emplace(id, *result);
        scaled->second.bytes = node.bytes;
        return &scaled->second;
    }
    return result;
}

StepExecution CongestionStepBackend::executeTraining(const TrainingStepInput& input)
{
    buildRequests(input.plan);
    m_partialRequests.clear();
    const graph::ExecutionGraph& graph = input.graph;
    const std::vector<double> foldedLinkBytes = planInlineCollectives(input);
    StepExecution execution;
    execution.schedule = executeGraphOnNetwork(
        graph, *m_network, [&](graph::NodeId id) { return collectiveOfNode(graph, id); }, m_stop, m_progress,
        &execution.linkBytes, [&](graph::NodeId id) { return inlineProgramOfNode(graph, id); });
    // Folded inline collectives are not in the simulation: their bytes (per occurrence x occurrences) are added.
    std::vector<double>& linkBytes = execution.linkBytes;
    linkBytes.resize(std::max(linkBytes.size(), foldedLinkBytes.size()), 0.0);
    for (size_t link = 0; link < foldedLinkBytes.size(); ++link) {
        linkBytes[link] += foldedLinkBytes[link];
    }
    if (m_inlinePrograms.empty()) {
        return execution;
    }
    execution.stretchedNodes.assign(graph.nodes().size(), 0);
    for (size_t id = 0; id < graph.nodes().size(); ++id) {
        execution.stretchedNodes[id] = inlineProgramOfNode(graph, static_cast<graph::NodeId>(id)) != nullptr;
    }
    const std::array<TimeClass, kInlineKinds> classes
        = { TimeClass::TensorParallel, TimeClass::ContextParallel, TimeClass::ExpertParallel, TimeClass::DataParallel };
    for (const StageRequests& stage : m_stages) {
        std::vector<TimeClass> stretched;
        for (size_t kind = 0; kind < classes.size(); ++kind) {
            if (stage.onNetwork[kind]) {
                stretched.push_back(classes[kind]);
            }
        }
        execution.stretchedClasses.push_back(std::move(stretched));
    }
    return execution;
}

} // namespace rapid::sim
