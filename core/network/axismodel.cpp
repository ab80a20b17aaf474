// SPDX-License-Identifier: GPL-3.0-or-later
#include "axismodel.h"

#include "network/router.h"
#include "network/topology.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace rapid::network {

namespace {

config::LinkEnd endpoint(int index)
{
    return { false, 0, index };
}

std::string endpointLinkId(const Axis& axis, int replica, int a, int b)
{
    return formatLocalLinkId(axis.dimensionName, replica, endpoint(std::min(a, b)), endpoint(std::max(a, b)));
}

int power(int base, int exponent)
{
    int result = 1;
    for (int i = 0; i < exponent; ++i) {
        result *= base;
    }
    return result;
}

// Fat trees -------------------------------------------------------------------------------------------------------

/// Tier of the lowest common switch of two endpoints (1 = same leaf).
int commonTier(const Axis& axis, int a, int b)
{
    if (axis.tiers <= 1) {
        return 1;
    }
    int pod = axis.downPorts;
    for (int tier = 1; tier < axis.tiers; ++tier, pod *= axis.downPorts) {
        if (a / pod == b / pod) {
            return tier;
        }
    }
    return axis.tiers;
}

/// Total uplink bandwidth leaving one pod of tier @p tier: a leaf's uplinks at tier 1 (uplinks_per_leaf x their rate,
/// k links of B / oversubscription without leaf-spine keys), k^tier links of bandwidth B / oversubscription^tier above.
double podUplinkBandwidth(const Axis& axis, int tier)
{
    if (tier == 1 && axis.leafUplinkBandwidth > 0) {
        return axis.leafUplinkBandwidth;
    }
    return power(axis.downPorts, tier) * axis.bandwidth / std::pow(axis.oversubscription, tier);
}

/// Bandwidth one flow leaving a pod of tier @p tier reaches: the pod's uplinks together when the flow splits over them
/// (ECMP, adaptive), one of its links under static routing.
double flowUplinkBandwidth(const Axis& axis, int tier)
{
    if (!axis.singlePath) {
        return podUplinkBandwidth(axis, tier);
    }
    return tier == 1 && axis.leafLinkBandwidth > 0 ? axis.leafLinkBandwidth
                                                   : axis.bandwidth / std::pow(axis.oversubscription, tier);
}

std::string fatTreeEndpointLink(const Axis& axis, int replica, int endpointIndex)
{
    const int leaf = axis.tiers <= 1 ? 0 : endpointIndex / axis.downPorts;
    return formatLocalLinkId(axis.dimensionName, replica, endpoint(endpointIndex), { true, 1, leaf });
}

std::string fatTreeUplink(const Axis& axis, int replica, int endpointIndex, int tier)
{
    const int perPod = power(axis.downPorts, tier - 1);
    const int pod = endpointIndex / power(axis.downPorts, tier);
    const int parent = tier + 1 == axis.tiers ? 0 : (pod / axis.downPorts) * perPod * axis.downPorts;
    return formatLocalLinkId(axis.dimensionName, replica, { true, tier, pod * perPod }, { true, tier + 1, parent });
}

AxisCost fatTreeCost(const Axis& axis, int replica, const std::vector<int>& members)
{
    AxisCost cost;
    const int q = static_cast<int>(members.size());
    const double b = axis.bandwidth;
    cost.members = q;
    cost.halvingDoubling = true;
    cost.tree = true;
    cost.directReductions = axis.tiers <= 1;
    // A ring step forwards the chunk received in the step before, so over its steps a chunk pays the latency of every
    // hop it crosses (NCCL's tuning model counts each hop type's latency the same way), not the slowest hop per step.
    int ringTier = 1;
    RingHopLatencies ringHops;
    for (int i = 0; i < q; ++i) {
        const int tier = std::max(1, commonTier(axis, members[static_cast<size_t>(i)], members[(i + 1) % q]));
        ringTier = std::max(ringTier, tier);
        ringHops.add(2 * tier * axis.latencySeconds);
    }
    ringHops.close();
    const int spanTier = commonTier(axis, members.front(), members.back());
    cost.setRingHops(ringHops);
    cost.directLatency = 2 * spanTier * axis.latencySeconds;
    cost.pairLatency = cost.directLatency;
    // Sorted members fill pods contiguously, so one ring flow leaves each pod; ECMP spreads it over the pod's uplinks,
    // static routing puts it on one.
    cost.ringBandwidth = b;
    cost.ringFastBandwidth = b;
    cost.ringBottleneck = fatTreeEndpointLink(axis, replica, members.front());
    for (int tier = 1; tier < ringTier; ++tier) {
        if (flowUplinkBandwidth(axis, tier) < cost.ringBandwidth) {
            cost.ringBandwidth = flowUplinkBandwidth(axis, tier);
            cost.ringBottleneck = fatTreeUplink(axis, replica, members.front(), tier);
        }
    }
    // Direct: the endpoint link carries (q-1)/q of the data; a pod of m members sends m(q-m)/q out over its uplinks.
    const double endpointTime = (q - 1.0) / q / b;
    double directTime = endpointTime;
    cost.directBottleneck = fatTreeEndpointLink(axis, replica, members.front());
    cost.pairBandwidth = b;
    for (int tier = 1; tier < spanTier; ++tier) {
        const int podSize = power(axis.downPorts, tier);
        int worst = 0;
        int worstMember = members.front();
        double worstEgress = 0;
        for (int i = 0; i < q;) {
            int j = i;
            while (j < q && members[static_cast<size_t>(j)] / podSize == members[static_cast<size_t>(i)] / podSize) {
                ++j;
            }
            const int m = j - i;
            const double egress = m * (q - m) / static_cast<double>(q);
            if (egress > worstEgress) {
                worstEgress = egress;
                worstMember = members[static_cast<size_t>(i)];
            }
            worst = std::max(worst, m);
            i = j;
        }
        const double uplinks = podUplinkBandwidth(axis, tier);
        if (worstEgress / uplinks > directTime) {
            directTime = worstEgress / uplinks;
            cost.directBottleneck = fatTreeUplink(axis, replica, worstMember, tier);
        }
        cost.pairBandwidth = std::min(cost.pairBandwidth, uplinks / worst);
    }
    cost.directBandwidth = (q - 1.0) / q / directTime;
    auto pairLatency = [&](int i, int j) {
        return 2 * commonTier(axis, members[static_cast<size_t>(i)], members[static_cast<size_t>(j)])
            * axis.latencySeconds;
    };
    cost.pairStepsLatency = pairStepsLatency(q, pairLatency);
    cost.chainLatency = 0;
    for (int i = 0; i + 1 < q; ++i) {
        cost.chainLatency += pairLatency(i, i + 1);
    }
    return cost;
}

// Rings and lines ---------------------------------------------------------------------------------------------------

/// Adds one flow to the links [start, start + length) of a circular (or, without wrap, linear) link array.
void addArc(std::vector<int>& difference, int start, int length, int n)
{
    if (start + length <= n) {
        difference[static_cast<size_t>(start)] += 1;
        difference[static_cast<size_t>(start + length)] -= 1;
    } else {
        difference[static_cast<size_t>(start)] += 1;
        difference[static_cast<size_t>(n)] -= 1;
        difference[0] += 1;
        difference[static_cast<size_t>(start + length - n)] -= 1;
    }
}

AxisCost ringOrLineCost(const Axis& axis, int replica, int localBase, const std::vector<int>& members)
{
    AxisCost cost;
    const bool wrap = axis.kind == AxisKind::Ring;
    const int n = axis.extent;
    const int q = static_cast<int>(members.size());
    const double b = axis.bandwidth;
    auto local = [&](int coordinate) { return localBase + ((coordinate + n) % n) * axis.localStride; };
    auto hops = [&](int from, int to) {
        const int forward = (to - from + n) % n;
        return wrap ? std::min(forward, n - forward) : std::abs(to - from);
    };
    cost.members = q;
    cost.tree = false;
    // The logical ring visits members in coordinate order; every link direction carries at most one of its flows
    // (without wrap-around, the closing flow runs back over the reverse direction), so the ring keeps full bandwidth.
    // A chunk crosses the ring's flows in turn, each with its own hop count (see fatTreeCost).
    RingHopLatencies ringHops;
    for (int i = 0; i < q; ++i) {
        ringHops.add(hops(members[static_cast<size_t>(i)], members[(i + 1) % q]) * axis.latencySeconds);
    }
    ringHops.close();
    cost.ringBandwidth = b;
    cost.setRingHops(ringHops);
    cost.ringBottleneck = endpointLinkId(axis, replica, local(members[0]), local(members[0] + 1));
    // Direct: count the flows over every link direction (shortest way, ties in the increasing direction).
    std::vector<int> up(static_cast<size_t>(n) + 1, 0);
    std::vector<int> down(static_cast<size_t>(n) + 1, 0);
    int maxHops = 0;
    for (int from : members) {
        for (int to : members) {
            if (from == to) {
                continue;
            }
            const int forward = (to - from + n) % n;
            const bool increasing = wrap ? forward <= n - forward : to > from;
            const int length = hops(from, to);
            maxHops = std::max(maxHops, length);
            // up[t]: link t -> t+1; down[t]: link t+1 -> t.
            if (increasing) {
                addArc(up, from, length, n);
            } else {
                addArc(down, (from - length + n) % n, length, n);
            }
        }
    }
    int worst = 0;
    int worstLink = 0;
    for (auto* counts : { &up, &down }) {
        int running = 0;
        for (int t = 0; t < n; ++t) {
            running += (*counts)[static_cast<size_t>(t)];
            if (running > worst) {
                worst = running;
                worstLink = t;
            }
        }
    }
    // Each flow carries S/q; the busiest link carries worst * S/q = (q-1)/q * S / directBandwidth.
    cost.directBandwidth = worst > 0 ? (q - 1.0) * b / worst : b;
    cost.directLatency = maxHops * axis.latencySeconds;
    cost.directBottleneck = endpointLinkId(axis, replica, local(worstLink), local(worstLink + 1));
    cost.pairBandwidth = b;
    cost.pairLatency = cost.directLatency;
    auto pairLatency = [&](int i, int j) {
        return hops(members[static_cast<size_t>(i)], members[static_cast<size_t>(j)]) * axis.latencySeconds;
    };
    cost.pairStepsLatency = pairStepsLatency(q, pairLatency);
    cost.chainLatency = 0;
    for (int i = 0; i + 1 < q; ++i) {
        cost.chainLatency += pairLatency(i, i + 1);
    }
    return cost;
}

double linkTime(const Topology& topology, int link, double load)
{
    const double bandwidth = topology.link(link).effectiveBandwidth();
    return bandwidth > 0 ? load / bandwidth : std::numeric_limits<double>::infinity();
}

/// Routes every flow, adds its share to each link, and returns (time per unit of flow, slowest link).
std::pair<double, int> busiestLink(const Topology& topology, const std::map<int, double>& load)
{
    double worst = 0;
    int worstLink = -1;
    for (const auto& [link, units] : load) {
        const double seconds = linkTime(topology, link, units);
        if (seconds > worst) {
            worst = seconds;
            worstLink = link;
        }
    }
    return { worst, worstLink };
}

} // namespace

std::vector<Axis> buildAxes(const std::vector<DimensionLayout>& layouts)
{
    std::vector<Axis> axes;
    int gpuStride = 1;
    for (size_t d = 0; d < layouts.size(); ++d) {
        const DimensionLayout& layout = layouts[d];
        Axis axis;
        axis.dimension = static_cast<int>(d);
        axis.dimensionName = layout.name;
        axis.bandwidth = layout.linkBandwidth;
        axis.latencySeconds = layout.latencySeconds;
        axis.downPorts = layout.downPorts;
        axis.tiers = layout.tiers;
        axis.oversubscription = layout.oversubscription;
        axis.leafUplinkBandwidth = layout.leafUplinkBandwidth;
        // The links up from one leaf: one per spine in a two-tier tree, k above a legacy leaf of more tiers.
        const int leafLinks
            = layout.tiers == 2 && layout.switchesPerTier.size() == 2 ? layout.switchesPerTier[1] : layout.downPorts;
        axis.leafLinkBandwidth = leafLinks > 0 ? layout.leafUplinkBandwidth / leafLinks : 0;
        axis.singlePath = layout.routing == config::Routing::Static;
        axis.inNetworkAllReduceBandwidth = layout.inNetworkAllReduceBandwidth;
        axis.ncclStepSeconds = layout.ncclStepSeconds;
        switch (layout.kind) {
        case config::NetworkKind::Ring:
        case config::NetworkKind::Torus2d:
        case config::NetworkKind::Torus3d:
            axis.kind = AxisKind::Ring;
            break;
        case config::NetworkKind::Mesh2d:
            axis.kind = AxisKind::Line;
            break;
        case config::NetworkKind::Switch:
            axis.kind = AxisKind::Switch;
            break;
        case config::NetworkKind::FullyConnected:
            axis.kind = AxisKind::FullyConnected;
            break;
        case config::NetworkKind::FatTree:
        case config::NetworkKind::RailOptimized:
            axis.kind = AxisKind::FatTree;
            break;
        }
        int localStride = 1;
        for (int extent : layout.shape) {
            axis.extent = extent;
            axis.gpuStride = gpuStride;
            axis.localStride = localStride;
            axes.push_back(axis);
            gpuStride *= extent;
            localStride *= extent;
        }
    }
    return axes;
}

namespace {

AxisCost healthyAxisCostOfKind(const Axis& axis, int replica, int localBase, const std::vector<int>& coordinates)
{
    const int q = static_cast<int>(coordinates.size());
    const double b = axis.bandwidth;
    AxisCost cost;
    cost.members = q;
    switch (axis.kind) {
    case AxisKind::Ring:
    case AxisKind::Line:
        return ringOrLineCost(axis, replica, localBase, coordinates);
    case AxisKind::FatTree:
        return fatTreeCost(axis, replica, coordinates);
    case AxisKind::Switch: {
        // Through the switch every flow uses its sender's uplink and its receiver's downlink: the per-GPU link.
        const std::string link
            = formatLocalLinkId(axis.dimensionName, replica, endpoint(localBase + coordinates[0]), { true, 1, 0 });
        cost.ringBandwidth = cost.directBandwidth = cost.pairBandwidth = b;
        cost.ringStepLatency = cost.directLatency = cost.pairLatency = 2 * axis.latencySeconds;
        cost.ringBottleneck = cost.directBottleneck = link;
        cost.directReductions = cost.halvingDoubling = true;
        cost.inNetworkAllReduceBandwidth = axis.inNetworkAllReduceBandwidth;
        return cost;
    }
    case AxisKind::FullyConnected: {
        // A direct exchange uses q-1 separate links per member at once.
        const std::string link
            = endpointLinkId(axis, replica, localBase + coordinates[0], localBase + coordinates[1 % q]);
        cost.ringBandwidth = cost.pairBandwidth = b;
        cost.directBandwidth = b * (q - 1);
        cost.ringStepLatency = cost.directLatency = cost.pairLatency = axis.latencySeconds;
        cost.ringBottleneck = cost.directBottleneck = link;
        cost.directReductions = cost.halvingDoubling = true;
        return cost;
    }
    }
    return cost;
}

} // namespace

AxisCost healthyAxisCost(const Axis& axis, int replica, int localBase, const std::vector<int>& coordinates)
{
    AxisCost cost = healthyAxisCostOfKind(axis, replica, localBase, coordinates);
    cost.ncclStepLatency = axis.ncclStepSeconds;
    return cost;
}

AxisCost degradedAxisCost(
    const Axis& axis, const std::vector<int>& memberGpus, const Topology& topology, const AxisCost& healthy)
{
    const Router router(topology);
    AxisCost cost = healthy;
    const int q = static_cast<int>(memberGpus.size());
    std::map<int, double> load;
    double ringLatency = 0; // the longest hop, for the direct exchange's latency below
    RingHopLatencies ringHops;
    for (int i = 0; i < q; ++i) {
        const RouteSegment segment
            = router.routeWithin(axis.dimension, memberGpus[static_cast<size_t>(i)], memberGpus[(i + 1) % q]);
        const double hopLatency = router.latencySeconds(segment);
        ringLatency = std::max(ringLatency, hopLatency);
        ringHops.add(hopLatency);
        for (const WeightedPath& path : segment.paths) {
            for (int link : path.links) {
                load[link] += path.fraction;
            }
        }
    }
    const auto [ringTime, ringLink] = busiestLink(topology, load);
    cost.ringBandwidth = ringTime > 0 ? 1.0 / ringTime : healthy.ringBandwidth;
    // The healthy hops keep their speed (faults only slow links down).
    cost.ringFastBandwidth = std::max(healthy.ringBandwidth, healthy.ringFastBandwidth);
    ringHops.close();
    cost.setRingHops(ringHops);
    if (ringLink >= 0) {
        cost.ringBottleneck = topology.linkId(ringLink);
    }
    const double slowdown = healthy.ringBandwidth > 0 ? cost.ringBandwidth / healthy.ringBandwidth : 1.0;
    if (q <= kMaxRoutedDirect) {
        load.clear();
        double directLatency = 0;
        for (int from : memberGpus) {
            for (int to : memberGpus) {
                if (from == to) {
                    continue;
                }
                const RouteSegment segment = router.routeWithin(axis.dimension, from, to);
                directLatency = std::max(directLatency, router.latencySeconds(segment));
                for (const WeightedPath& path : segment.paths) {
                    for (int link : path.links) {
                        load[link] += path.fraction / q;
                    }
                }
            }
        }
        const auto [directTime, directLink] = busiestLink(topology, load);
        cost.directBandwidth = directTime > 0 ? (q - 1.0) / q / directTime : healthy.directBandwidth;
        cost.directLatency = directLatency;
        if (directLink >= 0) {
            cost.directBottleneck = topology.linkId(directLink);
        }
    } else {
        cost.directBandwidth = healthy.directBandwidth * slowdown;
        cost.directBottleneck = cost.ringBottleneck;
        if (healthy.ringStepLatency > 0) {
            // Conservative: the longest rerouted hop against the healthy mean hop.
            cost.directLatency = healthy.directLatency * ringLatency / healthy.ringStepLatency;
        }
    }
    cost.pairBandwidth = healthy.pairBandwidth * std::min(1.0, slowdown);
    cost.pairLatency = std::max(healthy.pairLatency, cost.directLatency);
    // In-switch reduction moves every member's data through its own port: a slower port slows it as it does a direct
    // exchange.
    if (healthy.directBandwidth > 0) {
        cost.inNetworkAllReduceBandwidth
            = healthy.inNetworkAllReduceBandwidth * std::min(1.0, cost.directBandwidth / healthy.directBandwidth);
    }
    // Reroutes change the per-step latencies: fall back to the (conservative) longest pair or ring step.
    cost.pairStepsLatency = -1;
    cost.chainLatency = -1;
    return cost;
}

PointToPointCost healthyPointToPoint(const Axis& axis, int replica, int localBase, int fromCoordinate, int toCoordinate)
{
    PointToPointCost cost;
    cost.bandwidth = axis.bandwidth;
    const int from = localBase + fromCoordinate * axis.localStride;
    const int to = localBase + toCoordinate * axis.localStride;
    const int n = axis.extent;
    switch (axis.kind) {
    case AxisKind::Ring: {
        const int forward = (toCoordinate - fromCoordinate + n) % n;
        const bool increasing = forward <= n - forward;
        cost.hops = std::min(forward, n - forward);
        const int next = (fromCoordinate + (increasing ? 1 : n - 1)) % n;
        cost.bottleneck = endpointLinkId(axis, replica, from, localBase + next * axis.localStride);
        break;
    }
    case AxisKind::Line: {
        cost.hops = std::abs(toCoordinate - fromCoordinate);
        const int next = fromCoordinate + (toCoordinate > fromCoordinate ? 1 : -1);
        cost.bottleneck = endpointLinkId(axis, replica, from, localBase + next * axis.localStride);
        break;
    }
    case AxisKind::Switch:
        cost.hops = 2;
        cost.bottleneck = formatLocalLinkId(axis.dimensionName, replica, endpoint(from), { true, 1, 0 });
        break;
    case AxisKind::FullyConnected:
        cost.hops = 1;
        cost.bottleneck = endpointLinkId(axis, replica, from, to);
        break;
    case AxisKind::FatTree: {
        const int tier = commonTier(axis, fromCoordinate, toCoordinate);
        cost.hops = 2 * tier;
        cost.bottleneck = fatTreeEndpointLink(axis, replica, from);
        for (int level = 1; level < tier; ++level) {
            if (flowUplinkBandwidth(axis, level) < cost.bandwidth) {
                cost.bandwidth = flowUplinkBandwidth(axis, level);
                cost.bottleneck = fatTreeUplink(axis, replica, from, level);
            }
        }
        break;
    }
    }
    cost.latency = cost.hops * axis.latencySeconds;
    return cost;
}

double healthyPointToPointLatency(const Axis& axis, int fromCoordinate, int toCoordinate)
{
    const int n = axis.extent;
    int hops = 0;
    switch (axis.kind) {
    case AxisKind::Ring: {
        const int forward = (toCoordinate - fromCoordinate + n) % n;
        hops = std::min(forward, n - forward);
        break;
    }
    case AxisKind::Line:
        hops = std::abs(toCoordinate - fromCoordinate);
        break;
    case AxisKind::Switch:
        hops = 2;
        break;
    case AxisKind::FullyConnected:
        hops = 1;
        break;
    case AxisKind::FatTree:
        hops = 2 * commonTier(axis, fromCoordinate, toCoordinate);
        break;
    }
    return hops * axis.latencySeconds;
}

} // namespace rapid::network
