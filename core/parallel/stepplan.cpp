// SPDX-License-Identifier: GPL-3.0-or-later
#include "stepplan.h"

#include "model/layeroperators.h"
#include "model/modelstats.h"
#include "parallel/expertdispatch.h"
#include "parallel/pipelineschedule.h"

#include <algorithm>
#include <map>
#include <numeric>

namespace rapid::parallel {

using network::CollectiveKind;

namespace {

PlannedCollective planned(Axis axis, CollectiveKind kind, double bytes, std::vector<int> group)
{
    return { axis, kind, bytes, std::move(group), 1.0 };
}

/// The sizes every collective of a training step is derived from.
struct TrainingSizes {
    double tokens = 0; ///< of one micro-batch on one rank (split over cp)
    double activationBytes = 0;
    double weightBytes = 0;
    double gradientBytes = 0;
    double hiddenBytes = 0; ///< one micro-batch's hidden state on one rank
};

TrainingSizes trainingSizes(const config::ModelSpec& model, const config::RunSpec& run)
{
    TrainingSizes sizes;
    sizes.tokens = static_cast<double>(run.microBatch) * run.seqLength / run.parallelism.cp;
    sizes.activationBytes = config::bytesPerElement(run.precision.activations);
    sizes.weightBytes = config::bytesPerElement(run.precision.weights);
    sizes.gradientBytes = config::bytesPerElement(run.precision.gradients);
    sizes.hiddenBytes = sizes.tokens * model.hiddenSize * sizes.activationBytes;
    return sizes;
}

/// Nodes (domains of the innermost network dimension) that @p group's GPUs sit in.
int nodesSpanned(const std::vector<int>& group, const config::ClusterSpec& cluster)
{
    std::vector<std::vector<int>> nodes;
    for (int gpu : group) {
        std::vector<int> coordinates = networkCoordinates(gpu, cluster);
        if (!coordinates.empty()) {
            coordinates.erase(coordinates.begin());
        }
        if (std::find(nodes.begin(), nodes.end(), coordinates) == nodes.end()) {
            nodes.push_back(std::move(coordinates));
        }
    }
    return static_cast<int>(nodes.size());
}

/// The context-parallel exchange of one layer (LayerCollectives): K and V of this rank's tokens (its kv heads of the
/// tensor-parallel split) around a ring, all-gathered, or with Q and the output through Ulysses's all-to-alls; under
/// a2a+p2p the all-to-alls span a slice of the cp group and the ring the members at the same place of every slice.
void planContextCollectives(const config::ModelSpec& model, const config::ParallelismSpec& parallel,
    const TrainingSizes& sizes, const Placement& placement, int rank, LayerCollectives& layer)
{
    const double kvHeads = std::max(1.0, static_cast<double>(model.numKvHeads) / parallel.tp);
    const double headBytes = sizes.tokens * model.headDim * sizes.activationBytes; // one head of this rank's tokens
    const double kvBytes = 2 * kvHeads * headBytes;
    const auto cp = static_cast<double>(parallel.cp);
    if (parallel.contextAllToAllDegree() > 1) {
        // An all-to-all's bytes are what one rank sends in total: its tokens of Q, K and V, then of the output.
        const double queryBytes = std::max(1.0, static_cast<double>(model.numHeads) / parallel.tp) * headBytes;
        PlannedCollective inputs
            = planned(Axis::Cp, CollectiveKind::AllToAll, queryBytes + kvBytes, placement.contextAllToAllGroup(rank));
        if (parallel.contextComm == config::ContextComm::AllToAllP2p) {
            inputs.subgroup = PlannedCollective::Subgroup::ContextAllToAll;
        }
        PlannedCollective output = inputs;
        output.bytes = queryBytes;
        layer.contextForward = { inputs, output };
        layer.contextBackward = { output, inputs };
    }
    if (parallel.contextRingDegree() > 1) {
        // Each step passes on what this rank holds after any all-to-all: cp_a2a ranks' tokens of 1 / cp_a2a of its
        // K/V heads, as many bytes as its own tokens of all of them.
        const std::vector<int> ring = placement.contextRingGroup(rank);
        const auto at = static_cast<size_t>(std::find(ring.begin(), ring.end(), rank) - ring.begin());
        layer.contextStep
            = planned(Axis::Cp, CollectiveKind::SendRecv, kvBytes, { rank, ring[(at + 1) % ring.size()] });
        layer.contextStepsForward = parallel.contextRingDegree() - 1;
        layer.contextStepsBackward = 2 * (parallel.contextRingDegree() - 1);
    }
    if (parallel.contextComm == config::ContextComm::AllGather) {
        // The gathered K and V (an all-gather's bytes are its output), and their gradients' reduce-scatter input.
        const std::vector<int> group = placement.groupOf(Axis::Cp, rank);
        const PlannedCollective gather = planned(Axis::Cp, CollectiveKind::AllGather, kvBytes * cp, group);
        layer.contextForward = { gather };
        layer.contextBackward = { gather, planned(Axis::Cp, CollectiveKind::ReduceScatter, kvBytes * cp, group) };
    }
}

LayerCollectives layerCollectives(
    const config::Scenario& scenario, const Placement& placement, const TrainingSizes& sizes, int rank)
{
    const config::ModelSpec& model = scenario.model;
    const config::RunSpec& run = scenario.run;
    const config::ParallelismSpec& parallel = run.parallelism;
    LayerCollectives layer;
    if (parallel.tp > 1) {
        const std::vector<int> group = placement.groupOf(Axis::Tp, rank);
        if (parallel.sequenceParallel) {
            layer.tensorPair = { planned(Axis::Tp, CollectiveKind::AllGather, sizes.hiddenBytes, group),
                planned(Axis::Tp, CollectiveKind::ReduceScatter, sizes.hiddenBytes, group) };
        } else {
            layer.tensorPair = { planned(Axis::Tp, CollectiveKind::AllReduce, sizes.hiddenBytes, group) };
        }
        layer.tensorPairsForward = 2;
        layer.tensorPairsBackward = 2 + (run.recompute == config::Recompute::Full ? 2 : 0);
        if (run.recompute == config::Recompute::OpSac) {
            layer.tensorFirstsBackward = parallel.sequenceParallel ? 2 : 1;
        }
        if (parallel.tpCommOverlap && parallel.sequenceParallel && run.framework == config::Framework::PytorchFsdp) {
            layer.tensorUnfusedBackward = 1 + (model.ffnGated ? 1 : 0);
        }
        // Folded experts (etp < tp, sequence parallel) take their tokens from the all-to-all: the MLP block's pair
        // remains only for shared experts (Megatron-Core's SharedExpertMLP gathers and reduce-scatters over tp).
        layer.moeWithoutMlpPair = model.moe && parallel.sequenceParallel && parallel.expertTensorDegree() < parallel.tp
            && model.moe->sharedExperts == 0;
    }
    if (parallel.cp > 1) {
        planContextCollectives(model, parallel, sizes, placement, rank, layer);
    }
    if (model.moe && parallel.ep > 1) {
        // The all-to-all ends when the busiest rank has received its share: expertLoad times the balanced one. Each
        // rank sends its tensor-parallel group's tokens (etp = tp), or its own sequence-parallel share when the
        // experts are folded over the ranks (etp < tp; Megatron-Core's dispatcher after its router).
        const double ownTokens
            = parallel.expertTensorDegree() < parallel.tp ? sizes.tokens / parallel.tp : sizes.tokens;
        const double routed
            = ownTokens * model.moe->topK * model.hiddenSize * sizes.activationBytes * parallel.expertLoad();
        layer.expertAllToAll = planned(Axis::Ep, CollectiveKind::AllToAll, routed, placement.groupOf(Axis::Ep, rank));
        if (parallel.expertDispatcher == config::ExpertDispatcher::DeepEp) {
            // One copy per destination GPU; beyond the node, one per destination node.
            PlannedCollective& dispatch = *layer.expertAllToAll;
            const ExpertRouting routing { model.moe->numExperts, model.moe->topK, model.moe->expertGroups,
                model.moe->groupsPerToken, parallel.expertRouting == config::ExpertRoutingPattern::Consecutive };
            const double perGpu = deepEpShare(routing, static_cast<int>(dispatch.group.size()));
            const double perNode = deepEpShare(routing, nodesSpanned(dispatch.group, scenario.hardware.cluster));
            dispatch.bytes *= perGpu;
            dispatch.outerAxisShare = std::min(1.0, perNode / perGpu);
        }
        layer.expertAllToAllsPerPass = 2;
    }
    layer.expertPassesBackward = run.recompute == config::Recompute::Full ? 2 : 1;
    const int etp = parallel.expertTensorDegree();
    if (model.moe && etp > 1 && etp < parallel.tp) {
        // The dispatcher all-gathers what the all-to-all delivered (each rank's own sequence-parallel tokens' routed
        // copies, expertLoad times the balanced share on the busiest rank) over the etp group, and reduce-scatters
        // the experts' partial sums back: an all-gather's bytes are its output, a reduce-scatter's its input.
        const double received = sizes.tokens / parallel.tp * model.moe->topK * model.hiddenSize * sizes.activationBytes
            * parallel.expertLoad();
        const std::vector<int> group = placement.expertTensorGroup(rank);
        for (const CollectiveKind kind : { CollectiveKind::AllGather, CollectiveKind::ReduceScatter }) {
            PlannedCollective part = planned(Axis::Tp, kind, received * etp, group);
            part.subgroup = PlannedCollective::Subgroup::ExpertTensor;
            layer.expertTensorPair.push_back(std::move(part));
        }
    }
    return layer;
}

/// A collective of the routed experts' gradients or parameters over their expert-data-parallel @p group.
PlannedCollective expertData(CollectiveKind kind, double bytes, std::vector<int> group)
{
    PlannedCollective collective = planned(Axis::Dp, kind, bytes, std::move(group));
    collective.subgroup = PlannedCollective::Subgroup::ExpertData;
    return collective;
}

/// The gathers of a stage's parameters once per step, ahead of its first forward (StagePlan::parameterGather):
/// ZeRO-1/2's of the updated shards in the weight precision, or FSDP2's of the whole stage under pipeline parallelism
/// (ShardingPlan::keepsStageGathered) as ZeRO-3 gathers; the routed experts' over their own group when apart.
void addStageGathers(const config::Scenario& scenario, const ShardingPlan& sharding, const TrainingSizes& sizes,
    const StageShare& share, const std::vector<int>& shardGroup, double apart, const std::vector<int>& expertGroup,
    StagePlan& plan)
{
    const int zero = sharding.zeroStage;
    double bytes = (plan.parameters - apart) * sizes.weightBytes;
    double expertBytes = apart * sizes.weightBytes;
    if (sharding.keepsStageGathered) {
        const double ends = share.embeddingParameters + share.headParameters;
        bytes = gatheredParameterBytes(
            scenario.model, scenario.run, plan.parameters - apart - ends, share.layerCount(), ends);
        expertBytes = gatheredParameterBytes(scenario.model, scenario.run, apart, 0, 0);
    } else if (zero != 1 && zero != 2) {
        return;
    }
    if (shardGroup.size() > 1) {
        plan.parameterGather = planned(Axis::Dp, CollectiveKind::AllGather, bytes, shardGroup);
    }
    if (apart > 0 && expertGroup.size() > 1) {
        plan.expertParameterGather = expertData(CollectiveKind::AllGather, expertBytes, expertGroup);
    }
}

StagePlan stagePlan(const config::Scenario& scenario, const ShardingPlan& sharding, const Placement& placement,
    const TrainingSizes& sizes, const StageShare& share)
{
    const int stage = share.stage;
    const config::ModelSpec& model = scenario.model;
    const config::RunSpec& run = scenario.run;
    const config::ParallelismSpec& parallel = run.parallelism;
    const int zero = parallel.zeroStage;
    StagePlan plan;
    plan.stage = stage;
    plan.representativeRank = placement.representativeRank(stage);
    plan.layer = layerCollectives(scenario, placement, sizes, plan.representativeRank);
    // Gradients are summed over every rank with the same weights (dp x cp); ZeRO shards span the shard group (all of
    // them, or dp_shard x cp under hybrid sharding, whose reduced shards are then all-reduced over their replicas).
    const std::vector<int> dpGroup = placement.weightReplicaGroup(plan.representativeRank);
    const std::vector<int> shardGroup = zero >= 1 ? placement.weightShardGroup(plan.representativeRank) : dpGroup;
    const std::vector<int> shardReplicas = placement.shardReplicaGroup(plan.representativeRank);
    const int shards = static_cast<int>(shardGroup.size());
    // Routed experts are summed and sharded over the ranks holding the same expert shard (ep > 1 or etp < tp).
    // (Dense stages have none: no group to form.)
    const std::vector<int> expertGroup = share.expertParameters <= 0 ? shardGroup
        : zero >= 1 ? placement.expertShardGroup(plan.representativeRank)
                    : placement.expertReplicaGroup(plan.representativeRank);
    const bool expertsApart = share.expertParameters > 0 && expertGroup != shardGroup;
    const int expertShards = static_cast<int>(expertGroup.size());
    const CollectiveKind reduction = zero >= 1 ? CollectiveKind::ReduceScatter : CollectiveKind::AllReduce;
    for (size_t chunk = 0; chunk < share.chunks.size(); ++chunk) {
        ChunkPlan chunkPlan;
        chunkPlan.layers = share.chunks[chunk];
        chunkPlan.parameters = share.chunkParameters[chunk];
        chunkPlan.trainableParameters = share.chunkTrainableParameters[chunk];
        chunkPlan.expertParameters = share.chunkExpertParameters[chunk];
        chunkPlan.holdsEmbedding = share.first && chunk == 0;
        chunkPlan.holdsHead = share.last && chunk + 1 == share.chunks.size();
        const double apart = expertsApart ? chunkPlan.expertParameters : 0.0; // reduced and gathered on their own
        // Under FSDP2 with pipeline parallelism the stage is gathered once per step instead (addStageGathers).
        const bool perPass = zero >= 3 && !sharding.keepsStageGathered;
        if (perPass && shards > 1) {
            const double ends = (chunkPlan.holdsEmbedding ? share.embeddingParameters : 0.0)
                + (chunkPlan.holdsHead ? share.headParameters : 0.0);
            const double bytes = gatheredParameterBytes(
                model, run, chunkPlan.parameters - apart - ends, static_cast<int>(chunkPlan.layers.size()), ends);
            chunkPlan.parameterGather = planned(Axis::Dp, CollectiveKind::AllGather, bytes, shardGroup);
        }
        const double gradientBytes = (chunkPlan.trainableParameters - apart) * sizes.gradientBytes;
        chunkPlan.gradientReduction = planned(Axis::Dp, reduction, gradientBytes, shardGroup);
        if (apart > 0) {
            chunkPlan.expertGradientReduction = expertData(reduction, apart * sizes.gradientBytes, expertGroup);
            if (perPass) {
                chunkPlan.expertParameterGather = expertData(
                    CollectiveKind::AllGather, gatheredParameterBytes(model, run, apart, 0, 0), expertGroup);
            }
        }
        if (zero >= 1 && shardReplicas.size() > 1) {
            // The experts' shards have the same replicas (a shard group holds whole expert blocks).
            chunkPlan.replicaReduction = planned(Axis::Dp, CollectiveKind::AllReduce,
                gradientBytes / shards + apart * sizes.gradientBytes / expertShards, shardReplicas);
        }
        plan.parameters += chunkPlan.parameters;
        plan.expertParameters += chunkPlan.expertParameters;
        plan.chunks.push_back(std::move(chunkPlan));
    }
    if (parallel.pp > 1) {
        const int rank = plan.representativeRank;
        const double bytes = sizes.tokens * model.hiddenSize * sizes.activationBytes / parallel.tp;
        const int next = placement.representativeRank((stage + 1) % parallel.pp);
        const int previous = placement.representativeRank((stage + parallel.pp - 1) % parallel.pp);
        plan.sendForward = planned(Axis::Pp, CollectiveKind::SendRecv, bytes, { rank, next });
        plan.sendBackward = planned(Axis::Pp, CollectiveKind::SendRecv, bytes, { rank, previous });
    }
    const double apart = expertsApart ? plan.expertParameters : 0.0;
    // The memory model's split of the same shards (the plan's group sizes are these groups').
    plan.optimizerParameters = sharding.lora ? sharding.parametersPerShard(share.trainableParameters, 0.0, 1)
                                             : sharding.parametersPerShard(plan.parameters, plan.expertParameters, 1);
    addStageGathers(scenario, sharding, sizes, share, shardGroup, apart, expertGroup, plan);
    return plan;
}

InferencePlan inferencePlan(const config::Scenario& scenario, const Placement& placement)
{
    const config::RunSpec& run = scenario.run;
    InferencePlan plan;
    plan.tensorGroup = placement.groupOf(Axis::Tp, 0);
    plan.stages = run.parallelism.pp;
    plan.pipelineHop = { placement.representativeRank(0), placement.representativeRank(plan.stages > 1 ? 1 : 0) };
    plan.returnHop = { placement.representativeRank(plan.stages - 1), placement.representativeRank(0) };
    plan.hiddenSize = static_cast<double>(scenario.model.hiddenSize);
    plan.activationBytes = config::bytesPerElement(run.precision.activations);
    plan.batch = run.batch;
    return plan;
}

} // namespace

bool isMoeLayer(const config::ModelSpec& model, int layer)
{
    return model.moe && layer >= model.moe->denseLayers;
}

PlannedCollective InferencePlan::tensorAllReduce(double tokens) const
{
    return planned(Axis::Tp, CollectiveKind::AllReduce, tokens * hiddenSize * activationBytes, tensorGroup);
}

PlannedCollective InferencePlan::pipelineSend(double tokens) const
{
    return planned(Axis::Pp, CollectiveKind::SendRecv, tokens * hiddenSize * activationBytes, pipelineHop);
}

PlannedCollective InferencePlan::tokenReturn() const
{
    return planned(Axis::Pp, CollectiveKind::SendRecv, 4.0 * batch, returnHop);
}

network::CollectiveRequest StepPlan::request(const PlannedCollective& collective) const
{
    network::CollectiveRequest request = collective.request();
    request.library = library;
    return request;
}

network::CollectiveRequest StepPlan::withReplicas(const PlannedCollective& collective) const
{
    network::CollectiveRequest request = this->request(collective);
    if (collective.group.size() >= 2) {
        request.replicaOffsets
            = placement.replicaOffsets(collective.group, collective.kind == CollectiveKind::SendRecv, totalGpus);
    }
    return request;
}

namespace {

std::vector<SlowReplica> slowReplicaPatterns(
    const Placement& placement, int stages, const std::vector<config::GpuStraggler>& stragglers)
{
    std::map<int, SlowReplica> byReplica; // data-parallel coordinate -> its slow GPUs and stage slowdowns
    for (const config::GpuStraggler& straggler : stragglers) {
        if (straggler.gpu < 0 || straggler.gpu >= placement.ranks || straggler.slowdown <= 1) {
            continue; // GPUs the run does not use do not slow it
        }
        const int replica = placement.coordinate(Axis::Dp, straggler.gpu);
        SlowReplica& slow = byReplica
                                .try_emplace(replica,
                                    SlowReplica { replica, {}, std::vector<double>(static_cast<size_t>(stages), 1.0) })
                                .first->second;
        slow.slowGpus.push_back(straggler.gpu);
        double& stage = slow.stageSlowdowns[static_cast<size_t>(placement.stageOf(straggler.gpu))];
        stage = std::max(stage, straggler.slowdown);
    }
    std::vector<SlowReplica> distinct;
    for (auto& entry : byReplica) {
        SlowReplica& slow = entry.second; // a plain reference: clang 14 cannot capture structured bindings
        std::sort(slow.slowGpus.begin(), slow.slowGpus.end());
        const bool seen = std::any_of(distinct.begin(), distinct.end(),
            [&](const SlowReplica& other) { return other.stageSlowdowns == slow.stageSlowdowns; });
        if (!seen) {
            distinct.push_back(std::move(slow));
        }
    }
    return distinct;
}

} // namespace

StepPlan planStep(const config::Scenario& scenario)
{
    const config::RunSpec& run = scenario.run;
    StepPlan plan;
    plan.placement = placeRanks(scenario.hardware, run, scenario.locations, nullptr);
    plan.totalGpus = scenario.hardware.cluster.totalGpus();
    plan.library = run.parallelism.collectives == config::CollectiveImplementation::Custom
        ? network::CollectiveLibrary::Custom
        : network::CollectiveLibrary::Nccl;
    plan.virtualStages
        = run.parallelism.schedule == config::PipelineSchedule::Interleaved ? run.parallelism.virtualStages : 1;
    plan.sharding = planSharding(scenario.model, run);
    if (run.mode == config::RunMode::Training) {
        const TrainingSizes sizes = trainingSizes(scenario.model, run);
        for (const StageShare& share : plan.sharding.stageShares) {
            plan.stages.push_back(stagePlan(scenario, plan.sharding, plan.placement, sizes, share));
        }
    } else {
        // Inference: the stages' layers (what a request's Chakra traces are split by); its collectives are per pass.
        for (const StageShare& share : plan.sharding.stageShares) {
            StagePlan stagePlan;
            stagePlan.stage = share.stage;
            stagePlan.representativeRank = plan.placement.representativeRank(share.stage);
            for (const std::vector<int>& layers : share.chunks) {
                ChunkPlan& chunk = stagePlan.chunks.emplace_back();
                chunk.layers = layers;
            }
            plan.stages.push_back(std::move(stagePlan));
        }
    }
    plan.inference = inferencePlan(scenario, plan.placement);
    plan.slowReplicas = slowReplicaPatterns(plan.placement, plan.sharding.stages, scenario.hardware.stragglers);
    return plan;
}

} // namespace rapid::parallel
