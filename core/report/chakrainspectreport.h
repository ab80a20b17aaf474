// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "graph/chakrainspect.h"

#include <cstddef>
#include <iosfwd>
#include <vector>

namespace rapid::report {

/// Writes the inspection as readable text: per rank the node counts by type, edge counts, collectives by kind and
/// size, point-to-point totals and the critical path; then the defects grouped by kind, at most
/// @p maxDefectsPerKind of each (0 = all) with a count of the rest. Ranks with identical counts are folded into one
/// line group.
void writeChakraInspectionText(
    std::ostream& out, const graph::ChakraInspection& inspection, std::size_t maxDefectsPerKind = 20);

/// Writes the whole inspection as one JSON object (every defect, every node id).
void writeChakraInspectionJson(std::ostream& out, const graph::ChakraInspection& inspection);

} // namespace rapid::report
