// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "common/pannablegraphicsview.h"
#include "tracegraph/svgnodeindex.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <unordered_map>
#include <vector>

class QGraphicsRectItem;
class QGraphicsSvgItem;
class QSvgRenderer;

namespace rapid::widgets {

/// Shows one Graphviz SVG drawing of a Chakra graph: Ctrl+wheel zooms around the cursor (Ctrl++, Ctrl+-, Ctrl+0 to
/// fit), the wheel scrolls, dragging pans, and a click on a node emits nodeClicked with its id (a click elsewhere
/// emits selectionCleared). Matches of the search are outlined over the drawing and the selected node framed, so
/// neither needs a new layout.
class GraphCanvas : public PannableGraphicsView {
    Q_OBJECT
public:
    explicit GraphCanvas(QWidget* parent = nullptr);
    ~GraphCanvas() override;

    /// Shows @p svg with the node positions of @p index (from indexSvgNodes on the same bytes) and zooms so that
    /// labels stay readable: the whole drawing if that is legible, else its top at a readable scale.
    void setGraph(const QByteArray& svg, SvgNodeIndex index);
    void clearGraph();
    bool hasGraph() const { return m_svgItem != nullptr; }

    std::size_t nodeCount() const { return m_index.nodes.size(); }
    /// Node ids in drawing order.
    std::vector<std::uint64_t> nodeIds() const;
    /// The node's shape in scene coordinates, or nullopt when it is not drawn.
    std::optional<QRectF> nodeBounds(std::uint64_t id) const;
    /// The node under @p viewportPos, or nullopt.
    std::optional<std::uint64_t> nodeAt(const QPoint& viewportPos) const;

    /// Outlines @p ids (drawn ones; others are ignored); an empty set removes the outlines.
    void setHighlighted(const std::set<std::uint64_t>& ids);
    std::size_t highlightedCount() const { return m_highlights.size(); }
    /// Frames the node (nullopt: none).
    void setSelected(std::optional<std::uint64_t> id);
    std::optional<std::uint64_t> selected() const { return m_selected; }
    /// Scrolls so that the node is in view.
    void showNode(std::uint64_t id);

    void fitToView();
    void zoomBy(double factor);
    double zoom() const;

Q_SIGNALS:
    void nodeClicked(quint64 id);
    void selectionCleared();

protected:
    void wheelEvent(QWheelEvent* event) override;
    void clicked(const QPoint& viewportPos, Qt::KeyboardModifiers modifiers) override;
    void panStarted() override;
    int panThreshold() const override;
    void keyPressEvent(QKeyEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void applyInitialZoom();

    std::unique_ptr<QSvgRenderer> m_renderer;
    QGraphicsSvgItem* m_svgItem = nullptr;
    SvgNodeIndex m_index;
    std::unordered_map<std::uint64_t, std::size_t> m_byId; ///< node id -> position in m_index.nodes
    std::vector<QGraphicsRectItem*> m_highlights;
    QGraphicsRectItem* m_selectionFrame = nullptr;
    std::optional<std::uint64_t> m_selected;
    /// Until the user zooms, pans or asks for a node, resizing re-applies the initial zoom (the view may get its
    /// graph while its tab is hidden and still small).
    bool m_autoZoom = true;
};

} // namespace rapid::widgets
