// SPDX-License-Identifier: GPL-3.0-or-later
#include "linkload.h"

#include <algorithm>

namespace rapid::network {

namespace {

double utilisationOf(const Link& link, double bytes, double seconds)
{
    const double capacity = link.effectiveBandwidth() * seconds;
    return capacity > 0 ? bytes / capacity : 0.0;
}

} // namespace

std::vector<double> linkUtilisation(const Topology& topology, const std::vector<double>& linkBytes, double seconds)
{
    std::vector<double> result(static_cast<size_t>(topology.linkCount()), 0.0);
    const size_t carried = std::min(result.size(), linkBytes.size());
    for (size_t link = 0; link < carried; ++link) {
        result[link] = utilisationOf(topology.link(static_cast<int>(link)), linkBytes[link], seconds);
    }
    return result;
}

std::vector<LinkUse> busiestLinks(const Topology& topology, const std::vector<double>& linkBytes, double seconds)
{
    std::vector<LinkUse> uses;
    const int carried = std::min(topology.linkCount(), static_cast<int>(linkBytes.size()));
    for (int link = 0; link < carried; ++link) {
        const double bytes = linkBytes[static_cast<size_t>(link)];
        if (bytes <= 0) {
            continue;
        }
        const Link& directed = topology.link(link);
        uses.push_back({ link, topology.linkId(link), directed.from < directed.to, bytes,
            utilisationOf(directed, bytes, seconds) });
    }
    std::stable_sort(
        uses.begin(), uses.end(), [](const LinkUse& a, const LinkUse& b) { return a.utilisation > b.utilisation; });
    return uses;
}

} // namespace rapid::network
