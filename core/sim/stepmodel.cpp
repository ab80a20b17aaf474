// SPDX-License-Identifier: GPL-3.0-or-later
#include "stepmodel.h"
#include "stepmodel_p.h"

#include "sim/congestionnetwork.h"
#include "sim/networkedexecutor.h"

#include "memory/memorymodel.h"
#include "model/layeroperators.h"
#include "model/modelstats.h"
#include "network/analyticalnetwork.h"
#include "parallel/pipelineschedule.h"
#include "sim/graphexecutor.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace rapid::sim {

using graph::TimeBreakdown;
using graph::TimeClass;
using network::CollectiveKind;

graph::TimeClass timeClassOf(model::OperatorClass opClass)
{
    switch (opClass) {
    case model::OperatorClass::Attention:
        return TimeClass::Attention;
    case model::OperatorClass::Mlp:
        return TimeClass::Mlp;
    case model::OperatorClass::Moe:
        return TimeClass::Moe;
    case model::OperatorClass::Norm:
        return TimeClass::Norm;
    case model::OperatorClass::Embedding:
        return TimeClass::Embedding;
    case model::OperatorClass::LmHead:
        return TimeClass::LmHead;
    case model::OperatorClass::Loss:
        return TimeClass::Loss;
    case model::OperatorClass::Optimizer:
        return TimeClass::Optimizer;
    case model::OperatorClass::Other:
        break;
    }
    return TimeClass::Other;
}

namespace stepdetail {

double sum(const TimeBreakdown& parts)
{
    return std::accumulate(parts.begin(), parts.end(), 0.0);
}

/// Which layers each virtual chunk of a stage holds (global indices), as the memory model splits them.
std::vector<std::vector<int>> chunkLayers(const config::ModelSpec& model, const config::RunSpec& run, int stage)
{
    const config::ParallelismSpec& parallel = run.parallelism;
    const int virtualStages = parallel.schedule == config::PipelineSchedule::Interleaved ? parallel.virtualStages : 1;
    const std::vector<int> perChunk
        = parallel::layersPerChunk(model.numLayers, parallel.pp, virtualStages, parallel.layersPerStage);
    std::vector<std::vector<int>> result;
    for (int v = 0; v < virtualStages; ++v) {
        const int chunk = v * parallel.pp + stage;
        const int start = std::accumulate(perChunk.begin(), perChunk.begin() + chunk, 0);
        std::vector<int> layers(static_cast<size_t>(perChunk[static_cast<size_t>(chunk)]));
        std::iota(layers.begin(), layers.end(), start);
        result.push_back(layers);
    }
    return result;
}

bool isMoe(const config::ModelSpec& model, int layer)
{
    return model.moe && layer >= model.moe->denseLayers;
}

} // namespace stepdetail

using stepdetail::chunkLayers;
using stepdetail::isMoe;
using stepdetail::sum;

namespace {

void add(TimeBreakdown& into, const TimeBreakdown& parts, double times = 1.0)
{
    for (size_t i = 0; i < into.size(); ++i) {
        into[i] += times * parts[i];
    }
}

double& at(TimeBreakdown& parts, TimeClass timeClass)
{
    return parts[static_cast<size_t>(timeClass)];
}

/// Exposed part of communication that can overlap with @p hideable seconds of compute.
double exposed(double communication, double hideable)
{
    return std::max(0.0, communication - hideable);
}

} // namespace

StepModel::StepModel(config::Scenario scenario, NetworkBackend backend)
    : StepModel(std::move(scenario))
{
    if (backend == NetworkBackend::Congestion) {
        m_congestion = std::make_shared<CongestionNetwork>(m_scenario.hardware);
        m_collective = [network = m_congestion](const network::CollectiveRequest& r) { return network->time(r); };
        m_replicateGroups = true;
    }
}

StepModel::StepModel(config::Scenario scenario, CollectiveCost collective)
    : m_scenario(std::move(scenario))
    , m_collective(std::move(collective))
    , m_placement(parallel::placeRanks(m_scenario.hardware, m_scenario.run, m_scenario.locations, nullptr))
    , m_timer(m_scenario.hardware.gpu)
{
    if (!m_collective) {
        auto network = std::make_shared<network::AnalyticalNetwork>(m_scenario.hardware);
        m_collective = [network](const network::CollectiveRequest& request) { return network->time(request).seconds; };
    }
}

std::vector<std::vector<int>> StepModel::chunkLayersOfStage(int stage) const
{
    return chunkLayers(m_scenario.model, m_scenario.run, stage);
}

int StepModel::representativeRank(int stage) const
{
    for (const parallel::AxisPlacement& axis : m_placement.axes) {
        if (axis.axis == "pp") {
            return stage * axis.stride;
        }
    }
    return 0;
}

std::vector<int> StepModel::group(const std::string& axisName, int rank) const
{
    for (const parallel::AxisPlacement& axis : m_placement.axes) {
        if (axis.axis == axisName) {
            // The group of `rank` along this axis: same coordinates on the other axes.
            const int coordinate = (rank / axis.stride) % axis.degree;
            const int base = rank - coordinate * axis.stride;
            std::vector<int> gpus;
            for (int i = 0; i < axis.degree; ++i) {
                gpus.push_back(base + i * axis.stride);
            }
            return gpus;
        }
    }
    return { rank };
}

double StepModel::collective(CollectiveKind kind, double bytes, const std::vector<int>& gpus)
{
    if (gpus.size() < 2 || bytes <= 0) {
        return 0;
    }
    return m_collective(request(kind, bytes, gpus));
}

network::CollectiveRequest StepModel::request(CollectiveKind kind, double bytes, const std::vector<int>& gpus) const
{
    network::CollectiveRequest result;
    result.kind = kind;
    result.bytes = bytes;
    result.gpus = gpus;
    if (m_replicateGroups && gpus.size() >= 2) {
        result.replicaOffsets = replicaOffsets(kind, gpus);
    }
    return result;
}

const network::CollectiveRequest* StepModel::collectiveOfNode(
    const graph::ExecutionGraph& graph, graph::NodeId id) const
{
    const graph::Node& node = graph.node(id);
    if (node.rank < 0 || static_cast<size_t>(node.rank) >= m_stageRequests.size()) {
        return nullptr;
    }
    const StageRequests& stage = m_stageRequests[static_cast<size_t>(node.rank)];
    const network::CollectiveRequest* result = nullptr;
    switch (node.kind) {
    case graph::NodeKind::PipelineSend:
        result = node.backward ? &stage.sendBackward : &stage.sendForward;
        break;
    case graph::NodeKind::DataParallel:
        if (node.chunk >= 0 && static_cast<size_t>(node.chunk) < stage.dataParallel.size()) {
            result = &stage.dataParallel[static_cast<size_t>(node.chunk)];
        }
        break;
    case graph::NodeKind::ParameterGather:
        result = &stage.parameterGather;
        break;
    default:
        break;
    }
    return result && result->gpus.size() >= 2 && result->bytes > 0 ? result : nullptr;
}

std::vector<int> StepModel::replicaOffsets(CollectiveKind kind, const std::vector<int>& gpus) const
{
    // Every rank of the group's pipeline stage runs the same collective at the same time (SPMD): the other groups
    // are the group translated so that it starts at each rank not covered yet (ascending, so each translate starts at
    // its smallest rank). A send/recv is replicated by its sender only: every rank of the stage sends.
    const int total = m_scenario.hardware.cluster.totalGpus();
    int ppStride = 1;
    int ppDegree = 1;
    for (const parallel::AxisPlacement& axis : m_placement.axes) {
        if (axis.axis == "pp") {
            ppStride = axis.stride;
            ppDegree = axis.degree;
        }
    }
    const auto stageOf = [&](int rank) { return (rank / ppStride) % ppDegree; };
    const int stage = stageOf(gpus.front());
    const bool pointToPoint = kind == CollectiveKind::SendRecv;
    std::vector<char> covered(static_cast<size_t>(total), 0);
    auto cover = [&](int offset) {
        if (pointToPoint) {
            covered[static_cast<size_t>(gpus.front() + offset)] = 1;
            return;
        }
        for (int gpu : gpus) {
            covered[static_cast<size_t>(gpu + offset)] = 1;
        }
    };
    cover(0);
    std::vector<int> offsets;
    for (int rank = 0; rank < total; ++rank) {
        if (covered[static_cast<size_t>(rank)] || stageOf(rank) != stage) {
            continue;
        }
        const int offset = rank - gpus.front();
        const bool fits = std::all_of(gpus.begin(), gpus.end(), [&](int gpu) {
            const int moved = gpu + offset;
            return moved >= 0 && moved < total && (pointToPoint || !covered[static_cast<size_t>(moved)]);
        });
        if (fits) {
            offsets.push_back(offset);
            cover(offset);
        }
    }
    return offsets;
}

TimeBreakdown StepModel::timeOperators(
    const std::vector<model::Operator>& ops, double* gemmSeconds, double* attentionSeconds)
{
    TimeBreakdown parts {};
    for (const model::Operator& op : ops) {
        const double seconds = m_timer.time(op).seconds;
        at(parts, timeClassOf(op.opClass)) += seconds;
        if (gemmSeconds && op.kind == model::OperatorKind::Gemm) {
            *gemmSeconds += seconds;
        }
        if (attentionSeconds
            && (op.kind == model::OperatorKind::FlashAttention || op.kind == model::OperatorKind::NaiveAttention)) {
            *attentionSeconds += seconds;
        }
    }
    return parts;
}

const StepModel::LayerPass& StepModel::layerPass(bool moe)
{
    std::unique_ptr<LayerPass>& cached = moe ? m_moe : m_dense;
    if (cached) {
        return *cached;
    }
    const config::ModelSpec& model = m_scenario.model;
    const config::RunSpec& run = m_scenario.run;
    const config::ParallelismSpec& parallel = run.parallelism;
    auto pass = std::make_unique<LayerPass>();
    pass->forward = timeOperators(model::trainingForward(model, run, moe), &pass->forwardGemm, &pass->forwardAttention);
    pass->backward
        = timeOperators(model::trainingBackward(model, run, moe), &pass->backwardGemm, &pass->backwardAttention);
    pass->parameters = model::localLayerParameters(model, run, moe);

    const int rank = representativeRank(0);
    const double tokens = static_cast<double>(run.microBatch) * run.seqLength / parallel.cp;
    const double activationBytes = config::bytesPerElement(run.precision.activations);
    const double hiddenBytes = tokens * model.hiddenSize * activationBytes;
    // Tensor parallelism (Megatron): two collectives per layer and direction on the hidden state, all-reduces, or with
    // sequence parallelism an all-gather before and a reduce-scatter after each block (same volume). Full
    // recomputation re-runs the forward's collectives in the backward.
    if (parallel.tp > 1) {
        const std::vector<int> tpGroup = group("tp", rank);
        const double pair = parallel.sequenceParallel ? collective(CollectiveKind::AllGather, hiddenBytes, tpGroup)
                + collective(CollectiveKind::ReduceScatter, hiddenBytes, tpGroup)
                                                      : collective(CollectiveKind::AllReduce, hiddenBytes, tpGroup);
        const double forward = 2 * pair;
        const double backward = 2 * pair + (run.recompute == config::Recompute::Full ? forward : 0.0);
        // With tp_comm_overlap the collectives run under the layer's GEMMs (at most their length).
        at(pass->forward, TimeClass::TensorParallel)
            += parallel.tpCommOverlap ? exposed(forward, pass->forwardGemm) : forward;
        at(pass->backward, TimeClass::TensorParallel)
            += parallel.tpCommOverlap ? exposed(backward, pass->backwardGemm) : backward;
    }
    // Context parallelism: a ring passes each rank's K and V chunk around the cp group, cp - 1 steps hidden behind the
    // attention core as far as it lasts; the backward also returns dK and dV.
    if (parallel.cp > 1) {
        const std::vector<int> cpGroup = group("cp", rank);
        const double kvHeads = std::max(1.0, static_cast<double>(model.numKvHeads) / parallel.tp);
        const double kvBytes = 2 * tokens * kvHeads * model.headDim * activationBytes;
        const double step = collective(CollectiveKind::SendRecv, kvBytes, { cpGroup[0], cpGroup[1] });
        at(pass->forward, TimeClass::ContextParallel) += exposed((parallel.cp - 1) * step, pass->forwardAttention);
        at(pass->backward, TimeClass::ContextParallel)
            += exposed(2 * (parallel.cp - 1) * step, pass->backwardAttention);
    }
    // Expert parallelism: dispatch and combine all-to-alls of the routed tokens.
    if (moe && model.moe && parallel.ep > 1) {
        // Experts are spread over ep consecutive ranks of the data-parallel group.
        const std::vector<int> dpGroup = group("dp", rank);
        const std::vector<int> epGroup(
            dpGroup.begin(), dpGroup.begin() + std::min<long>(parallel.ep, static_cast<long>(dpGroup.size())));
        const double routed = tokens * model.moe->topK * model.hiddenSize * activationBytes;
        const double allToAll = collective(CollectiveKind::AllToAll, routed, epGroup);
        at(pass->forward, TimeClass::ExpertParallel) += 2 * allToAll;
        at(pass->backward, TimeClass::ExpertParallel) += 2 * allToAll;
    }
    cached = std::move(pass);
    return *cached;
}

std::vector<graph::StageCost> StepModel::trainingStageCosts()
{
    const config::ModelSpec& model = m_scenario.model;
    const config::RunSpec& run = m_scenario.run;
    const config::ParallelismSpec& parallel = run.parallelism;
    const int virtualStages = parallel.schedule == config::PipelineSchedule::Interleaved ? parallel.virtualStages : 1;
    const double activationBytes = config::bytesPerElement(run.precision.activations);
    const double tokens = static_cast<double>(run.microBatch) * run.seqLength / parallel.cp;
    const double weightBytes = config::bytesPerElement(run.precision.weights);
    const double gradientBytes = config::bytesPerElement(run.precision.gradients);
    const int zero = parallel.zeroStage;

    // Ends of the model: embedding (first chunk of stage 0) and final norm + LM head + loss (last chunk of the last
    // stage), split into their forward and backward operators.
    auto split = [&](const std::vector<model::Operator>& ops) {
        std::vector<model::Operator> forward;
        std::vector<model::Operator> backward;
        for (const model::Operator& op : ops) {
            (op.phase == model::Phase::Forward ? forward : backward).push_back(op);
        }
        return std::make_pair(timeOperators(forward, nullptr, nullptr), timeOperators(backward, nullptr, nullptr));
    };
    const auto embedding = split(model::embeddingOperators(model, run, model::Workload::Training));
    const auto head = split(model::lmHeadOperators(model, run, model::Workload::Training));
    const model::ParameterCounts counts = model::countParameters(model);
    const double embeddingParams = static_cast<double>(counts.embedding) / parallel.tp;

    std::vector<graph::StageCost> stages;
    m_stageRequests.assign(static_cast<size_t>(parallel.pp), {});
    for (int stage = 0; stage < parallel.pp; ++stage) {
        graph::StageCost cost;
        StageRequests& requests = m_stageRequests[static_cast<size_t>(stage)];
        const int rank = representativeRank(stage);
        const std::vector<int> dpGroup = group("dp", rank);
        double stageParams = 0;
        const auto layersOfChunks = chunkLayers(model, run, stage);
        for (int chunk = 0; chunk < virtualStages; ++chunk) {
            graph::ChunkCost chunkCost;
            double chunkParams = 0;
            for (int layer : layersOfChunks[static_cast<size_t>(chunk)]) {
                const bool moe = isMoe(model, layer);
                const LayerPass& pass = layerPass(moe);
                add(chunkCost.forward, pass.forward);
                add(chunkCost.backward, pass.backward);
                chunkParams += pass.parameters;
            }
            const bool firstChunk = stage == 0 && chunk == 0;
            const bool lastChunk = stage == parallel.pp - 1 && chunk == virtualStages - 1;
            if (firstChunk) {
                add(chunkCost.forward, embedding.first);
                add(chunkCost.backward, embedding.second);
                chunkParams += embeddingParams;
            }
            if (lastChunk) {
                add(chunkCost.forward, head.first);
                add(chunkCost.backward, head.second);
                if (!firstChunk || !model.tiedEmbeddings) {
                    chunkParams += static_cast<double>(model.vocabSize * model.hiddenSize) / parallel.tp;
                }
            }
            // ZeRO-3/FSDP gathers each chunk's parameters before its forward and again before its backward (then frees
            // them), overlapped with the previous chunk's compute as far as it lasts.
            if (zero >= 3 && parallel.dp > 1) {
                const double gather = collective(CollectiveKind::AllGather, chunkParams * weightBytes, dpGroup);
                const std::array<double, 2> exposedGather
                    = { exposed(gather, sum(chunkCost.forward)), exposed(gather, sum(chunkCost.backward)) };
                at(chunkCost.forward, TimeClass::DataParallel) += exposedGather[0];
                at(chunkCost.backward, TimeClass::DataParallel) += exposedGather[1];
                if (m_congestion) {
                    requests.chunkGather.push_back(
                        request(CollectiveKind::AllGather, chunkParams * weightBytes, dpGroup));
                    requests.chunkGatherExposed.push_back(exposedGather);
                }
            }
            cost.chunks.push_back(chunkCost);
            // Gradients are reduced per chunk: all-reduce, or reduce-scatter when ZeRO shards them or the optimizer.
            const CollectiveKind reduction = zero >= 1 ? CollectiveKind::ReduceScatter : CollectiveKind::AllReduce;
            cost.dataParallelSeconds.push_back(collective(reduction, chunkParams * gradientBytes, dpGroup));
            if (m_congestion) {
                requests.dataParallel.push_back(request(reduction, chunkParams * gradientBytes, dpGroup));
            }
            cost.dataParallelBytes.push_back(parallel.dp > 1 ? chunkParams * gradientBytes : 0.0);
            stageParams += chunkParams;
        }
        // Point-to-point between stages: one micro-batch's hidden state (split over tp with Megatron's scatter/gather
        // optimisation).
        if (parallel.pp > 1) {
            const int next = representativeRank((stage + 1) % parallel.pp);
            const double bytes = tokens * model.hiddenSize * activationBytes / parallel.tp;
            cost.sendActivationSeconds = collective(CollectiveKind::SendRecv, bytes, { rank, next });
            cost.sendGradientSeconds = cost.sendActivationSeconds;
            cost.sendBytes = bytes;
            if (m_congestion) {
                const int previous = representativeRank((stage + parallel.pp - 1) % parallel.pp);
                requests.sendForward = request(CollectiveKind::SendRecv, bytes, { rank, next });
                requests.sendBackward = request(CollectiveKind::SendRecv, bytes, { rank, previous });
            }
        }
        const double optimizerParams = zero >= 1 ? stageParams / parallel.dp : stageParams;
        cost.optimizerSeconds = m_timer.time(model::optimizerUpdate(optimizerParams, run)).seconds;
        if ((zero == 1 || zero == 2) && parallel.dp > 1) {
            cost.parameterGatherSeconds = collective(CollectiveKind::AllGather, stageParams * weightBytes, dpGroup);
            cost.parameterGatherBytes = stageParams * weightBytes;
            if (m_congestion) {
                requests.parameterGather = request(CollectiveKind::AllGather, stageParams * weightBytes, dpGroup);
            }
        }
        stages.push_back(cost);
    }
    return stages;
}

report::TrainingResult StepModel::training(bool timeline)
{
    const config::ModelSpec& model = m_scenario.model;
    const config::RunSpec& run = m_scenario.run;
    report::TrainingResult result;
    const std::vector<graph::StageCost> stages = trainingStageCosts();
    const graph::ExecutionGraph graph = graph::buildTrainingStep(run, stages);
    std::vector<double> linkBytes;
    std::vector<double> foldedLinkBytes;
    Schedule schedule;
    if (m_congestion) {
        foldedLinkBytes = planInlineCollectives(stages);
        schedule = executeGraphOnNetwork(
            graph, *m_congestion, [&](graph::NodeId id) { return collectiveOfNode(graph, id); }, m_stop, m_progress,
            &linkBytes, [&](graph::NodeId id) { return inlineProgramOfNode(graph, id); });
        // Folded inline collectives are not in the simulation: their bytes (per occurrence x occurrences) are added.
        linkBytes.resize(std::max(linkBytes.size(), foldedLinkBytes.size()), 0.0);
        for (size_t link = 0; link < foldedLinkBytes.size(); ++link) {
            linkBytes[link] += foldedLinkBytes[link];
        }
    } else {
        schedule = executeGraph(graph);
    }
    if (m_congestion && schedule.makespan > 0) {
        // Utilisation over the whole step: bytes carried / (bandwidth x step time).
        const network::Topology& topology = m_congestion->topology();
        result.linkUtilisation.assign(linkBytes.size(), 0.0);
        for (size_t link = 0; link < linkBytes.size(); ++link) {
            const double capacity = topology.link(static_cast<int>(link)).effectiveBandwidth() * schedule.makespan;
            result.linkUtilisation[link] = capacity > 0 ? linkBytes[link] / capacity : 0.0;
        }
    }
    result.stepTimeSeconds = schedule.makespan;
    result.graphNodes = static_cast<int>(graph.nodes().size());

    // Describe the busiest stage: the one whose compute stream is occupied longest.
    int busiest = 0;
    double busiestTime = -1;
    for (int stage = 0; stage < graph.ranks(); ++stage) {
        double busy = 0;
        for (graph::NodeId id : graph.streamOrder(stage, graph::Stream::Compute)) {
            busy += graph.node(id).seconds;
        }
        if (busy > busiestTime) {
            busiestTime = busy;
            busiest = stage;
        }
    }
    result.breakdown = report::breakdownOfStage(graph, schedule.start, schedule.finish, schedule.makespan, busiest);
    if (m_congestion && static_cast<size_t>(busiest) < m_inline.size()) {
        // Compute nodes whose inline collectives ran on the network last longer than their closed-form seconds: that
        // excess is exposed communication of those kinds (by their closed-form share), not pipeline bubble.
        double excess = 0;
        for (graph::NodeId id : graph.streamOrder(busiest, graph::Stream::Compute)) {
            if (inlineProgramOfNode(graph, id)) {
                const auto index = static_cast<size_t>(id);
                excess += std::max(0.0, schedule.finish[index] - schedule.start[index] - graph.node(id).seconds);
            }
        }
        const StageInline& inlined = m_inline[static_cast<size_t>(busiest)];
        const std::array<TimeClass, kInlineKinds> classes = { TimeClass::TensorParallel, TimeClass::ContextParallel,
            TimeClass::ExpertParallel, TimeClass::DataParallel };
        double weights = 0;
        int kinds = 0;
        for (size_t kind = 0; kind < classes.size(); ++kind) {
            if (inlined.onNetwork[kind]) {
                weights += at(result.breakdown.parts, classes[kind]);
                ++kinds;
            }
        }
        if (excess > 0 && kinds > 0) {
            for (size_t kind = 0; kind < classes.size(); ++kind) {
                if (inlined.onNetwork[kind]) {
                    const double share
                        = weights > 0 ? at(result.breakdown.parts, classes[kind]) / weights : 1.0 / kinds;
                    at(result.breakdown.parts, classes[kind]) += excess * share;
                }
            }
            result.breakdown.bubbleSeconds = std::max(0.0, result.breakdown.bubbleSeconds - excess);
        }
    }

    const double tokensPerStep = static_cast<double>(run.globalBatch) * run.seqLength;
    result.tokensPerSecond = tokensPerStep / result.stepTimeSeconds;
    // Model FLOPs: forward + backward (3x forward) of every token with attention over the full sequence (the
    // Megatron/PaLM convention), no recomputation.
    const double modelFlops = 3 * model::forwardFlopsPerToken(model, run.seqLength) * tokensPerStep;
    const int gpus = run.parallelism.gpuCount();
    result.modelFlopsPerGpu = modelFlops / result.stepTimeSeconds / gpus;
    const double peak = m_scenario.hardware.gpu.tensorPeak(run.precision.compute);
    result.mfu = peak > 0 ? result.modelFlopsPerGpu / peak : 0;
    // Energy: every GPU of every stage (tp x dp x cp of them run what the stage's representative rank runs), busy while
    // its compute stream runs operator classes or the optimizer.
    double busyGpuSeconds = 0;
    const int gpusPerStage = gpus / run.parallelism.pp;
    for (int stage = 0; stage < graph.ranks(); ++stage) {
        for (graph::NodeId id : graph.streamOrder(stage, graph::Stream::Compute)) {
            const graph::Node& node = graph.node(id);
            busyGpuSeconds
                += gpusPerStage * (node.cost >= 0 ? report::computeBusySeconds(graph.parts(id)) : node.seconds);
        }
    }
    result.energy
        = report::estimateEnergy(m_scenario.hardware.gpu, gpus, result.stepTimeSeconds, busyGpuSeconds, tokensPerStep);
    result.memory = memory::estimateMemory(model, m_scenario.hardware.gpu, run);
    if (timeline) {
        result.timeline.reserve(graph.nodes().size());
        for (size_t i = 0; i < graph.nodes().size(); ++i) {
            const graph::Node& node = graph.nodes()[i];
            result.timeline.push_back({ node.rank, node.stream, node.kind, schedule.start[i], schedule.finish[i],
                node.microBatch, node.chunk, node.backward });
        }
    }
    return result;
}

graph::InferenceRequestCosts StepModel::inferenceRequestCosts()
{
    const config::ModelSpec& model = m_scenario.model;
    const config::RunSpec& run = m_scenario.run;
    const int pp = run.parallelism.pp;
    const report::InferenceResult result = inference();
    const auto pipeline = static_cast<size_t>(TimeClass::PipelineParallel);
    const double prefillSends = result.prefill[pipeline];
    const double decodeSends = result.decodeStep[pipeline];
    graph::InferenceRequestCosts costs;
    costs.outputTokens = std::max(1, run.decodeLength);
    const double activationBytes = config::bytesPerElement(run.precision.activations);
    for (int stage = 0; stage < pp; ++stage) {
        double layers = 0;
        for (const std::vector<int>& chunk : chunkLayers(model, run, stage)) {
            layers += static_cast<double>(chunk.size());
        }
        const double share = model.numLayers > 0 ? layers / model.numLayers : 1.0 / pp;
        costs.prefillSeconds.push_back((result.ttftSeconds - prefillSends) * share);
        costs.decodeSeconds.push_back((result.itlSeconds - decodeSends) * share);
    }
    if (pp > 1) {
        costs.prefillSendSeconds = prefillSends / (pp - 1);
        costs.decodeSendSeconds = decodeSends / (pp - 1);
        costs.prefillSendBytes = static_cast<double>(run.batch) * run.promptLength * model.hiddenSize * activationBytes;
        costs.decodeSendBytes = static_cast<double>(run.batch) * model.hiddenSize * activationBytes;
        costs.returnSendBytes = 4.0 * run.batch;
        costs.returnSendSeconds = collective(
            CollectiveKind::SendRecv, costs.returnSendBytes, { representativeRank(pp - 1), representativeRank(0) });
    }
    return costs;
}

report::InferenceResult StepModel::inference(int decodeSamples)
{
    const config::ModelSpec& model = m_scenario.model;
    const config::RunSpec& run = m_scenario.run;
    const config::ParallelismSpec& parallel = run.parallelism;
    const double activationBytes = config::bytesPerElement(run.precision.activations);
    report::InferenceResult result;

    // One request batch flows through the stages one after another (no micro-batching across stages).
    auto forwardPass = [&](double tokens, const std::vector<model::Operator>& denseOps,
                           const std::vector<model::Operator>& moeOps, model::Workload workload) {
        TimeBreakdown parts {};
        const TimeBreakdown dense = timeOperators(denseOps, nullptr, nullptr);
        const TimeBreakdown moe = moeOps.empty() ? TimeBreakdown {} : timeOperators(moeOps, nullptr, nullptr);
        const double hiddenBytes = tokens * model.hiddenSize * activationBytes;
        double tpPerLayer = 0;
        if (parallel.tp > 1) {
            tpPerLayer = 2 * collective(CollectiveKind::AllReduce, hiddenBytes, group("tp", 0));
        }
        for (int layer = 0; layer < model.numLayers; ++layer) {
            add(parts, isMoe(model, layer) ? moe : dense);
            at(parts, TimeClass::TensorParallel) += tpPerLayer;
        }
        add(parts, timeOperators(model::embeddingOperators(model, run, workload), nullptr, nullptr));
        add(parts, timeOperators(model::lmHeadOperators(model, run, workload), nullptr, nullptr));
        if (parallel.pp > 1) {
            const double send
                = collective(CollectiveKind::SendRecv, hiddenBytes, { representativeRank(0), representativeRank(1) });
            at(parts, TimeClass::PipelineParallel) += (parallel.pp - 1) * send;
        }
        return parts;
    };

    const double promptTokens = static_cast<double>(run.batch) * run.promptLength;
    result.prefill = forwardPass(promptTokens, model::prefillLayer(model, run, false),
        model.moe ? model::prefillLayer(model, run, true) : std::vector<model::Operator> {}, model::Workload::Prefill);
    result.ttftSeconds = sum(result.prefill);

    // Decode steps: the KV length grows from prompt + 1 to prompt + decode. Step time is affine in the KV length
    // except for tile quantisation of attention, so sampling 9 evenly spaced lengths and integrating with the
    // trapezoid rule stays within 0.1% of summing every step (tests/core/sim check this).
    const int steps = std::max(1, run.decodeLength);
    const int samples = decodeSamples <= 0 ? steps : std::min(steps, decodeSamples);
    std::vector<double> lengths;
    for (int i = 0; i < samples; ++i) {
        const double t = samples == 1 ? 0.0 : static_cast<double>(i) / (samples - 1);
        lengths.push_back(std::round(run.promptLength + 1 + t * (steps - 1)));
    }
    std::vector<TimeBreakdown> sampled;
    for (double length : lengths) {
        const auto kv = static_cast<std::int64_t>(length);
        sampled.push_back(forwardPass(static_cast<double>(run.batch), model::decodeLayer(model, run, false, kv),
            model.moe ? model::decodeLayer(model, run, true, kv) : std::vector<model::Operator> {},
            model::Workload::Decode));
    }
    TimeBreakdown mean {};
    if (samples == 1) {
        mean = sampled.front();
    } else {
        for (int i = 0; i + 1 < samples; ++i) {
            const double weight = (lengths[static_cast<size_t>(i) + 1] - lengths[static_cast<size_t>(i)]) / (steps - 1);
            add(mean, sampled[static_cast<size_t>(i)], weight / 2);
            add(mean, sampled[static_cast<size_t>(i) + 1], weight / 2);
        }
    }
    result.decodeStep = mean;
    result.itlSeconds = sum(mean);
    result.e2eSeconds = result.ttftSeconds + result.itlSeconds * (steps - 1);
    result.tokensPerSecond = parallel.dp * static_cast<double>(run.batch) * steps / result.e2eSeconds;
    // Energy: the batch passes the stages one after another, so the tp x dp GPUs of each stage compute for their
    // stage's share of the passes; summed over the stages that is tp x dp x the whole compute time.
    const double busySeconds
        = report::computeBusySeconds(result.prefill) + (steps - 1) * report::computeBusySeconds(result.decodeStep);
    result.energy = report::estimateEnergy(m_scenario.hardware.gpu, parallel.gpuCount(), result.e2eSeconds,
        parallel.gpuCount() / parallel.pp * busySeconds, parallel.dp * static_cast<double>(run.batch) * steps);
    result.memory = memory::estimateMemory(model, m_scenario.hardware.gpu, run);
    return result;
}

} // namespace rapid::sim
