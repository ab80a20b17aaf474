// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rapid::network {

enum class CollectiveKind { AllReduce, ReduceScatter, AllGather, AllToAll, Broadcast, SendRecv };
const char* toString(CollectiveKind kind);
/// "allreduce", "all-reduce", "reducescatter", "allgather", "alltoall", "broadcast", "sendrecv" (case-insensitive).
std::optional<CollectiveKind> parseCollectiveKind(std::string_view text);

/// Algorithms a collective may be decomposed into.
/// InNetwork: an all-reduce reduced inside a switch (NVLink SHARP, NCCL's NVLS), on switch axes that declare it.
enum class CollectiveAlgorithm { Ring, Tree, Direct, HalvingDoubling, Hierarchical, PointToPoint, InNetwork };
const char* toString(CollectiveAlgorithm algorithm);

/// What runs a reduction or a gather, which decides the algorithms it may use. Custom: every modelled algorithm, the
/// one-shot direct exchange included (each rank reads or writes every peer's buffer over NVLink), as the all-reduce
/// kernels of vLLM, SGLang and TensorRT-LLM run inside an NVLink domain. Nccl: NCCL's own algorithms only, ring,
/// tree and the in-network reduction of NVLink SHARP (NVLS) or InfiniBand SHARP where the switch offers it; NCCL has
/// no one-shot or halving-doubling reduction (its tuning model, src/graph/tuning.cc, knows ring, tree, CollNet, NVLS,
/// NVLS tree and PAT), so a small all-reduce pays its 2(p - 1) ring steps.
enum class CollectiveLibrary { Custom, Nccl };
const char* toString(CollectiveLibrary library);
/// "custom" or "nccl" (as toString writes them).
std::optional<CollectiveLibrary> parseCollectiveLibrary(std::string_view text);

/// One collective among a group of GPUs (global GPU indices, numbered innermost network dimension first; see
/// parallel::networkCoordinates). `bytes` is, per rank: AllReduce the buffer reduced; ReduceScatter the input (each
/// rank keeps bytes/p); AllGather the output (each rank contributes bytes/p); AllToAll the total a rank sends (bytes/p
/// to each peer); Broadcast the buffer; SendRecv the message from gpus[0] to gpus[1].
struct CollectiveRequest {
    CollectiveKind kind = CollectiveKind::AllReduce;
    double bytes = 0;
    std::vector<int> gpus;
    /// Force an algorithm instead of choosing the fastest (tests, what-if). Ignored where it does not apply
    /// (SendRecv is always point-to-point; AllToAll is direct or hierarchical).
    std::optional<CollectiveAlgorithm> algorithm;
    /// SPMD: the same collective runs at the same time on the GPUs shifted by each of these offsets (the other
    /// groups of the same parallel axis). The analytical model ignores them (on its symmetric network disjoint groups
    /// do not interact); the congestion backend simulates them all, so they contend where they share links.
    std::vector<int> replicaOffsets;
    /// AllToAll composed over several network axes: the share of its bytes that the phases beyond the innermost axis
    /// carry. 1 = every copy crosses; less when a message bound for several members behind one outer link crosses it
    /// once (DeepEP sends a token once per destination node: parallel/expertdispatch.h).
    double outerAxisShare = 1.0;
    /// All-reduce, reduce-scatter and all-gather: the algorithms the library running them has (CollectiveLibrary).
    CollectiveLibrary library = CollectiveLibrary::Custom;
    bool operator==(const CollectiveRequest&) const = default;
};

/// Predicted completion of one collective on an otherwise idle network.
struct CollectiveTime {
    double seconds = 0;
    CollectiveAlgorithm algorithm = CollectiveAlgorithm::Ring;
    double algorithmBandwidth = 0; ///< bytes/s: bytes / seconds
    double busBandwidth = 0; ///< bytes/s, NCCL's "bus bandwidth" convention (see busBandwidthFactor)
    /// Id of the link limiting the collective (degraded links included): the slowest link of the route, or for a
    /// hierarchical collective the limiting link of its longest phase.
    std::string bottleneckLink;
    bool operator==(const CollectiveTime&) const = default;
};

/// NCCL's bus-bandwidth factor for a group of @p ranks: all-reduce 2(p-1)/p; reduce-scatter, all-gather and
/// all-to-all (p-1)/p; broadcast and send/recv 1.
double busBandwidthFactor(CollectiveKind kind, int ranks);

} // namespace rapid::network
