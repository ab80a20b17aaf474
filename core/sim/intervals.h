// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <utility>
#include <vector>

namespace rapid::sim {

/// Length of the union of @p intervals ([start, end) pairs, any order, overlapping or not).
double unionLength(std::vector<std::pair<double, double>> intervals);

/// Length of the part of @p covered (a union) outside @p removed (disjoint intervals): how much of a rank's
/// communication no compute hides.
double uncoveredLength(std::vector<std::pair<double, double>> covered, std::vector<std::pair<double, double>> removed);

} // namespace rapid::sim
