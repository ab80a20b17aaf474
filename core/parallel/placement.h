// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/diagnostic.h"
#include "config/hardwarespec.h"
#include "config/runspec.h"
#include "config/sourcemap.h"

#include <string>
#include <vector>

namespace rapid::parallel {

/// How one parallel axis (tp, cp, dp, pp) is laid out over the ranks and the network.
struct AxisPlacement {
    std::string axis;
    int degree = 1;
    int stride = 1; ///< rank distance between neighbours of one group
    std::vector<int> dimensions; ///< network dimensions (indices) its groups span
    std::vector<int> firstGroup; ///< the ranks of the group that holds rank 0

    bool operator==(const AxisPlacement&) const = default;
};

/// Ranks laid out innermost axis first (Megatron order tp, cp, dp, pp unless a mapping reorders them), GPU g of the
/// cluster being rank g, and GPUs numbered innermost network dimension first.
struct Placement {
    std::vector<AxisPlacement> axes; ///< innermost first
    int ranks = 0;

    bool operator==(const Placement&) const = default;
};

/// Coordinates of GPU @p gpu in each network dimension (innermost first).
std::vector<int> networkCoordinates(int gpu, const config::ClusterSpec& cluster);

/// Places the run's ranks on the hardware. An explicit mapping that the layout cannot honour (tp mapped to nvlink
/// while its groups must cross nodes) is reported in @p problems with the mapping's location.
Placement placeRanks(const config::HardwareSpec& hardware, const config::RunSpec& run,
    const config::SourceMap& locations, std::vector<config::Diagnostic>* problems);

} // namespace rapid::parallel
