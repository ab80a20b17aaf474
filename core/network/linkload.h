// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "network/topology.h"

#include <string>
#include <vector>

namespace rapid::network {

/// Per directed link of @p topology: the fraction of its effective bandwidth (health included) that @p linkBytes
/// (bytes carried, indexed by link) used over @p seconds. 0 for a link without capacity; links beyond linkBytes carried
/// nothing.
std::vector<double> linkUtilisation(const Topology& topology, const std::vector<double>& linkBytes, double seconds);

/// One link that carried traffic.
struct LinkUse {
    int link = -1;
    std::string id; ///< Topology::linkId
    bool forward = true; ///< from the lower-numbered endpoint to the higher
    double bytes = 0;
    double utilisation = 0;
};

/// The links that carried anything, busiest (highest utilisation) first; ties keep link order.
std::vector<LinkUse> busiestLinks(const Topology& topology, const std::vector<double>& linkBytes, double seconds);

} // namespace rapid::network
