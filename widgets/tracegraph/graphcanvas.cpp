// SPDX-License-Identifier: GPL-3.0-or-later
#include "tracegraph/graphcanvas.h"

#include <QGraphicsRectItem>
#include <QGraphicsScene>
#include <QGraphicsSvgItem>
#include <QKeyEvent>
#include <QResizeEvent>
#include <QSvgRenderer>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace rapid::widgets {

namespace {

constexpr double kWheelStep = 1.15; ///< zoom per wheel notch
constexpr double kMinZoom = 0.02;
constexpr double kMaxZoom = 8.0;
/// Below this the 10 pt labels of writeChakraDot become unreadable; a tall graph starts at its top instead.
constexpr double kReadableZoom = 0.6;
constexpr int kDragThreshold = 4; ///< pixels a press may move and still count as a click
constexpr qreal kOutlineMargin = 3.0;

// Okabe-Ito reddish purple: apart from the blue and orange fills writeChakraDot gives communication nodes.
const QColor kHighlightPen(0xcc, 0x79, 0xa7);
const QColor kHighlightFill(0xcc, 0x79, 0xa7, 60);
const QColor kSelectionPen(0x00, 0x72, 0xb2); // Okabe-Ito blue

} // namespace

GraphCanvas::GraphCanvas(QWidget* parent)
    : PannableGraphicsView(parent)
{
    setObjectName(QStringLiteral("graphCanvas"));
    setScene(new QGraphicsScene(this));
    setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing | QPainter::SmoothPixmapTransform);
    setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
    setFocusPolicy(Qt::StrongFocus);
}

GraphCanvas::~GraphCanvas()
{
    // The SVG item refers to the renderer: remove the items before the renderer goes.
    scene()->clear();
}

void GraphCanvas::setGraph(const QByteArray& svg, SvgNodeIndex index)
{
    clearGraph();
    m_renderer = std::make_unique<QSvgRenderer>(svg);
    m_svgItem = new QGraphicsSvgItem();
    m_svgItem->setSharedRenderer(m_renderer.get());
    scene()->addItem(m_svgItem);
    m_index = std::move(index);
    for (std::size_t i = 0; i < m_index.nodes.size(); ++i) {
        m_byId.emplace(m_index.nodes[i].id, i);
    }
    // Room for the outlines of nodes at the drawing's edge, which reach beyond the SVG.
    const qreal margin = 4 * kOutlineMargin;
    scene()->setSceneRect(m_svgItem->boundingRect().adjusted(-margin, -margin, margin, margin));
    m_autoZoom = true;
    applyInitialZoom();
}

void GraphCanvas::clearGraph()
{
    m_highlights.clear();
    m_selectionFrame = nullptr;
    m_selected.reset();
    m_svgItem = nullptr;
    scene()->clear();
    m_renderer.reset();
    m_index = {};
    m_byId.clear();
    scene()->setSceneRect(QRectF());
}

std::vector<std::uint64_t> GraphCanvas::nodeIds() const
{
    std::vector<std::uint64_t> ids;
    ids.reserve(m_index.nodes.size());
    for (const SvgNodeBox& node : m_index.nodes) {
        ids.push_back(node.id);
    }
    return ids;
}

std::optional<QRectF> GraphCanvas::nodeBounds(std::uint64_t id) const
{
    const auto found = m_byId.find(id);
    if (found == m_byId.end()) {
        return std::nullopt;
    }
    return m_index.nodes[found->second].bounds;
}

std::optional<std::uint64_t> GraphCanvas::nodeAt(const QPoint& viewportPos) const
{
    const QPointF scenePos = mapToScene(viewportPos);
    // Later nodes are drawn on top; search backwards so the visible one wins where boxes touch.
    for (auto it = m_index.nodes.rbegin(); it != m_index.nodes.rend(); ++it) {
        if (it->bounds.contains(scenePos)) {
            return it->id;
        }
    }
    return std::nullopt;
}

void GraphCanvas::setHighlighted(const std::set<std::uint64_t>& ids)
{
    for (QGraphicsRectItem* item : m_highlights) {
        delete item;
    }
    m_highlights.clear();
    QPen pen(kHighlightPen, 2.5);
    pen.setCosmetic(true); // stays visible when zoomed out
    for (const std::uint64_t id : ids) {
        if (const auto bounds = nodeBounds(id)) {
            auto* item
                = scene()->addRect(bounds->adjusted(-kOutlineMargin, -kOutlineMargin, kOutlineMargin, kOutlineMargin),
                    pen, kHighlightFill);
            item->setZValue(1);
            m_highlights.push_back(item);
        }
    }
}

void GraphCanvas::setSelected(std::optional<std::uint64_t> id)
{
    delete m_selectionFrame;
    m_selectionFrame = nullptr;
    m_selected.reset();
    const std::optional<QRectF> bounds = id ? nodeBounds(*id) : std::nullopt;
    if (!bounds) {
        return;
    }
    m_selected = id;
    QPen pen(kSelectionPen, 3.0);
    pen.setCosmetic(true);
    const qreal margin = 2 * kOutlineMargin;
    m_selectionFrame = scene()->addRect(bounds->adjusted(-margin, -margin, margin, margin), pen);
    m_selectionFrame->setZValue(2);
}

void GraphCanvas::showNode(std::uint64_t id)
{
    if (const auto bounds = nodeBounds(id)) {
        m_autoZoom = false;
        ensureVisible(*bounds, 40, 40);
    }
}

void GraphCanvas::fitToView()
{
    if (m_svgItem) {
        m_autoZoom = false;
        fitInView(m_svgItem, Qt::KeepAspectRatio);
    }
}

void GraphCanvas::zoomBy(double factor)
{
    m_autoZoom = false;
    const double target = std::clamp(zoom() * factor, kMinZoom, kMaxZoom);
    const double applied = target / zoom();
    scale(applied, applied);
}

double GraphCanvas::zoom() const
{
    return transform().m11();
}

void GraphCanvas::resizeEvent(QResizeEvent* event)
{
    QGraphicsView::resizeEvent(event);
    if (m_autoZoom && m_svgItem) {
        applyInitialZoom();
    }
}

void GraphCanvas::applyInitialZoom()
{
    resetTransform();
    const QRectF bounds = m_svgItem->boundingRect();
    const QSize area = viewport()->size();
    if (bounds.isEmpty() || area.isEmpty()) {
        return;
    }
    const double fit = std::min(area.width() / bounds.width(), area.height() / bounds.height());
    if (fit >= kReadableZoom) {
        const double zoomLevel = std::min(fit * 0.95, 1.0); // a little air around a small graph, never enlarged
        scale(zoomLevel, zoomLevel);
        centerOn(bounds.center());
        return;
    }
    // Graphviz draws the graph top-down: its first nodes are at the top. Fill the width if that is readable; when
    // not, centre on the topmost node, since the middle of a wide graph's top may hold nothing but passing edges.
    const double zoomLevel = std::clamp(area.width() / bounds.width() * 0.95, kReadableZoom, 1.0);
    scale(zoomLevel, zoomLevel);
    const auto topmost = std::min_element(m_index.nodes.begin(), m_index.nodes.end(),
        [](const SvgNodeBox& a, const SvgNodeBox& b) { return a.bounds.top() < b.bounds.top(); });
    const double x = topmost == m_index.nodes.end() ? bounds.center().x() : topmost->bounds.center().x();
    centerOn(QPointF(x, bounds.top() + area.height() / (2 * zoomLevel)));
}

void GraphCanvas::wheelEvent(QWheelEvent* event)
{
    m_autoZoom = false; // scrolled or zoomed: keep the user's view on resize
    if (!(event->modifiers() & Qt::ControlModifier)) {
        QGraphicsView::wheelEvent(event); // scrolls
        return;
    }
    zoomBy(std::pow(kWheelStep, event->angleDelta().y() / 120.0)); // anchored under the mouse
    event->accept();
}

void GraphCanvas::clicked(const QPoint& viewportPos, Qt::KeyboardModifiers /*modifiers*/)
{
    if (const auto id = nodeAt(viewportPos)) {
        setSelected(*id);
        Q_EMIT nodeClicked(*id);
    } else {
        setSelected(std::nullopt);
        Q_EMIT selectionCleared();
    }
}

void GraphCanvas::panStarted()
{
    m_autoZoom = false;
}

int GraphCanvas::panThreshold() const
{
    return kDragThreshold + 1; // the Graph tab's own threshold: up to 4 px of movement is still a click
}

void GraphCanvas::keyPressEvent(QKeyEvent* event)
{
    if (event->modifiers() & Qt::ControlModifier) {
        if (event->key() == Qt::Key_Plus || event->key() == Qt::Key_Equal) {
            zoomBy(kWheelStep);
            return;
        }
        if (event->key() == Qt::Key_Minus) {
            zoomBy(1.0 / kWheelStep);
            return;
        }
        if (event->key() == Qt::Key_0) {
            fitToView();
            return;
        }
    }
    QGraphicsView::keyPressEvent(event);
}

} // namespace rapid::widgets
