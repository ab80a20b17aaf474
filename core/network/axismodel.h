// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "network/dimensionlayout.h"

#include <string>
#include <vector>

namespace rapid::network {

class Topology;

/// How one axis of the network behaves for collectives. A torus or mesh dimension has one axis per extent (x, y,
/// z); every other dimension is one axis. GPU index = sum over axes (innermost first) of coordinate * gpuStride.
enum class AxisKind { Ring, Line, Switch, FullyConnected, FatTree };

struct Axis {
    int dimension = 0;
    std::string dimensionName;
    AxisKind kind = AxisKind::Switch;
    int extent = 0; ///< endpoints along the axis
    int gpuStride = 1; ///< global GPU index step between neighbours on the axis
    int localStride = 1; ///< endpoint index step within the dimension instance
    double bandwidth = 0; ///< bytes/s per direction of an endpoint link
    double latencySeconds = 0; ///< per hop
    double ncclStepSeconds = 0; ///< NCCL's measured ring step across the axis (config::NetworkDimension)
    int downPorts = 0; ///< fat tree: endpoints per leaf (k)
    int tiers = 0;
    double oversubscription = 1.0;
    double leafUplinkBandwidth = 0; ///< fat tree: all uplinks of one leaf together (bytes/s per direction)
    double leafLinkBandwidth = 0; ///< fat tree: one leaf-to-parent link (its cables together)
    /// Static routing: one flow takes one path, so a lone flow leaving a pod gets one uplink, not the pod's uplinks.
    bool singlePath = false;
    double inNetworkAllReduceBandwidth = 0; ///< switch with in-switch reduction: its all-reduce bandwidth (0: none)
};

/// AxisCost::pairStepsLatency of members 0..q-1 whose pair latency is @p latency(i, j) (seconds).
template <typename PairLatency> double pairStepsLatency(int q, PairLatency&& latency)
{
    double total = 0;
    for (int distance = 1; distance < q; distance *= 2) {
        double step = 0;
        for (int i = 0; i < q; ++i) {
            const int partner = i ^ distance;
            if (partner < q) {
                const double seconds = latency(i, partner);
                step = seconds > step ? seconds : step;
            }
        }
        total += step;
    }
    return total;
}

/// The axes of a network, innermost first.
std::vector<Axis> buildAxes(const std::vector<DimensionLayout>& layouts);

/// The hop latencies of a ring, summarised for the latency of a chunk's path through consecutive steps: a ring step
/// forwards the chunk received in the step before (a data dependency, as NCCL's), so over s steps the slowest chunk
/// pays the latencies of the s consecutive hops that sum highest. Accumulates hops in ring order without allocating.
struct RingHopLatencies {
    double total = 0;
    double minHop = 0;
    double minPair = 0; ///< two consecutive hops (the closing hop and the first one included)
    double maxHop = 0;
    int hops = 0;

    void add(double latency);
    /// Call after the last hop: closes the ring (the last hop is followed by the first).
    void close();

private:
    double m_first = 0;
    double m_previous = 0;
};

/// Bytes-independent cost parameters of a group of members along one axis (one "line"), or of a whole group treated
/// flat. Times for S bytes: ring step = chunk / ringBandwidth + ringStepLatency; a direct exchange where every
/// member sends (q-1)/q*S spread over the others = (q-1)/q*S / directBandwidth + directLatency; one pairwise
/// exchange of a halving-doubling or tree step = chunk / pairBandwidth + pairLatency. Bandwidths in bytes/s,
/// latencies in seconds (hops * per-hop latency).
struct AxisCost {
    int members = 1;
    double ringBandwidth = 0;
    double ringStepLatency = 0; ///< mean latency of the ring's hops
    /// NCCL's measured ring step over this group (config::NetworkDimension::ncclStepSeconds; a group over several
    /// axes takes the largest): a ring step of a collective NCCL runs lasts at least this. 0: not measured.
    double ncclStepLatency = 0;
    /// With hops of different latency: the least single hop and the least two consecutive hops (see
    /// ringStepsLatency); negative: every hop costs ringStepLatency.
    double ringMinHopLatency = -1;
    double ringMinHopPairLatency = -1;
    double ringMaxHopLatency = -1;
    /// The fastest hop's bandwidth when the ring's hops differ (a degraded link, an oversubscribed tier); 0: every hop
    /// runs at ringBandwidth. Sets how much hop latency the slowest sender hides (see ringStepsTime).
    double ringFastBandwidth = 0;
    std::string ringBottleneck; ///< link id limiting the ring
    double directBandwidth = 0;
    double directLatency = 0;
    std::string directBottleneck;
    double pairBandwidth = 0;
    double pairLatency = 0;
    bool directReductions = false; ///< reduce-scatter/all-gather/all-reduce may go direct (switch-like axes)
    bool halvingDoubling = false; ///< recursive halving-doubling applies (switched axes, power-of-two groups)
    bool tree = false; ///< double binary tree applies
    /// In-switch reduction (NVLS) over a switch axis: the all-reduce's algorithm bandwidth, scaled by a degraded
    /// port's share; 0: not offered.
    double inNetworkAllReduceBandwidth = 0;
    /// Sum over the ceil(log2 q) steps of a halving-doubling exchange or a binomial broadcast of the step's longest
    /// pair latency (step r pairs member i with member i xor 2^r); negative: ceil(log2 q) * pairLatency.
    double pairStepsLatency = -1;
    /// Latency of a broadcast chain through the members in order (no closing hop); negative: (q-1) *
    /// ringStepLatency.
    double chainLatency = -1;
    /// Rings of reductions and gathers over a group spanning several axes whose innermost is a switch (a node): as
    /// NCCL does across nodes, one ring per member of a node (a channel), each carrying 1/channels of the data and
    /// leaving every node through a different member's rail, so that the outer axes carry channels x their ring
    /// bandwidth while every member's inner link carries all channels. 1: a single ring at ringBandwidth.
    int ringChannels = 1;
    double channelRingBandwidth = 0; ///< with ringChannels > 1: the bandwidth of the channels together
    double channelRingFastBandwidth = 0; ///< with ringChannels > 1: the channels' fastest hops together
    std::string channelRingBottleneck;

    /// The bandwidth of this axis' ring reductions and gathers: the channels' when there are several.
    double reductionRingBandwidth() const { return ringChannels > 1 ? channelRingBandwidth : ringBandwidth; }
    const std::string* reductionRingBottleneck() const
    {
        return ringChannels > 1 ? &channelRingBottleneck : &ringBottleneck;
    }

    /// Latency of @p steps consecutive ring steps (q-1 for a reduce-scatter or all-gather, 2(q-1) for an all-reduce):
    /// the ring's hops summed, less the hops the slowest chunk's path does not cross.
    double ringStepsLatency(int steps) const;
    /// Time of @p steps ring steps of @p chunkBytes each over this axis' reduction ring (see the definition).
    double ringStepsTime(int steps, double chunkBytes) const;
    /// Sets ringStepLatency and the least hops from the hop latencies of a whole ring.
    void setRingHops(const RingHopLatencies& hops);

    /// What a ring step of a collective NCCL runs adds to the path's latency: ncclStepLatency beyond
    /// ringStepLatency, else 0.
    double ncclStepExtraLatency() const
    {
        return ncclStepLatency > ringStepLatency ? ncclStepLatency - ringStepLatency : 0;
    }
    /// The same for a step of NCCL's tree, which forwards through the same protocol between pairs: ncclStepLatency
    /// beyond pairLatency, else 0.
    double ncclTreeStepExtraLatency() const
    {
        return ncclStepLatency > pairLatency ? ncclStepLatency - pairLatency : 0;
    }
    double effectivePairStepsLatency() const;
    double effectiveChainLatency() const;
    /// Keeps, term by term, the slower of this and @p other (a collective waits for its slowest line).
    void takeWorst(const AxisCost& other);
};

/// Closed-form cost of members at sorted, distinct @p coordinates of @p axis on a healthy instance. @p replica and
/// @p localBase (the endpoint index of coordinate 0 of this line) only name the bottleneck link. O(members) except a
/// partial ring/line direct exchange, O(members^2).
AxisCost healthyAxisCost(const Axis& axis, int replica, int localBase, const std::vector<int>& coordinates);

/// Cost of the members (global GPUs in axis order) on a degraded instance, from the routes of @p topology: ring and
/// direct patterns are routed flow by flow and the most loaded link (load / effective bandwidth) is the bottleneck.
/// Direct exchanges of more than kMaxRoutedDirect members scale the healthy cost by the ring's slowdown. Throws
/// UnreachableError when failed links cut two members apart.
AxisCost degradedAxisCost(
    const Axis& axis, const std::vector<int>& memberGpus, const Topology& topology, const AxisCost& healthy);
inline constexpr int kMaxRoutedDirect = 128;

/// One point-to-point transfer along an axis (healthy closed form): bytes / bandwidth + latency.
struct PointToPointCost {
    double bandwidth = 0; ///< bytes/s
    double latency = 0; ///< seconds
    int hops = 0;
    std::string bottleneck;
};
PointToPointCost healthyPointToPoint(
    const Axis& axis, int replica, int localBase, int fromCoordinate, int toCoordinate);
/// The latency of healthyPointToPoint alone (no link names: cheap enough for every pair of a large group).
double healthyPointToPointLatency(const Axis& axis, int fromCoordinate, int toCoordinate);

} // namespace rapid::network
