// SPDX-License-Identifier: GPL-3.0-or-later
#include "topology.h"

#include "config/linkid.h"

#include <algorithm>
#include <charconv>
#include <stdexcept>

namespace rapid::network {

namespace {

long long endKey(const config::LinkEnd& end)
{
    return end.isSwitch ? (static_cast<long long>(end.tier) << 32) | end.index : end.index;
}

} // namespace

Topology::Topology(const config::HardwareSpec& hardware)
    : Topology(hardware.cluster, hardware.faults)
{
}

Topology::Topology(const config::ClusterSpec& cluster, const std::vector<config::LinkFault>& faults)
    : m_cluster(cluster)
{
    build();
    for (const config::LinkFault& fault : faults) {
        applyFault(fault);
    }
    std::sort(m_faultedReplicas.begin(), m_faultedReplicas.end());
    m_faultedReplicas.erase(std::unique(m_faultedReplicas.begin(), m_faultedReplicas.end()), m_faultedReplicas.end());
}

void Topology::build()
{
    long long total = 1;
    for (const config::NetworkDimension& dimension : m_cluster.dimensions) {
        m_layouts.push_back(makeDimension(dimension));
        m_dimensionStride.push_back(static_cast<int>(total));
        total *= dimension.size;
        if (total > (1 << 24)) {
            throw std::invalid_argument("the network has more than 16M GPUs");
        }
    }
    m_gpuCount = static_cast<int>(total);
    m_nodes.resize(static_cast<size_t>(m_gpuCount));
    for (int gpu = 0; gpu < m_gpuCount; ++gpu) {
        m_nodes[static_cast<size_t>(gpu)].index = gpu;
    }
    for (int d = 0; d < dimensionCount(); ++d) {
        const DimensionLayout& layout = m_layouts[static_cast<size_t>(d)];
        m_switchBase.push_back(nodeCount());
        std::vector<int> offsets;
        int offset = 0;
        for (int count : layout.switchesPerTier) {
            offsets.push_back(offset);
            offset += count;
        }
        m_tierOffset.push_back(offsets);
        for (int replica = 0; replica < replicaCount(d); ++replica) {
            for (size_t tier = 0; tier < layout.switchesPerTier.size(); ++tier) {
                for (int index = 0; index < layout.switchesPerTier[tier]; ++index) {
                    m_nodes.push_back({ true, d, replica, static_cast<int>(tier) + 1, index });
                }
            }
        }
    }
    for (int d = 0; d < dimensionCount(); ++d) {
        const DimensionLayout& layout = m_layouts[static_cast<size_t>(d)];
        m_linkBase.push_back(linkCount());
        for (int replica = 0; replica < replicaCount(d); ++replica) {
            for (size_t local = 0; local < layout.links.size(); ++local) {
                const LocalLink& physical = layout.links[local];
                const int a = nodeOf(d, replica, physical.a);
                const int b = nodeOf(d, replica, physical.b);
                const int localIndex = static_cast<int>(local);
                m_links.push_back({ a, b, d, replica, localIndex, physical.bandwidth, 1.0, layout.latencySeconds });
                m_links.push_back({ b, a, d, replica, localIndex, physical.bandwidth, 1.0, layout.latencySeconds });
            }
        }
    }
    m_outOffsets.assign(static_cast<size_t>(nodeCount()) + 1, 0);
    for (const Link& link : m_links) {
        ++m_outOffsets[static_cast<size_t>(link.from) + 1];
    }
    for (size_t i = 1; i < m_outOffsets.size(); ++i) {
        m_outOffsets[i] += m_outOffsets[i - 1];
    }
    m_outLinks.resize(m_links.size());
    std::vector<int> fill(m_outOffsets.begin(), m_outOffsets.end() - 1);
    for (int i = 0; i < linkCount(); ++i) {
        m_outLinks[static_cast<size_t>(fill[static_cast<size_t>(m_links[static_cast<size_t>(i)].from)]++)] = i;
    }
}

std::span<const int> Topology::outLinks(int node) const
{
    const auto begin = static_cast<size_t>(m_outOffsets[static_cast<size_t>(node)]);
    const auto end = static_cast<size_t>(m_outOffsets[static_cast<size_t>(node) + 1]);
    return { m_outLinks.data() + begin, end - begin };
}

int Topology::localIndex(int gpu, int dimension) const
{
    const auto d = static_cast<size_t>(dimension);
    return (gpu / m_dimensionStride[d]) % m_layouts[d].endpoints;
}

int Topology::replicaOf(int gpu, int dimension) const
{
    const auto d = static_cast<size_t>(dimension);
    const int inner = gpu % m_dimensionStride[d];
    const int outer = gpu / (m_dimensionStride[d] * m_layouts[d].endpoints);
    return inner + outer * m_dimensionStride[d];
}

int Topology::replicaCount(int dimension) const
{
    return m_gpuCount / m_layouts[static_cast<size_t>(dimension)].endpoints;
}

int Topology::gpuAt(int dimension, int replica, int localIndex) const
{
    const auto d = static_cast<size_t>(dimension);
    const int stride = m_dimensionStride[d];
    const int inner = replica % stride;
    const int outer = replica / stride;
    return inner + localIndex * stride + outer * stride * m_layouts[d].endpoints;
}

int Topology::nodeOf(int dimension, int replica, const config::LinkEnd& end) const
{
    if (!end.isSwitch) {
        return gpuAt(dimension, replica, end.index);
    }
    const auto d = static_cast<size_t>(dimension);
    return m_switchBase[d] + replica * m_layouts[d].switchCount() + m_tierOffset[d][static_cast<size_t>(end.tier - 1)]
        + end.index;
}

std::string Topology::linkId(int link) const
{
    const Link& directed = m_links[static_cast<size_t>(link)];
    const DimensionLayout& layout = m_layouts[static_cast<size_t>(directed.dimension)];
    const LocalLink& physical = layout.links[static_cast<size_t>(directed.local)];
    return formatLocalLinkId(layout.name, directed.replica, physical.a, physical.b);
}

int Topology::findLink(const std::string& id) const
{
    std::string why;
    const std::optional<config::LinkIdParts> parts = config::parseLinkId(id, m_cluster, &why);
    if (!parts) {
        throw std::invalid_argument(why);
    }
    const int replica = parts->replica;
    const DimensionLayout& layout = m_layouts[static_cast<size_t>(parts->dimension)];
    const long long a = endKey(parts->a);
    const long long b = endKey(parts->b);
    for (size_t local = 0; local < layout.links.size(); ++local) {
        const long long la = endKey(layout.links[local].a);
        const long long lb = endKey(layout.links[local].b);
        if ((la == a && lb == b) || (la == b && lb == a)) {
            const int physical = static_cast<int>(m_linkBase[static_cast<size_t>(parts->dimension)] / 2
                + replica * static_cast<int>(layout.links.size()) + static_cast<int>(local));
            return 2 * physical + (la == a ? 0 : 1);
        }
    }
    return -1;
}

void Topology::applyFault(const config::LinkFault& fault)
{
    if (!(fault.health >= 0 && fault.health <= 1)) {
        throw std::invalid_argument("fault on \"" + fault.describe() + "\": health must be in 0..1");
    }
    if (fault.isNic()) {
        applyNicFault(fault);
        return;
    }
    const int link = findLink(fault.linkId);
    if (link < 0) {
        throw std::invalid_argument("fault on \"" + fault.linkId + "\": the topology has no such link");
    }
    degrade(link, fault.health);
}

void Topology::degrade(int link, double health)
{
    const int forward = link & ~1;
    for (int directed : { forward, forward + 1 }) {
        Link& target = m_links[static_cast<size_t>(directed)];
        target.health = std::min(target.health, health);
    }
    if (health < 1) {
        const Link& target = m_links[static_cast<size_t>(forward)];
        m_faultedReplicas.emplace_back(target.dimension, target.replica);
    }
}

void Topology::applyNicFault(const config::LinkFault& fault)
{
    int dimension = dimensionCount() - 1;
    if (!fault.nicDimension.empty()) {
        dimension = -1;
        for (int d = 0; d < dimensionCount(); ++d) {
            dimension = m_layouts[static_cast<size_t>(d)].name == fault.nicDimension ? d : dimension;
        }
    }
    if (dimension < 0) {
        throw std::invalid_argument("fault on the " + fault.describe() + ": the network has no such dimension");
    }
    const int perNode = std::max(1, m_cluster.gpusPerNode);
    const int first = fault.nicNode >= 0 ? fault.nicNode * perNode : fault.nicGpu;
    const int count = fault.nicNode >= 0 ? perNode : 1;
    if (first < 0 || first + count > m_gpuCount) {
        throw std::invalid_argument("fault on the " + fault.describe() + ": the network has GPUs 0.."
            + std::to_string(m_gpuCount - 1) + (fault.nicNode >= 0 ? " (" + std::to_string(perNode) + " a node)" : ""));
    }
    // A GPU's NIC drives its links of the dimension: the link to its leaf (or switch), or its neighbour links in a
    // ring, torus or mesh.
    for (int gpu = first; gpu < first + count; ++gpu) {
        for (int link : outLinks(gpu)) {
            if (m_links[static_cast<size_t>(link)].dimension == dimension) {
                degrade(link, fault.health);
            }
        }
    }
}

bool Topology::replicaHasFaults(int dimension, int replica) const
{
    return std::binary_search(m_faultedReplicas.begin(), m_faultedReplicas.end(), std::make_pair(dimension, replica));
}

} // namespace rapid::network
