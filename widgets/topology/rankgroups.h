// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "parallel/placement.h"

#include <string>
#include <vector>

namespace rapid::widgets {

/// Where one rank sits on one parallel axis: its index inside its group and which group of that axis it is in.
struct RankAxis {
    std::string axis; ///< "tp", "cp", "dp", "pp"
    int degree = 1; ///< ranks per group
    int index = 0; ///< 0..degree-1 inside the group
    int group = 0; ///< groups of one axis numbered by their lowest rank, 0..ranks/degree-1
};

/// The axes of @p placement for @p rank, innermost first. A Placement lays ranks out as a mixed-radix number (index
/// on an axis = rank / stride % degree), so a group is every rank that agrees on all the other axes.
std::vector<RankAxis> rankAxes(const parallel::Placement& placement, int rank);

/// The axes (degree > 1) on which every rank of [@p first, @p first + @p count) has the same index: what a group of
/// GPUs drawn together shares ("dp 1 · pp 1" for a node holding one tensor-parallel group).
std::vector<RankAxis> sharedAxes(const parallel::Placement& placement, int first, int count);

} // namespace rapid::widgets
