// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "tracegraph/svgnodeindex.h"

#include "graph/chakradot.h"
#include "graph/chakratrace.h"

#include <QByteArray>
#include <QString>

namespace rapid::widgets {

/// A laid-out (part of a) rank's graph: the SVG drawing and where its nodes are, or why there is none.
struct GraphLayout {
    QByteArray svg; ///< empty on failure
    SvgNodeIndex index;
    QString error;
    double seconds = 0; ///< wall time of DOT writing, layout and indexing
    bool ok() const { return !svg.isEmpty(); }
};

/// Writes the DOT of the nodes of @p trace that @p filter selects, lays it out with Graphviz and indexes the nodes
/// of the SVG. Slow (Graphviz): the graph view runs it on a worker thread. Never throws.
GraphLayout layoutChakraGraph(const graph::ChakraTrace& trace, const graph::ChakraDotFilter& filter);

} // namespace rapid::widgets
