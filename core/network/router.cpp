// SPDX-License-Identifier: GPL-3.0-or-later
#include "router.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <map>

namespace rapid::network {

namespace {

/// Node index within one dimension instance: endpoints first, then the switches tier by tier.
int localNode(const Topology& topology, const DimensionLayout& layout, int dimension, int node)
{
    const Node& info = topology.node(node);
    if (!info.isSwitch) {
        return topology.localIndex(node, dimension);
    }
    int offset = layout.endpoints;
    for (int tier = 1; tier < info.tier; ++tier) {
        offset += layout.switchesPerTier[static_cast<size_t>(tier - 1)];
    }
    return offset + info.index;
}

} // namespace

int Route::hops() const
{
    int total = 0;
    for (const RouteSegment& segment : segments) {
        total += segment.hops();
    }
    return total;
}

Router::Router(const Topology& topology)
    : m_topology(topology)
{
}

Route Router::route(int fromGpu, int toGpu) const
{
    if (fromGpu < 0 || toGpu < 0 || fromGpu >= m_topology.gpuCount() || toGpu >= m_topology.gpuCount()) {
        throw std::out_of_range("route from GPU " + std::to_string(fromGpu) + " to GPU " + std::to_string(toGpu)
            + ": the network has GPUs 0.." + std::to_string(m_topology.gpuCount() - 1));
    }
    Route result;
    int current = fromGpu;
    for (int d = 0; d < m_topology.dimensionCount(); ++d) {
        const int target = m_topology.localIndex(toGpu, d);
        const int here = m_topology.localIndex(current, d);
        if (target == here) {
            continue;
        }
        const int next = m_topology.gpuAt(d, m_topology.replicaOf(current, d), target);
        result.segments.push_back(routeWithin(d, current, next));
        current = next;
    }
    return result;
}

RouteSegment Router::routeWithin(int dimension, int fromGpu, int toGpu) const
{
    RouteSegment segment;
    segment.dimension = dimension;
    segment.fromGpu = fromGpu;
    segment.toGpu = toGpu;
    if (fromGpu == toGpu) {
        return segment;
    }
    const int replica = m_topology.replicaOf(fromGpu, dimension);
    if (m_topology.replicaOf(toGpu, dimension) != replica) {
        throw std::invalid_argument("GPU " + std::to_string(fromGpu) + " and GPU " + std::to_string(toGpu)
            + " differ in more than dimension \"" + m_topology.layout(dimension).name + "\"");
    }
    const config::Routing routing = m_topology.layout(dimension).routing;
    segment.paths = routing == config::Routing::Adaptive ? shortestPaths(dimension, replica, fromGpu, toGpu, true)
                                                         : structuredPaths(dimension, replica, fromGpu, toGpu);
    bool crossesFailure = false;
    for (const WeightedPath& path : segment.paths) {
        for (int link : path.links) {
            crossesFailure = crossesFailure || m_topology.link(link).failed();
        }
    }
    if (crossesFailure) {
        segment.paths = routing == config::Routing::Static ? onePath(dimension, replica, fromGpu, toGpu, true)
                                                           : shortestPaths(dimension, replica, fromGpu, toGpu, true);
    }
    if (segment.paths.empty()) {
        throw UnreachableError("GPU " + std::to_string(fromGpu) + " and GPU " + std::to_string(toGpu)
            + " have no surviving path in network dimension \"" + m_topology.layout(dimension).name
            + "\" (failed links cut them apart)");
    }
    if (routing == config::Routing::Adaptive) {
        weighByBandwidth(segment.paths);
    }
    return segment;
}

void Router::weighByBandwidth(std::vector<WeightedPath>& paths) const
{
    double total = 0;
    std::vector<double> bottleneck;
    for (const WeightedPath& path : paths) {
        double rate = std::numeric_limits<double>::infinity();
        for (int link : path.links) {
            rate = std::min(rate, m_topology.link(link).effectiveBandwidth());
        }
        bottleneck.push_back(rate);
        total += rate;
    }
    for (size_t i = 0; i < paths.size() && total > 0 && std::isfinite(total); ++i) {
        paths[i].fraction = bottleneck[i] / total;
    }
}

int Router::linkBetween(int fromNode, int toNode, int dimension) const
{
    for (int link : m_topology.outLinks(fromNode)) {
        const Link& candidate = m_topology.link(link);
        if (candidate.to == toNode && candidate.dimension == dimension) {
            return link;
        }
    }
    throw std::logic_error("no link between nodes " + std::to_string(fromNode) + " and " + std::to_string(toNode));
}

std::vector<WeightedPath> Router::structuredPaths(int dimension, int replica, int from, int to) const
{
    const DimensionLayout& layout = m_topology.layout(dimension);
    WeightedPath path;
    auto walk = [&](int localFrom, int localTo) {
        path.links.push_back(linkBetween(
            m_topology.gpuAt(dimension, replica, localFrom), m_topology.gpuAt(dimension, replica, localTo), dimension));
    };
    const int a = m_topology.localIndex(from, dimension);
    const int b = m_topology.localIndex(to, dimension);
    switch (layout.kind) {
    case config::NetworkKind::FullyConnected:
        walk(a, b);
        return { path };
    case config::NetworkKind::Switch: {
        const int hub = m_topology.nodeOf(dimension, replica, { true, 1, 0 });
        path.links.push_back(linkBetween(from, hub, dimension));
        path.links.push_back(linkBetween(hub, to, dimension));
        return { path };
    }
    case config::NetworkKind::FatTree:
    case config::NetworkKind::RailOptimized:
        // Shortest paths of the intact graph are exactly the up-down paths; static routing takes one of them.
        return layout.routing == config::Routing::Static ? onePath(dimension, replica, from, to, false)
                                                         : shortestPaths(dimension, replica, from, to, false);
    case config::NetworkKind::Ring:
    case config::NetworkKind::Torus2d:
    case config::NetworkKind::Torus3d:
    case config::NetworkKind::Mesh2d: {
        if (layout.routing != config::Routing::Static) {
            return shortestPaths(dimension, replica, from, to, false);
        }
        const bool wrap = layout.kind != config::NetworkKind::Mesh2d;
        int current = a;
        int stride = 1;
        for (int extent : layout.shape) {
            const int source = (current / stride) % extent;
            const int target = (b / stride) % extent;
            int forward = (target - source + extent) % extent;
            int step = 1;
            int count = forward;
            if (!wrap) {
                step = target >= source ? 1 : -1;
                count = std::abs(target - source);
            } else if (forward > extent - forward) {
                step = -1;
                count = extent - forward;
            }
            for (int i = 0; i < count; ++i) {
                const int coordinate = (current / stride) % extent;
                const int nextCoordinate = (coordinate + step + extent) % extent;
                const int next = current + (nextCoordinate - coordinate) * stride;
                walk(current, next);
                current = next;
            }
            stride *= extent;
        }
        return { path };
    }
    }
    return {};
}

std::vector<int> Router::distancesTo(int dimension, int replica, int toNode, bool avoidFailed) const
{
    const DimensionLayout& layout = m_topology.layout(dimension);
    const int localCount = layout.endpoints + layout.switchCount();
    std::vector<int> distance(static_cast<size_t>(localCount), kUnreached);
    std::deque<int> queue;
    distance[static_cast<size_t>(localNode(m_topology, layout, dimension, toNode))] = 0;
    queue.push_back(toNode);
    while (!queue.empty()) {
        const int node = queue.front();
        queue.pop_front();
        const int here = distance[static_cast<size_t>(localNode(m_topology, layout, dimension, node))];
        for (int linkIndex : m_topology.outLinks(node)) {
            const Link& link = m_topology.link(linkIndex);
            if (!usable(link, dimension, replica, avoidFailed)) {
                continue;
            }
            int& there = distance[static_cast<size_t>(localNode(m_topology, layout, dimension, link.to))];
            if (there == kUnreached) {
                there = here + 1;
                queue.push_back(link.to);
            }
        }
    }
    return distance;
}

bool Router::usable(const Link& link, int dimension, int replica, bool avoidFailed)
{
    return link.dimension == dimension && link.replica == replica && !(avoidFailed && link.failed());
}

std::vector<int> Router::nextHops(
    const std::vector<int>& distance, int dimension, int replica, int node, bool avoidFailed) const
{
    const DimensionLayout& layout = m_topology.layout(dimension);
    const int here = distance[static_cast<size_t>(localNode(m_topology, layout, dimension, node))];
    std::vector<int> next;
    for (int linkIndex : m_topology.outLinks(node)) {
        const Link& link = m_topology.link(linkIndex);
        if (usable(link, dimension, replica, avoidFailed)
            && distance[static_cast<size_t>(localNode(m_topology, layout, dimension, link.to))] == here - 1) {
            next.push_back(linkIndex);
        }
    }
    return next;
}

std::vector<WeightedPath> Router::onePath(int dimension, int replica, int fromNode, int toNode, bool avoidFailed) const
{
    const DimensionLayout& layout = m_topology.layout(dimension);
    const std::vector<int> distance = distancesTo(dimension, replica, toNode, avoidFailed);
    if (distance[static_cast<size_t>(localNode(m_topology, layout, dimension, fromNode))] == kUnreached) {
        return {};
    }
    // D-mod-k: where c > 1 next hops lead on, take hop (key / divisor) mod c, then divisor *= c; the key is the
    // destination's endpoint index, so every destination has its own deterministic path and different destinations
    // spread over the choices (the up-port of a two-tier tree is the spine destination mod spines).
    const long long key = m_topology.localIndex(toNode, dimension);
    long long divisor = 1;
    WeightedPath path;
    for (int node = fromNode; node != toNode;) {
        const std::vector<int> next = nextHops(distance, dimension, replica, node, avoidFailed);
        const auto count = static_cast<long long>(next.size());
        const int link = next[static_cast<size_t>((key / divisor) % count)];
        divisor = count > 1 && divisor <= key ? divisor * count : divisor;
        path.links.push_back(link);
        node = m_topology.link(link).to;
    }
    return { path };
}

std::vector<WeightedPath> Router::shortestPaths(
    int dimension, int replica, int fromNode, int toNode, bool avoidFailed) const
{
    const DimensionLayout& layout = m_topology.layout(dimension);
    const std::vector<int> distance = distancesTo(dimension, replica, toNode, avoidFailed);
    std::vector<WeightedPath> paths;
    if (distance[static_cast<size_t>(localNode(m_topology, layout, dimension, fromNode))] == kUnreached) {
        return paths;
    }
    std::vector<int> prefix;
    auto extend = [&](auto&& self, int node) -> void {
        if (static_cast<int>(paths.size()) >= kMaxEqualCostPaths) {
            return;
        }
        if (node == toNode) {
            paths.push_back({ prefix, 1.0 });
            return;
        }
        for (int linkIndex : nextHops(distance, dimension, replica, node, avoidFailed)) {
            prefix.push_back(linkIndex);
            self(self, m_topology.link(linkIndex).to);
            prefix.pop_back();
        }
    };
    extend(extend, fromNode);
    for (WeightedPath& path : paths) {
        path.fraction = 1.0 / static_cast<double>(paths.size());
    }
    return paths;
}

double Router::flowBandwidth(const RouteSegment& segment) const
{
    std::map<int, double> share;
    for (const WeightedPath& path : segment.paths) {
        for (int link : path.links) {
            share[link] += path.fraction;
        }
    }
    double rate = std::numeric_limits<double>::infinity();
    for (const auto& [link, fraction] : share) {
        rate = std::min(rate, m_topology.link(link).effectiveBandwidth() / fraction);
    }
    return rate;
}

double Router::latencySeconds(const RouteSegment& segment) const
{
    double seconds = 0;
    if (!segment.paths.empty()) {
        for (int link : segment.paths.front().links) {
            seconds += m_topology.link(link).latencySeconds;
        }
    }
    return seconds;
}

} // namespace rapid::network
