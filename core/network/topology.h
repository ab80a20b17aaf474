// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/hardwarespec.h"
#include "network/dimensionlayout.h"

#include <span>
#include <string>
#include <vector>

namespace rapid::network {

/// A vertex of the network graph: a GPU or a switch of one dimension instance.
struct Node {
    bool isSwitch = false;
    int dimension = -1; ///< switches only
    int replica = 0; ///< switches only: the dimension instance
    int tier = 0; ///< switches only; 1 = leaf
    int index = 0; ///< GPU: global GPU index; switch: index within its tier of its instance

    bool operator==(const Node&) const = default;
};

/// One direction of a physical link. Directed link 2i is a->b of physical link i, 2i+1 is b->a.
struct Link {
    int from = 0; ///< node index
    int to = 0; ///< node index
    int dimension = 0;
    int replica = 0; ///< instance of the dimension (see Topology::replicaOf)
    int local = 0; ///< index into DimensionLayout::links
    double bandwidth = 0; ///< bytes/s, nominal, this direction
    double health = 1.0; ///< from the faults: multiplies the bandwidth; 0 = failed
    double latencySeconds = 0; ///< one hop

    double effectiveBandwidth() const { return bandwidth * health; }
    bool failed() const { return health <= 0; }
    bool operator==(const Link&) const = default;
};

/// The explicit graph of a multi-dimensional network: GPUs (nodes 0..gpuCount-1), then the switches, joined by
/// directed links. Dimension d joins the GPUs that differ only in their coordinate d (coordinate_d = (gpu /
/// prod(sizes[<d])) % size_d); it is replicated once for every combination of the other coordinates. Replica r of
/// dimension d is the number formed by the other coordinates, innermost first (for NVLink x InfiniBand: the NVLink
/// replica is the node, the InfiniBand replica is the rail).
///
/// Faults name links as "<dimension>:<a>-<b>" (replica 0, the form config::parseLinkId accepts) or
/// "<dimension>@<replica>:<a>-<b>"; either orientation of the ends matches. A NIC fault (config::LinkFault::isNic)
/// degrades every link of its node's GPUs (of its GPU) in its dimension. Several faults on one link: the lowest
/// health wins. An immutable value after construction; thread-safe to read.
class Topology {
public:
    /// Builds the cluster's network and applies the faults. Throws std::invalid_argument for invalid dimensions
    /// (see the factories in dimensionlayout.h) or a fault naming a link that does not exist.
    explicit Topology(const config::HardwareSpec& hardware);
    Topology(const config::ClusterSpec& cluster, const std::vector<config::LinkFault>& faults);

    int gpuCount() const { return m_gpuCount; }
    int nodeCount() const { return static_cast<int>(m_nodes.size()); }
    int linkCount() const { return static_cast<int>(m_links.size()); } ///< directed links
    int physicalLinkCount() const { return linkCount() / 2; }
    int dimensionCount() const { return static_cast<int>(m_layouts.size()); }

    const Node& node(int index) const { return m_nodes[static_cast<size_t>(index)]; }
    const Link& link(int index) const { return m_links[static_cast<size_t>(index)]; }
    /// Directed links leaving @p node.
    std::span<const int> outLinks(int node) const;
    const DimensionLayout& layout(int dimension) const { return m_layouts[static_cast<size_t>(dimension)]; }
    const config::ClusterSpec& cluster() const { return m_cluster; }

    /// Coordinate of @p gpu in @p dimension (its endpoint index within the dimension instance).
    int localIndex(int gpu, int dimension) const;
    int replicaOf(int gpu, int dimension) const;
    int replicaCount(int dimension) const;
    /// The GPU at endpoint @p localIndex of instance @p replica of @p dimension.
    int gpuAt(int dimension, int replica, int localIndex) const;
    /// The node of a local link end in an instance.
    int nodeOf(int dimension, int replica, const config::LinkEnd& end) const;

    /// Stable text id of the physical link of directed link @p link (see the class comment).
    std::string linkId(int link) const;
    /// Directed link a->b named by @p id (either orientation), -1 if the topology has no such link. Throws
    /// std::invalid_argument for a malformed id.
    int findLink(const std::string& id) const;

    /// True when some link of the instance is degraded or failed.
    bool replicaHasFaults(int dimension, int replica) const;
    bool hasFaults() const { return !m_faultedReplicas.empty(); }

private:
    void build();
    void applyFault(const config::LinkFault& fault);
    /// Every link of the NIC fault's GPUs in its dimension (the outermost when unnamed).
    void applyNicFault(const config::LinkFault& fault);
    /// Lowers both directions of physical link @p link to @p health (the lowest health of several faults wins).
    void degrade(int link, double health);

    config::ClusterSpec m_cluster;
    int m_gpuCount = 0;
    std::vector<DimensionLayout> m_layouts;
    std::vector<Node> m_nodes;
    std::vector<Link> m_links;
    std::vector<int> m_outOffsets; ///< CSR over m_outLinks, nodeCount + 1 entries
    std::vector<int> m_outLinks;
    std::vector<int> m_dimensionStride; ///< prod(sizes[<d])
    std::vector<int> m_switchBase; ///< first switch node of dimension d
    std::vector<std::vector<int>> m_tierOffset; ///< [d][tier-1]: offset of that tier within one instance
    std::vector<int> m_linkBase; ///< first directed link of dimension d
    std::vector<std::pair<int, int>> m_faultedReplicas; ///< sorted (dimension, replica)
};

} // namespace rapid::network
