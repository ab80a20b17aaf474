// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "graph/chakratrace.h"

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>

namespace rapid::graph {

/// Which nodes of a trace to draw. A node is drawn when it passes every criterion that is set; the default draws all.
struct ChakraDotFilter {
    std::string nameContains; ///< substring of the node name (e.g. one layer, "mb 3", "backward")
    std::optional<std::uint64_t> firstId; ///< lowest node id drawn (inclusive)
    std::optional<std::uint64_t> lastId; ///< highest node id drawn (inclusive)
    std::function<bool(const ChakraNode&)> predicate; ///< any further test

    bool accepts(const ChakraNode& node) const;
};

/// Writes @p trace (or the subgraph @p filter selects) as Graphviz DOT text. Pure: no I/O besides @p out.
/// Nodes are `n<id>` labelled "name\nTYPE\n<duration> us"; communication nodes are filled ellipses (collectives
/// show kind and size), other nodes boxes. Data dependencies are solid edges, control dependencies dashed; only
/// edges between drawn nodes appear. Nodes and edges follow file order, so the text is stable for tests.
void writeChakraDot(std::ostream& out, const ChakraTrace& trace, const ChakraDotFilter& filter = {});

} // namespace rapid::graph
