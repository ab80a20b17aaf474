// SPDX-License-Identifier: GPL-3.0-or-later
// CongestionStepBackend: which collectives inline with compute (TP, CP, EP, ZeRO-3 gathers) join the step's
// co-simulation, and the inline programs of the compute nodes that carry them.
#include "congestionstepbackend.h"

#include <algorithm>
#include <numeric>

namespace rapid::sim {

using graph::TimeBreakdown;
using graph::TimeClass;

namespace {

void mergeLinkBytes(std::vector<std::pair<int, double>>& loads)
{
    std::sort(loads.begin(), loads.end());
    size_t out = 0;
    for (size_t i = 0; i < loads.size(); ++i) {
        if (out > 0 && loads[out - 1].first == loads[i].first) {
            loads[out - 1].second += loads[i].second;
        } else {
            loads[out++] = loads[i];
        }
    }
    loads.resize(out);
}

bool onNetwork(const network::CollectiveRequest& request)
{
    return request.gpus.size() >= 2 && request.bytes > 0;
}

/// A MoE layer's blocking expert collectives in issue order: the dispatch all-to-all, the expert-tensor all-gather and
/// reduce-scatter around the experts, the combine all-to-all (those that move anything; an all-to-all the plan does not
/// have is an empty request); @p runs times over (a backward under full recomputation re-runs the forward's first).
std::vector<const network::CollectiveRequest*> expertCollectives(const network::CollectiveRequest& allToAll,
    const std::vector<network::CollectiveRequest>& expertTensorPair, int runs = 1, bool withAllToAlls = true)
{
    const bool dispatch = withAllToAlls && onNetwork(allToAll);
    std::vector<const network::CollectiveRequest*> experts;
    for (int run = 0; run < runs; ++run) {
        if (dispatch) {
            experts.push_back(&allToAll);
        }
        for (const network::CollectiveRequest& part : expertTensorPair) {
            if (onNetwork(part)) {
                experts.push_back(&part);
            }
        }
        if (dispatch) {
            experts.push_back(&allToAll);
        }
    }
    return experts;
}

/// The expert collectives a MoE layer's pass waits for. Under the shared-expert overlap (sim/sharedexpertoverlap.h)
/// its all-to-alls run instead beside the shared expert's windows, slowed by their SMs, taken out of @p compute.
std::vector<const network::CollectiveRequest*> expertBlocks(const network::CollectiveRequest& allToAll,
    const std::vector<network::CollectiveRequest>& expertTensorPair, int runs, const SharedExpertWindows& shared,
    std::vector<InlineBlock>& layerBlocks, double& compute)
{
    const bool windows = shared.active && onNetwork(allToAll);
    for (size_t w = 0; windows && w < 2; ++w) {
        compute -= shared.compute[w];
        layerBlocks.push_back({ shared.compute[w] + shared.slowdown[w],
            std::vector<const network::CollectiveRequest*>(static_cast<size_t>(shared.allToAlls[w]), &allToAll),
            true });
    }
    return expertCollectives(allToAll, expertTensorPair, runs, !windows);
}

double sum(const TimeBreakdown& parts)
{
    return std::accumulate(parts.begin(), parts.end(), 0.0);
}

} // namespace

void CongestionStepBackend::addLoads(const network::CollectiveRequest& request, double times, LinkBytes& into)
{
    FlowProgram scratch;
    m_network->appendFlows(scratch, request, 0);
    RouteCache& routes = m_network->routes();
    for (const FlowProgram::Flow& flow : scratch.flows) {
        if (flow.bytes <= 0) {
            continue;
        }
        for (const LinkLoad& load : routes.loads(flow.route)) {
            into.emplace_back(load.link, times * flow.bytes * load.weight);
        }
    }
}

std::vector<char> CongestionStepBackend::backgroundLinks()
{
    std::vector<char> background(static_cast<size_t>(m_network->topology().linkCount()), 0);
    LinkBytes scratchLoads;
    auto markBackground = [&](const network::CollectiveRequest& request) {
        if (!onNetwork(request)) {
            return;
        }
        scratchLoads.clear();
        addLoads(request, 1.0, scratchLoads);
        for (const auto& load : scratchLoads) {
            background[static_cast<size_t>(load.first)] = 1;
        }
    };
    for (const StageRequests& requests : m_stages) {
        markBackground(requests.sendForward);
        markBackground(requests.sendBackward);
        for (const auto* reductions :
            { &requests.dataParallel, &requests.replicaReduction, &requests.expertDataParallel }) {
            for (const network::CollectiveRequest& reduction : *reductions) {
                markBackground(reduction);
            }
        }
        markBackground(requests.parameterGather);
        markBackground(requests.expertParameterGather);
    }
    return background;
}

std::vector<CongestionStepBackend::InlineUnit> CongestionStepBackend::inlineUnits(const TrainingStepInput& input)
{
    const double microBatches = std::max(1, input.run.microBatchesPerStep());
    std::vector<InlineUnit> units;
    const int stages = static_cast<int>(input.plan.stages.size());
    for (int stage = 0; stage < stages; ++stage) {
        const parallel::StagePlan& stagePlan = input.plan.stages[static_cast<size_t>(stage)];
        StageRequests& requests = m_stages[static_cast<size_t>(stage)];
        double layers = 0;
        double moeLayers = 0;
        for (const parallel::ChunkPlan& chunk : stagePlan.chunks) {
            for (int layer : chunk.layers) {
                layers += 1;
                moeLayers += parallel::isMoeLayer(input.model, layer) ? 1 : 0;
            }
        }
        const parallel::LayerCollectives& layer = stagePlan.layer;
        if (!requests.tensorPair.empty()) {
            // Pairs of the dense and the MoE layers (whose MLP block may have none: LayerCollectives::pairsForward).
            const double pairs = (layers - moeLayers) * (layer.pairsForward(false) + layer.pairsBackward(false))
                + moeLayers * (layer.pairsForward(true) + layer.pairsBackward(true));
            const double firsts
                = (layers - moeLayers) * layer.firstsBackward(false) + moeLayers * layer.firstsBackward(true);
            InlineUnit unit { stage, InlineTensor, {} };
            for (const network::CollectiveRequest& part : requests.tensorPair) {
                addLoads(part, microBatches * pairs, unit.bytes);
            }
            addLoads(requests.tensorPair.front(), microBatches * firsts, unit.bytes);
            units.push_back(std::move(unit));
        }
        if (layer.contextStep || !requests.contextForward.empty()) {
            // The ring's steps and the collectives waited for (a2a+p2p has both).
            InlineUnit unit { stage, InlineContext, {} };
            if (layer.contextStep) {
                const double perLayer = layer.contextStepsForward + layer.contextStepsBackward;
                addLoads(requests.contextStep, microBatches * layers * perLayer, unit.bytes);
            }
            for (const auto* waits : { &requests.contextForward, &requests.contextBackward }) {
                for (const network::CollectiveRequest& wait : *waits) {
                    addLoads(wait, microBatches * layers, unit.bytes);
                }
            }
            units.push_back(std::move(unit));
        }
        const auto experts = expertCollectives(requests.expertAllToAll, requests.expertTensorPair);
        if (moeLayers > 0 && !experts.empty()) {
            // Each of a MoE layer's expert collectives, once per forward pass and expertPassesBackward times per
            // backward.
            InlineUnit unit { stage, InlineExpert, {} };
            const double passes = 1.0 + layer.expertPassesBackward;
            for (const network::CollectiveRequest* collective : experts) {
                addLoads(*collective, microBatches * moeLayers * passes, unit.bytes);
            }
            units.push_back(std::move(unit));
        }
        if (!requests.chunkGather.empty()) {
            InlineUnit unit { stage, InlineGather, {} };
            for (const auto* gathers : { &requests.chunkGather, &requests.expertChunkGather }) {
                for (const network::CollectiveRequest& gather : *gathers) {
                    if (onNetwork(gather)) {
                        addLoads(gather, microBatches * 2.0, unit.bytes);
                    }
                }
            }
            units.push_back(std::move(unit));
        }
    }
    return units;
}

std::vector<double> CongestionStepBackend::planInlineCollectives(const TrainingStepInput& input)
{
    const parallel::StepPlan& plan = input.plan;
    const auto linkCount = static_cast<size_t>(m_network->topology().linkCount());
    const std::vector<char> background = backgroundLinks();
    for (StageRequests& requests : m_stages) {
        requests.onNetwork = {};
    }
    std::vector<InlineUnit> units = inlineUnits(input);
    const int stages = static_cast<int>(plan.stages.size());

    // A unit stays folded when none of its links carries anything else that can run at the same time: background
    // traffic, inline collectives of another stage, or (ZeRO-3 gathers run beside the whole pass) any other inline
    // collective of its own stage. Flows on disjoint links do not interact in the max-min fluid model, so the idle
    // network's time of the folded collective is then exactly what the co-simulation would give.
    std::vector<std::vector<int>> users(linkCount);
    for (size_t u = 0; u < units.size(); ++u) {
        mergeLinkBytes(units[u].bytes);
        for (const auto& load : units[u].bytes) {
            users[static_cast<size_t>(load.first)].push_back(static_cast<int>(u));
        }
    }
    std::vector<double> folded(linkCount, 0.0);
    m_inlineUnitsOnNetwork = 0;
    for (size_t u = 0; u < units.size(); ++u) {
        const InlineUnit& unit = units[u];
        bool shared = false;
        for (const auto& load : unit.bytes) {
            const auto link = static_cast<size_t>(load.first);
            shared = shared || background[link];
            for (int other : users[link]) {
                const InlineUnit& v = units[static_cast<size_t>(other)];
                shared = shared
                    || (other != static_cast<int>(u)
                        && (v.stage != unit.stage || v.kind == InlineGather || unit.kind == InlineGather));
            }
            if (shared) {
                break;
            }
        }
        // Combined 1F1B hides a pass's expert collectives behind another micro-batch's compute, which the
        // inline programs (one pass at a time) do not run: they keep their closed form, their bytes on the links.
        const bool coScheduled = unit.kind == InlineExpert && plan.sharding.combinedOneFOneB;
        if (shared && m_inlineOnNetwork && !coScheduled) {
            m_stages[static_cast<size_t>(unit.stage)].onNetwork[static_cast<size_t>(unit.kind)] = true;
            ++m_inlineUnitsOnNetwork;
        } else {
            for (const auto& load : unit.bytes) {
                folded[static_cast<size_t>(load.first)] += load.second;
            }
        }
    }

    m_inlinePrograms.assign(plan.stages.size() * static_cast<size_t>(plan.virtualStages) * 2, {});
    for (int stage = 0; stage < stages; ++stage) {
        const auto& flags = m_stages[static_cast<size_t>(stage)].onNetwork;
        if (std::any_of(flags.begin(), flags.end(), [](bool flag) { return flag; })) {
            buildInlinePrograms(input, stage);
        }
    }
    return folded;
}

namespace {

/// A chunk's ZeRO-3/FSDP gathers (the rest's and the routed experts') beside its pass, one after the other. Returns
/// the closed-form waits the simulated gathers replace; the compute their SMs slowed stays compute.
double placeGathersBeside(InlineProgram& program, const ChunkGatherCost& cost, bool backward,
    std::initializer_list<const network::CollectiveRequest*> gathers)
{
    program.leadSeconds = cost.lead[backward ? 1 : 0];
    for (const network::CollectiveRequest* gather : gathers) {
        if (onNetwork(*gather)) {
            program.alongside.push_back(gather);
        }
    }
    return cost.exposed[backward ? 1 : 0] - cost.contention[backward ? 1 : 0];
}

} // namespace

void CongestionStepBackend::buildInlinePrograms(const TrainingStepInput& input, int stage)
{
    const graph::StageCost& cost = input.stages[static_cast<size_t>(stage)];
    const parallel::StagePlan& stagePlan = input.plan.stages[static_cast<size_t>(stage)];
    const int stages = static_cast<int>(input.plan.stages.size());
    const int virtualStages = static_cast<int>(cost.chunks.size());
    const StageRequests& requests = m_stages[static_cast<size_t>(stage)];
    const bool tensor = requests.onNetwork[InlineTensor];
    const bool context = requests.onNetwork[InlineContext];
    const bool expert = requests.onNetwork[InlineExpert];
    const bool gather = requests.onNetwork[InlineGather];
    for (int chunk = 0; chunk < virtualStages; ++chunk) {
        for (const bool backward : { false, true }) {
            InlineProgram& program = m_inlinePrograms[(static_cast<size_t>(stage) * static_cast<size_t>(virtualStages)
                                                          + static_cast<size_t>(chunk))
                    * 2
                + (backward ? 1 : 0)];
            const graph::ChunkCost& chunkCost = cost.chunks[static_cast<size_t>(chunk)];
            double rest = sum(backward ? chunkCost.backward : chunkCost.forward);
            std::vector<InlineBlock> layerBlocks;
            for (int layer : stagePlan.chunks[static_cast<size_t>(chunk)].layers) {
                const bool moe = parallel::isMoeLayer(input.model, layer);
                const LayerTimes& pass = input.layerTimes(stage, moe);
                const TimeBreakdown& parts = backward ? pass.backward : pass.forward;
                rest -= sum(parts);
                double compute = sum(parts);
                // Megatron's order: [recomputed forward's collectives,] then per block (attention, MLP) one all-reduce
                // (or all-gather before and reduce-scatter after it with SP); the MoE all-to-alls sit in the MLP block.
                std::vector<const network::CollectiveRequest*> tensorCollectives;
                std::vector<const network::CollectiveRequest*> contextCollectives;
                if (tensor) {
                    compute -= parts[static_cast<size_t>(TimeClass::TensorParallel)];
                    const int pairs = backward ? stagePlan.layer.pairsBackward(moe) : stagePlan.layer.pairsForward(moe);
                    // op-SAC's recomputed collectives first, as the recompute runs before the gradients.
                    for (int i = 0; backward && i < stagePlan.layer.firstsBackward(moe); ++i) {
                        tensorCollectives.push_back(&requests.tensorPair.front());
                    }
                    for (int i = 0; i < pairs; ++i) {
                        for (const network::CollectiveRequest& part : requests.tensorPair) {
                            tensorCollectives.push_back(&part);
                        }
                    }
                }
                if (context) {
                    compute -= parts[static_cast<size_t>(TimeClass::ContextParallel)];
                    // cp_comm all_gather, a2a, a2a+p2p: waited for (below), first in the attention block.
                    for (const network::CollectiveRequest& wait :
                        backward ? requests.contextBackward : requests.contextForward) {
                        contextCollectives.push_back(&wait);
                    }
                }
                if (context && stagePlan.layer.contextStep) {
                    const double attention = backward ? pass.backwardAttention : pass.forwardAttention;
                    compute -= attention;
                    const int steps
                        = backward ? stagePlan.layer.contextStepsBackward : stagePlan.layer.contextStepsForward;
                    layerBlocks.push_back(
                        { attention + (backward ? pass.backwardContextSlowdown : pass.forwardContextSlowdown),
                            std::vector<const network::CollectiveRequest*>(steps, &requests.contextStep), true });
                }
                if (tensor && input.plan.sharding.overlapTensorCollectives) {
                    const double gemm = backward ? pass.backwardGemm : pass.forwardGemm;
                    compute -= gemm;
                    // The reduce-scatters async TP cannot fuse stay blocking (LayerCollectives::tensorUnfusedBackward).
                    std::vector<const network::CollectiveRequest*> unfused;
                    for (int i = 0; backward && i < stagePlan.layer.unfusedBackward(moe); ++i) {
                        const auto found = std::find(
                            tensorCollectives.begin(), tensorCollectives.end(), &requests.tensorPair.back());
                        if (found != tensorCollectives.end()) {
                            tensorCollectives.erase(found);
                            unfused.push_back(&requests.tensorPair.back());
                        }
                    }
                    layerBlocks.push_back({ gemm, tensorCollectives, true });
                    tensorCollectives = std::move(unfused);
                }
                std::vector<const network::CollectiveRequest*> blocking = contextCollectives;
                blocking.insert(blocking.end(), tensorCollectives.begin(), tensorCollectives.end());
                if (expert && moe) {
                    compute -= parts[static_cast<size_t>(TimeClass::ExpertParallel)];
                    // After the attention block's tensor collectives (all of them when the MLP block has none).
                    const size_t attention = tensorCollectives.size() / (stagePlan.layer.moeWithoutMlpPair ? 1 : 2);
                    const auto middle = blocking.begin() + static_cast<long>(contextCollectives.size() + attention);
                    const auto experts = expertBlocks(requests.expertAllToAll, requests.expertTensorPair,
                        backward ? stagePlan.layer.expertPassesBackward : 1,
                        backward ? pass.backwardShared : pass.forwardShared, layerBlocks, compute);
                    blocking.insert(middle, experts.begin(), experts.end());
                }
                compute = std::max(0.0, compute);
                if (blocking.empty()) {
                    layerBlocks.push_back({ compute, {}, false });
                }
                for (const network::CollectiveRequest* collective : blocking) {
                    layerBlocks.push_back({ compute / static_cast<double>(blocking.size()), { collective }, false });
                }
            }
            // What the chunk does besides its layers (embedding, LM head and loss, folded gathers) goes first for the
            // model's first chunk forward and its last chunk backward, else last.
            program.alongside.clear();
            program.leadSeconds = 0;
            if (gather && static_cast<size_t>(chunk) < requests.chunkGather.size()) {
                rest -= placeGathersBeside(program,
                    input.chunkGather[static_cast<size_t>(stage)][static_cast<size_t>(chunk)], backward,
                    { &requests.chunkGather[static_cast<size_t>(chunk)],
                        &requests.expertChunkGather[static_cast<size_t>(chunk)] });
            }
            rest = std::max(0.0, rest);
            const bool lastChunk = stage == stages - 1 && chunk == virtualStages - 1;
            const bool restFirst = backward ? lastChunk : (stage == 0 && chunk == 0);
            program.blocks.clear();
            if (restFirst) {
                program.blocks.push_back({ rest, {}, false });
            }
            program.blocks.insert(program.blocks.end(), layerBlocks.begin(), layerBlocks.end());
            if (!restFirst) {
                program.blocks.push_back({ rest, {}, false });
            }
        }
    }
}

const InlineProgram* CongestionStepBackend::inlineProgramOfNode(
    const graph::ExecutionGraph& graph, graph::NodeId id) const
{
    const graph::Node& node = graph.node(id);
    if (node.kind != graph::NodeKind::Compute || node.chunk < 0 || m_inlinePrograms.empty()) {
        return nullptr;
    }
    const size_t virtualStages = m_inlinePrograms.size() / 2 / m_stages.size();
    const size_t index = (static_cast<size_t>(node.rank) * virtualStages + static_cast<size_t>(node.chunk)) * 2
        + (node.backward ? 1 : 0);
    const InlineProgram& program = m_inlinePrograms[index];
    return program.blocks.empty() && program.alongside.empty() ? nullptr : &program;
}

} // namespace rapid::sim
