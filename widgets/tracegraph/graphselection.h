// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "graph/chakradot.h"
#include "graph/chakratrace.h"

#include <QString>

#include <cstddef>
#include <optional>

namespace rapid::widgets {

/// Most nodes and edges the graph view hands to Graphviz at once. Beyond these, "dot" takes minutes (a 396-node
/// slice of the PyTorch sample with 4,308 edges runs for more than 30 s; 640 nodes with 954 edges take 0.2 s), and
/// the drawing would be unreadable anyway, so the view asks for a narrower filter instead.
inline constexpr std::size_t kMaxLaidOutNodes = 2000;
inline constexpr std::size_t kMaxLaidOutEdges = 2500;

/// Builds the view's filter: a node passes when its name or its type's wire name ("COMP_NODE") contains @p text,
/// ignoring ASCII case ("backward", "layer3", "micro-batch 3", "comp"), and its id lies in @p idRange ("FIRST-LAST",
/// "FIRST-", "-LAST" or a single id; empty for all). Nullopt with @p error set when the range cannot be read.
std::optional<graph::ChakraDotFilter> makeGraphFilter(const QString& text, const QString& idRange, QString* error);

/// How much of a trace a filter selects: nodes, and the data and control edges between two selected nodes (what
/// writeChakraDot draws).
struct GraphSelectionSize {
    std::size_t nodes = 0;
    std::size_t edges = 0;
    bool fitsLayout() const { return nodes <= kMaxLaidOutNodes && edges <= kMaxLaidOutEdges; }
};
GraphSelectionSize measureSelection(const graph::ChakraTrace& trace, const graph::ChakraDotFilter& filter);

} // namespace rapid::widgets
