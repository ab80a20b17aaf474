// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "graph/chakratrace.h"
#include "graph/executiongraph.h"
#include "network/collective.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace rapid::graph {

/// The Chakra collective of one of ours (all-reduce, reduce-scatter, all-gather, all-to-all, broadcast); a send/recv
/// is no collective in Chakra (COMM_SEND_NODE and COMM_RECV_NODE) and throws std::invalid_argument.
ChakraCollective chakraCollectiveOf(network::CollectiveKind kind);

/// The GlobalMetadata attribute in which rapid records what ran the trace's reductions and gathers ("nccl" or
/// "custom", network::toString(CollectiveLibrary)): a Chakra trace has no field for it, and a replay that assumed the
/// other library would not give back the step it was written from.
inline constexpr const char* kCollectiveLibraryAttribute = "rapid_collectives";

/// What the execution graph does not say and a Chakra trace needs.
struct ChakraExportOptions {
    /// Bytes moved by a communication node (PipelineSend: the message; DataParallel: the per-rank buffer of the
    /// collective; ParameterGather: the per-rank input shard). Written as comm_size; 0 when not set.
    std::function<std::uint64_t(NodeId)> commBytes;
    /// The collective of DataParallel nodes (all-reduce, or reduce-scatter with a sharded optimizer).
    ChakraCollective dataParallelCollective = ChakraCollective::AllReduce;
    /// pg_name of the data-parallel collectives of a representative rank (a comm-group id, decimal, > 0). Unset or
    /// empty writes none, which ASTRA-sim reads as "all ranks": then every rank must issue the same collectives.
    std::function<std::string(int rank)> dataParallelGroup;
    /// pg_name of the ReplicaReduction all-reduces (hybrid sharding's shard replicas), as dataParallelGroup.
    std::function<std::string(int rank)> replicaReductionGroup;
    /// pg_name of the routed experts' DataParallel and ParameterGather nodes (Node::expertGroup), as
    /// dataParallelGroup.
    std::function<std::string(int rank)> expertDataParallelGroup;
    std::string version = "0.0.4"; ///< GlobalMetadata.version
    /// GlobalMetadata.attr of every trace (rapid writes kCollectiveLibraryAttribute there).
    std::vector<ChakraAttribute> metadataAttributes;
    /// Node names; unset: ExecutionGraph::describe().
    std::function<std::string(NodeId)> nodeName;
};

/// Converts an execution graph (one representative rank per pipeline stage) to one Chakra trace per representative
/// rank, following the conventions ASTRA-sim reads:
/// - Compute and Optimizer nodes -> COMP_NODE with duration_micros = seconds rounded to integer microseconds;
/// - a PipelineSend consumed on another rank -> COMM_SEND_NODE there (comm_dst, comm_tag, comm_size) and a
///   COMM_RECV_NODE on the consumer's rank (comm_src, same tag and size) on which the consumers depend; a send
///   consumed only on its own rank stays a COMP_NODE;
/// - DataParallel -> COMM_COLL_NODE with options.dataParallelCollective, ParameterGather -> ALL_GATHER,
///   ReplicaReduction -> ALL_REDUCE (pg_name from options.replicaReductionGroup);
/// - every node gets is_cpu_op = false; all oneof values explicit; integer attributes as int64/int32 per the note.
/// Ids: a graph node keeps its NodeId on its rank; the RECV for send s has id nodes().size() + s; the tag is s.
/// Graph dependencies become data_deps; the order of a stream becomes ctrl_deps on the previous node of the stream.
/// Dependencies on nodes of another rank other than through a PipelineSend have no Chakra equivalent and are
/// dropped. Names are ExecutionGraph::describe() (rank, kind, pass, micro-batch, chunk).
std::vector<ChakraTrace> exportExecutionGraph(const ExecutionGraph& graph, const ChakraExportOptions& options = {});

/// A collective microbenchmark as ASTRA-sim's generator writes it: for each rank in @p ranks one trace with a single
/// COMM_COLL_NODE (id = the rank, name "<op>_<N>npus_<size>" such as "all_reduce_8npus_1MB", attributes is_cpu_op =
/// false, comm_type, comm_size = @p commSize in ASTRA-sim's meaning; pg_name = @p group when not empty). With
/// @p networkRanks > 0 the set has a trace for every NPU 0..networkRanks-1, as ASTRA-sim opens one per NPU: a rank
/// outside @p ranks gets one zero-length COMP_NODE named "idle". Traces are in rank order.
std::vector<ChakraTrace> exportCollectiveMicrobenchmark(ChakraCollective type, std::uint64_t commSize,
    const std::vector<int>& ranks, const std::string& group = {}, int networkRanks = 0);

/// One piece of a compute node split into finer nodes (splitComputeNodes): a compute node, or a communication node
/// (a collective, a send or a receive) that the simulator times itself.
struct ChakraNodePiece {
    std::string name;
    /// Compute: its share of the node's time. Communication: the time the node's duration counted for it (what it
    /// leaves exposed), which the compute pieces do not take; the node's own duration is not written.
    double seconds = 0;
    ChakraNodeType type = ChakraNodeType::Compute;
    std::vector<ChakraAttribute> attributes; ///< communication pieces: comm_type, comm_size, pg_name, peers, tag
    /// Indices of earlier pieces it waits for; -1 is what the split node waited for. Empty: the piece before (the
    /// first piece: what the node waited for). A piece that waits for the same as another runs beside it.
    std::vector<int> after;
};

/// Replaces every COMP_NODE for which @p split returns two or more pieces by those pieces. The compute pieces' times
/// are scaled to sum to the node's duration less the communication pieces' seconds (rounded so that the integer
/// microseconds still add up); communication pieces get no duration. Dependencies follow each piece's `after`. The
/// last piece keeps the node's id (and, when it computes, its attributes), so every dependant and match across ranks
/// is unchanged; when a piece besides it is one nothing waits for (it ran beside the chain), a zero-length compute
/// node "end of <name>" waits for all such pieces and keeps the id instead. New ids follow the largest id of the trace.
void splitComputeNodes(ChakraTrace& trace, const std::function<std::vector<ChakraNodePiece>(const ChakraNode&)>& split);

/// How a representative trace's communication becomes one actual rank's (instantiateRank).
struct ChakraRankMapping {
    /// The peer of a send (comm_dst) or receive (comm_src) @p node on this rank, from the representative's value.
    std::function<int(const ChakraNode& node, int representativePeer)> peer;
    /// The pg_name of a collective on this rank, from the representative's (empty: unchanged).
    std::function<std::string(const std::string& representativeGroup)> group;
};

/// The trace of one actual rank, made from its pipeline stage's representative trace (all ranks of a stage run the
/// same graph, SPMD): @p rank becomes the trace's rank, peers and communicators follow @p mapping. Ids,
/// dependencies and tags stay as they are, so sends and receives still match across the instantiated ranks.
ChakraTrace instantiateRank(const ChakraTrace& representative, int rank, const ChakraRankMapping& mapping);

} // namespace rapid::graph
