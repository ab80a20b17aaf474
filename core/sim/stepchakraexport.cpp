// SPDX-License-Identifier: GPL-3.0-or-later
#include "stepchakraexport.h"

#include "config/diagnostic.h"

#include "chakracommunicators_p.h"
#include "chakrapasspieces_p.h"

#include "sim/flowsimulator.h"

#include "compute/operatortimer.h"
#include "graph/chakracommgroups.h"
#include "graph/chakraexport.h"
#include "graph/chakrawriter.h"
#include "graph/parallelfor.h"
#include "graph/trainingstep.h"
#include "model/layeroperators.h"
#include "parallel/placement.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <stdexcept>
#include <thread>

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

/// Removes the pg_name of collectives whose axis has no communicator here (degree 1): without one a trace simulator
/// reads "all ranks", and those collectives move nothing.
void stripPlaceholderGroups(graph::ChakraTrace& trace)
{
    for (graph::ChakraNode& node : trace.nodes) {
        if (node.type != graph::ChakraNodeType::Collective) {
            continue;
        }
        std::erase_if(node.attributes, [](const graph::ChakraAttribute& attribute) {
            const std::optional<std::string> value = attribute.string();
            return attribute.name == "pg_name" && value
                && (value->empty() || value->find_first_not_of("0123456789") != std::string::npos);
        });
    }
}

/// The ranks to write: @p onlyRanks, or all @p ranks of the job. A rank outside the job throws before anything is
/// written.
std::vector<int> chosenRanks(const std::vector<int>& onlyRanks, int ranks)
{
    std::vector<int> chosen = onlyRanks;
    if (chosen.empty()) {
        for (int rank = 0; rank < ranks; ++rank) {
            chosen.push_back(rank);
        }
    }
    for (const int rank : chosen) {
        if (rank < 0 || rank >= ranks) {
            throw std::invalid_argument(
                "rank " + std::to_string(rank) + " is outside the job's ranks 0.." + std::to_string(ranks - 1));
        }
    }
    return chosen;
}

/// Writes `rapid.<rank>.et` for every rank of @p chosen, the trace made by @p traceOf. Ranks are independent: a few
/// per thread at a time are instantiated and written in parallel; progress and stop are handled on the calling
/// thread, once per file. Every file begun is listed in @p written first (to take back on failure; not a folder that
/// was there before). Returns the nodes written.
std::size_t writeRankTraces(const std::string& directory, const std::vector<int>& chosen,
    const std::function<graph::ChakraTrace(int)>& traceOf, const std::atomic<bool>* stop,
    const std::function<void(double)>& progress, std::vector<std::filesystem::path>& written)
{
    const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    const std::size_t batch = std::size_t { threads } * 2;
    std::vector<std::size_t> nodes(batch);
    std::size_t total = 0;
    for (std::size_t first = 0; first < chosen.size(); first += batch) {
        const std::size_t last = std::min(chosen.size(), first + batch);
        std::vector<std::filesystem::path> paths;
        for (std::size_t index = first; index < last; ++index) {
            paths.push_back(std::filesystem::path(directory) / ("rapid." + std::to_string(chosen[index]) + ".et"));
            if (std::filesystem::is_regular_file(paths.back()) || !std::filesystem::exists(paths.back())) {
                written.push_back(paths.back());
            }
        }
        graph::parallelFor(last - first, threads, [&](std::size_t i) {
            const graph::ChakraTrace trace = traceOf(chosen[first + i]);
            nodes[i] = trace.nodes.size();
            graph::writeChakraFile(paths[i], trace);
        });
        for (std::size_t i = 0; i < last - first; ++i) {
            total += nodes[i];
            if (progress) {
                progress(static_cast<double>(first + i + 1) / static_cast<double>(chosen.size()));
            }
            if (stop && stop->load(std::memory_order_relaxed)) {
                throw SimulationCancelled();
            }
        }
    }
    return total;
}

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
    // nodes carry the gathered bytes the network moves, so they are divided by the group they span (the shard group:
    // dp x cp, or dp_shard x cp under hybrid sharding).
    // The routed experts' gathers span their own shard group.
    const auto dpGroup = static_cast<double>(std::max(1, plan.sharding.shardGroup));
    const auto expertGroup = static_cast<double>(std::max(1, plan.sharding.expertShardGroup));
    options.commBytes = [&graph, dpGroup, expertGroup](graph::NodeId id) {
        const graph::Node& node = graph.node(id);
        const double shards = node.expertGroup ? expertGroup : dpGroup;
        const double bytes = node.kind == graph::NodeKind::ParameterGather ? node.bytes / shards : node.bytes;
        return static_cast<std::uint64_t>(std::llround(bytes));
    };
    options.metadataAttributes.push_back(
        graph::ChakraAttribute::text(graph::kCollectiveLibraryAttribute, network::toString(plan.library)));
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
    const std::atomic<bool>* stop, const std::function<void(double)>& progress, const std::vector<int>& onlyRanks)
{
    const auto start = std::chrono::steady_clock::now();
    const config::RunSpec& run = stepModel.scenario().run;
    const bool training = run.mode == config::RunMode::Training;
    if (training && stepModel.plan().sharding.combinedOneFOneB) {
        // Its co-scheduled passes would be written one after the other, each with its all-to-alls blocking: a
        // replay would not be the step modelled.
        throw config::InputLimitError("run.parallelism.ep_a2a_overlap: the co-scheduled passes of combined 1F1B are "
                                      "not written as Chakra traces; set it false to export the step");
    }
    const graph::ExecutionGraph graph = stepExecutionGraph(stepModel);
    const parallel::Placement& placement = stepModel.placement();
    const int ranks = placement.ranks;
    const auto stageOf = [&](int rank) { return placement.stageOf(rank); };

    const detail::ChakraCommunicators communicators(placement);
    const graph::ChakraCommGroups& groups = communicators.groups();

    std::vector<std::vector<std::vector<int>>> layersOfStage;
    for (int stage = 0; stage < graph.ranks(); ++stage) {
        layersOfStage.push_back(stepModel.chunkLayersOfStage(stage));
    }
    graph::ChakraExportOptions options = stepChakraOptions(stepModel.plan(), graph);
    options.dataParallelGroup = [](int) { return detail::groupPlaceholder(parallel::Axis::Dp); };
    options.replicaReductionGroup = [](int) { return std::string(detail::kShardReplicaPlaceholder); };
    options.expertDataParallelGroup = [](int) { return std::string(detail::kExpertDataPlaceholder); };
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
            if (node.chunk < 0) { // graph::StageCost::reductionContentionSeconds, gatherContentionSeconds
                return name + pass + " slowed by the data-parallel collectives beside it (" + microBatch.substr(1)
                    + ")";
            }
            return name + pass + microBatch + " " + layers
                + (node.backward && run.recompute != config::Recompute::None ? " (recompute included)" : "");
        case graph::NodeKind::PipelineSend:
            return name + (node.backward ? "send input gradients" : "send activations") + microBatch + " of " + layers;
        case graph::NodeKind::DataParallel:
            return name + (node.expertGroup ? "routed experts' gradient " : "gradient ")
                + (reduceScatters ? "reduce-scatter" : "all-reduce") + " of " + layers;
        case graph::NodeKind::Optimizer:
            return name + "optimizer step";
        case graph::NodeKind::ParameterGather:
            return name + (node.expertGroup ? "routed experts' parameter all-gather" : "parameter all-gather");
        case graph::NodeKind::ReplicaReduction:
            return name + "gradient shard all-reduce over its replicas of " + layers;
        }
        return name + graph.describe(id);
    };
    std::vector<graph::ChakraTrace> representatives = graph::exportExecutionGraph(graph, options);
    detail::ChakraPassSplitter splitter(stepModel, graph, detail);
    for (graph::ChakraTrace& trace : representatives) {
        graph::splitComputeNodes(trace, std::ref(splitter));
    }

    // Every rank runs its stage's graph with its own peers and communicator (SPMD), written one file at a time.
    const std::vector<int> chosen = chosenRanks(onlyRanks, ranks);
    std::filesystem::create_directories(directory);
    ChakraExportSummary summary;
    std::vector<std::filesystem::path> written;
    try {
        summary.nodes = writeRankTraces(
            directory, chosen,
            [&](int rank) {
                graph::ChakraTrace trace = graph::instantiateRank(
                    representatives[static_cast<size_t>(stageOf(rank))], rank, communicators.mappingOf(rank));
                stripPlaceholderGroups(trace);
                return trace;
            },
            stop, progress, written);
        if (!groups.empty()) {
            written.push_back(std::filesystem::path(directory) / "comm_groups.json");
            std::ofstream json(written.back());
            json << graph::chakraCommGroupsJson(groups);
            if (!json) {
                throw std::runtime_error("cannot write " + written.back().string());
            }
        }
    } catch (...) {
        // Stopped, or a file could not be written: half a trace set would replay as a different job, so take back
        // everything this export wrote.
        for (const std::filesystem::path& path : written) {
            std::error_code ignored;
            std::filesystem::remove(path, ignored);
        }
        throw;
    }
    summary.files = static_cast<int>(chosen.size());
    summary.ranks = ranks;
    summary.groups = groups.size();
    summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return summary;
}

} // namespace rapid::sim
