// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "network/topology.h"

#include <string>
#include <vector>

namespace rapid::resilience {

/// Physical links that fail together in a fault study: one link, or every NIC link of a node.
using FaultUnit = std::vector<int>;

/// Physical links of one kind, where a fault study draws its faults: the links of one network dimension at one
/// level ("nvlink GPU-switch", "ib GPU-leaf", "ib leaf-spine", "ib spine-core") or along one torus or mesh axis
/// ("torus x"). Links of a class are alike in bandwidth and role, though not always in the traffic they carry.
/// A class draws whole units: single links, except "<dimension> node NICs", whose unit is all of one node's links
/// into that scale-out dimension (a host adapter, its PCIe switch or the node's cabling failing at once).
struct LinkClass {
    std::string name;
    std::vector<int> physicalLinks; ///< Topology physical link indices (directed links 2i and 2i + 1)
    std::vector<FaultUnit> groups; ///< the units when they are not single links (empty: one unit per link)
    /// Drawn only when named: a node's NICs overlap the GPU-leaf class, and "every class" keeps meaning every link.
    bool optIn = false;

    std::size_t unitCount() const { return groups.empty() ? physicalLinks.size() : groups.size(); }
    FaultUnit unit(std::size_t index) const
    {
        return groups.empty() ? FaultUnit { physicalLinks[index] } : groups[index];
    }
};

/// Every class of @p topology's links, in dimension order, then by level or axis; then the opt-in node NIC classes of
/// the scale-out dimensions (nodes of more than one GPU, GPUs linked to switches).
std::vector<LinkClass> linkClasses(const network::Topology& topology);

} // namespace rapid::resilience
