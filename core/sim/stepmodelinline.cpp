// SPDX-License-Identifier: GPL-3.0-or-later
// StepModel, congestion backend: which collectives inline with compute (TP, CP, EP, ZeRO-3 gathers) join the step's
// co-simulation, and the inline programs of the compute nodes that carry them.
#include "stepmodel.h"
#include "stepmodel_p.h"

#include "sim/congestionnetwork.h"
#include "sim/networkedexecutor.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace rapid::sim {

using graph::TimeBreakdown;
using graph::TimeClass;
using network::CollectiveKind;
using stepdetail::chunkLayers;
using stepdetail::isMoe;
using stepdetail::sum;

namespace {

/// Directed link -> bytes, sorted by link.
using LinkBytes = std::vector<std::pair<int, double>>;

void mergeLinkBytes(LinkBytes& loads)
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

} // namespace

std::vector<double> StepModel::planInlineCollectives(const std::vector<graph::StageCost>& stages)
{
    const config::ModelSpec& model = m_scenario.model;
    const config::RunSpec& run = m_scenario.run;
    const config::ParallelismSpec& parallel = run.parallelism;
    const int virtualStages = parallel.schedule == config::PipelineSchedule::Interleaved ? parallel.virtualStages : 1;
    const double microBatches = std::max(1, run.microBatchesPerStep());
    const double activationBytes = config::bytesPerElement(run.precision.activations);
    const double tokens = static_cast<double>(run.microBatch) * run.seqLength / parallel.cp;
    const double hiddenBytes = tokens * model.hiddenSize * activationBytes;
    const auto linkCount = static_cast<size_t>(m_congestion->topology().linkCount());
    RouteCache& routes = m_congestion->routes();

    // The bytes one occurrence of a collective (with its replicas) puts on each directed link: its flows, decomposed
    // as the simulation would, times their routes' weights.
    auto loadsOf = [&](const network::CollectiveRequest& request, double times, LinkBytes& into) {
        FlowProgram scratch;
        m_congestion->appendFlows(scratch, request, 0);
        for (const FlowProgram::Flow& flow : scratch.flows) {
            if (flow.bytes <= 0) {
                continue;
            }
            for (const LinkLoad& load : routes.loads(flow.route)) {
                into.emplace_back(load.link, times * flow.bytes * load.weight);
            }
        }
    };

    // The links of the traffic that always runs on the network: pipeline sends, gradient reductions and ZeRO-1/2
    // parameter gathers of every stage, with their replicas.
    std::vector<char> background(linkCount, 0);
    LinkBytes scratchLoads;
    auto markBackground = [&](const network::CollectiveRequest& request) {
        if (!onNetwork(request)) {
            return;
        }
        scratchLoads.clear();
        loadsOf(request, 1.0, scratchLoads);
        for (const auto& load : scratchLoads) {
            background[static_cast<size_t>(load.first)] = 1;
        }
    };
    for (const StageRequests& requests : m_stageRequests) {
        markBackground(requests.sendForward);
        markBackground(requests.sendBackward);
        for (const network::CollectiveRequest& reduction : requests.dataParallel) {
            markBackground(reduction);
        }
        markBackground(requests.parameterGather);
    }

    // One unit per (stage, kind): the bytes its collectives put on each link over the whole step.
    struct Unit {
        int stage = 0;
        InlineKind kind = InlineTensor;
        LinkBytes bytes;
    };
    std::vector<Unit> units;
    m_inline.assign(static_cast<size_t>(parallel.pp), {});
    const double tensorPerLayer = 4.0 + (run.recompute == config::Recompute::Full ? 2.0 : 0.0);
    for (int stage = 0; stage < parallel.pp; ++stage) {
        StageInline& inlined = m_inline[static_cast<size_t>(stage)];
        const int rank = representativeRank(stage);
        double layers = 0;
        double moeLayers = 0;
        for (const std::vector<int>& chunk : chunkLayers(model, run, stage)) {
            for (int layer : chunk) {
                layers += 1;
                moeLayers += isMoe(model, layer) ? 1 : 0;
            }
        }
        if (parallel.tp > 1) {
            const std::vector<int> tpGroup = group("tp", rank);
            if (parallel.sequenceParallel) {
                inlined.tensorPair = { request(CollectiveKind::AllGather, hiddenBytes, tpGroup),
                    request(CollectiveKind::ReduceScatter, hiddenBytes, tpGroup) };
            } else {
                inlined.tensorPair = { request(CollectiveKind::AllReduce, hiddenBytes, tpGroup) };
            }
            Unit unit { stage, InlineTensor, {} };
            for (const network::CollectiveRequest& part : inlined.tensorPair) {
                loadsOf(part, microBatches * layers * tensorPerLayer, unit.bytes);
            }
            units.push_back(std::move(unit));
        }
        if (parallel.cp > 1) {
            const std::vector<int> cpGroup = group("cp", rank);
            const double kvHeads = std::max(1.0, static_cast<double>(model.numKvHeads) / parallel.tp);
            const double kvBytes = 2 * tokens * kvHeads * model.headDim * activationBytes;
            inlined.contextStep = request(CollectiveKind::SendRecv, kvBytes, { cpGroup[0], cpGroup[1] });
            Unit unit { stage, InlineContext, {} };
            loadsOf(inlined.contextStep, microBatches * layers * 3.0 * (parallel.cp - 1), unit.bytes);
            units.push_back(std::move(unit));
        }
        if (model.moe && parallel.ep > 1 && moeLayers > 0) {
            const std::vector<int> dpGroup = group("dp", rank);
            const std::vector<int> epGroup(
                dpGroup.begin(), dpGroup.begin() + std::min<long>(parallel.ep, static_cast<long>(dpGroup.size())));
            const double routed = tokens * model.moe->topK * model.hiddenSize * activationBytes;
            inlined.expertAllToAll = request(CollectiveKind::AllToAll, routed, epGroup);
            if (onNetwork(inlined.expertAllToAll)) {
                Unit unit { stage, InlineExpert, {} };
                loadsOf(inlined.expertAllToAll, microBatches * moeLayers * 4.0, unit.bytes);
                units.push_back(std::move(unit));
            }
        }
        const StageRequests& requests = m_stageRequests[static_cast<size_t>(stage)];
        if (!requests.chunkGather.empty()) {
            Unit unit { stage, InlineGather, {} };
            for (const network::CollectiveRequest& gather : requests.chunkGather) {
                if (onNetwork(gather)) {
                    loadsOf(gather, microBatches * 2.0, unit.bytes);
                }
            }
            units.push_back(std::move(unit));
        }
    }

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
        const Unit& unit = units[u];
        bool shared = false;
        for (const auto& load : unit.bytes) {
            const auto link = static_cast<size_t>(load.first);
            shared = shared || background[link];
            for (int other : users[link]) {
                const Unit& v = units[static_cast<size_t>(other)];
                shared = shared
                    || (other != static_cast<int>(u)
                        && (v.stage != unit.stage || v.kind == InlineGather || unit.kind == InlineGather));
            }
            if (shared) {
                break;
            }
        }
        if (shared && m_inlineOnNetwork) {
            m_inline[static_cast<size_t>(unit.stage)].onNetwork[static_cast<size_t>(unit.kind)] = true;
            ++m_inlineUnitsOnNetwork;
        } else {
            for (const auto& load : unit.bytes) {
                folded[static_cast<size_t>(load.first)] += load.second;
            }
        }
    }

    m_inlinePrograms.assign(static_cast<size_t>(parallel.pp) * static_cast<size_t>(virtualStages) * 2, {});
    for (int stage = 0; stage < parallel.pp; ++stage) {
        const auto& flags = m_inline[static_cast<size_t>(stage)].onNetwork;
        if (std::any_of(flags.begin(), flags.end(), [](bool flag) { return flag; })) {
            buildInlinePrograms(stage, stages[static_cast<size_t>(stage)]);
        }
    }
    return folded;
}

void StepModel::buildInlinePrograms(int stage, const graph::StageCost& cost)
{
    const config::ModelSpec& model = m_scenario.model;
    const config::RunSpec& run = m_scenario.run;
    const config::ParallelismSpec& parallel = run.parallelism;
    const int virtualStages = static_cast<int>(cost.chunks.size());
    const StageInline& inlined = m_inline[static_cast<size_t>(stage)];
    const StageRequests& requests = m_stageRequests[static_cast<size_t>(stage)];
    const bool tensor = inlined.onNetwork[InlineTensor];
    const bool context = inlined.onNetwork[InlineContext];
    const bool expert = inlined.onNetwork[InlineExpert];
    const bool gather = inlined.onNetwork[InlineGather];
    const auto layersOfChunks = chunkLayers(model, run, stage);
    for (int chunk = 0; chunk < virtualStages; ++chunk) {
        for (const bool backward : { false, true }) {
            InlineProgram& program = m_inlinePrograms[(static_cast<size_t>(stage) * static_cast<size_t>(virtualStages)
                                                          + static_cast<size_t>(chunk))
                    * 2
                + (backward ? 1 : 0)];
            const graph::ChunkCost& chunkCost = cost.chunks[static_cast<size_t>(chunk)];
            double rest = sum(backward ? chunkCost.backward : chunkCost.forward);
            std::vector<InlineBlock> layerBlocks;
            for (int layer : layersOfChunks[static_cast<size_t>(chunk)]) {
                const bool moe = isMoe(model, layer);
                const LayerPass& pass = layerPass(moe);
                const TimeBreakdown& parts = backward ? pass.backward : pass.forward;
                rest -= sum(parts);
                double compute = sum(parts);
                // Megatron's order: [recomputed forward's collectives,] then per block (attention, MLP) one all-reduce
                // (or all-gather before and reduce-scatter after it with SP); the MoE all-to-alls sit in the MLP block.
                std::vector<const network::CollectiveRequest*> tensorCollectives;
                if (tensor) {
                    compute -= parts[static_cast<size_t>(TimeClass::TensorParallel)];
                    const int pairs = 2 + (backward && run.recompute == config::Recompute::Full ? 2 : 0);
                    for (int i = 0; i < pairs; ++i) {
                        for (const network::CollectiveRequest& part : inlined.tensorPair) {
                            tensorCollectives.push_back(&part);
                        }
                    }
                }
                if (context) {
                    compute -= parts[static_cast<size_t>(TimeClass::ContextParallel)];
                    const double attention = backward ? pass.backwardAttention : pass.forwardAttention;
                    compute -= attention;
                    const int steps = (backward ? 2 : 1) * (parallel.cp - 1);
                    layerBlocks.push_back({ attention,
                        std::vector<const network::CollectiveRequest*>(steps, &inlined.contextStep), true });
                }
                if (tensor && parallel.tpCommOverlap) {
                    const double gemm = backward ? pass.backwardGemm : pass.forwardGemm;
                    compute -= gemm;
                    layerBlocks.push_back({ gemm, tensorCollectives, true });
                    tensorCollectives.clear();
                }
                std::vector<const network::CollectiveRequest*> blocking = tensorCollectives;
                if (expert && moe) {
                    compute -= parts[static_cast<size_t>(TimeClass::ExpertParallel)];
                    const auto middle = blocking.begin() + static_cast<long>(blocking.size() / 2);
                    blocking.insert(middle, 2, &inlined.expertAllToAll);
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
            if (gather && static_cast<size_t>(chunk) < requests.chunkGather.size()) {
                rest -= requests.chunkGatherExposed[static_cast<size_t>(chunk)][backward ? 1 : 0];
                program.alongside.push_back(&requests.chunkGather[static_cast<size_t>(chunk)]);
            }
            rest = std::max(0.0, rest);
            const bool lastChunk = stage == parallel.pp - 1 && chunk == virtualStages - 1;
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

const InlineProgram* StepModel::inlineProgramOfNode(const graph::ExecutionGraph& graph, graph::NodeId id) const
{
    const graph::Node& node = graph.node(id);
    if (node.kind != graph::NodeKind::Compute || node.chunk < 0 || m_inlinePrograms.empty()) {
        return nullptr;
    }
    const size_t virtualStages = m_inlinePrograms.size() / 2 / m_inline.size();
    const size_t index = (static_cast<size_t>(node.rank) * virtualStages + static_cast<size_t>(node.chunk)) * 2
        + (node.backward ? 1 : 0);
    const InlineProgram& program = m_inlinePrograms[index];
    return program.blocks.empty() && program.alongside.empty() ? nullptr : &program;
}

} // namespace rapid::sim
