// SPDX-License-Identifier: GPL-3.0-or-later
#include "stepmodel.h"

#include "config/attentionkernel.h"
#include "pipelinedtensorgemms.h"
#include "stepparts_p.h"

#include "config/diagnostic.h"
#include "memory/memorymodel.h"
#include "model/hostdispatch.h"
#include "model/layeroperators.h"
#include "model/loraadapters.h"
#include "model/modelstats.h"
#include "network/linkload.h"
#include "sim/shardedunits.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace rapid::sim {

using graph::TimeBreakdown;
using graph::TimeClass;
using parallel::PlannedCollective;

using detail::add;
using detail::at;
using detail::collectiveSmShare;
using detail::expertCollectiveSmShare;
using detail::exposed;
using detail::mfuPeak;
using detail::part;
using detail::splitByPhase;
using detail::sum;
using detail::withComputeSlowdown;

StepModel::StepModel(config::Scenario scenario, NetworkBackend backend)
    : StepModel(scenario, makeStepBackend(backend, scenario.hardware))
{
}

StepModel::StepModel(config::Scenario scenario, CollectiveCost collective)
    : StepModel(scenario, makeAnalyticalBackend(scenario.hardware, std::move(collective)))
{
}

StepModel::StepModel(config::Scenario scenario, std::shared_ptr<StepBackend> backend)
    : m_scenario(std::move(scenario))
    , m_plan(parallel::planStep(m_scenario))
    , m_backend(std::move(backend))
    , m_timer(m_scenario.hardware.gpu, config::resolvedAttentionKernel(m_scenario.run, m_scenario.hardware.gpu))
{
}

std::vector<std::vector<int>> StepModel::chunkLayersOfStage(int stage) const
{
    std::vector<std::vector<int>> layers;
    for (const parallel::ChunkPlan& chunk : m_plan.stages.at(static_cast<size_t>(stage)).chunks) {
        layers.push_back(chunk.layers);
    }
    return layers;
}

double StepModel::collective(const PlannedCollective& planned)
{
    if (!planned.onNetwork()) {
        return 0;
    }
    return m_backend->collectiveSeconds(
        m_backend->simulatesReplicas() ? m_plan.withReplicas(planned) : m_plan.request(planned));
}

double StepModel::collectiveOrZero(const std::optional<PlannedCollective>& planned)
{
    return planned ? collective(*planned) : 0.0;
}

TimeBreakdown StepModel::timeOperators(
    const std::vector<model::Operator>& ops, double* gemmSeconds, double* attentionSeconds)
{
    TimeBreakdown parts {};
    for (const model::Operator& op : ops) {
        const double seconds = m_timer.time(op).seconds;
        at(parts, timeClassOf(op.opClass)) += seconds;
        // The shared expert's GEMMs beside the expert all-to-alls are no window for tensor-parallel collectives.
        const bool besideAllToAlls = m_scenario.run.parallelism.expertSharedOverlap && sharedExpertWindow(op) >= 0;
        if (gemmSeconds && op.kind == model::OperatorKind::Gemm && !besideAllToAlls) {
            *gemmSeconds += seconds;
        }
        if (attentionSeconds
            && (op.kind == model::OperatorKind::FlashAttention || op.kind == model::OperatorKind::NaiveAttention)) {
            *attentionSeconds += seconds;
        }
    }
    return parts;
}

const LayerTimes& StepModel::layerTimes(int stage, bool moe)
{
    // Healthy, every stage's groups are alike by symmetry and stage 0's stand for all. With link faults each stage's
    // own groups are costed: a degraded link in stage 2's nodes slows stage 2's tensor-parallel collectives only.
    const int key = m_scenario.hardware.faults.empty() ? 0 : stage;
    if (m_layerTimes.size() <= static_cast<size_t>(key)) {
        m_layerTimes.resize(static_cast<size_t>(key) + 1);
    }
    std::unique_ptr<LayerTimes>& cached = m_layerTimes[static_cast<size_t>(key)][moe ? 1 : 0];
    if (cached) {
        return *cached;
    }
    const config::ModelSpec& model = m_scenario.model;
    const config::RunSpec& run = m_scenario.run;
    auto pass = std::make_unique<LayerTimes>();
    const auto forwardOps = model::trainingForward(model, run, m_plan.sharding.layer, moe);
    const auto backwardOps
        = model::trainingBackward(model, run, m_plan.sharding.layer, moe, m_plan.sharding.gradientSum());
    pass->forward = timeOperators(forwardOps, &pass->forwardGemm, &pass->forwardAttention);
    pass->backward = timeOperators(backwardOps, &pass->backwardGemm, &pass->backwardAttention);

    const parallel::LayerCollectives& layer = m_plan.stages[static_cast<size_t>(key)].layer;
    const int tp = m_plan.sharding.layer.tensor;
    if (!layer.tensorPair.empty() && m_plan.sharding.overlapTensorCollectives
        && run.framework == config::Framework::PytorchFsdp) {
        // PyTorch's async TP runs the GEMM steps of the overlap one after another (sim/pipelinedtensorgemms.h).
        const std::int64_t tokens = static_cast<std::int64_t>(run.microBatch)
            * ((run.seqLength + m_plan.sharding.layer.context - 1) / m_plan.sharding.layer.context);
        for (auto [ops, parts, gemm] : { std::tuple(&forwardOps, &pass->forward, &pass->forwardGemm),
                 std::tuple(&backwardOps, &pass->backward, &pass->backwardGemm) }) {
            const PipelinedGemmCost split = pipelinedGemmCost(m_timer, *ops, tp, tokens);
            at(*parts, TimeClass::Attention) += split.attention;
            at(*parts, TimeClass::Mlp) += split.mlp;
            *gemm += split.total();
        }
        // Each reduce-scatter the overlap fuses ends in a reduction kernel of its own (pipelinedtensorgemms.h): the
        // forward's, and the backward's but those it cannot fuse.
        const bool reduceScatters = layer.tensorPair.size() == 2; // sequence parallel: all-gather, reduce-scatter
        const double sum
            = reduceScatters ? fusedReduceScatterSumSeconds(m_timer, layer.tensorPair.back().bytes, tp) : 0.0;
        // Each all-gather it fuses starts with the shard's copy into symmetric memory and a barrier: the forward's,
        // the backward's (gathering the output gradients) and those recomputed for per-op SAC.
        const double setup = reduceScatters
            ? fusedAllGatherSetupSeconds(m_timer, layer.tensorPair.front().bytes / static_cast<double>(tp))
            : 0.0;
        at(pass->forward, TimeClass::TensorParallel) += layer.pairsForward(moe) * (sum + setup);
        at(pass->backward, TimeClass::TensorParallel)
            += std::max(0, layer.pairsBackward(moe) - layer.unfusedBackward(moe)) * sum
            + (layer.pairsBackward(moe) + layer.firstsBackward(moe)) * setup;
    }
    if (!layer.tensorPair.empty()) {
        double pair = 0;
        std::vector<double> parts;
        for (const PlannedCollective& part : layer.tensorPair) {
            parts.push_back(collective(part));
            pair += parts.back();
        }
        const double forward = layer.pairsForward(moe) * pair;
        const double backward = layer.pairsBackward(moe) * pair + layer.firstsBackward(moe) * parts.front();
        // With tp_comm_overlap the collectives run under the layer's GEMMs (at most their length), but for those
        // the overlap cannot fuse.
        const bool overlap = m_plan.sharding.overlapTensorCollectives;
        const double unfused = layer.unfusedBackward(moe) * parts.back();
        at(pass->forward, TimeClass::TensorParallel) += overlap ? exposed(forward, pass->forwardGemm) : forward;
        at(pass->backward, TimeClass::TensorParallel)
            += overlap ? unfused + exposed(backward - unfused, pass->backwardGemm) : backward;
    }
    // Context parallelism: the K/V ring steps hide behind the attention core as far as it lasts, and take their SMs
    // from it meanwhile (NCCL's send/receive kernels, as the data-parallel collectives do): the larger of the two.
    if (layer.contextStep) {
        const double step = collective(*layer.contextStep);
        const double smShare = collectiveSmShare(m_scenario.hardware.gpu);
        const double forwardRing = layer.contextStepsForward * step;
        const double backwardRing = layer.contextStepsBackward * step;
        pass->forwardContextSlowdown = collectiveContention(pass->forwardAttention, forwardRing, smShare);
        pass->backwardContextSlowdown = collectiveContention(pass->backwardAttention, backwardRing, smShare);
        pass->forwardContextRing = besideCompute(pass->forwardAttention, forwardRing, smShare);
        pass->backwardContextRing = besideCompute(pass->backwardAttention, backwardRing, smShare);
        at(pass->forward, TimeClass::ContextParallel) += pass->forwardContextRing;
        at(pass->backward, TimeClass::ContextParallel) += pass->backwardContextRing;
    }
    // cp_comm all_gather, a2a and a2a+p2p: the pass waits for its context-parallel collectives.
    for (const PlannedCollective& wait : layer.contextForward) {
        at(pass->forward, TimeClass::ContextParallel) += collective(wait);
    }
    for (const PlannedCollective& wait : layer.contextBackward) {
        at(pass->backward, TimeClass::ContextParallel) += collective(wait);
    }
    // Expert parallelism: dispatch and combine all-to-alls of the routed tokens, in MoE layers.
    if (moe && layer.expertAllToAll) {
        chargeExpertAllToAlls(m_timer, layer, collective(*layer.expertAllToAll), run.parallelism.expertSharedOverlap,
            forwardOps, backwardOps, expertCollectiveSmShare(m_scenario.hardware.gpu, run.parallelism), *pass);
    }
    // Expert tensor parallelism inside the folded expert mesh: the routed tokens' all-gather and reduce-scatter.
    for (const PlannedCollective& part : layer.expertTensorPair) {
        const double seconds = moe ? collective(part) : 0.0;
        at(pass->forward, TimeClass::ExpertParallel) += seconds;
        at(pass->backward, TimeClass::ExpertParallel) += layer.expertPassesBackward * seconds;
    }
    // The GPU runs what its host has issued: a pass lasts at least the framework's host-side dispatch of it, and the
    // GPU waits for the rest (model/hostdispatch.h).
    const model::LayerHostDispatch host = model::layerHostDispatch(run, moe);
    at(pass->forward, TimeClass::HostDispatch) += std::max(0.0, host.forwardSeconds - sum(pass->forward));
    at(pass->backward, TimeClass::HostDispatch) += std::max(0.0, host.backwardSeconds - sum(pass->backward));
    if (m_plan.sharding.combinedOneFOneB) {
        // The expert collectives are the pass's expert-parallel time (no shared-expert windows: the config excludes
        // them), half before the experts and half after.
        const double forwardExpert = moe ? at(pass->forward, TimeClass::ExpertParallel) : 0.0;
        const double backwardExpert = moe ? at(pass->backward, TimeClass::ExpertParallel) : 0.0;
        pass->forwardPieces = passPieces(m_timer, forwardOps, sum(pass->forward), forwardExpert, false);
        pass->backwardPieces = passPieces(
            m_timer, backwardOps, sum(pass->backward), backwardExpert, run.parallelism.delayWeightGradients);
    }
    cached = std::move(pass);
    return *cached;
}

ChunkGatherCost StepModel::chargeUnitGathers(const parallel::ChunkPlan& chunk, std::span<const double> unitForward,
    std::span<const double> unitBackward, graph::ChunkCost& chunkCost)
{
    const double unitShare = 1.0 / static_cast<double>(chunk.layers.size());
    // A unit's routed experts, when sharded apart, are gathered and reduced over their own group after the rest.
    const double unitGather = collectiveOrZero(part(chunk.parameterGather, unitShare))
        + collectiveOrZero(part(chunk.expertParameterGather, unitShare));
    // Under hybrid sharding a unit's reduce-scattered shard is then all-reduced over its replicas.
    const double unitReduction = m_plan.sharding.overlapGradientReduction
        ? collective(part(chunk.gradientReduction, unitShare))
            + collectiveOrZero(part(chunk.expertGradientReduction, unitShare))
            + collectiveOrZero(part(chunk.replicaReduction, unitShare))
        : 0.0;
    // The gathers and reductions hold SMs beside the units' compute (shardedunits.h): the exposure is
    // the waits for the gathers or, where larger, the slower compute; `contention` is what it adds.
    const double smShare = collectiveSmShare(m_scenario.hardware.gpu);
    const std::array<double, 2> exposedGather = { exposedUnitGathers(unitForward, unitGather, 0, true, smShare),
        exposedUnitGathers(unitBackward, unitGather, unitReduction, true, smShare) };
    const std::array<double, 2> waits = { exposedUnitGathers(unitForward, unitGather, 0, true, 0),
        exposedUnitGathers(unitBackward, unitGather, unitReduction, true, 0) };
    const std::array<double, 2> contention = { exposedGather[0] - waits[0], exposedGather[1] - waits[1] };
    at(chunkCost.forward, TimeClass::DataParallel) += exposedGather[0];
    at(chunkCost.backward, TimeClass::DataParallel) += exposedGather[1];
    // The congestion backend simulates the chunk's gather beside the whole pass, with the reductions and
    // every other flow on the links: it replaces the waits a whole-chunk overlap explains and keeps what
    // unit granularity adds (contention-free, closed form) on top; the slower compute stays compute.
    const double gather = collectiveOrZero(chunk.parameterGather) + collectiveOrZero(chunk.expertParameterGather);
    const std::array<double, 2> hideable
        = { sum(chunkCost.forward) - exposedGather[0], sum(chunkCost.backward) - exposedGather[1] };
    const std::array<double, 2> granularity = { std::max(0.0, waits[0] - exposed(gather, hideable[0])),
        std::max(0.0, exposedUnitGathers(unitBackward, unitGather, 0, true, 0) - exposed(gather, hideable[1])) };
    return { exposedGather, granularity, contention };
}

std::vector<graph::StageCost> StepModel::stageCosts(ExposedGathers* exposedGathers)
{
    const config::ModelSpec& model = m_scenario.model;
    const config::RunSpec& run = m_scenario.run;
    // Ends: the embedding (stage 0's first chunk) and norm, LM head, loss (the last stage's last chunk), by phase.
    const auto embedding
        = splitByPhase(model::embeddingOperators(model, run, m_plan.sharding.layer, model::Workload::Training));
    const auto head = splitByPhase(model::lmHeadOperators(
        model, run, m_plan.sharding.layer, model::Workload::Training, m_plan.sharding.gradientSum()));
    const std::pair<TimeBreakdown, TimeBreakdown> embeddingTimes
        = { timeOperators(embedding.first, nullptr, nullptr), timeOperators(embedding.second, nullptr, nullptr) };
    const std::pair<TimeBreakdown, TimeBreakdown> headTimes
        = { timeOperators(head.first, nullptr, nullptr), timeOperators(head.second, nullptr, nullptr) };

    const parallel::EndParameters ends
        = parallel::endParameters(model, m_plan.sharding.layer, m_plan.sharding.stages == 1);
    std::vector<graph::StageCost> stages;
    for (const parallel::StagePlan& stage : m_plan.stages) {
        graph::StageCost cost;
        std::vector<ChunkGatherCost> stageGathers;
        // Each chunk's forward in the order it runs, by parameter unit (embedding, layers, head): what a ZeRO-1/2
        // gather of the updated parameters has to stay ahead of in the next step's first forward.
        std::vector<std::vector<ForwardUnit>> chunkUnits;
        const bool gatherUnits
            = (stage.parameterGather || stage.expertParameterGather) && m_plan.sharding.overlapParameterGather;
        // Combined 1F1B: each chunk's layers as its co-scheduled passes split them, forward and backward order.
        std::vector<std::vector<LayerPassPieces>> forwardPieces;
        std::vector<std::vector<LayerPassPieces>> backwardPieces;
        for (const parallel::ChunkPlan& chunk : stage.chunks) {
            graph::ChunkCost chunkCost;
            std::vector<LayerPassPieces>& forwardLayers = forwardPieces.emplace_back();
            std::vector<LayerPassPieces>& backwardLayers = backwardPieces.emplace_back();
            std::vector<double> unitForward;
            std::vector<double> unitBackward;
            std::vector<ForwardUnit>& units = chunkUnits.emplace_back();
            if (gatherUnits && chunk.holdsEmbedding) {
                units.push_back({ sum(embeddingTimes.first), ends.embedding });
            }
            for (int layer : chunk.layers) {
                const bool moe = parallel::isMoeLayer(model, layer);
                const LayerTimes& pass = layerTimes(stage.stage, moe);
                add(chunkCost.forward, pass.forward);
                add(chunkCost.backward, pass.backward);
                if (m_plan.sharding.combinedOneFOneB) {
                    forwardLayers.push_back(pass.forwardPieces);
                    backwardLayers.insert(backwardLayers.begin(), pass.backwardPieces);
                }
                if (gatherUnits) {
                    units.push_back({ sum(pass.forward), m_plan.sharding.layerParameters[moe ? 1 : 0],
                        moe ? m_plan.sharding.moeLayerExpertParameters : 0.0 });
                }
                if (chunk.parameterGather || chunk.expertParameterGather) {
                    unitForward.push_back(sum(pass.forward));
                    unitBackward.push_back(sum(pass.backward));
                }
            }
            std::reverse(unitBackward.begin(), unitBackward.end()); // the backward runs the layers last to first
            if (chunk.holdsEmbedding) {
                add(chunkCost.forward, embeddingTimes.first);
                add(chunkCost.backward, embeddingTimes.second);
            }
            if (chunk.holdsHead) {
                add(chunkCost.forward, headTimes.first);
                add(chunkCost.backward, headTimes.second);
                if (gatherUnits) {
                    units.push_back({ sum(headTimes.first), ends.head });
                }
            }
            // ZeRO-3/FSDP gather the chunk's parameters layer by layer in each pass, the next layer's under the
            // current one's compute (shardedunits.h); in backward each layer's gradients leave under the next
            // layer's compute on the same links when the reduction overlaps.
            if ((chunk.parameterGather || chunk.expertParameterGather) && !chunk.layers.empty()) {
                stageGathers.push_back(chargeUnitGathers(chunk, unitForward, unitBackward, chunkCost));
            }
            cost.chunks.push_back(chunkCost);
            placeGradientReduction(chunk, chunkCost, cost);
        }
        if (m_plan.sharding.combinedOneFOneB) {
            cost.coScheduled = coScheduledPairs(cost.chunks, forwardPieces, backwardPieces,
                expertCollectiveSmShare(m_scenario.hardware.gpu, m_scenario.run.parallelism));
        }
        if (stage.sendForward) {
            cost.sendActivationSeconds = collective(*stage.sendForward);
            cost.sendGradientSeconds = cost.sendActivationSeconds;
            cost.sendBytes = stage.sendForward->bytes;
        }
        cost.optimizerSeconds = m_timer.time(model::optimizerUpdate(stage.optimizerParameters, run)).seconds;
        if (stage.parameterGather || stage.expertParameterGather) {
            placeParameterGather(stage, chunkUnits, cost);
        }
        stages.push_back(cost);
        if (exposedGathers) {
            exposedGathers->push_back(std::move(stageGathers));
        }
    }
    return stages;
}

void StepModel::checkMicroBatchBudget() const
{
    // Every micro-batch of every pipeline chunk is a pass of the step graph (with a slow replica, of each graph run).
    const parallel::ShardingPlan& sharding = m_plan.sharding;
    const std::int64_t passes = static_cast<std::int64_t>(sharding.microBatches) * sharding.stages
        * sharding.virtualStages * (1 + static_cast<std::int64_t>(m_plan.slowReplicas.size()));
    const std::int64_t budget = m_backend->microBatchPassBudget();
    if (passes > budget) {
        throw config::InputLimitError("run.training.global_batch: the step has " + std::to_string(sharding.microBatches)
            + " micro-batches per pipeline, " + std::to_string(passes) + " micro-batch passes of the step graph; the "
            + m_backend->name() + " backend evaluates at most " + std::to_string(budget)
            + ". Raise run.training.micro_batch or dp, or lower global_batch (once the pipeline is full the step time "
              "grows linearly with the micro-batches)"
            + (budget < StepBackend::kGraphPassBudget ? ", or use the analytical backend" : ""));
    }
}

report::TrainingResult StepModel::training(bool timeline)
{
    checkMicroBatchBudget();
    const config::RunSpec& run = m_scenario.run;
    report::TrainingResult result;
    ExposedGathers exposedGathers;
    std::vector<graph::StageCost> stages = stageCosts(&exposedGathers);
    if (!timeline) {
        if (std::optional<report::TrainingResult> steady = steadyStateTraining(stages, exposedGathers)) {
            return std::move(*steady);
        }
    }
    auto execute = [&](const std::vector<graph::StageCost>& costs, const graph::ExecutionGraph& stepGraph) {
        const TrainingStepInput input { m_plan, m_scenario.model, run, costs, stepGraph,
            [this](int stage, bool moe) -> const LayerTimes& { return layerTimes(stage, moe); }, exposedGathers };
        return m_backend->executeTraining(input);
    };
    graph::ExecutionGraph graph = graph::buildTrainingStep(m_plan.sharding, stages);
    StepExecution execution = execute(stages, graph);
    // A data-parallel replica with a slow GPU runs its stages slower; the step's gradient reduction waits for the
    // slowest replica, so the step is that replica's.
    // Each replica's slowdowns apply to the healthy stage costs: compounding them onto the slowest replica so far
    // made two slow replicas stretch the step by the product of their slowdowns.
    const std::vector<graph::StageCost> healthyStages = stages;
    for (const parallel::SlowReplica& slow : m_plan.slowReplicas) {
        std::vector<graph::StageCost> slowStages = withComputeSlowdown(healthyStages, slow.stageSlowdowns);
        graph::ExecutionGraph slowGraph = graph::buildTrainingStep(m_plan.sharding, slowStages);
        StepExecution slowExecution = execute(slowStages, slowGraph);
        if (slowExecution.schedule.makespan > execution.schedule.makespan) {
            stages = std::move(slowStages);
            graph = std::move(slowGraph);
            execution = std::move(slowExecution);
            result.limitingStragglers = slow.slowGpus;
        }
    }
    const Schedule& schedule = execution.schedule;
    if (const network::Topology* topology = m_backend->topology(); topology && schedule.makespan > 0) {
        result.linkUtilisation = network::linkUtilisation(*topology, execution.linkBytes, schedule.makespan);
    }
    result.stepTimeSeconds = schedule.makespan;
    result.graphNodes = static_cast<int>(graph.nodes().size());
    result.faultLimitedGroups = m_backend->faultLimitedGroups();
    if (result.faultLimitedGroups.size() > 5) {
        result.faultLimitedGroups.resize(5);
    }

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
    attributeStretch(execution, graph, schedule, result.breakdown);
    addThroughputAndEnergy(result, busyGpuSeconds(graph));
    result.memory = memory::estimateMemory(m_scenario.model, m_scenario.hardware.gpu, run, m_plan.sharding);
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

double StepModel::busyGpuSeconds(const graph::ExecutionGraph& graph) const
{
    // The ~10^4 compute nodes share a few breakdowns (one per stage, chunk and pass): sum each breakdown's GPU work
    // once.
    std::vector<double> busyOfCost;
    busyOfCost.reserve(graph.costs().size());
    for (const graph::TimeBreakdown& parts : graph.costs()) {
        busyOfCost.push_back(report::computeBusySeconds(parts));
    }
    double busy = 0;
    const int gpusPerStage = m_plan.placement.ranks / m_plan.sharding.stages;
    for (int stage = 0; stage < graph.ranks(); ++stage) {
        for (graph::NodeId id : graph.streamOrder(stage, graph::Stream::Compute)) {
            const graph::Node& node = graph.node(id);
            busy += gpusPerStage * (node.cost >= 0 ? busyOfCost[static_cast<size_t>(node.cost)] : node.seconds);
        }
    }
    return busy;
}

void StepModel::addThroughputAndEnergy(report::TrainingResult& result, double busyGpuSeconds) const
{
    const config::RunSpec& run = m_scenario.run;
    const double tokensPerStep = static_cast<double>(run.globalBatch) * run.seqLength;
    result.tokensPerSecond = tokensPerStep / result.stepTimeSeconds;
    // Model FLOPs: forward + backward of every token (model/loraadapters.h: 3x forward, less under LoRA).
    const double modelFlops = model::trainingModelFlopsPerToken(m_scenario.model, run) * tokensPerStep;
    const int gpus = m_plan.placement.ranks;
    result.modelFlopsPerGpu = modelFlops / result.stepTimeSeconds / gpus;
    const double peak = mfuPeak(m_scenario.hardware.gpu, run.precision);
    result.mfu = peak > 0 ? result.modelFlopsPerGpu / peak : 0;
    // Energy: every GPU of every stage (tp x dp x cp of them run what the stage's representative rank runs), busy while
    // its compute stream runs operator classes or the optimizer (busyGpuSeconds).
    result.energy
        = report::estimateEnergy(m_scenario.hardware.gpu, gpus, result.stepTimeSeconds, busyGpuSeconds, tokensPerStep);
}

graph::InferenceRequestCosts StepModel::inferenceRequestCosts()
{
    const config::ModelSpec& model = m_scenario.model;
    const config::RunSpec& run = m_scenario.run;
    const int pp = m_plan.sharding.stages;
    const report::InferenceResult result = inference();
    const auto pipeline = static_cast<size_t>(TimeClass::PipelineParallel);
    const double prefillSends = result.prefill[pipeline];
    const double decodeSends = result.decodeStep[pipeline];
    graph::InferenceRequestCosts costs;
    costs.outputTokens = std::max(1, run.decodeLength);
    const double activationBytes = config::bytesPerElement(run.precision.activations);
    for (int stage = 0; stage < pp; ++stage) {
        const double layers = m_plan.sharding.stageShares.at(static_cast<size_t>(stage)).layerCount();
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
        costs.returnSendSeconds = collective(m_plan.inference.tokenReturn());
    }
    return costs;
}

report::InferenceResult StepModel::inference(int decodeSamples)
{
    const config::ModelSpec& model = m_scenario.model;
    const config::RunSpec& run = m_scenario.run;
    const parallel::InferencePlan& plan = m_plan.inference;
    report::InferenceResult result;

    // One request batch flows through the stages one after another (no micro-batching across stages).
    auto forwardPass = [&](double tokens, const std::vector<model::Operator>& denseOps,
                           const std::vector<model::Operator>& moeOps, model::Workload workload) {
        TimeBreakdown parts {};
        const TimeBreakdown dense = timeOperators(denseOps, nullptr, nullptr);
        const TimeBreakdown moe = moeOps.empty() ? TimeBreakdown {} : timeOperators(moeOps, nullptr, nullptr);
        const double tpPerLayer = 2 * collective(plan.tensorAllReduce(tokens));
        for (int layer = 0; layer < model.numLayers; ++layer) {
            add(parts, parallel::isMoeLayer(model, layer) ? moe : dense);
            at(parts, TimeClass::TensorParallel) += tpPerLayer;
        }
        add(parts,
            timeOperators(model::embeddingOperators(model, run, m_plan.sharding.layer, workload), nullptr, nullptr));
        add(parts,
            timeOperators(model::lmHeadOperators(model, run, m_plan.sharding.layer, workload), nullptr, nullptr));
        if (plan.stages > 1) {
            at(parts, TimeClass::PipelineParallel) += (plan.stages - 1) * collective(plan.pipelineSend(tokens));
        }
        return parts;
    };

    const double promptTokens = static_cast<double>(run.batch) * run.promptLength;
    result.prefill = forwardPass(promptTokens, model::prefillLayer(model, run, m_plan.sharding.layer, false),
        model.moe ? model::prefillLayer(model, run, m_plan.sharding.layer, true) : std::vector<model::Operator> {},
        model::Workload::Prefill);
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
        sampled.push_back(forwardPass(static_cast<double>(run.batch),
            model::decodeLayer(model, run, m_plan.sharding.layer, false, kv),
            model.moe ? model::decodeLayer(model, run, m_plan.sharding.layer, true, kv)
                      : std::vector<model::Operator> {},
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
    const int replicas = m_plan.sharding.dataParallel; // each serves its own request batch
    const int gpus = m_plan.placement.ranks;
    result.tokensPerSecond = replicas * static_cast<double>(run.batch) * steps / result.e2eSeconds;
    applyStragglers(result, steps);
    // Energy: the batch passes the stages one after another, so the tp x dp GPUs of each stage compute for their
    // stage's share of the passes; summed over the stages that is tp x dp x the whole compute time.
    const double busySeconds
        = report::computeBusySeconds(result.prefill) + (steps - 1) * report::computeBusySeconds(result.decodeStep);
    result.energy = report::estimateEnergy(m_scenario.hardware.gpu, gpus, result.e2eSeconds,
        static_cast<double>(gpus) / m_plan.sharding.stages * busySeconds,
        replicas * static_cast<double>(run.batch) * steps);
    result.memory = memory::estimateMemory(model, m_scenario.hardware.gpu, run, m_plan.sharding);
    return result;
}

} // namespace rapid::sim
