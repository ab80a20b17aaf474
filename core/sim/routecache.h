// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "network/router.h"
#include "network/topology.h"
#include "sim/simtime.h"

#include <memory>
#include <span>
#include <unordered_map>
#include <vector>

namespace rapid::sim {

/// How much of a flow's rate one directed link carries: ECMP paths split a flow, so a link on k of n equal-cost paths
/// carries k/n of it (a link crossed twice, e.g. by a forwarding chain, carries 2).
struct LinkLoad {
    int link = 0;
    double weight = 1.0;
};

/// A compiled route: the links it loads and the latency its last byte takes to arrive.
struct CompiledRoute {
    std::uint32_t offset = 0; ///< into RouteCache's load arena
    std::uint32_t count = 0;
    TimeNs latency = 0;
};

/// GPU-to-GPU routes of a topology compiled to (link, weight) lists and cached, so that millions of flows between a
/// few thousand distinct pairs route once per pair. Also holds each directed link's capacity in bytes per
/// nanosecond (health applied). Not thread-safe (one per simulation); the topology is shared and immutable.
class RouteCache {
public:
    /// @p packetBytes > 0 models store-and-forward switching: every hop after the first adds the time to receive one
    /// packet of that size at the route's slowest link (a packet-level simulator's per-hop serialisation); 0 is
    /// cut-through (the default: NVLink and InfiniBand switches forward a packet while it is still arriving).
    explicit RouteCache(std::shared_ptr<const network::Topology> topology, double packetBytes = 0);

    /// Route id of @p from -> @p to. Throws network::UnreachableError when failed links cut them apart.
    int route(int from, int to);
    /// Route id of a forwarding chain gpus[0] -> gpus[1] -> ... -> gpus.back() (a pipelined broadcast's data path):
    /// the loads and latencies of its hops add up. Not cached.
    int chain(std::span<const int> gpus);

    const CompiledRoute& compiled(int id) const { return m_routes[static_cast<size_t>(id)]; }
    std::span<const LinkLoad> loads(int id) const
    {
        const CompiledRoute& r = m_routes[static_cast<size_t>(id)];
        return { m_loads.data() + r.offset, r.count };
    }
    /// Bytes per nanosecond of directed link @p link (0 when failed).
    double capacity(int link) const { return m_capacity[static_cast<size_t>(link)]; }
    int linkCount() const { return static_cast<int>(m_capacity.size()); }
    const network::Topology& topology() const { return *m_topology; }
    const std::shared_ptr<const network::Topology>& sharedTopology() const { return m_topology; }
    int routeCount() const { return static_cast<int>(m_routes.size()); }

private:
    void appendRoute(
        int from, int to, std::vector<LinkLoad>& loads, double& latencySeconds, int& hops, double& slowest);
    double storeAndForwardSeconds(int hops, double slowest) const;
    int store(std::vector<LinkLoad>& loads, double latencySeconds);

    std::shared_ptr<const network::Topology> m_topology;
    network::Router m_router;
    std::vector<double> m_capacity;
    double m_packetBytes = 0;
    std::vector<LinkLoad> m_loads;
    std::vector<CompiledRoute> m_routes;
    std::unordered_map<std::uint64_t, int> m_byPair;
};

} // namespace rapid::sim
