// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/hardwarespec.h"
#include "network/axismodel.h"
#include "network/collective.h"

#include <memory>
#include <vector>

namespace rapid::network {

class Topology;

/// Fixed cost charged ONCE per collective (kernel launch, NCCL's protocol setup and synchronisation), in seconds.
/// NCCL's tuning model uses a base latency of 6.6 us for ring/LL and 6.8 us for tree/LL (src/graph/tuning.cc,
/// baseLat) on top of the per-step hardware latency; we take the ring value. The reference tool charged a launch per
/// ring step instead, which made small collectives 90-164% too slow.
inline constexpr double kCollectiveLaunchSeconds = 6.6e-6;

/// Thread blocks a running NCCL collective holds: NCCL launches one CTA per channel and each stays resident on its SM
/// for the whole collective, so compute running beside it (FSDP's prefetched all-gather under a layer's GEMMs) gets the
/// remaining SMs only. Measured on an H100 (132 SMs) with Nsight Systems: an FSDP-style ncclAllGather launched 24
/// blocks beside a 132-block GEMM, which then no longer fitted one wave (NVIDIA Developer Forums,
/// "Compute-Communication Overlap Causes Severe GEMM Performance Degradation because of Tail Effect", 2025, topic
/// 337991; NCCL's init log on 8-GPU NVSwitch nodes prints its channel count, "24 coll channels", the same figure). NCCL
/// picks the count from the topology (NCCL_MIN_CTAS / NCCL_MAX_CTAS bound it); other GPUs and fabrics borrow the H100
/// figure.
inline constexpr int kCollectiveCtas = 24;

/// One phase of how the analytical model carries out a collective: what the congestion backend decomposes into
/// point-to-point flows, so that both backends run the same algorithm.
struct CollectivePhase {
    CollectiveKind kind = CollectiveKind::AllReduce; ///< the phase's own operation
    CollectiveAlgorithm algorithm = CollectiveAlgorithm::Ring; ///< ring, direct, halving-doubling, tree, point-to-point
    double bytes = 0; ///< per rank, with CollectiveRequest's meaning for `kind`
    int axis = -1; ///< index into axes(): the phase runs on every line of the group along it; -1: the group flat
    /// A flat ring's channels (AxisCost::ringChannels): that many rings of bytes / channels run at once, channel j
    /// entering every node at the node's j-th member (so it leaves through the rail of the member before it).
    int channels = 1;
    /// A composed (multi-phase) collective is cut into this many pipeline chunks (pipelineChunks()): chunk c runs
    /// every phase in turn while chunk c+1 follows it, so a later phase of one chunk overlaps an earlier phase of the
    /// next. The same on every phase of one collective; 1 for a single phase.
    int pipelineChunks = 1;
    /// InNetwork: the bytes each member's port carries each way per byte reduced, so that a flow model of the port
    /// takes as long as the switch (port rate / in-network all-reduce bandwidth); 0 for the other algorithms.
    double inNetworkPortShare = 0;
    /// Ring and tree phases of a collective NCCL runs: what its protocol adds to each step beyond the path's latency
    /// (AxisCost::ncclStepLatency), so that the congestion backend's steps last as long; 0 otherwise.
    double protocolStepSeconds = 0;
    bool operator==(const CollectivePhase&) const = default;
};

/// NCCL's pipeline unit per rank and channel: the default 4 MiB channel buffer (NCCL_BUFFSIZE) holds NCCL_STEPS = 8
/// slots, and a ring all-reduce/reduce-scatter/all-gather moves ALLREDUCE_CHUNKSTEPS = NCCL_STEPS/2 of them per loop
/// iteration: 2 MiB (NCCL src/include/collectives.h, device/prims_simple.h).
inline constexpr double kPipelineChunkBytes = 2.0 * 1024 * 1024;
/// Most pipeline chunks a composed collective is cut into. More chunks shorten the pipeline's fill (the phases that
/// are not the bottleneck cost 1/chunks of their time instead of all of it) but multiply the flows the congestion
/// backend simulates; at 8 the fill left over is at most 1/8 of the non-bottleneck phases.
inline constexpr int kMaxPipelineChunks = 8;
/// Pipeline chunks of a composed collective of @p bytes per rank whose first phase runs on lines of
/// @p firstPhaseMembers: one NCCL loop iteration of that phase moves members x kPipelineChunkBytes of the buffer, so
/// ceil(bytes / that), between 1 and kMaxPipelineChunks.
int pipelineChunks(double bytes, int firstPhaseMembers);

struct AnalyticalOptions {
    double launchSeconds = kCollectiveLaunchSeconds; ///< per collective, seconds
    bool operator==(const AnalyticalOptions&) const = default;
};

/// Closed-form (alpha-beta) collective times on a multi-dimensional network, on an otherwise idle network.
///
/// A group is analysed per axis (a torus contributes one ring axis per extent): a group spanning one axis runs the
/// fastest applicable algorithm of that axis (collectivecost.h); a group that is the product of its per-axis members
/// and spans several axes runs hierarchically (reduce-scatter along the inner axes, the reduction across the
/// outermost, all-gather back; all-to-all axis by axis), unless a flat ring or tree over the whole group is faster.
/// Other groups run flat, limited by their slowest axis. Faults: an instance with a degraded or failed link is costed
/// from the explicit routes (axismodel.h), and the slowest line of a phase bounds it. Unreachable members throw
/// UnreachableError naming them.
///
/// Cost: construction is O(dimensions) without faults (the explicit topology is only built when the hardware has
/// faults). time() is O(group size) warm: group plans are memoised by the exact GPU list (thread-safe, shared by
/// copies); a cold plan is O(group size * axes) without faults. An ordinary copyable value.
class AnalyticalNetwork {
public:
    /// Throws std::invalid_argument for invalid dimensions or faults naming links that do not exist.
    explicit AnalyticalNetwork(const config::HardwareSpec& hardware, AnalyticalOptions options = {});

    /// Completion time of @p request. Throws std::invalid_argument for GPUs out of range or repeated, negative
    /// bytes, or a send/recv without exactly two GPUs; UnreachableError when faults cut members apart.
    CollectiveTime time(const CollectiveRequest& request) const;
    /// As time(), and appends the phases of the chosen algorithm, in execution order, to @p phases.
    CollectiveTime time(const CollectiveRequest& request, std::vector<CollectivePhase>* phases) const;

    int gpuCount() const { return m_gpuCount; }
    const std::vector<Axis>& axes() const { return m_axes; }
    const AnalyticalOptions& options() const { return m_options; }
    /// The explicit topology when the hardware has faults, else null.
    const std::shared_ptr<const Topology>& topology() const { return m_topology; }

    struct GroupPlan;

private:
    std::shared_ptr<const GroupPlan> plan(const std::vector<int>& gpus) const;
    std::shared_ptr<const GroupPlan> buildPlan(const std::vector<int>& gpus) const;
    /// The plan's flat view of a group spanning several axes (a ring or chain through every member, NCCL's channel
    /// rings across nodes).
    void buildFlatView(GroupPlan& plan, const std::vector<int>& gpus) const;
    /// A pair's route: bandwidth of its slowest segment (and the link that limits it), latency and hops.
    PointToPointCost pointToPointCost(int fromGpu, int toGpu) const;
    int replicaOf(int gpu, int dimension) const;
    int localIndex(int gpu, int dimension) const;
    /// Latency of the healthy closed-form route between two GPUs, in seconds.
    double healthyLatency(int fromGpu, int toGpu) const;

    struct PlanCache;
    AnalyticalOptions m_options;
    int m_gpuCount = 1;
    std::vector<Axis> m_axes;
    std::vector<int> m_dimensionStride;
    std::vector<int> m_dimensionSize;
    std::shared_ptr<const Topology> m_topology;
    std::shared_ptr<PlanCache> m_cache;
};

} // namespace rapid::network
