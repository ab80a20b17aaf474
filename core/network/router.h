// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "network/topology.h"

#include <stdexcept>
#include <vector>

namespace rapid::network {

/// No surviving path joins two GPUs (the message names both).
class UnreachableError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// One path of directed link indices carrying @p fraction of a flow's bytes.
struct WeightedPath {
    std::vector<int> links;
    double fraction = 1.0;

    bool operator==(const WeightedPath&) const = default;
};

/// The part of a route inside one dimension instance: equal-cost paths sharing the flow evenly (ECMP).
struct RouteSegment {
    int dimension = 0;
    int fromGpu = 0;
    int toGpu = 0;
    std::vector<WeightedPath> paths;

    int hops() const { return paths.empty() ? 0 : static_cast<int>(paths.front().links.size()); }
    bool operator==(const RouteSegment&) const = default;
};

/// A GPU-to-GPU route: one segment per dimension in which the GPUs differ, innermost dimension first (intermediate
/// GPUs forward the data, as in the multi-dimensional networks of ASTRA-sim).
struct Route {
    std::vector<RouteSegment> segments;

    int hops() const;
    bool operator==(const Route&) const = default;
};

/// Routing over a Topology (which must outlive the router), per dimension by its routing mode (config::Routing,
/// docs/resilience.md "Routing"):
///
/// - static (the default except for fat-tree, config::effectiveRouting): one deterministic shortest path per pair.
///   Rings take the shorter way (a tie goes the increasing direction), tori and meshes route dimension-order (x, then
///   y, then z; each the shorter way), a switch goes up and down, a fully-connected dimension uses the direct link, and
///   a tree takes the up-down path whose up-ports are chosen by the destination (D-mod-k: spine = destination mod
///   spines in a two-tier tree), as InfiniBand's subnet manager programs one output port per destination. When that
///   path crosses a failed link, the pair takes one deterministic shortest path of the surviving links (chosen the same
///   way: the subnet manager recomputes the forwarding tables around the failure).
/// - ecmp (the fat-tree default): an even split over every shortest path (at most kMaxEqualCostPaths); around a
///   failure, over every shortest path of the surviving links.
/// - adaptive: the fluid limit of per-packet adaptive routing: every shortest path of the surviving links, each
///   carrying a share in proportion to its bottleneck effective bandwidth (a degraded link draws less traffic).
///
/// Degraded links (0 < health < 1) stay in static and ECMP routes. A pair without a surviving path raises
/// UnreachableError. Construction and congestion simulation use this; the analytical hot path does not.
class Router {
public:
    static constexpr int kMaxEqualCostPaths = 64;

    explicit Router(const Topology& topology);

    Route route(int fromGpu, int toGpu) const;
    /// Route between two GPUs that differ only in @p dimension.
    RouteSegment routeWithin(int dimension, int fromGpu, int toGpu) const;

    /// Rate (bytes/s) one flow reaches alone on @p segment: the even split, the shared links and the health
    /// included. Zero when a link of the segment is failed.
    double flowBandwidth(const RouteSegment& segment) const;
    /// Sum of the link latencies of the segment's (equal-length) paths, in seconds.
    double latencySeconds(const RouteSegment& segment) const;

private:
    std::vector<WeightedPath> structuredPaths(int dimension, int replica, int from, int to) const;
    /// One deterministic shortest path (D-mod-k by destination) inside the instance.
    std::vector<WeightedPath> onePath(int dimension, int replica, int fromNode, int toNode, bool avoidFailed) const;
    /// Hop distance of every node of the instance to @p toNode (kUnreached where none).
    std::vector<int> distancesTo(int dimension, int replica, int toNode, bool avoidFailed) const;
    /// The links out of @p node one hop closer to the target of @p distance, in link order.
    std::vector<int> nextHops(
        const std::vector<int>& distance, int dimension, int replica, int node, bool avoidFailed) const;
    static bool usable(const Link& link, int dimension, int replica, bool avoidFailed);
    /// Adaptive routing: each path's share in proportion to its bottleneck effective bandwidth.
    void weighByBandwidth(std::vector<WeightedPath>& paths) const;
    static constexpr int kUnreached = 1 << 30;
    /// Every shortest path (at most kMaxEqualCostPaths) inside the instance, over surviving links if @p avoidFailed.
    std::vector<WeightedPath> shortestPaths(
        int dimension, int replica, int fromNode, int toNode, bool avoidFailed) const;
    int linkBetween(int fromNode, int toNode, int dimension) const;

    const Topology& m_topology;
};

} // namespace rapid::network
