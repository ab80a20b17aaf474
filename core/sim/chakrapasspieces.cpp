// SPDX-License-Identifier: GPL-3.0-or-later
#include "chakrapasspieces_p.h"
#include "config/attentionkernel.h"

#include "model/layeroperators.h"
#include "parallel/stepplan.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <optional>

namespace rapid::sim::detail {

using graph::ChakraAttribute;
using graph::ChakraNodePiece;
using graph::ChakraNodeType;
using parallel::PlannedCollective;

namespace {

/// The placeholder communicator a representative trace names for @p collective.
std::string communicatorPlaceholder(const PlannedCollective& collective)
{
    switch (collective.subgroup) {
    case PlannedCollective::Subgroup::ContextAllToAll:
        return kContextAllToAllPlaceholder;
    case PlannedCollective::Subgroup::ExpertTensor:
        return kExpertTensorPlaceholder;
    case PlannedCollective::Subgroup::ExpertData:
        return kExpertDataPlaceholder;
    case PlannedCollective::Subgroup::None:
        break;
    }
    return groupPlaceholder(collective.axis);
}

/// A COMM_COLL_NODE piece. comm_size follows ASTRA-sim: an all-gather's is the per-rank shard, the others' the
/// per-rank buffer (network::CollectiveRequest's bytes).
ChakraNodePiece collectivePiece(const std::string& name, const PlannedCollective& collective, double seconds)
{
    double bytes = collective.bytes;
    if (collective.kind == network::CollectiveKind::AllGather) {
        bytes /= static_cast<double>(collective.group.size());
    }
    ChakraNodePiece piece { name, seconds, ChakraNodeType::Collective, {}, {} };
    piece.attributes = { ChakraAttribute::boolean("is_cpu_op", false),
        ChakraAttribute::int64("comm_type", static_cast<std::int64_t>(graph::chakraCollectiveOf(collective.kind))),
        ChakraAttribute::int64("comm_size", std::llround(bytes)),
        ChakraAttribute::text("pg_name", communicatorPlaceholder(collective)) };
    return piece;
}

void addAll(std::vector<PlannedCollective>& to, const PlannedCollective& collective, int times)
{
    if (collective.onNetwork()) {
        to.insert(to.end(), static_cast<size_t>(std::max(0, times)), collective);
    }
}

} // namespace

std::string groupPlaceholder(parallel::Axis axis)
{
    return parallel::toString(axis);
}

/// What one layer (or a whole chunk pass at Chunk detail) runs: its operators and the collectives inside it, with the
/// time the step model left exposed for each kind.
struct ChakraPassSplitter::Block {
    std::string label;
    std::vector<OperatorTiming> ops;
    std::vector<PlannedCollective> tensor; ///< in issue order
    bool tensorBesideGemms = false; ///< tp_comm_overlap
    double tensorExposed = 0;
    std::optional<PlannedCollective> contextStep;
    int contextSteps = 0;
    double contextRingExposed = 0; ///< of the ring steps beyond the slowed attention core
    double contextSlowdown = 0; ///< of the attention core beside the ring (LayerTimes::forwardContextSlowdown)
    double contextWaitExposed = 0; ///< of `context`
    std::vector<PlannedCollective> context; ///< cp_comm all_gather, a2a: what the pass waits for
    std::vector<PlannedCollective> expert;
    double expertExposed = 0;
    /// ep_shared_expert_overlap: the expert all-to-all run beside the shared expert's two windows, how often beside
    /// each, what its SMs add to each window, and each window's all-to-alls beyond the slowed window.
    std::optional<PlannedCollective> sharedAllToAll;
    std::array<int, 2> sharedAllToAlls {};
    std::array<double, 2> sharedSlowdown {};
    std::array<double, 2> sharedExposed {};
    double hostWait = 0; ///< the GPU waiting for its host's dispatch (graph::TimeClass::HostDispatch)

    void append(const Block& other)
    {
        ops.insert(ops.end(), other.ops.begin(), other.ops.end());
        tensor.insert(tensor.end(), other.tensor.begin(), other.tensor.end());
        tensorBesideGemms = tensorBesideGemms || other.tensorBesideGemms;
        tensorExposed += other.tensorExposed;
        contextStep = contextStep ? contextStep : other.contextStep;
        contextSteps += other.contextSteps;
        contextRingExposed += other.contextRingExposed;
        contextSlowdown += other.contextSlowdown;
        contextWaitExposed += other.contextWaitExposed;
        context.insert(context.end(), other.context.begin(), other.context.end());
        expert.insert(expert.end(), other.expert.begin(), other.expert.end());
        expertExposed += other.expertExposed;
        sharedAllToAll = sharedAllToAll ? sharedAllToAll : other.sharedAllToAll;
        for (size_t w = 0; w < 2; ++w) {
            sharedAllToAlls[w] += other.sharedAllToAlls[w];
            sharedSlowdown[w] += other.sharedSlowdown[w];
            sharedExposed[w] += other.sharedExposed[w];
        }
        hostWait += other.hostWait;
    }
};

ChakraPassSplitter::ChakraPassSplitter(StepModel& stepModel, const graph::ExecutionGraph& graph, ChakraDetail detail)
    : m_stepModel(stepModel)
    , m_graph(graph)
    , m_detail(detail)
    , m_timer(stepModel.scenario().hardware.gpu,
          config::resolvedAttentionKernel(stepModel.scenario().run, stepModel.scenario().hardware.gpu))
{
    const parallel::Placement& placement = stepModel.placement();
    for (int stage = 0; stage < graph.ranks(); ++stage) {
        m_layers.push_back(stepModel.chunkLayersOfStage(stage));
        const std::vector<int> ring = placement.contextRingGroup(placement.representativeRank(stage));
        const auto at = std::find(ring.begin(), ring.end(), placement.representativeRank(stage)) - ring.begin();
        const auto size = static_cast<std::ptrdiff_t>(ring.size());
        m_contextNext.push_back(ring[static_cast<size_t>((at + 1) % size)]);
        m_contextPrevious.push_back(ring[static_cast<size_t>((at + size - 1) % size)]);
    }
    const auto& stages = stepModel.plan().stages;
    if (std::any_of(stages.begin(), stages.end(), [](const parallel::StagePlan& stage) {
            return std::any_of(stage.chunks.begin(), stage.chunks.end(),
                [](const parallel::ChunkPlan& chunk) { return chunk.parameterGather.has_value(); });
        })) {
        m_gatherCosts = stepModel.chunkGatherCosts();
    }
}

double ChakraPassSplitter::gatherContention(const graph::Node& pass) const
{
    const auto stage = static_cast<size_t>(pass.rank);
    const auto chunk = static_cast<size_t>(pass.chunk);
    return stage < m_gatherCosts.size() && chunk < m_gatherCosts[stage].size()
        ? m_gatherCosts[stage][chunk].contention[pass.backward ? 1 : 0]
        : 0.0;
}

void ChakraPassSplitter::slowUnitsBesideGathers(std::vector<Block>& layerBlocks, const graph::Node& pass) const
{
    // The step model charges the SMs that a unit's prefetched gather (and the reduction beside it) hold as a slower
    // unit before it (shardedunits.h); the trace's single gather beside the pass cannot, so the units computing beside
    // a gather (all but the pass's last) carry it, spread evenly and over their operators in proportion.
    if (layerBlocks.size() < 2) {
        return;
    }
    const double perUnit = gatherContention(pass) / static_cast<double>(layerBlocks.size() - 1);
    for (size_t unit = 0; unit + 1 < layerBlocks.size(); ++unit) {
        double compute = 0;
        for (const OperatorTiming& op : layerBlocks[unit].ops) {
            compute += op.seconds;
        }
        if (perUnit > 0 && compute > 0) {
            for (OperatorTiming& op : layerBlocks[unit].ops) {
                op.seconds *= 1 + perUnit / compute;
            }
        }
    }
}

std::vector<ChakraPassSplitter::OperatorTiming> ChakraPassSplitter::timed(const std::vector<model::Operator>& ops)
{
    std::vector<OperatorTiming> timings;
    timings.reserve(ops.size());
    for (const model::Operator& op : ops) {
        timings.push_back(
            { op.name + (op.phase == model::Phase::Recompute ? " (recompute)" : ""), m_timer.time(op).seconds,
                op.kind == model::OperatorKind::FlashAttention || op.kind == model::OperatorKind::NaiveAttention,
                op.kind == model::OperatorKind::Gemm, sharedExpertWindow(op) });
    }
    return timings;
}

ChakraPassSplitter::Block ChakraPassSplitter::layerBlock(int stage, int layer, bool backward, const std::string& label)
{
    const config::Scenario& scenario = m_stepModel.scenario();
    const parallel::StepPlan& plan = m_stepModel.plan();
    const bool moe = parallel::isMoeLayer(scenario.model, layer);
    Block block;
    block.label = label;
    block.ops = timed(backward ? model::trainingBackward(
                          scenario.model, scenario.run, plan.sharding.layer, moe, plan.sharding.gradientSum())
                               : model::trainingForward(scenario.model, scenario.run, plan.sharding.layer, moe));
    const parallel::LayerCollectives& collectives = plan.stages[static_cast<size_t>(stage)].layer;
    const LayerTimes& times = m_stepModel.layerTimes(stage, moe);
    const graph::TimeBreakdown& exposed = backward ? times.backward : times.forward;
    const auto part = [&](graph::TimeClass timeClass) { return exposed[static_cast<size_t>(timeClass)]; };
    for (int pair = 0; pair < (backward ? collectives.pairsBackward(moe) : collectives.pairsForward(moe)); ++pair) {
        for (const PlannedCollective& collective : collectives.tensorPair) {
            addAll(block.tensor, collective, 1);
        }
    }
    if (backward && !collectives.tensorPair.empty()) {
        addAll(block.tensor, collectives.tensorPair.front(), collectives.firstsBackward(moe));
    }
    block.tensorBesideGemms = plan.sharding.overlapTensorCollectives;
    block.tensorExposed = part(graph::TimeClass::TensorParallel);
    const double ringExposed = backward ? times.backwardContextRing : times.forwardContextRing;
    if (collectives.contextStep && collectives.contextStep->onNetwork()) {
        block.contextStep = collectives.contextStep;
        block.contextSteps = backward ? collectives.contextStepsBackward : collectives.contextStepsForward;
        // The window is the core slowed by the ring beside it; what the ring adds beyond that is its exposure.
        block.contextSlowdown = backward ? times.backwardContextSlowdown : times.forwardContextSlowdown;
        block.contextRingExposed = ringExposed - block.contextSlowdown;
    }
    for (const PlannedCollective& wait : backward ? collectives.contextBackward : collectives.contextForward) {
        addAll(block.context, wait, 1);
    }
    if (!block.context.empty()) {
        block.contextWaitExposed = std::max(0.0, part(graph::TimeClass::ContextParallel) - ringExposed);
    }
    if (moe) {
        // Dispatch, the expert-tensor pair around the experts, combine; in the backward as often as it runs them
        // (again for the recomputed forward under full recomputation).
        // Under the shared-expert overlap the all-to-alls run beside its windows instead (appendBlock).
        const SharedExpertWindows& shared = backward ? times.backwardShared : times.forwardShared;
        const bool windows = shared.active && collectives.expertAllToAll && collectives.expertAllToAll->onNetwork();
        const int allToAlls = collectives.expertAllToAll && !windows ? collectives.expertAllToAllsPerPass : 0;
        for (int run = 0; run < (backward ? collectives.expertPassesBackward : 1); ++run) {
            if (allToAlls > 0) {
                addAll(block.expert, *collectives.expertAllToAll, allToAlls / 2);
            }
            for (const PlannedCollective& pairPart : collectives.expertTensorPair) {
                addAll(block.expert, pairPart, 1);
            }
            if (allToAlls > 0) {
                addAll(block.expert, *collectives.expertAllToAll, allToAlls - allToAlls / 2);
            }
        }
        block.expertExposed = part(graph::TimeClass::ExpertParallel);
        if (windows) {
            block.sharedAllToAll = collectives.expertAllToAll;
            block.sharedAllToAlls = shared.allToAlls;
            block.sharedSlowdown = shared.slowdown;
            for (size_t w = 0; w < 2; ++w) {
                block.sharedExposed[w] = shared.exposed[w] - shared.slowdown[w];
            }
            block.expertExposed = std::max(0.0, block.expertExposed - shared.totalExposed());
        }
    }
    block.hostWait = part(graph::TimeClass::HostDispatch);
    return block;
}

ChakraPassSplitter::Block ChakraPassSplitter::endBlock(bool embedding, bool backward, const std::string& label)
{
    const config::Scenario& scenario = m_stepModel.scenario();
    const parallel::ShardingPlan& plan = m_stepModel.plan().sharding;
    const std::vector<model::Operator> all = embedding
        ? model::embeddingOperators(scenario.model, scenario.run, plan.layer, model::Workload::Training)
        : model::lmHeadOperators(
            scenario.model, scenario.run, plan.layer, model::Workload::Training, plan.gradientSum());
    std::vector<model::Operator> selected;
    for (const model::Operator& op : all) {
        if ((op.phase == model::Phase::Forward) != backward) {
            selected.push_back(op);
        }
    }
    Block block;
    block.label = label;
    block.ops = timed(selected);
    return block;
}

void ChakraPassSplitter::appendBlock(
    const Block& block, int stage, std::vector<ChakraNodePiece>& pieces, std::vector<int>& frontier)
{
    // `frontier`: the pieces the next one waits for (-1: what the pass waited for); pieces.size() is the next index.
    const auto add = [&](ChakraNodePiece piece) {
        piece.after = frontier;
        frontier = { static_cast<int>(pieces.size()) };
        pieces.push_back(std::move(piece));
    };
    // "<label> tensor-parallel reduce-scatter 2/4": the i-th tensor collective of the block.
    const auto tensorPiece = [&block](size_t i, double exposedSeconds) {
        return collectivePiece(block.label + " tensor-parallel " + network::toString(block.tensor[i].kind) + " "
                + std::to_string(i + 1) + "/" + std::to_string(block.tensor.size()),
            block.tensor[i], exposedSeconds);
    };
    const bool contextWindow = block.contextSteps > 0 && block.contextStep;
    const bool gemmWindow = block.tensorBesideGemms && !block.tensor.empty();
    // Collectives that hide behind compute start with it (the window) and the pass goes on when both are done.
    const auto window = [&](bool attention) {
        double seconds = attention ? block.contextSlowdown : 0.0;
        for (const OperatorTiming& op : block.ops) {
            seconds += (attention ? op.attention : op.gemm) ? op.seconds : 0.0;
        }
        const std::vector<int> start = frontier;
        add({ block.label
                + (attention ? " attention core (beside the context-parallel ring)"
                             : " GEMMs (beside the tensor-parallel collectives)"),
            seconds, ChakraNodeType::Compute, {}, {} });
        const int windowPiece = frontier.front();
        std::vector<int> chain = start;
        if (attention) {
            const PlannedCollective& step = *block.contextStep;
            const auto bytes = static_cast<std::int64_t>(std::llround(step.bytes));
            for (int i = 0; i < block.contextSteps; ++i) {
                const std::string name = block.label + " context-parallel K/V ring step " + std::to_string(i + 1) + "/"
                    + std::to_string(block.contextSteps);
                const std::int32_t tag = m_nextTag++;
                ChakraNodePiece send { name + " send", 0, ChakraNodeType::Send, {}, chain };
                send.attributes = { ChakraAttribute::boolean("is_cpu_op", false),
                    ChakraAttribute::int32("comm_dst", m_contextNext[static_cast<size_t>(stage)]),
                    ChakraAttribute::int32("comm_tag", tag), ChakraAttribute::int64("comm_size", bytes) };
                ChakraNodePiece receive { name + " receive", i + 1 == block.contextSteps ? block.contextRingExposed : 0,
                    ChakraNodeType::Recv, {}, chain };
                receive.attributes = { ChakraAttribute::boolean("is_cpu_op", false),
                    ChakraAttribute::int32("comm_src", m_contextPrevious[static_cast<size_t>(stage)]),
                    ChakraAttribute::int32("comm_tag", tag), ChakraAttribute::int64("comm_size", bytes) };
                chain = { static_cast<int>(pieces.size()), static_cast<int>(pieces.size()) + 1 };
                pieces.push_back(std::move(send));
                pieces.push_back(std::move(receive));
            }
        } else {
            for (size_t i = 0; i < block.tensor.size(); ++i) {
                ChakraNodePiece piece = tensorPiece(i, i + 1 == block.tensor.size() ? block.tensorExposed : 0);
                piece.after = chain;
                chain = { static_cast<int>(pieces.size()) };
                pieces.push_back(std::move(piece));
            }
        }
        frontier = chain;
        frontier.push_back(windowPiece);
    };

    double run = 0;
    bool inRun = false;
    int runs = 0;
    const auto flush = [&] {
        if (inRun) {
            add({ block.label + (runs++ > 0 ? " (continued)" : ""), run, ChakraNodeType::Compute, {}, {} });
        }
        run = 0;
        inRun = false;
    };
    std::array<bool, 4> opened {}; // the windows: the attention core's, the GEMMs', the shared expert's two
    for (const OperatorTiming& op : block.ops) {
        const bool shared = block.sharedAllToAll && op.sharedWindow >= 0;
        if (shared || (contextWindow && op.attention) || (gemmWindow && op.gemm)) {
            const size_t kind = shared ? 2 + static_cast<size_t>(op.sharedWindow) : op.attention ? 0 : 1;
            if (!opened[kind]) {
                flush();
                shared ? appendSharedWindow(block, op.sharedWindow, pieces, frontier) : window(op.attention);
                opened[kind] = true;
            }
            continue;
        }
        if (m_detail == ChakraDetail::Operator) {
            add({ block.label + " " + op.name, op.seconds, ChakraNodeType::Compute, {}, {} });
        } else {
            run += op.seconds;
            inRun = true;
        }
    }
    flush();
    // Blocking collectives after the compute they follow (Megatron: the context-parallel all-gathers or Ulysses
    // all-to-alls around the attention core, tensor all-reduces close the attention and MLP blocks; the expert
    // all-to-alls dispatch and combine the routed tokens).
    for (size_t i = 0; i < block.context.size(); ++i) {
        add(collectivePiece(block.label + " context-parallel " + network::toString(block.context[i].kind) + " "
                + std::to_string(i + 1) + "/" + std::to_string(block.context.size()),
            block.context[i], block.contextWaitExposed / static_cast<double>(block.context.size())));
    }
    if (!gemmWindow) {
        for (size_t i = 0; i < block.tensor.size(); ++i) {
            add(tensorPiece(i, block.tensorExposed / static_cast<double>(block.tensor.size())));
        }
    }
    int allToAlls = 0;
    for (const PlannedCollective& expert : block.expert) {
        const std::string name = expert.kind == network::CollectiveKind::AllToAll
            ? std::string(" expert all-to-all ") + (allToAlls++ % 2 == 0 ? "dispatch" : "combine")
            : " expert-tensor " + std::string(network::toString(expert.kind));
        add(collectivePiece(
            block.label + name, expert, block.expertExposed / static_cast<double>(block.expert.size())));
    }
    // What the framework's host takes beyond the block's GPU work (model/hostdispatch.h): the GPU idles that long.
    if (block.hostWait > 0) {
        add({ block.label + " waiting for the host's dispatch", block.hostWait, ChakraNodeType::Compute, {}, {} });
    }
}

void ChakraPassSplitter::appendSharedWindow(
    const Block& block, int window, std::vector<ChakraNodePiece>& pieces, std::vector<int>& frontier)
{
    // The shared expert's window on the compute stream (slowed by the all-to-alls' SMs), the all-to-alls beside it
    // one after another on the same frontier; the pass goes on when both are done.
    const auto index = static_cast<size_t>(window);
    double seconds = block.sharedSlowdown[index];
    for (const OperatorTiming& op : block.ops) {
        seconds += op.sharedWindow == window ? op.seconds : 0.0;
    }
    const std::string kind = window == 0 ? "dispatch" : "combine";
    ChakraNodePiece compute { block.label + " shared expert " + (window == 0 ? "gate/up" : "down projection")
            + " (beside the expert " + kind + " all-to-alls)",
        seconds, ChakraNodeType::Compute, {}, frontier };
    std::vector<int> chain = frontier;
    const int windowPiece = static_cast<int>(pieces.size());
    pieces.push_back(std::move(compute));
    const int count = block.sharedAllToAlls[index];
    for (int i = 0; i < count; ++i) {
        ChakraNodePiece piece = collectivePiece(block.label + " expert all-to-all " + kind + " " + std::to_string(i + 1)
                + "/" + std::to_string(count) + " (beside the shared expert)",
            *block.sharedAllToAll, i + 1 == count ? block.sharedExposed[index] : 0);
        piece.after = chain;
        chain = { static_cast<int>(pieces.size()) };
        pieces.push_back(std::move(piece));
    }
    frontier = chain;
    frontier.push_back(windowPiece);
}

std::vector<ChakraNodePiece> ChakraPassSplitter::operator()(const graph::ChakraNode& node)
{
    if (node.id >= m_graph.nodes().size()) {
        return {};
    }
    const auto id = static_cast<graph::NodeId>(node.id);
    const graph::Node& pass = m_graph.node(id);
    if (pass.kind == graph::NodeKind::Compute && m_stepModel.scenario().run.mode != config::RunMode::Training) {
        return inferencePieces(node, pass);
    }
    if (pass.kind != graph::NodeKind::Compute || pass.chunk < 0) {
        return {};
    }
    const std::vector<std::vector<int>>& chunks = m_layers[static_cast<size_t>(pass.rank)];
    const std::vector<int>& layers = chunks[static_cast<size_t>(pass.chunk)];
    const std::string prefix = "stage " + std::to_string(pass.rank) + (pass.backward ? " backward" : " forward")
        + " micro-batch " + std::to_string(pass.microBatch) + " ";
    const bool first = pass.rank == 0 && pass.chunk == 0;
    const bool last = pass.rank == m_graph.ranks() - 1 && pass.chunk == static_cast<int>(chunks.size()) - 1;

    // The pass in execution order: embedding, layers, head forward; head, layers reversed, embedding backward.
    std::vector<Block> blocks;
    if (pass.backward ? last : first) {
        blocks.push_back(endBlock(!pass.backward, pass.backward, prefix + (pass.backward ? "lm head" : "embedding")));
    }
    const parallel::ChunkPlan& chunkPlan
        = m_stepModel.plan().stages[static_cast<size_t>(pass.rank)].chunks[static_cast<size_t>(pass.chunk)];
    // The gathers beside the pass, one after the other: the rest's and the routed experts' (over their own group).
    std::vector<const PlannedCollective*> gathers;
    for (const auto* gather : { &chunkPlan.parameterGather, &chunkPlan.expertParameterGather }) {
        if (*gather && (*gather)->onNetwork()) {
            gathers.push_back(&**gather);
        }
    }
    const bool gatherBeside = !gathers.empty();
    std::vector<Block> layerBlocks;
    const auto addLayer = [&](int layer) {
        layerBlocks.push_back(layerBlock(pass.rank, layer, pass.backward, prefix + "layer " + std::to_string(layer)));
    };
    if (pass.backward) {
        std::for_each(layers.rbegin(), layers.rend(), addLayer);
    } else {
        std::for_each(layers.begin(), layers.end(), addLayer);
    }
    if (gatherBeside) {
        slowUnitsBesideGathers(layerBlocks, pass);
    }
    std::move(layerBlocks.begin(), layerBlocks.end(), std::back_inserter(blocks));
    if (pass.backward ? first : last) {
        blocks.push_back(endBlock(pass.backward, pass.backward, prefix + (pass.backward ? "embedding" : "lm head")));
    }
    // ZeRO-3/FSDP gather the chunk's parameters for every pass, beside its compute (the step model leaves exposed only
    // what outlasts the pass); nothing in the pass waits for it, so the pass ends when both are done.
    if (m_detail == ChakraDetail::Chunk && !gatherBeside) {
        // One compute node for the pass (its windows apart): the blocks merged, collectives after it. A pass with a
        // gather beside it keeps its layers, so the gather meets the pass's own traffic in the order rapid runs it
        // (merged, it met none of it: 1.2% faster under congestion).
        Block whole;
        whole.label = node.name;
        for (const Block& block : blocks) {
            whole.append(block);
        }
        blocks = { std::move(whole) };
    }
    std::vector<ChakraNodePiece> pieces;
    if (gatherBeside) {
        // Their exposure less the slower compute beside them, which the layers' pieces take (slowUnitsBesideGathers),
        // shared by their closed-form times.
        const double exposure
            = m_graph.parts(id)[static_cast<size_t>(graph::TimeClass::DataParallel)] - gatherContention(pass);
        double whole = 0;
        for (const PlannedCollective* gather : gathers) {
            whole += m_stepModel.collectiveSeconds(*gather);
        }
        for (const PlannedCollective* gather : gathers) {
            const bool experts = gather->subgroup == PlannedCollective::Subgroup::ExpertData;
            const double share = whole > 0 ? m_stepModel.collectiveSeconds(*gather) / whole : 0.0;
            ChakraNodePiece piece
                = collectivePiece(prefix + (experts ? "routed experts' parameter all-gather" : "parameter all-gather")
                        + " (beside the pass)",
                    *gather, exposure * share);
            piece.after = { pieces.empty() ? -1 : static_cast<int>(pieces.size()) - 1 };
            pieces.push_back(std::move(piece));
        }
    }
    std::vector<int> frontier = { -1 };
    for (const Block& block : blocks) {
        appendBlock(block, pass.rank, pieces, frontier);
    }
    return pieces;
}

std::vector<ChakraNodePiece> ChakraPassSplitter::inferencePieces(const graph::ChakraNode& node, const graph::Node& step)
{
    // One request batch's step on one stage: its layers' compute (the operator model's share of the step, split evenly
    // over the layers at layer and operator detail) and, per layer, the all-reduces closing the attention and MLP
    // blocks over the step's tokens (the whole prompt in prefill, one per sequence in decode).
    const config::RunSpec& run = m_stepModel.scenario().run;
    const double tokens = step.microBatch == 0 ? static_cast<double>(run.batch) * run.promptLength : run.batch;
    const PlannedCollective allReduce = m_stepModel.plan().inference.tensorAllReduce(tokens);
    if (!allReduce.onNetwork()) {
        return {};
    }
    const double seconds = m_stepModel.collectiveSeconds(allReduce);
    std::vector<int> layers;
    for (const std::vector<int>& chunk : m_layers[static_cast<size_t>(step.rank)]) {
        layers.insert(layers.end(), chunk.begin(), chunk.end());
    }
    std::vector<ChakraNodePiece> pieces;
    std::vector<int> frontier = { -1 };
    const auto add = [&](ChakraNodePiece piece) {
        piece.after = frontier;
        frontier = { static_cast<int>(pieces.size()) };
        pieces.push_back(std::move(piece));
    };
    const auto allReduces = [&](const std::string& label) {
        for (int block = 0; block < 2; ++block) {
            add(collectivePiece(
                label + " tensor-parallel all-reduce " + std::to_string(block + 1) + "/2", allReduce, seconds));
        }
    };
    if (m_detail == ChakraDetail::Chunk) {
        add({ node.name, 1, ChakraNodeType::Compute, {}, {} });
        for (const int layer : layers) {
            allReduces(node.name + " layer " + std::to_string(layer));
        }
    } else {
        for (const int layer : layers) {
            const std::string label = node.name + " layer " + std::to_string(layer);
            add({ label, 1, ChakraNodeType::Compute, {}, {} });
            allReduces(label);
        }
    }
    return pieces;
}

} // namespace rapid::sim::detail
