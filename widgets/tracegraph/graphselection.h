// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "graph/chakradot.h"
#include "graph/chakratrace.h"

#include <QString>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace rapid::widgets {

/// Most nodes and edges the graph view hands to Graphviz at once. Beyond these, "dot" takes minutes (a 396-node
/// slice of the PyTorch sample with 4,308 edges runs for more than 30 s; 640 nodes with 954 edges take 0.2 s), and
/// the drawing would be unreadable anyway, so the view draws a window of the selection at a time instead.
inline constexpr std::size_t kMaxLaidOutNodes = 2000;
inline constexpr std::size_t kMaxLaidOutEdges = 2500;
/// Most rank span (see GraphSelectionSize::rankSpan) handed to Graphviz at once. The edge count alone does not bound
/// "dot"'s time on dense traces: every rank an edge crosses becomes a virtual node of its crossing minimisation.
/// Measured on the PyTorch sample (one core, "dot" alone): ids 216-1850, 667 nodes and 2,502 edges, take 30 s and
/// windows of 200 nodes and 1,500 edges over two minutes, while windows of span 2,000 take 0.1-0.6 s (4,000: up to
/// 2.4 s).
inline constexpr std::size_t kMaxLaidOutRankSpan = 2000;

/// Builds the view's filter: a node passes when its name or its type's wire name ("COMP_NODE") contains @p text,
/// ignoring ASCII case ("backward", "layer3", "micro-batch 3", "comp"), and its id lies in @p idRange ("FIRST-LAST",
/// "FIRST-", "-LAST" or a single id; empty for all). Nullopt with @p error set when the range cannot be read.
std::optional<graph::ChakraDotFilter> makeGraphFilter(const QString& text, const QString& idRange, QString* error);

/// How much of a trace a filter selects: nodes, and the data and control edges between two selected nodes (what
/// writeChakraDot draws).
struct GraphSelectionSize {
    std::size_t nodes = 0;
    std::size_t edges = 0;
    /// The ranks the edges cross, summed (1 for an edge between neighbouring ranks and for a self-loop): a node's rank
    /// is the longest path to it from the selection's first ids, following edges from the lower id to the higher as
    /// the Chakra converters number nodes, which is about how "dot" ranks them.
    std::size_t rankSpan = 0;
    bool fitsLayout() const
    {
        return nodes <= kMaxLaidOutNodes && edges <= kMaxLaidOutEdges && rankSpan <= kMaxLaidOutRankSpan;
    }
};
GraphSelectionSize measureSelection(const graph::ChakraTrace& trace, const graph::ChakraDotFilter& filter);

/// One part of a selection too large for one layout: the selected nodes with ids in [firstId, lastId].
struct GraphWindow {
    std::uint64_t firstId = 0;
    std::uint64_t lastId = 0;
    GraphSelectionSize size; ///< of the window alone
    /// @p filter cut to the window (the selected nodes between its ids are exactly the window's).
    graph::ChakraDotFilter narrow(const graph::ChakraDotFilter& filter) const;
};

/// Cuts the selection into windows of consecutive selected ids, in id order, each as long as fitsLayout() allows
/// (a window holds at least one node). One window when the selection fits whole; none when it is empty. Linear in
/// the selected nodes and edges.
std::vector<GraphWindow> graphWindows(const graph::ChakraTrace& trace, const graph::ChakraDotFilter& filter);

} // namespace rapid::widgets
