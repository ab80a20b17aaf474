// SPDX-License-Identifier: GPL-3.0-or-later
#include "linkclasses.h"

#include <algorithm>
#include <map>

namespace rapid::resilience {

namespace {

const char* tierName(int tier)
{
    switch (tier) {
    case 1:
        return "leaf";
    case 2:
        return "spine";
    case 3:
        return "core";
    default:
        return "switch";
    }
}

/// "GPU-leaf", "leaf-spine", "GPU-switch" (a single switch: NVSwitch), or the torus/mesh axis along which it runs.
std::string levelOf(const network::Topology& topology, const network::Link& link)
{
    const network::DimensionLayout& layout = topology.layout(link.dimension);
    const network::Node& from = topology.node(link.from);
    const network::Node& to = topology.node(link.to);
    const auto end = [&](const network::Node& node) {
        if (!node.isSwitch) {
            return std::string("GPU");
        }
        return std::string(layout.tiers <= 1 && layout.switchesPerTier.size() <= 1 ? "switch" : tierName(node.tier));
    };
    if (from.isSwitch || to.isSwitch) {
        const bool fromFirst = !from.isSwitch || (to.isSwitch && from.tier < to.tier);
        return fromFirst ? end(from) + "-" + end(to) : end(to) + "-" + end(from);
    }
    const std::vector<int>& shape = layout.shape;
    if (shape.size() > 1) {
        // Endpoint index = x + X (y + Y z): the axis is the coordinate in which the two ends differ.
        int a = topology.localIndex(from.index, link.dimension);
        int b = topology.localIndex(to.index, link.dimension);
        static const char* const axes[] = { "x", "y", "z" };
        for (std::size_t axis = 0; axis < shape.size() && axis < 3; ++axis) {
            if (a % shape[axis] != b % shape[axis]) {
                return std::string("axis ") + axes[axis];
            }
            a /= shape[axis];
            b /= shape[axis];
        }
    }
    return "GPU-GPU";
}

/// One opt-in class per scale-out dimension (not the innermost, GPUs linked to switches) when nodes hold several
/// GPUs: unit n = every link of node n's GPUs into that dimension.
void addNodeNicClasses(const network::Topology& topology, std::vector<LinkClass>& classes)
{
    const int perNode = topology.cluster().gpusPerNode;
    if (perNode <= 1) {
        return;
    }
    for (int dimension = 1; dimension < topology.dimensionCount(); ++dimension) {
        LinkClass nics { topology.layout(dimension).name + " node NICs", {}, {}, true };
        for (int gpu = 0; gpu < topology.gpuCount(); ++gpu) {
            const std::size_t node = static_cast<std::size_t>(gpu / perNode);
            for (const int link : topology.outLinks(gpu)) {
                const network::Link& out = topology.link(link);
                if (out.dimension != dimension || !topology.node(out.to).isSwitch) {
                    continue;
                }
                nics.groups.resize(std::max(nics.groups.size(), node + 1));
                nics.groups[node].push_back(link / 2);
                nics.physicalLinks.push_back(link / 2);
            }
        }
        nics.groups.erase(
            std::remove_if(nics.groups.begin(), nics.groups.end(), [](const FaultUnit& unit) { return unit.empty(); }),
            nics.groups.end());
        if (!nics.physicalLinks.empty()) {
            classes.push_back(std::move(nics));
        }
    }
}

} // namespace

std::vector<LinkClass> linkClasses(const network::Topology& topology)
{
    std::map<std::pair<int, std::string>, std::vector<int>> byClass;
    for (int physical = 0; physical < topology.physicalLinkCount(); ++physical) {
        const network::Link& link = topology.link(2 * physical);
        byClass[{ link.dimension, levelOf(topology, link) }].push_back(physical);
    }
    std::vector<LinkClass> classes;
    for (auto& [key, links] : byClass) {
        classes.push_back({ topology.layout(key.first).name + " " + key.second, std::move(links), {}, false });
    }
    addNodeNicClasses(topology, classes);
    return classes;
}

} // namespace rapid::resilience
