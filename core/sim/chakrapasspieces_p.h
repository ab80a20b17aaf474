// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "sim/stepchakraexport.h"

#include <cstdint>
#include <string>
#include <vector>

namespace rapid::sim::detail {

/// pg_name of a representative trace's collectives: the axis whose group on each rank replaces it when the trace is
/// instantiated ("dp", "tp", "cp", "ep").
std::string groupPlaceholder(parallel::Axis axis);

/// The placeholder group of hybrid sharding's shard-replica all-reduces (ChakraCommunicators maps it to a rank's).
inline constexpr const char* kShardReplicaPlaceholder = "dp_replica";
/// The communicator of cp_comm a2a+p2p's all-to-alls (Placement::contextAllToAllGroup).
inline constexpr const char* kContextAllToAllPlaceholder = "cp_a2a";
/// The communicator of expert tensor parallelism's all-gathers and reduce-scatters (Placement::expertTensorGroup).
inline constexpr const char* kExpertTensorPlaceholder = "etp";
/// The communicator of the routed experts' gradient reductions and parameter gathers when they span other ranks than
/// the rest's (Placement::expertShardGroup; parallel::ChunkPlan::expertGradientReduction).
inline constexpr const char* kExpertDataPlaceholder = "edp";

/// Tags of the context-parallel ring's sends start here (pipeline sends use graph node ids, far below).
inline constexpr std::int32_t kContextTagBase = 1 << 30;

/// Splits a training step's chunk passes into the pieces a trace simulator needs (graph::splitComputeNodes): the
/// pass's compute, as one node per pass (Chunk), per layer (Layer) or per operator (Operator), and every collective
/// the step plan puts inside its layers as a communication node: tensor-parallel all-reduces (or all-gather and
/// reduce-scatter pairs with sequence parallelism) and expert all-to-alls (with the expert-tensor all-gather and
/// reduce-scatter between them) after the compute they follow, which they block; the context-parallel ring's
/// send/receive steps beside the attention core they hide behind, and tensor collectives beside the GEMMs under
/// tp_comm_overlap. Each communication piece carries the exposed time the step model charged for it, so the compute
/// pieces keep exactly the pass's compute. Inference steps (prefill, decode) become their stage's layers, each followed
/// by its two tensor-parallel all-reduces.
class ChakraPassSplitter {
public:
    ChakraPassSplitter(StepModel& stepModel, const graph::ExecutionGraph& graph, ChakraDetail detail);

    std::vector<graph::ChakraNodePiece> operator()(const graph::ChakraNode& node);

    /// One operator as a piece may show it.
    struct OperatorTiming {
        std::string name;
        double seconds = 0;
        bool attention = false; ///< the attention core (FlashAttention or the naive kernels)
        bool gemm = false;
        int sharedWindow = -1; ///< the shared expert's window (sim::sharedExpertWindow), -1 for other operators
    };

private:
    struct Block;
    void appendBlock(
        const Block& block, int stage, std::vector<graph::ChakraNodePiece>& pieces, std::vector<int>& frontier);
    /// ep_shared_expert_overlap: the shared expert's window 0 (gate/up) or 1 (down projection) and its all-to-alls.
    void appendSharedWindow(
        const Block& block, int window, std::vector<graph::ChakraNodePiece>& pieces, std::vector<int>& frontier);
    std::vector<OperatorTiming> timed(const std::vector<model::Operator>& ops);
    Block layerBlock(int stage, int layer, bool backward, const std::string& label);
    Block endBlock(bool embedding, bool backward, const std::string& label);
    std::vector<graph::ChakraNodePiece> inferencePieces(const graph::ChakraNode& node, const graph::Node& step);
    double gatherContention(const graph::Node& pass) const;
    void slowUnitsBesideGathers(std::vector<Block>& layerBlocks, const graph::Node& pass) const;

    StepModel& m_stepModel;
    const graph::ExecutionGraph& m_graph;
    ChakraDetail m_detail;
    compute::OperatorTimer m_timer;
    std::vector<std::vector<std::vector<int>>> m_layers;
    std::vector<int> m_contextNext; ///< per stage: the representative's next and previous rank in its cp ring
    std::vector<int> m_contextPrevious;
    StepModel::ExposedGathers m_gatherCosts; ///< ZeRO-3/FSDP: per stage and chunk, the closed-form gather costs
    std::int32_t m_nextTag = kContextTagBase;
};

} // namespace rapid::sim::detail
