// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "network/topology.h"

#include <string>
#include <vector>

namespace rapid::resilience {

/// Physical links of one kind, where a fault study draws its faults: the links of one network dimension at one
/// level ("nvlink GPU-switch", "ib GPU-leaf", "ib leaf-spine", "ib spine-core") or along one torus or mesh axis
/// ("torus x"). Links of a class are alike in bandwidth and role, though not always in the traffic they carry.
struct LinkClass {
    std::string name;
    std::vector<int> physicalLinks; ///< Topology physical link indices (directed links 2i and 2i + 1)
};

/// Every class of @p topology's links, in dimension order, then by level or axis.
std::vector<LinkClass> linkClasses(const network::Topology& topology);

} // namespace rapid::resilience
