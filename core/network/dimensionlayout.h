// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/hardwarespec.h"
#include "config/linkid.h"

#include <string>
#include <vector>

namespace rapid::network {

/// One physical (bidirectional) link of a dimension instance, named by its local ends: endpoint indices
/// 0..endpoints-1 of the dimension or switches `s<tier>.<index>` (see config::LinkEnd).
struct LocalLink {
    config::LinkEnd a; ///< canonical order: endpoint before switch, lower tier / lower index first
    config::LinkEnd b;
    double bandwidth = 0; ///< bytes/s per direction, before faults

    bool operator==(const LocalLink&) const = default;
};

/// The graph of ONE instance of a network dimension (the topology replicates it for every combination of the other
/// dimensions' coordinates). Built by the factories below, which validate their parameters.
struct DimensionLayout {
    std::string name;
    config::NetworkKind kind = config::NetworkKind::Switch;
    int endpoints = 0; ///< GPUs in one instance
    std::vector<int> shape; ///< torus/mesh extents, innermost first ({x, y} or {x, y, z}); {endpoints} otherwise
    std::vector<int> switchesPerTier; ///< [tier-1] = switch count of that tier; empty without switches
    std::vector<LocalLink> links;
    double linkBandwidth = 0; ///< bytes/s per direction of an endpoint link (data rate: line rate x efficiency)
    double latencySeconds = 0; ///< per hop
    double ncclStepSeconds = 0; ///< NCCL's measured ring step across the dimension (config::NetworkDimension)
    /// Switch: the all-reduce algorithm bandwidth of in-switch reduction (bytes/s; 0: none).
    double inNetworkAllReduceBandwidth = 0;
    // Fat tree only.
    int tiers = 0;
    int switchRadix = 0;
    double oversubscription = 1.0;
    /// Endpoints below one leaf (switch_radix / 2 with two or more tiers; all endpoints with one tier; hosts_per_leaf
    /// of an explicit leaf-spine tree).
    int downPorts = 0;
    /// Total uplink bandwidth of one leaf (bytes/s per direction): uplinks x their rate. 0 for trees of one tier.
    double leafUplinkBandwidth = 0;
    /// Parallel cables from one leaf to one spine of a two-tier tree (uplinks_per_leaf / spines); the cables of a
    /// leaf-spine pair are one link of their summed bandwidth.
    int cablesPerSpine = 0;
    config::Routing routing = config::Routing::Static; ///< the effective routing (never Auto)

    int switchCount() const;
    bool operator==(const DimensionLayout&) const = default;
};

// Factories. Each throws std::invalid_argument naming the dimension and the offending parameter.
// Bandwidths in bytes/s per direction, latencies in seconds per hop.

/// Ring of @p size endpoints: link i joins i and (i+1) mod size (a ring of 2 has a single link).
DimensionLayout makeRing(const std::string& name, int size, double bandwidth, double latencySeconds);
/// Every pair of endpoints joined by its own link: size(size-1)/2 links.
DimensionLayout makeFullyConnected(const std::string& name, int size, double bandwidth, double latencySeconds);
/// One switch `s1.0` with one link per endpoint (e.g. NVSwitch: the per-GPU NVLink bandwidth).
DimensionLayout makeSwitch(const std::string& name, int size, double bandwidth, double latencySeconds);
/// x-by-y torus with wrap-around; endpoint index = x + X*y. An extent of 2 has one link per neighbour pair.
DimensionLayout makeTorus2d(const std::string& name, int x, int y, double bandwidth, double latencySeconds);
/// x-by-y-by-z torus; endpoint index = x + X*(y + Y*z).
DimensionLayout makeTorus3d(const std::string& name, int x, int y, int z, double bandwidth, double latencySeconds);
/// x-by-y mesh without wrap-around: (x-1)y + x(y-1) links.
DimensionLayout makeMesh2d(const std::string& name, int x, int y, double bandwidth, double latencySeconds);

/// Folded-Clos fat tree. With tiers = 1, one switch of @p switchRadix ports holds every endpoint. With more tiers,
/// k = radix/2: a leaf has k endpoint ports and k uplinks; a tier-l switch (l < tiers) belongs to a pod of k^l
/// endpoints holding k^(l-1) such switches, and switch j of a pod links to switches j + m*k^(l-1) (m < k) of its
/// parent pod; the top tier has k^(tiers-1) switches with up to radix down ports. Capacity: radix * k^(tiers-1)
/// endpoints. Links between tier l and l+1 run at bandwidth / oversubscription^l (each tier tapers by the ratio).
DimensionLayout makeFatTree(const std::string& name, int size, int tiers, int switchRadix, double oversubscription,
    double bandwidth, double latencySeconds);

/// Two-tier leaf-spine tree with an explicit leaf: ceil(size / hostsPerLeaf) leaves of hostsPerLeaf endpoints (leaf
/// e / hostsPerLeaf holds endpoint e), each joined to every one of @p spines spines by one link carrying
/// uplinksPerLeaf / spines cables of @p uplinkBandwidth. @p kind is FatTree or RailOptimized (one instance = one rail).
/// The caller checks the spine ports (config); here the structure itself is checked.
DimensionLayout makeLeafSpine(const std::string& name, config::NetworkKind kind, int size, int hostsPerLeaf,
    int uplinksPerLeaf, int spines, double uplinkBandwidth, double bandwidth, double latencySeconds);

/// Dispatches on the dimension's kind and checks that shape and size agree.
DimensionLayout makeDimension(const config::NetworkDimension& dimension);

/// Text id of a link of instance @p replica of a dimension: "<name>:<a>-<b>" for replica 0 (the form YAML faults
/// use) and "<name>@<replica>:<a>-<b>" for the other instances.
std::string formatLocalLinkId(
    const std::string& dimensionName, int replica, const config::LinkEnd& a, const config::LinkEnd& b);

} // namespace rapid::network
