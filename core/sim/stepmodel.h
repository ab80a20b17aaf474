// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "compute/operatortimer.h"
#include "config/configloader.h"
#include "graph/inferencerequest.h"
#include "graph/trainingstep.h"
#include "network/collective.h"
#include "parallel/placement.h"
#include "report/stepresult.h"
#include "sim/networkedexecutor.h"

#include <array>
#include <atomic>
#include <functional>
#include <memory>

namespace rapid::sim {

/// How long a collective takes on the scenario's network (the analytical or the congestion backend).
using CollectiveCost = std::function<double(const network::CollectiveRequest&)>;

enum class NetworkBackend { Analytical, Congestion };

class CongestionNetwork;

/// The analytical performance model of one scenario: times every operator of a pipeline stage's chunks on its GPU
/// (compute::OperatorTimer), adds the collectives each parallel axis implies (Megatron TP/SP all-reduce or
/// all-gather/reduce-scatter pairs, ring-attention exchanges for CP, all-to-all for EP, point-to-point for PP,
/// gradient reductions and parameter gathers for DP/ZeRO/FSDP) on the groups that hold a representative rank of the
/// stage, builds the training step's execution graph and executes it.
/// An ordinary value: evaluations of different scenarios can run side by side on different threads.
class StepModel {
public:
    /// @p collective defaults to the analytical network of the scenario's hardware.
    explicit StepModel(config::Scenario scenario, CollectiveCost collective = {});
    /// With NetworkBackend::Congestion every collective is simulated flow by flow with its SPMD replicas (the other
    /// groups of its stage running it at the same time), and training() runs the whole step's pipeline sends,
    /// gradient reductions and parameter gathers together on one simulated network (executeGraphOnNetwork), so they
    /// contend where they share links. Collectives inline with compute (TP, CP, EP, ZeRO-3 parameter gathers) join
    /// that simulation, at the times they occur inside each layer, wherever their links (all replicas) meet links of
    /// any other traffic of the step; inline collectives on links nothing else uses stay folded into the compute
    /// nodes, timed with their replicas on an otherwise idle network, which in the max-min fluid model is exact.
    StepModel(config::Scenario scenario, NetworkBackend backend);

    /// Congestion backend: false keeps every inline collective folded into its compute node even where it shares
    /// links with other traffic (faster, but blind to that contention). Default true.
    void setInlineCollectivesOnNetwork(bool onNetwork) { m_inlineOnNetwork = onNetwork; }
    /// After a congestion-backend training(): how many (stage, kind) sets of inline collectives (kinds: TP, CP, EP,
    /// ZeRO-3 gathers) ran on the simulated network rather than folded.
    int inlineCollectivesOnNetwork() const { return m_inlineUnitsOnNetwork; }

    /// Cancels a congestion-backend training() from another thread (SimulationCancelled is thrown).
    void setStopFlag(const std::atomic<bool>* stop) { m_stop = stop; }
    /// Receives the fraction done of a congestion-backend training() now and then (on the calling thread).
    void setProgressCallback(std::function<void(double)> progress) { m_progress = std::move(progress); }
    /// The congestion backend's network (null with the analytical backend).
    const std::shared_ptr<CongestionNetwork>& congestionNetwork() const { return m_congestion; }

    /// One training step. @p timeline fills TrainingResult::timeline (costs a little time for large graphs).
    report::TrainingResult training(bool timeline = true);
    /// Prefill of the batch, then decode steps with the growing KV cache: @p decodeSamples evenly spaced KV lengths
    /// integrated with the trapezoid rule (0 = time every decode step).
    report::InferenceResult inference(int decodeSamples = 9);
    /// The per-stage costs the training graph is built from (exposed for tests and the layer table).
    std::vector<graph::StageCost> trainingStageCosts();
    /// One inference request batch per pipeline stage, for its execution graph and Chakra export: inference()'s
    /// prefill and mean decode step without their pipeline sends, split over the stages by their layer counts, the
    /// stage-to-stage sends, and the hand-back of the sampled tokens (4 bytes per sequence) from the last stage.
    graph::InferenceRequestCosts inferenceRequestCosts();

    const config::Scenario& scenario() const { return m_scenario; }
    /// The model layers (global indices) of each virtual chunk of pipeline stage @p stage.
    std::vector<std::vector<int>> chunkLayersOfStage(int stage) const;
    const parallel::Placement& placement() const { return m_placement; }

private:
    struct LayerPass {
        graph::TimeBreakdown forward {};
        graph::TimeBreakdown backward {};
        double forwardGemm = 0; ///< GEMM time a TP overlap can hide communication behind
        double backwardGemm = 0;
        double forwardAttention = 0; ///< attention core time a CP ring exchange can hide behind
        double backwardAttention = 0;
        double parameters = 0; ///< model::localLayerParameters (builds the layer's operator list: cached with it)
    };
    const LayerPass& layerPass(bool moe);
    graph::TimeBreakdown timeOperators(
        const std::vector<model::Operator>& ops, double* gemmSeconds, double* attentionSeconds);
    std::vector<int> group(const std::string& axis, int rank) const;
    int representativeRank(int stage) const;
    double collective(network::CollectiveKind kind, double bytes, const std::vector<int>& gpus);
    network::CollectiveRequest request(network::CollectiveKind kind, double bytes, const std::vector<int>& gpus) const;
    std::vector<int> replicaOffsets(network::CollectiveKind kind, const std::vector<int>& gpus) const;
    /// The collective behind a communication node of the training graph (congestion backend), or null.
    const network::CollectiveRequest* collectiveOfNode(const graph::ExecutionGraph& graph, graph::NodeId id) const;

    /// The collectives of one stage's communication nodes, recorded by trainingStageCosts().
    struct StageRequests {
        network::CollectiveRequest sendForward;
        network::CollectiveRequest sendBackward;
        std::vector<network::CollectiveRequest> dataParallel; ///< per chunk
        network::CollectiveRequest parameterGather;
        std::vector<network::CollectiveRequest> chunkGather; ///< ZeRO-3/FSDP: per chunk, before each pass
        std::vector<std::array<double, 2>> chunkGatherExposed; ///< its closed-form exposed seconds, forward/backward
    };
    std::vector<StageRequests> m_stageRequests;

    /// Kinds of collectives inline with a compute node.
    enum InlineKind { InlineTensor, InlineContext, InlineExpert, InlineGather, kInlineKinds };
    /// One stage's inline collectives (its representative groups, with their SPMD replicas).
    struct StageInline {
        std::vector<network::CollectiveRequest> tensorPair; ///< all-reduce, or all-gather + reduce-scatter (SP)
        network::CollectiveRequest contextStep; ///< one ring step of the CP K/V exchange
        network::CollectiveRequest expertAllToAll;
        std::array<bool, kInlineKinds> onNetwork {};
    };
    /// Decides which inline collectives run on the network (those sharing a link with other traffic of the step),
    /// builds the inline programs of their compute nodes, and returns the bytes the folded ones put on each directed
    /// link over the step.
    std::vector<double> planInlineCollectives(const std::vector<graph::StageCost>& stages);
    void buildInlinePrograms(int stage, const graph::StageCost& cost);
    /// The inline program of a compute node of the training graph, or null.
    const InlineProgram* inlineProgramOfNode(const graph::ExecutionGraph& graph, graph::NodeId id) const;
    std::vector<StageInline> m_inline;
    std::vector<InlineProgram> m_inlinePrograms; ///< per (stage, chunk, pass) of stages with collectives on the network
    bool m_inlineOnNetwork = true;
    int m_inlineUnitsOnNetwork = 0;
    std::shared_ptr<CongestionNetwork> m_congestion;
    const std::atomic<bool>* m_stop = nullptr;
    std::function<void(double)> m_progress;

    config::Scenario m_scenario;
    CollectiveCost m_collective;
    bool m_replicateGroups = false;
    parallel::Placement m_placement;
    compute::OperatorTimer m_timer;
    std::unique_ptr<LayerPass> m_dense;
    std::unique_ptr<LayerPass> m_moe;
};

/// Maps an operator's class to the breakdown class it is reported under.
graph::TimeClass timeClassOf(model::OperatorClass opClass);

} // namespace rapid::sim
