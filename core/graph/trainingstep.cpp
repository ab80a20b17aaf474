// SPDX-License-Identifier: GPL-3.0-or-later
#include "trainingstep.h"

#include "parallel/pipelineschedule.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace rapid::graph {

namespace {

double total(const TimeBreakdown& parts)
{
    return std::accumulate(parts.begin(), parts.end(), 0.0);
}

TimeBreakdown single(TimeClass timeClass, double seconds)
{
    TimeBreakdown parts {};
    parts[static_cast<size_t>(timeClass)] = seconds;
    return parts;
}

/// The compute nodes that bound a chunk's gradient reduction: its last backward, and the compute node before it (when
/// the reduction's buckets may start leaving).
struct ChunkBackwardEnds {
    std::vector<std::vector<NodeId>> last;
    std::vector<std::vector<NodeId>> beforeLast;
};

/// A data-parallel communication node of @p stage (of the routed experts' group when @p expertGroup); a gather that
/// releases a pipeline schedule's first forward is labelled with that micro-batch (@p microBatch).
NodeId addDataParallelNode(ExecutionGraph& graph, NodeKind kind, int stage, int chunk, double seconds, double bytes,
    bool expertGroup = false, int microBatch = -1)
{
    Node node;
    node.microBatch = microBatch;
    node.expertGroup = expertGroup;
    node.kind = kind;
    node.rank = stage;
    node.stream = Stream::DataParallelComm;
    node.seconds = seconds;
    node.bytes = bytes;
    node.cost = graph.addCost(single(TimeClass::DataParallel, seconds));
    node.chunk = chunk;
    return graph.add(std::move(node));
}

/// Element @p index of @p values, 0 past its end.
double valueAt(const std::vector<double>& values, size_t index)
{
    return index < values.size() ? values[index] : 0.0;
}

/// Hybrid sharding's all-reduce of the shard @p reduction left, right after it on the same stream; returns the node
/// the next reduction or the optimizer waits for (@p reduction itself when there is none).
NodeId addReplicaReduction(ExecutionGraph& graph, int stage, int chunk, NodeId reduction, double seconds, double bytes)
{
    if (seconds <= 0) {
        return reduction;
    }
    const NodeId replica = addDataParallelNode(graph, NodeKind::ReplicaReduction, stage, chunk, seconds, bytes);
    graph.addDependency(replica, reduction);
    return replica;
}

/// A stage's gradient reductions after its chunks' last backwards (@p lastBackward, per chunk; @p beforeLast the
/// compute node before each), in the order chunks finish (reverse): each after its chunk's last backward when they
/// overlap, else after @p lastCompute; overlapped and bucketed, all but the last bucket from the compute node before
/// that backward. Returns what the optimizer waits for.
std::vector<NodeId> addChunkReductions(ExecutionGraph& graph, const parallel::ShardingPlan& plan, const StageCost& cost,
    int stage, const std::vector<NodeId>& lastBackward, const std::vector<NodeId>& beforeLast, NodeId lastCompute)
{
    std::vector<NodeId> reductions;
    for (int chunk = static_cast<int>(lastBackward.size()) - 1; chunk >= 0; --chunk) {
        const auto c = static_cast<size_t>(chunk);
        const double seconds = valueAt(cost.dataParallelSeconds, c);
        const double expertSeconds = valueAt(cost.expertDataParallelSeconds, c);
        const double lastBucket = valueAt(cost.dataParallelLastBucketSeconds, c);
        const bool bucketed = plan.overlapGradientReduction && lastBucket > 0 && beforeLast[c] >= 0;
        // Overlapped, buckets leave while the last backward runs (the last one only after it); else after the
        // stage's last compute.
        const NodeId start = !plan.overlapGradientReduction ? lastCompute : bucketed ? beforeLast[c] : lastBackward[c];
        NodeId reduceId = -1;
        if (seconds > 0) {
            reduceId = addDataParallelNode(
                graph, NodeKind::DataParallel, stage, chunk, seconds, valueAt(cost.dataParallelBytes, c));
            graph.addDependency(reduceId, start);
            reductions.push_back(addReplicaReduction(graph, stage, chunk, reduceId,
                valueAt(cost.replicaReductionSeconds, c), valueAt(cost.replicaReductionBytes, c)));
        }
        if (expertSeconds > 0) {
            const NodeId expertId = addDataParallelNode(graph, NodeKind::DataParallel, stage, chunk, expertSeconds,
                valueAt(cost.expertDataParallelBytes, c), true);
            graph.addDependency(expertId, start);
            reductions.push_back(expertId);
        }
        if (bucketed && reduceId >= 0) {
            const NodeId lastId = addDataParallelNode(
                graph, NodeKind::DataParallel, stage, chunk, lastBucket, cost.dataParallelLastBucketBytes[c]);
            graph.addDependency(lastId, lastBackward[c]);
            graph.addDependency(lastId, reduceId);
            reductions.push_back(addReplicaReduction(graph, stage, chunk, lastId,
                valueAt(cost.replicaReductionLastBucketSeconds, c), valueAt(cost.replicaReductionLastBucketBytes, c)));
        }
    }
    return reductions;
}

/// The exposed part of a stage's parameter gather (the rest's, then the routed experts'), after @p after when given;
/// returns the nodes a forward waiting for it depends on (micro-batch @p releases, or -1: the next step's).
std::vector<NodeId> addExposedGathers(
    ExecutionGraph& graph, const StageCost& cost, int stage, NodeId after, int releases = -1)
{
    std::vector<NodeId> gathers;
    if (cost.parameterGatherSeconds > 0) {
        gathers.push_back(addDataParallelNode(graph, NodeKind::ParameterGather, stage, -1, cost.parameterGatherSeconds,
            cost.parameterGatherBytes, false, releases));
    }
    if (cost.expertParameterGatherSeconds > 0) {
        gathers.push_back(addDataParallelNode(graph, NodeKind::ParameterGather, stage, -1,
            cost.expertParameterGatherSeconds, cost.expertParameterGatherBytes, true, releases));
    }
    if (after >= 0) {
        for (NodeId gather : gathers) {
            graph.addDependency(gather, after);
        }
    }
    return gathers;
}

/// The part of a stage's parameter gather that runs beside the forward rather than ahead of it.
void addHiddenGathers(ExecutionGraph& graph, const StageCost& cost, int stage)
{
    if (cost.parameterGatherHiddenSeconds > 0) {
        addDataParallelNode(graph, NodeKind::ParameterGather, stage, -1, cost.parameterGatherHiddenSeconds,
            cost.parameterGatherHiddenBytes);
    }
    if (cost.expertParameterGatherHiddenSeconds > 0) {
        addDataParallelNode(graph, NodeKind::ParameterGather, stage, -1, cost.expertParameterGatherHiddenSeconds,
            cost.expertParameterGatherHiddenBytes, true);
    }
}

/// After a stage's last backward: its gradient reductions (addChunkReductions), the optimizer step once they have all
/// finished, then the ZeRO-1/2 parameter gather (or the exposed part of the next step's).
void addReductionsAndOptimizer(ExecutionGraph& graph, const parallel::ShardingPlan& plan,
    const std::vector<StageCost>& stages, const ChunkBackwardEnds& ends)
{
    for (int stage = 0; stage < plan.stages; ++stage) {
        const auto s = static_cast<size_t>(stage);
        const StageCost& cost = stages[s];
        const NodeId lastCompute = graph.streamOrder(stage, Stream::Compute).back();
        const std::vector<NodeId> reductions
            = addChunkReductions(graph, plan, cost, stage, ends.last[s], ends.beforeLast[s], lastCompute);
        Node optimizer;
        optimizer.kind = NodeKind::Optimizer;
        optimizer.rank = stage;
        optimizer.stream = Stream::Compute;
        optimizer.seconds = cost.optimizerSeconds;
        optimizer.cost = graph.addCost(single(TimeClass::Optimizer, cost.optimizerSeconds));
        const NodeId optimizerId = graph.add(std::move(optimizer));
        for (NodeId reduction : reductions) {
            graph.addDependency(optimizerId, reduction);
        }
        addExposedGathers(graph, cost, stage, optimizerId);
    }
}

/// Between two pipeline schedules of a step that reshards after each (ShardingPlan::gathersEachFlush): the ending
/// schedule's reductions, issued after each chunk's last backward in it, then the stage's gather for the next
/// schedule, whose first forward (@p firstForward) waits for its exposed part; the rest runs beside that forward.
/// torch.distributed.pipelining's stage runs FSDP's post-backward (reduce-scatter, reshard) after the schedule's last
/// backward, and the next schedule's pre-forward hooks gather again; one data-parallel stream carries them in that
/// order (both share the stage's network links).
void addScheduleBoundary(ExecutionGraph& graph, const parallel::ShardingPlan& plan, const StageCost& cost, int stage,
    const std::vector<NodeId>& lastBackward, NodeId lastCompute, NodeId firstForward)
{
    const std::vector<NodeId> none(lastBackward.size(), -1);
    addChunkReductions(graph, plan, cost, stage, lastBackward, none, lastCompute);
    for (NodeId gather : addExposedGathers(graph, cost, stage, lastCompute, graph.node(firstForward).microBatch)) {
        graph.addDependency(firstForward, gather);
    }
    addHiddenGathers(graph, cost, stage);
}

/// Where each chunk's last backward falls in a stage's schedule @p steps (steps.size() for a chunk without one).
std::vector<size_t> lastBackwardSteps(const std::vector<parallel::PipelineStep>& steps, int virtualStages)
{
    std::vector<size_t> last(static_cast<size_t>(virtualStages), steps.size());
    for (size_t i = 0; i < steps.size(); ++i) {
        if (steps[i].pass == parallel::Pass::Backward) {
            last[static_cast<size_t>(steps[i].chunk)] = i;
        }
    }
    return last;
}

/// What the collectives beside a pass (@p step of @p stage) slow its work by: a compute node of its own (breakdown
/// @p cost), to run right after the pass on the compute stream; the pass's pipeline send waits for it. It has no
/// chunk, so every network backend and the Chakra traces take its duration as it is.
NodeId addContentionNode(ExecutionGraph& graph, int stage, const parallel::PipelineStep& step, CostId cost)
{
    Node slowed;
    slowed.kind = NodeKind::Compute;
    slowed.rank = stage;
    slowed.stream = Stream::Compute;
    slowed.cost = cost;
    slowed.seconds = total(graph.costs()[static_cast<size_t>(cost)]);
    slowed.microBatch = step.microBatch;
    slowed.backward = step.pass == parallel::Pass::Backward;
    return graph.add(std::move(slowed));
}

/// Combined 1F1B: a forward compute node run beside the backward of (@p backwardMicroBatch, @p backwardChunk).
struct CoScheduledForward {
    NodeId forward = -1;
    int stage = 0;
    int backwardMicroBatch = 0;
    int backwardChunk = 0;
};

/// Combined 1F1B: the pair index (forward chunk x chunks + backward chunk) of step @p i of @p steps when it runs
/// co-scheduled with its neighbour (a forward with the backward after it, a backward with the forward before it), else
/// -1.
int coScheduledPair(const std::vector<parallel::PipelineStep>& steps, size_t i, int virtualStages)
{
    const parallel::PipelineStep& step = steps[i];
    if (!step.coScheduled) {
        return -1;
    }
    const bool backward = step.pass == parallel::Pass::Backward;
    if ((backward && i == 0) || (!backward && i + 1 >= steps.size())) {
        return -1;
    }
    const parallel::PipelineStep& partner = backward ? steps[i - 1] : steps[i + 1];
    if (!partner.coScheduled || partner.pass == step.pass) {
        return -1;
    }
    const int forwardChunk = backward ? partner.chunk : step.chunk;
    const int backwardChunk = backward ? step.chunk : partner.chunk;
    return forwardChunk * virtualStages + backwardChunk;
}

/// The breakdowns once per (stage, chunk, pass) and per kind of communication node, shared by the nodes.
struct StageCostIds {
    std::vector<CostId> forward;
    std::vector<CostId> backward;
    std::vector<double> forwardSeconds;
    std::vector<double> backwardSeconds;
    /// What the collectives beside each chunk's last backward and the stage's first forward slow them by
    /// (StageCost::reductionContentionSeconds, gatherContentionSeconds): -1 when nothing.
    std::vector<CostId> reductionContention;
    CostId gatherContention = -1;
    CostId sendActivation = -1;
    CostId sendGradient = -1;
    /// Combined 1F1B: per (forward chunk, backward chunk) pair, each pass's breakdown in the pair
    /// (StageCost::coScheduled); empty without.
    std::vector<CostId> pairForward;
    std::vector<CostId> pairBackward;
    std::vector<double> pairForwardSeconds;
    std::vector<double> pairBackwardSeconds;
};

/// The compute node of step @p i of stage @p stage's schedule @p steps: its pass's cost, or its share of a
/// co-scheduled pair's (combined 1F1B).
Node passNode(
    const StageCostIds& ids, const std::vector<parallel::PipelineStep>& steps, size_t i, int stage, int virtualStages)
{
    const parallel::PipelineStep& step = steps[i];
    const bool backward = step.pass == parallel::Pass::Backward;
    const size_t chunk = static_cast<size_t>(step.chunk);
    Node node;
    node.kind = NodeKind::Compute;
    node.rank = stage;
    node.stream = Stream::Compute;
    node.cost = backward ? ids.backward[chunk] : ids.forward[chunk];
    node.seconds = backward ? ids.backwardSeconds[chunk] : ids.forwardSeconds[chunk];
    if (const int pair = coScheduledPair(steps, i, virtualStages); pair >= 0 && !ids.pairForward.empty()) {
        const auto p = static_cast<size_t>(pair);
        node.cost = backward ? ids.pairBackward[p] : ids.pairForward[p];
        node.seconds = backward ? ids.pairBackwardSeconds[p] : ids.pairForwardSeconds[p];
    }
    node.microBatch = step.microBatch;
    node.chunk = step.chunk;
    node.backward = backward;
    return node;
}

std::vector<StageCostIds> addStageCosts(ExecutionGraph& graph, const std::vector<StageCost>& stages, int virtualStages)
{
    std::vector<StageCostIds> costIds(stages.size());
    for (size_t stage = 0; stage < stages.size(); ++stage) {
        const StageCost& cost = stages[stage];
        if (static_cast<int>(cost.chunks.size()) != virtualStages) {
            throw std::invalid_argument("training step: one ChunkCost per virtual stage is needed");
        }
        StageCostIds& ids = costIds[stage];
        for (size_t c = 0; c < cost.chunks.size(); ++c) {
            const ChunkCost& chunk = cost.chunks[c];
            ids.forward.push_back(graph.addCost(chunk.forward));
            ids.backward.push_back(graph.addCost(chunk.backward));
            ids.forwardSeconds.push_back(total(chunk.forward));
            ids.backwardSeconds.push_back(total(chunk.backward));
            const double contention = valueAt(cost.reductionContentionSeconds, c);
            ids.reductionContention.push_back(
                contention > 0 ? graph.addCost(single(TimeClass::DataParallel, contention)) : -1);
        }
        if (cost.gatherContentionSeconds > 0) {
            ids.gatherContention = graph.addCost(single(TimeClass::DataParallel, cost.gatherContentionSeconds));
        }
        if (!cost.coScheduled.empty()
            && cost.coScheduled.size() != static_cast<size_t>(virtualStages) * static_cast<size_t>(virtualStages)) {
            throw std::invalid_argument("training step: one co-scheduled ChunkCost per pair of virtual stages");
        }
        for (const ChunkCost& pair : cost.coScheduled) {
            ids.pairForward.push_back(graph.addCost(pair.forward));
            ids.pairBackward.push_back(graph.addCost(pair.backward));
            ids.pairForwardSeconds.push_back(total(pair.forward));
            ids.pairBackwardSeconds.push_back(total(pair.backward));
        }
        ids.sendActivation = graph.addCost(single(TimeClass::PipelineParallel, cost.sendActivationSeconds));
        ids.sendGradient = graph.addCost(single(TimeClass::PipelineParallel, cost.sendGradientSeconds));
    }
    return costIds;
}

/// The dependencies between passes: each backward after its forward, a forward after the previous model chunk's
/// activations arrive, a backward after the next chunk's gradients; a co-scheduled forward also after its backward's
/// gradients. @p compute and @p sends are indexed by @p slot(stage, micro-batch, chunk, backward).
template <typename Slot>
void addPassDependencies(ExecutionGraph& graph, const std::vector<NodeId>& compute, const std::vector<NodeId>& sends,
    const Slot& slot, int pp, int modelChunks, int microBatches, const std::vector<CoScheduledForward>& coScheduled)
{
    auto stageOf = [pp](int modelChunk) { return modelChunk % pp; };
    auto chunkOf = [pp](int modelChunk) { return modelChunk / pp; };
    for (int mb = 0; mb < microBatches; ++mb) {
        for (int k = 0; k < modelChunks; ++k) {
            const int stage = stageOf(k);
            const int chunk = chunkOf(k);
            graph.addDependency(compute[slot(stage, mb, chunk, true)], compute[slot(stage, mb, chunk, false)]);
            if (k > 0) {
                graph.addDependency(
                    compute[slot(stage, mb, chunk, false)], sends[slot(stageOf(k - 1), mb, chunkOf(k - 1), false)]);
            }
            if (k + 1 < modelChunks) {
                graph.addDependency(
                    compute[slot(stage, mb, chunk, true)], sends[slot(stageOf(k + 1), mb, chunkOf(k + 1), true)]);
            }
        }
    }

    // A co-scheduled pair starts once both its inputs are there (combined_1f1b.py: the step waits for the forward's
    // activations and the backward's gradients before its first layer), so its forward waits for the backward's too.
    for (const CoScheduledForward& pair : coScheduled) {
        const int k = pair.backwardChunk * pp + pair.stage;
        if (k + 1 < modelChunks) {
            graph.addDependency(
                pair.forward, sends[slot(stageOf(k + 1), pair.backwardMicroBatch, chunkOf(k + 1), true)]);
        }
    }
}

} // namespace

ExecutionGraph buildTrainingStep(const parallel::ShardingPlan& plan, const std::vector<StageCost>& stages)
{
    const int pp = plan.stages;
    if (static_cast<int>(stages.size()) != pp) {
        throw std::invalid_argument("training step: one StageCost per pipeline stage is needed");
    }
    const int virtualStages = plan.virtualStages;
    const int microBatches = plan.microBatches;
    const int modelChunks = pp * virtualStages;
    const int perSchedule = microBatches / std::max(1, plan.pipelineFlushes);
    ExecutionGraph graph(pp);

    // Compute nodes per stage in schedule order, each followed on the pipeline stream by the send it produces, so
    // sends leave in the order their data is ready. Model chunk k = chunk * pp + stage: its forward sends activations
    // to chunk k+1, its backward sends input gradients to chunk k-1.
    // Node ids by (stage, chunk, micro-batch, pass) in flat tables: building the graph is on the hot path of sweeps.
    const size_t perStage = static_cast<size_t>(virtualStages) * static_cast<size_t>(microBatches) * 2;
    auto slot = [&](int stage, int microBatch, int chunk, bool backward) {
        return static_cast<size_t>(stage) * perStage
            + (static_cast<size_t>(chunk) * static_cast<size_t>(microBatches) + static_cast<size_t>(microBatch)) * 2
            + (backward ? 1 : 0);
    };
    std::vector<NodeId> compute(static_cast<size_t>(pp) * perStage, -1);
    std::vector<CoScheduledForward> coScheduledForwards;
    std::vector<NodeId> sends(static_cast<size_t>(pp) * perStage, -1);
    ChunkBackwardEnds ends;
    ends.last.resize(static_cast<size_t>(pp));
    ends.beforeLast.resize(static_cast<size_t>(pp));
    // Every compute node has a send but the model's first forward and last backward; each (micro-batch, model chunk)
    // adds up to three edges, each send one; reductions, optimizers and gathers a few per stage.
    const size_t computeNodes = static_cast<size_t>(pp) * perStage;
    graph.reserve(2 * computeNodes + static_cast<size_t>(pp) * static_cast<size_t>(virtualStages + 2),
        3 * computeNodes + static_cast<size_t>(pp) * static_cast<size_t>(2 * virtualStages + 1));
    const std::vector<StageCostIds> costIds = addStageCosts(graph, stages, virtualStages);
    for (int stage = 0; stage < pp; ++stage) {
        const StageCost& cost = stages[static_cast<size_t>(stage)];
        const StageCostIds& ids = costIds[static_cast<size_t>(stage)];
        ends.last[static_cast<size_t>(stage)].assign(static_cast<size_t>(virtualStages), -1);
        ends.beforeLast[static_cast<size_t>(stage)].assign(static_cast<size_t>(virtualStages), -1);
        // Overlapped gather: the units the forward does not wait for run beside it.
        addHiddenGathers(graph, cost, stage);
        NodeId previousCompute = -1;
        // Resharding after each schedule: the last backward of each chunk in the current one.
        std::vector<NodeId> scheduleLastBackward(plan.gathersEachFlush ? static_cast<size_t>(virtualStages) : 0, -1);
        int schedule = 0;
        const std::vector<parallel::PipelineStep> steps = plan.steps(stage);
        const std::vector<size_t> lastBackwardStep = lastBackwardSteps(steps, virtualStages);
        for (size_t i = 0; i < steps.size(); ++i) {
            const parallel::PipelineStep& step = steps[i];
            const bool backward = step.pass == parallel::Pass::Backward;
            const bool scheduleStarts = plan.gathersEachFlush && step.microBatch / perSchedule != schedule;
            const size_t chunk = static_cast<size_t>(step.chunk);
            Node node = passNode(ids, steps, i, stage, virtualStages);
            const NodeId id = graph.add(std::move(node));
            if (!backward && coScheduledPair(steps, i, virtualStages) >= 0) {
                coScheduledForwards.push_back({ id, stage, steps[i + 1].microBatch, steps[i + 1].chunk });
            }
            compute[slot(stage, step.microBatch, step.chunk, backward)] = id;
            if (scheduleStarts) {
                addScheduleBoundary(graph, plan, cost, stage, scheduleLastBackward, previousCompute, id);
                schedule = step.microBatch / perSchedule;
            }
            // The last backward of a chunk is slowed by the reductions beside it, the first forward by the gather.
            const CostId slowedBy = backward && lastBackwardStep[chunk] == i ? ids.reductionContention[chunk]
                : !backward && i == 0                                        ? ids.gatherContention
                                                                             : -1;
            const NodeId end = slowedBy >= 0 ? addContentionNode(graph, stage, step, slowedBy) : id;
            if (backward) {
                ends.last[static_cast<size_t>(stage)][chunk] = end;
                ends.beforeLast[static_cast<size_t>(stage)][chunk] = previousCompute;
                if (plan.gathersEachFlush) {
                    scheduleLastBackward[chunk] = end;
                }
            }
            previousCompute = end;
            const int k = step.chunk * pp + stage;
            if ((!backward && k + 1 < modelChunks) || (backward && k > 0)) {
                Node send;
                send.kind = NodeKind::PipelineSend;
                send.rank = stage;
                send.stream = Stream::PipelineComm;
                send.seconds = backward ? cost.sendGradientSeconds : cost.sendActivationSeconds;
                send.bytes = cost.sendBytes;
                send.cost = backward ? ids.sendGradient : ids.sendActivation;
                send.microBatch = step.microBatch;
                send.chunk = step.chunk;
                send.backward = backward;
                const NodeId sendId = graph.add(std::move(send));
                // The collectives beside the pass slow the work whose output this is: it leaves once the slowed
                // pass ends (the contention node), not when the pass alone would have.
                graph.addDependency(sendId, end);
                sends[slot(stage, step.microBatch, step.chunk, backward)] = sendId;
            }
        }
    }
    addPassDependencies(graph, compute, sends, slot, pp, modelChunks, microBatches, coScheduledForwards);
    addReductionsAndOptimizer(graph, plan, stages, ends);
    return graph;
}

} // namespace rapid::graph
