// SPDX-License-Identifier: GPL-3.0-or-later
#include "routecache.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace rapid::sim {

RouteCache::RouteCache(std::shared_ptr<const network::Topology> topology, double packetBytes)
    : m_topology(std::move(topology))
    , m_router(*m_topology)
    , m_packetBytes(packetBytes)
{
    m_capacity.resize(static_cast<size_t>(m_topology->linkCount()));
    for (int link = 0; link < m_topology->linkCount(); ++link) {
        m_capacity[static_cast<size_t>(link)] = m_topology->link(link).effectiveBandwidth() * 1e-9;
    }
}

void RouteCache::appendRoute(
    int from, int to, std::vector<LinkLoad>& loads, double& latencySeconds, int& hops, double& slowest)
{
    const network::Route route = m_router.route(from, to);
    for (const network::RouteSegment& segment : route.segments) {
        for (const network::WeightedPath& path : segment.paths) {
            for (int link : path.links) {
                loads.push_back({ link, path.fraction });
            }
        }
        latencySeconds += m_router.latencySeconds(segment);
        if (!segment.paths.empty()) {
            // Equal-cost paths have the same length; the first stands for all.
            for (int link : segment.paths.front().links) {
                ++hops;
                slowest = std::min(slowest, m_topology->link(link).effectiveBandwidth());
            }
        }
    }
}

double RouteCache::storeAndForwardSeconds(int hops, double slowest) const
{
    if (m_packetBytes <= 0 || hops < 2 || !(slowest > 0) || !std::isfinite(slowest)) {
        return 0;
    }
    return (hops - 1) * m_packetBytes / slowest;
}

int RouteCache::store(std::vector<LinkLoad>& loads, double latencySeconds)
{
    // Merge repeated links so every link appears once with its summed weight.
    std::sort(loads.begin(), loads.end(), [](const LinkLoad& a, const LinkLoad& b) { return a.link < b.link; });
    CompiledRoute compiled;
    compiled.offset = static_cast<std::uint32_t>(m_loads.size());
    for (const LinkLoad& load : loads) {
        if (m_loads.size() > compiled.offset && m_loads.back().link == load.link) {
            m_loads.back().weight += load.weight;
        } else {
            m_loads.push_back(load);
        }
    }
    compiled.count = static_cast<std::uint32_t>(m_loads.size() - compiled.offset);
    compiled.latency = toNanoseconds(latencySeconds);
    m_routes.push_back(compiled);
    return static_cast<int>(m_routes.size()) - 1;
}

int RouteCache::route(int from, int to)
{
    const std::uint64_t key
        = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(from)) << 32) | static_cast<std::uint32_t>(to);
    auto found = m_byPair.find(key);
    if (found != m_byPair.end()) {
        return found->second;
    }
    std::vector<LinkLoad> loads;
    double latency = 0;
    int hops = 0;
    double slowest = std::numeric_limits<double>::infinity();
    appendRoute(from, to, loads, latency, hops, slowest);
    const int id = store(loads, latency + storeAndForwardSeconds(hops, slowest));
    m_byPair.emplace(key, id);
    return id;
}

int RouteCache::chain(std::span<const int> gpus)
{
    std::vector<LinkLoad> loads;
    double latency = 0;
    int hops = 0;
    double slowest = std::numeric_limits<double>::infinity();
    for (size_t i = 0; i + 1 < gpus.size(); ++i) {
        appendRoute(gpus[i], gpus[i + 1], loads, latency, hops, slowest);
    }
    return store(loads, latency + storeAndForwardSeconds(hops, slowest));
}

} // namespace rapid::sim
