// SPDX-License-Identifier: GPL-3.0-or-later
#include "stepchakraexport.h"

#include "sim/flowsimulator.h"

#include "compute/operatortimer.h"
#include "graph/chakracommgroups.h"
#include "graph/chakraexport.h"
#include "graph/chakrawriter.h"
#include "graph/trainingstep.h"
#include "model/layeroperators.h"
#include "parallel/placement.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <stdexcept>

namespace rapid::sim {

namespace {

/// "layers 12-23" (or "layer 7") of a chunk.
std::string layerRange(const std::vector<int>& layers)
{
    if (layers.empty()) {
        return "no layers";
    }
    if (layers.size() == 1) {
        return "layer " + std::to_string(layers.front());
    }
    return "layers " + std::to_string(layers.front()) + "-" + std::to_string(layers.back());
}

/// The pieces a chunk pass is split into (see writeChakraTraces).
class PassSplitter {
public:
    PassSplitter(const StepModel& stepModel, const graph::ExecutionGraph& graph, ChakraDetail detail)
        : m_scenario(stepModel.scenario())
        , m_sharding(stepModel.plan().sharding.layer)
        , m_graph(graph)
        , m_detail(detail)
        , m_timer(m_scenario.hardware.gpu)
    {
        for (int stage = 0; stage < graph.ranks(); ++stage) {
            m_layers.push_back(stepModel.chunkLayersOfStage(stage));
        }
    }

    std::vector<graph::ChakraNodePiece> operator()(const graph::ChakraNode& node)
    {
        if (m_detail == ChakraDetail::Chunk || node.id >= m_graph.nodes().size()) {
            return {};
        }
        const auto id = static_cast<graph::NodeId>(node.id);
        const graph::Node& pass = m_graph.node(id);
        if (pass.kind != graph::NodeKind::Compute || pass.chunk < 0) {
            return {};
        }
        const config::ModelSpec& model = m_scenario.model;
        const std::vector<int>& layers = m_layers[static_cast<size_t>(pass.rank)][static_cast<size_t>(pass.chunk)];
        const std::string prefix = "stage " + std::to_string(pass.rank) + (pass.backward ? " backward" : " forward")
            + " micro-batch " + std::to_string(pass.microBatch) + " ";
        const int chunks = static_cast<int>(m_layers[static_cast<size_t>(pass.rank)].size());
        const bool first = pass.rank == 0 && pass.chunk == 0;
        const bool last = pass.rank == m_graph.ranks() - 1 && pass.chunk == chunks - 1;
        // The pass's exposed communication inline with compute, shared evenly by its layers.
        const graph::TimeBreakdown& parts = m_graph.parts(id);
        const double communication = parts[static_cast<size_t>(graph::TimeClass::TensorParallel)]
            + parts[static_cast<size_t>(graph::TimeClass::ContextParallel)]
            + parts[static_cast<size_t>(graph::TimeClass::ExpertParallel)];
        const double perLayerCommunication = layers.empty() ? 0.0 : communication / static_cast<double>(layers.size());

        std::vector<graph::ChakraNodePiece> pieces;
        auto addOperators = [&](const std::vector<model::Operator>& ops, const std::string& where) {
            double sum = 0;
            for (const model::Operator& op : ops) {
                const double seconds = m_timer.time(op).seconds;
                sum += seconds;
                if (m_detail == ChakraDetail::Operator) {
                    pieces.push_back(
                        { prefix + where + " " + op.name + (op.phase == model::Phase::Recompute ? " (recompute)" : ""),
                            seconds });
                }
            }
            if (m_detail == ChakraDetail::Layer) {
                pieces.push_back({ prefix + where, sum });
            }
        };
        auto endOperators = [&](bool embedding) {
            const std::vector<model::Operator> all = embedding
                ? model::embeddingOperators(model, m_scenario.run, m_sharding, model::Workload::Training)
                : model::lmHeadOperators(model, m_scenario.run, m_sharding, model::Workload::Training);
            std::vector<model::Operator> selected;
            for (const model::Operator& op : all) {
                if ((op.phase == model::Phase::Forward) != pass.backward) {
                    selected.push_back(op);
                }
            }
            addOperators(selected, embedding ? "embedding" : "lm head");
        };
        auto layer = [&](int index) {
            const bool moe = model.moe && index >= model.moe->denseLayers;
            addOperators(pass.backward ? model::trainingBackward(model, m_scenario.run, m_sharding, moe)
                                       : model::trainingForward(model, m_scenario.run, m_sharding, moe),
                "layer " + std::to_string(index));
            if (perLayerCommunication > 0) {
                pieces.push_back(
                    { prefix + "layer " + std::to_string(index) + " parallel communication", perLayerCommunication });
            }
        };
        if (!pass.backward) {
            if (first) {
                endOperators(true);
            }
            for (int index : layers) {
                layer(index);
            }
            if (last) {
                endOperators(false);
            }
        } else {
            if (last) {
                endOperators(false);
            }
            for (auto it = layers.rbegin(); it != layers.rend(); ++it) {
                layer(*it);
            }
            if (first) {
                endOperators(true);
            }
        }
        return pieces;
    }

private:
    const config::Scenario& m_scenario;
    model::LayerSharding m_sharding;
    const graph::ExecutionGraph& m_graph;
    ChakraDetail m_detail;
    compute::OperatorTimer m_timer;
    std::vector<std::vector<std::vector<int>>> m_layers;
};

} // namespace

graph::ExecutionGraph stepExecutionGraph(StepModel& stepModel)
{
    const config::RunSpec& run = stepModel.scenario().run;
    return run.mode == config::RunMode::Training
        ? graph::buildTrainingStep(stepModel.plan().sharding, stepModel.trainingStageCosts())
        : graph::buildInferenceRequest(stepModel.inferenceRequestCosts());
}

graph::ChakraExportOptions stepChakraOptions(const parallel::StepPlan& plan, const graph::ExecutionGraph& graph)
{
    graph::ChakraExportOptions options;
    // Chakra's all-gather comm_size is the per-rank shard (ASTRA-sim, `rapid chakra simulate`); the graph's gather
    // nodes carry the gathered bytes the network moves, so they are divided by the data-parallel group they span.
    const auto dpGroup = static_cast<double>(std::max(1, plan.sharding.dataParallel));
    options.commBytes = [&graph, dpGroup](graph::NodeId id) {
        const graph::Node& node = graph.node(id);
        const double bytes = node.kind == graph::NodeKind::ParameterGather ? node.bytes / dpGroup : node.bytes;
        return static_cast<std::uint64_t>(std::llround(bytes));
    };
    options.dataParallelCollective = plan.sharding.reduceScattersGradients() ? graph::ChakraCollective::ReduceScatter
                                                                             : graph::ChakraCollective::AllReduce;
    return options;
}

std::vector<graph::ChakraTrace> stepChakraTraces(StepModel& stepModel)
{
    const graph::ExecutionGraph graph = stepExecutionGraph(stepModel);
    return graph::exportExecutionGraph(graph, stepChakraOptions(stepModel.plan(), graph));
}

ChakraExportSummary writeStepChakraTraces(const std::string& directory, StepModel& stepModel, ChakraDetail detail,
    const std::atomic<bool>* stop, const std::function<void(double)>& progress)
{
    const auto start = std::chrono::steady_clock::now();
    const config::RunSpec& run = stepModel.scenario().run;
    const bool training = run.mode == config::RunMode::Training;
    const graph::ExecutionGraph graph = stepExecutionGraph(stepModel);
    const parallel::Placement& placement = stepModel.placement();
    const int ranks = placement.ranks;
    const auto stageOf = [&](int rank) { return placement.stageOf(rank); };

    // Data-parallel communicators, numbered from 1 in order of their first rank.
    std::map<int, int> groupOfBase;
    graph::ChakraCommGroups groups;
    const auto dpBase = [&](int rank) { return placement.groupOf(parallel::Axis::Dp, rank).front(); };
    if (training && placement.degree(parallel::Axis::Dp) > 1) {
        for (int rank = 0; rank < ranks; ++rank) {
            auto [it, added] = groupOfBase.emplace(dpBase(rank), static_cast<int>(groupOfBase.size()) + 1);
            groups[std::to_string(it->second)].push_back(rank);
        }
    }

    std::vector<std::vector<std::vector<int>>> layersOfStage;
    for (int stage = 0; stage < graph.ranks(); ++stage) {
        layersOfStage.push_back(stepModel.chunkLayersOfStage(stage));
    }
    graph::ChakraExportOptions options = stepChakraOptions(stepModel.plan(), graph);
    options.dataParallelGroup = [](int) { return std::string("1"); }; // replaced per rank below
    const bool reduceScatters = stepModel.plan().sharding.reduceScattersGradients();
    options.nodeName = [&](graph::NodeId id) {
        const graph::Node& node = graph.node(id);
        if (!training) {
            const std::string stage = "stage " + std::to_string(node.rank) + " ";
            const std::string step
                = node.microBatch == 0 ? std::string("prefill") : "decode step " + std::to_string(node.microBatch);
            if (node.kind == graph::NodeKind::Compute) {
                return stage + step;
            }
            return stage
                + (node.rank + 1 == graph.ranks() ? "hand back the sampled tokens of " : "send the hidden states of ")
                + step;
        }
        std::string name = "stage " + std::to_string(node.rank) + " ";
        const std::string pass = node.backward ? "backward" : "forward";
        const std::string microBatch = " micro-batch " + std::to_string(node.microBatch);
        const std::vector<std::vector<int>>& chunks = layersOfStage[static_cast<size_t>(node.rank)];
        const std::string layers = node.chunk >= 0 && static_cast<size_t>(node.chunk) < chunks.size()
            ? layerRange(chunks[static_cast<size_t>(node.chunk)])
            : std::string();
        switch (node.kind) {
        case graph::NodeKind::Compute:
            return name + pass + microBatch + " " + layers
                + (node.backward && run.recompute != config::Recompute::None ? " (recompute included)" : "");
        case graph::NodeKind::PipelineSend:
            return name + (node.backward ? "send input gradients" : "send activations") + microBatch + " of " + layers;
        case graph::NodeKind::DataParallel:
            return name + "gradient " + (reduceScatters ? "reduce-scatter" : "all-reduce") + " of " + layers;
        case graph::NodeKind::Optimizer:
            return name + "optimizer step";
        case graph::NodeKind::ParameterGather:
            return name + "parameter all-gather";
        }
        return name + graph.describe(id);
    };
    std::vector<graph::ChakraTrace> representatives = graph::exportExecutionGraph(graph, options);
    if (training && detail != ChakraDetail::Chunk) {
        PassSplitter splitter(stepModel, graph, detail);
        for (graph::ChakraTrace& trace : representatives) {
            graph::splitComputeNodes(trace, std::ref(splitter));
        }
    }

    // Every rank runs its stage's graph with its own peers and communicator (SPMD), written one file at a time.
    std::filesystem::create_directories(directory);
    ChakraExportSummary summary;
    std::vector<std::filesystem::path> written;
    const auto cancelled = [&] { return stop && stop->load(std::memory_order_relaxed); };
    for (int rank = 0; rank < ranks; ++rank) {
        if (cancelled()) {
            // Half a trace set would replay as a different job: take back what this export wrote.
            for (const std::filesystem::path& path : written) {
                std::error_code ignored;
                std::filesystem::remove(path, ignored);
            }
            throw SimulationCancelled();
        }
        const int stage = stageOf(rank);
        // The same position in another stage: that stage's representative rank plus this rank's offset in its own.
        const int offset = rank - placement.representativeRank(stage);
        const std::function<int(int)> rankOfStage
            = [&](int other) { return placement.representativeRank(other) + offset; };
        const std::string group = groups.empty() ? std::string() : std::to_string(groupOfBase.at(dpBase(rank)));
        const graph::ChakraTrace trace
            = graph::instantiateRank(representatives[static_cast<size_t>(stage)], rank, rankOfStage, group);
        summary.nodes += trace.nodes.size();
        written.push_back(std::filesystem::path(directory) / ("rapid." + std::to_string(rank) + ".et"));
        graph::writeChakraFile(written.back(), trace);
        if (progress) {
            progress(static_cast<double>(rank + 1) / ranks);
        }
    }
    if (!groups.empty()) {
        std::ofstream json(std::filesystem::path(directory) / "comm_groups.json");
        json << graph::chakraCommGroupsJson(groups);
        if (!json) {
            throw std::runtime_error(
                "cannot write " + (std::filesystem::path(directory) / "comm_groups.json").string());
        }
    }
    summary.files = ranks;
    summary.groups = groups.size();
    summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return summary;
}

} // namespace rapid::sim
