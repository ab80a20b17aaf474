// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QRectF>
#include <QSizeF>

#include <cstdint>
#include <vector>

namespace rapid::widgets {

/// One node of a Graphviz SVG drawing whose DOT name was `n<id>` (as graph::writeChakraDot names them).
struct SvgNodeBox {
    std::uint64_t id = 0;
    /// The node's shape in the coordinates of a QGraphicsSvgItem (or QSvgRenderer::render into a rectangle at the
    /// origin) of the document's default size: what a scene shows with the item at (0, 0) and no transform.
    QRectF bounds;
};

/// Where the nodes of a Graphviz SVG drawing are, in drawing order.
struct SvgNodeIndex {
    QSizeF size; ///< the document's default size (QSvgRenderer::defaultSize)
    std::vector<SvgNodeBox> nodes;
};

/// Finds every `<g class="node" id="nodeK"><title>n<id></title>` group of @p svg and the bounds of its shapes.
/// Groups whose title is not `n<integer>` are skipped. Qt-only work (no Graphviz), so it may run on a worker thread.
/// An unreadable document gives an empty index.
SvgNodeIndex indexSvgNodes(const QByteArray& svg);

} // namespace rapid::widgets
