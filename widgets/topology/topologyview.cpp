// SPDX-License-Identifier: GPL-3.0-or-later
#include "topology/topologyview.h"

#include "topology/linkitem.h"
#include "topology/topologyitems.h"
#include "topology/topologyminimap.h"
#include "topology/topologyscene.h"

#include "network/topology.h"

#include <QKeyEvent>
#include <QScrollBar>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace rapid::widgets {

namespace {

/// A fitted small network is not blown up beyond this: a ring of 8 at 400% looks like a toy.
constexpr double kMaxFitZoom = 1.6;
constexpr int kPickRadius = 4; ///< pixels around a click searched for a link
constexpr int kScrollPerNotch = 40; ///< pixels Shift+wheel scrolls per notch

} // namespace

TopologyView::TopologyView(TopologyScene* scene, QWidget* parent)
    : PannableGraphicsView(parent)
    , m_scene(scene)
    , m_miniMap(new TopologyMiniMap(this, this))
{
    m_miniMap->hide();
    setScene(scene);
    setObjectName(QStringLiteral("topologyView"));
    setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
    setViewportUpdateMode(QGraphicsView::SmartViewportUpdate);
    setFocusPolicy(Qt::StrongFocus);
    connect(m_scene, &TopologyScene::topologyRebuilt, this, [this] {
        if (m_fitting) {
            applyFit();
        } else {
            setSceneRect(QRectF()); // follow the new drawing; the key's band was the old fit's
        }
    });
}

void TopologyView::setFitting(bool fitting)
{
    m_fitting = fitting;
    m_miniMap->setVisible(!fitting);
    placeOverlay();
}

void TopologyView::fitToView()
{
    setFitting(true);
    applyFit();
}

void TopologyView::applyFit()
{
    const QRectF rect = m_scene->sceneRect();
    const QSizeF area = viewport()->size();
    if (rect.isEmpty() || area.width() <= 0 || area.height() <= 0) {
        return;
    }
    // The key covers the viewport's bottom-left corner: the fitted drawing keeps clear of it, above it or beside it,
    // whichever leaves the drawing larger (a wide fabric goes above, a round NVL72 rack beside).
    const QSize key
        = m_overlay && !m_overlay->isHidden() ? overlaySize() + QSize(2 * kOverlayMargin, kOverlayMargin) : QSize(0, 0);
    const auto scaleWithin
        = [&](double width, double height) { return std::min(width / rect.width(), height / rect.height()); };
    const double above = scaleWithin(area.width(), area.height() - key.height());
    const double beside = scaleWithin(area.width() - key.width(), area.height());
    const double scale = std::min(std::max(above, beside), kMaxFitZoom);
    if (scale <= 0) {
        setSceneRect(rect);
        fitInView(rect, Qt::KeepAspectRatio);
        return;
    }
    // The view's scene rect takes the key's band besides the drawing, so the drawing is centred in what is left (a
    // scene smaller than the viewport is centred by the view's alignment, not by centerOn).
    QRectF shown = rect;
    if (beside > above) {
        shown.setLeft(rect.left() - key.width() / scale);
    } else {
        shown.setBottom(rect.bottom() + key.height() / scale);
    }
    setSceneRect(shown);
    setTransform(QTransform::fromScale(scale, scale));
    centerOn(shown.center());
}

void TopologyView::zoomBy(double factor)
{
    zoomTo(zoom() * factor);
}

void TopologyView::zoomTo(double value)
{
    const double target = std::clamp(value, kMinZoom, kMaxZoom);
    setFitting(false);
    const ViewportAnchor anchor = transformationAnchor();
    setTransformationAnchor(QGraphicsView::AnchorViewCenter);
    // The scale itself, not the old one times a factor: zoom x (1 / zoom) left setZoom(1.0) at 0.99999999999999989.
    // The view's transform is a pure scale (scrolling moves the scroll bars, nothing rotates).
    setTransform(QTransform::fromScale(target, target));
    setTransformationAnchor(anchor);
}

void TopologyView::zoomAt(double factor, const QPoint& viewportPos)
{
    const double target = std::clamp(zoom() * factor, kMinZoom, kMaxZoom);
    const double applied = target / zoom();
    setFitting(false);
    // AnchorUnderMouse would follow the last mouse move, which a wheel event need not follow (nor a test's event);
    // the anchor here is the event's own position.
    const QPointF anchor = mapToScene(viewportPos);
    const ViewportAnchor previous = transformationAnchor();
    setTransformationAnchor(QGraphicsView::NoAnchor);
    scale(applied, applied);
    setTransformationAnchor(previous);
    const QPointF drift = mapFromScene(anchor) - QPointF(viewportPos);
    horizontalScrollBar()->setValue(horizontalScrollBar()->value() + qRound(drift.x()));
    verticalScrollBar()->setValue(verticalScrollBar()->value() + qRound(drift.y()));
}

void TopologyView::setZoom(double value)
{
    zoomTo(value);
}

double TopologyView::zoom() const
{
    return transform().m11();
}

LinkItem* TopologyView::linkAt(const QPoint& viewportPos) const
{
    const QList<QGraphicsItem*> under = items(viewportPos);
    if (!under.isEmpty() && qgraphicsitem_cast<NodeItem*>(under.first())) {
        return nullptr; // a click on a GPU or switch is not a click on the links ending there
    }
    const QRect around(viewportPos - QPoint(kPickRadius, kPickRadius), QSize(2 * kPickRadius + 1, 2 * kPickRadius + 1));
    for (QGraphicsItem* item : items(around)) {
        if (auto* link = qgraphicsitem_cast<LinkItem*>(item)) {
            return link;
        }
    }
    return nullptr;
}

void TopologyView::clicked(const QPoint& viewportPos, Qt::KeyboardModifiers modifiers)
{
    LinkItem* link = linkAt(viewportPos);
    const bool adding = modifiers & Qt::ShiftModifier;
    if (!link) {
        if (!adding) {
            m_scene->selectLinks({});
        }
        return;
    }
    if (adding) {
        QStringList ids = m_scene->selectedLinkIds();
        if (!ids.removeOne(link->linkId())) {
            ids.append(link->linkId());
        }
        m_scene->selectLinks(ids);
        return;
    }
    m_scene->selectLinks({ link->linkId() });
}

void TopologyView::wheelEvent(QWheelEvent* event)
{
    const QPoint delta = event->angleDelta();
    // The wheel zooms, as in maps and schematic editors: a drawing that only fits when small is read by zooming into
    // a part. Scrolling stays on Shift+wheel and on a touchpad's sideways swipe (dragging pans too).
    if (event->modifiers() & Qt::ShiftModifier || std::abs(delta.x()) > std::abs(delta.y())) {
        const int notchesX = event->modifiers() & Qt::ShiftModifier ? 0 : delta.x();
        const int notchesY = event->modifiers() & Qt::ShiftModifier ? delta.y() + delta.x() : delta.y();
        horizontalScrollBar()->setValue(horizontalScrollBar()->value() - notchesX * kScrollPerNotch / 120);
        verticalScrollBar()->setValue(verticalScrollBar()->value() - notchesY * kScrollPerNotch / 120);
        setFitting(false);
        event->accept();
        return;
    }
    if (delta.y() == 0) {
        event->ignore();
        return;
    }
    zoomAt(std::pow(kWheelStep, delta.y() / 120.0), event->position().toPoint());
    event->accept();
}

void TopologyView::mouseDoubleClickEvent(QMouseEvent* event)
{
    for (QGraphicsItem* item : items(event->position().toPoint())) {
        if (auto* glyph = qgraphicsitem_cast<GlyphItem*>(item)) {
            m_scene->setTierUnfolded(glyph->dimension(), glyph->tier(), true);
            event->accept();
            return;
        }
        auto* node = qgraphicsitem_cast<NodeItem*>(item);
        if (node && node->isSwitch() && m_scene->topology()) {
            const network::Node& info = m_scene->topology()->node(node->nodeIndex());
            const auto& unfolded = m_scene->limits().unfoldedTiers;
            // Folding goes back from any unfolded tier of the dimension at or below this switch's tier.
            for (const auto& [dimension, tier] : unfolded) {
                if (dimension == info.dimension && tier <= info.tier) {
                    m_scene->setTierUnfolded(dimension, tier, false);
                    event->accept();
                    return;
                }
            }
        }
    }
    PannableGraphicsView::mouseDoubleClickEvent(event);
}

void TopologyView::keyPressEvent(QKeyEvent* event)
{
    if (event->key() == Qt::Key_Escape) {
        m_scene->selectLinks({});
    } else if (event->matches(QKeySequence::ZoomIn)
        || (event->modifiers() & Qt::ControlModifier && event->key() == Qt::Key_Equal)) {
        zoomBy(kWheelStep * kWheelStep);
    } else if (event->matches(QKeySequence::ZoomOut)) {
        zoomBy(1 / (kWheelStep * kWheelStep));
    } else if (event->modifiers() & Qt::ControlModifier && event->key() == Qt::Key_0) {
        fitToView();
    } else {
        QGraphicsView::keyPressEvent(event);
        return;
    }
    event->accept();
}

void TopologyView::resizeEvent(QResizeEvent* event)
{
    QGraphicsView::resizeEvent(event);
    if (m_fitting) {
        applyFit();
    }
    placeOverlay();
}

void TopologyView::setOverlay(QWidget* overlay)
{
    m_overlay = overlay;
    if (!m_overlay) {
        return;
    }
    m_overlay->setParent(this);
    // The drawing under it still pans, zooms and shows tooltips: a key has nothing to click.
    m_overlay->setAttribute(Qt::WA_TransparentForMouseEvents);
    m_overlay->show();
    placeOverlay();
}

void TopologyView::placeOverlay()
{
    const QRect area = viewport()->geometry();
    const QSize mapSize = m_miniMap->sizeHint().boundedTo(area.size() / 3);
    m_miniMap->setGeometry(
        QRect(QPoint(area.right() - kOverlayMargin - mapSize.width() + 1, area.top() + kOverlayMargin), mapSize));
    m_miniMap->raise();
    if (!m_overlay) {
        return;
    }
    const QSize size = overlaySize();
    m_overlay->setGeometry(QRect(
        QPoint(area.left() + kOverlayMargin, area.bottom() - kOverlayMargin - size.height() + 1), size.expandedTo({})));
    m_overlay->raise();
}

QSize TopologyView::overlaySize() const
{
    const QSize area = viewport()->size();
    return m_overlay->sizeHint()
        .boundedTo(area - QSize(2 * kOverlayMargin, 2 * kOverlayMargin))
        .expandedTo(QSize(0, 0));
}

bool TopologyView::event(QEvent* event)
{
    // A child's updateGeometry() lands here: the overlay's size hint changed with its content (the utilisation scale).
    if (event->type() == QEvent::LayoutRequest) {
        placeOverlay();
        if (m_fitting) {
            applyFit(); // the drawing keeps clear of the key at its new size
        }
    }
    return PannableGraphicsView::event(event);
}

} // namespace rapid::widgets
