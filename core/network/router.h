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

/// Routing over a Topology (which must outlive the router).
///
/// Within a healthy dimension instance: rings take the shorter way (a tie goes the increasing direction), tori and
/// meshes route dimension-order (x, then y, then z; each the shorter way), a switch goes up and down, a
/// fully-connected dimension uses the direct link, and a fat tree splits the flow evenly over every shortest up-down
/// path (ECMP). When that route crosses a failed link, the flow instead splits over the shortest paths of the
/// surviving links of the instance (breadth-first search; at most kMaxEqualCostPaths paths). A pair without a
/// surviving path raises UnreachableError. Construction and congestion simulation use this; the analytical hot
/// path does not.
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
    /// Every shortest path (at most kMaxEqualCostPaths) inside the instance, over surviving links if @p avoidFailed.
    std::vector<WeightedPath> shortestPaths(
        int dimension, int replica, int fromNode, int toNode, bool avoidFailed) const;
    int linkBetween(int fromNode, int toNode, int dimension) const;

    const Topology& m_topology;
};

} // namespace rapid::network
