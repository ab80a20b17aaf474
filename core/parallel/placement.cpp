// SPDX-License-Identifier: GPL-3.0-or-later
#include "placement.h"

#include <algorithm>
#include <set>

namespace rapid::parallel {

std::vector<int> networkCoordinates(int gpu, const config::ClusterSpec& cluster)
{
    std::vector<int> coordinates;
    for (const config::NetworkDimension& dimension : cluster.dimensions) {
        coordinates.push_back(gpu % dimension.size);
        gpu /= dimension.size;
    }
    return coordinates;
}

Placement placeRanks(const config::HardwareSpec& hardware, const config::RunSpec& run,
    const config::SourceMap& locations, std::vector<config::Diagnostic>* problems)
{
    const config::ParallelismSpec& parallel = run.parallelism;
    const auto& dims = hardware.cluster.dimensions;
    auto dimensionIndex = [&](const std::string& name) {
        for (size_t i = 0; i < dims.size(); ++i) {
            if (dims[i].name == name) {
                return static_cast<int>(i);
            }
        }
        return static_cast<int>(dims.size());
    };
    struct Axis {
        std::string name;
        int degree;
        int innermostMapped;
    };
    std::vector<Axis> axes
        = { { "tp", parallel.tp, 0 }, { "cp", parallel.cp, 0 }, { "dp", parallel.dp, 0 }, { "pp", parallel.pp, 0 } };
    for (Axis& axis : axes) {
        auto found = parallel.mapping.find(axis.name);
        axis.innermostMapped = static_cast<int>(dims.size());
        if (found != parallel.mapping.end()) {
            for (const std::string& name : found->second) {
                axis.innermostMapped = std::min(axis.innermostMapped, dimensionIndex(name));
            }
        }
    }
    // Axes mapped to inner dimensions are laid out first; unmapped axes keep Megatron's order.
    if (!parallel.mapping.empty()) {
        std::stable_sort(axes.begin(), axes.end(),
            [](const Axis& a, const Axis& b) { return a.innermostMapped < b.innermostMapped; });
    }
    Placement placement;
    placement.ranks = parallel.gpuCount();
    int stride = 1;
    for (const Axis& axis : axes) {
        AxisPlacement result;
        result.axis = axis.name;
        result.degree = axis.degree;
        result.stride = stride;
        std::set<int> spanned;
        const std::vector<int> origin = networkCoordinates(0, hardware.cluster);
        for (int member = 0; member < axis.degree; ++member) {
            const int rank = member * stride;
            result.firstGroup.push_back(rank);
            const std::vector<int> coordinates = networkCoordinates(rank, hardware.cluster);
            for (size_t d = 0; d < coordinates.size(); ++d) {
                if (coordinates[d] != origin[d]) {
                    spanned.insert(static_cast<int>(d));
                }
            }
        }
        result.dimensions.assign(spanned.begin(), spanned.end());
        auto mapped = parallel.mapping.find(axis.name);
        if (problems && mapped != parallel.mapping.end() && axis.degree > 1) {
            std::set<int> allowed;
            for (const std::string& name : mapped->second) {
                allowed.insert(dimensionIndex(name));
            }
            for (int d : result.dimensions) {
                if (!allowed.count(d)) {
                    const std::string path = "run.parallelism.mapping." + axis.name;
                    problems->push_back({ locations.locate(path), path,
                        axis.name + " groups of " + std::to_string(axis.degree) + " ranks (stride "
                            + std::to_string(stride) + ") must span the network dimension \""
                            + dims[static_cast<size_t>(d)].name + "\", which the mapping excludes" });
                    break;
                }
            }
        }
        placement.axes.push_back(result);
        stride *= axis.degree;
    }
    return placement;
}

} // namespace rapid::parallel
