// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <array>
#include <optional>
#include <string_view>

namespace rapid::parallel {

/// A parallel axis of a run. Tp, Cp, Dp and Pp partition the ranks (each rank has one coordinate on each); Ep is not
/// an axis of its own in the layout: its groups are consecutive slices of the data-parallel groups.
enum class Axis { Tp, Cp, Dp, Pp, Ep };

/// The axes that lay out the ranks, in Megatron's default order (innermost first).
inline constexpr std::array<Axis, 4> kLayoutAxes = { Axis::Tp, Axis::Cp, Axis::Dp, Axis::Pp };

/// "tp", "cp", "dp", "pp", "ep": the names the run document and the output use.
const char* toString(Axis axis);
std::optional<Axis> parseAxis(std::string_view name);

} // namespace rapid::parallel
