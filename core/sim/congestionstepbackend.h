// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "sim/congestionnetwork.h"
#include "sim/networkedexecutor.h"
#include "sim/stepbackend.h"

#include <array>
#include <memory>
#include <unordered_map>
#include <vector>

namespace rapid::sim {

/// The congestion backend of the step model: every collective is simulated flow by flow with its SPMD replicas (the
/// other groups of its stage running it at the same time), and a training step runs the whole step's pipeline sends,
/// gradient reductions and parameter gathers together on one simulated network (executeGraphOnNetwork), so they
/// contend where they share links. Collectives inline with compute (TP, CP, EP, ZeRO-3 parameter gathers) join that
/// simulation, at the times they occur inside each layer, wherever their links (all replicas) meet links of any other
/// traffic of the step; inline collectives on links nothing else uses stay folded into the compute nodes, timed with
/// their replicas on an otherwise idle network, which in the max-min fluid model is exact.
class CongestionStepBackend final : public StepBackend {
public:
    explicit CongestionStepBackend(const config::HardwareSpec& hardware);

    double collectiveSeconds(const network::CollectiveRequest& request) override { return m_network->time(request); }
    bool simulatesReplicas() const override { return true; }
    StepExecution executeTraining(const TrainingStepInput& input) override;
    bool schedulesGraphAlone() const override { return false; }
    const network::Topology* topology() const override { return &m_network->topology(); }
    /// 2^16 passes: about 0.6 GB and 1.3 s (measured: Mixtral-8x7B on 64 A100s, 2,048 micro-batches on 4 stages of 5
    /// interleaved chunks, took 0.8 s and 385 MB; the flows of every pass are kept for the link loads).
    std::int64_t microBatchPassBudget() const override { return std::int64_t(1) << 16; }
    const char* name() const override { return "congestion"; }

    /// False keeps every inline collective folded into its compute node even where it shares links with other
    /// traffic (faster, but blind to that contention). Default true.
    void setInlineCollectivesOnNetwork(bool onNetwork) { m_inlineOnNetwork = onNetwork; }
    /// After executeTraining(): how many (stage, kind) sets of inline collectives (kinds: TP, CP, EP, ZeRO-3 gathers)
    /// ran on the simulated network rather than folded.
    int inlineCollectivesOnNetwork() const { return m_inlineUnitsOnNetwork; }
    CongestionNetwork& network() { return *m_network; }

private:
    /// Kinds of collectives inline with a compute node.
    enum InlineKind { InlineTensor, InlineContext, InlineExpert, InlineGather, kInlineKinds };
    /// The requests (with replicas) of one stage's collectives.
    struct StageRequests {
        network::CollectiveRequest sendForward;
        network::CollectiveRequest sendBackward;
        std::vector<network::CollectiveRequest> dataParallel; ///< per chunk
        std::vector<network::CollectiveRequest> replicaReduction; ///< per chunk (hybrid sharding; else empty requests)
        /// The routed experts' reduction per chunk over their own group (ChunkPlan::expertGradientReduction; else
        /// empty requests).
        std::vector<network::CollectiveRequest> expertDataParallel;
        network::CollectiveRequest parameterGather;
        network::CollectiveRequest expertParameterGather; ///< StagePlan::expertParameterGather
        /// ZeRO-3/FSDP: per chunk, before each pass, the rest's gather and the routed experts' (empty requests where a
        /// chunk has none of one kind).
        std::vector<network::CollectiveRequest> chunkGather;
        std::vector<network::CollectiveRequest> expertChunkGather;
        std::vector<network::CollectiveRequest> tensorPair;
        network::CollectiveRequest contextStep;
        std::vector<network::CollectiveRequest> contextForward; ///< cp_comm all_gather, a2a (LayerCollectives)
        std::vector<network::CollectiveRequest> contextBackward;
        network::CollectiveRequest expertAllToAll;
        std::vector<network::CollectiveRequest> expertTensorPair; ///< LayerCollectives::expertTensorPair
        std::array<bool, kInlineKinds> onNetwork {};
    };

    /// Directed link -> bytes.
    using LinkBytes = std::vector<std::pair<int, double>>;
    /// One stage's inline collectives of one kind: the bytes they put on each link over the whole step.
    struct InlineUnit {
        int stage = 0;
        InlineKind kind = InlineTensor;
        LinkBytes bytes;
    };

    void buildRequests(const parallel::StepPlan& plan);
    /// Appends the bytes @p times occurrences of @p request (with its replicas) put on each directed link: its flows,
    /// decomposed as the simulation would, times their routes' weights.
    void addLoads(const network::CollectiveRequest& request, double times, LinkBytes& into);
    /// The links of the traffic that always runs on the network: pipeline sends, gradient reductions and ZeRO-1/2
    /// parameter gathers of every stage, with their replicas.
    std::vector<char> backgroundLinks();
    std::vector<InlineUnit> inlineUnits(const TrainingStepInput& input);
    const network::CollectiveRequest* collectiveOfNode(const graph::ExecutionGraph& graph, graph::NodeId id) const;
    /// Decides which inline collectives run on the network (those sharing a link with other traffic of the step),
    /// builds the inline programs of their compute nodes, and returns the bytes the folded ones put on each directed
    /// link over the step.
    std::vector<double> planInlineCollectives(const TrainingStepInput& input);
    void buildInlinePrograms(const TrainingStepInput& input, int stage);
    const InlineProgram* inlineProgramOfNode(const graph::ExecutionGraph& graph, graph::NodeId id) const;

    std::shared_ptr<CongestionNetwork> m_network;
    std::vector<StageRequests> m_stages;
    /// Nodes that move part of a chunk's collective (a bucket, or all buckets but one), by node id.
    mutable std::unordered_map<graph::NodeId, network::CollectiveRequest> m_partialRequests;
    std::vector<InlineProgram> m_inlinePrograms; ///< per (stage, chunk, pass) of stages with collectives on the network
    bool m_inlineOnNetwork = true;
    int m_inlineUnitsOnNetwork = 0;
};

} // namespace rapid::sim
