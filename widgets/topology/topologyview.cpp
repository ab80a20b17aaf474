// SPDX-License-Identifier: GPL-3.0-or-later
#include "topology/topologyview.h"

#include "topology/linkitem.h"
#include "topology/topologyitems.h"
#include "topology/topologyscene.h"

#include <QKeyEvent>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace rapid::widgets {

namespace {

constexpr double kMinZoom = 0.02;
constexpr double kMaxZoom = 6.0;
/// A fitted small network is not blown up beyond this: a ring of 8 at 400% looks like a toy.
constexpr double kMaxFitZoom = 1.6;
constexpr double kWheelStep = 1.15; ///< zoom per wheel notch
constexpr int kPickRadius = 4; ///< pixels around a click searched for a link

} // namespace

TopologyView::TopologyView(TopologyScene* scene, QWidget* parent)
    : PannableGraphicsView(parent)
    , m_scene(scene)
{
    setScene(scene);
    setObjectName(QStringLiteral("topologyView"));
    setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
    setViewportUpdateMode(QGraphicsView::SmartViewportUpdate);
    setFocusPolicy(Qt::StrongFocus);
    connect(m_scene, &TopologyScene::topologyRebuilt, this, [this] {
        if (m_fitting) {
            applyFit();
        }
    });
}

void TopologyView::fitToView()
{
    m_fitting = true;
    applyFit();
}

void TopologyView::applyFit()
{
    const QRectF rect = m_scene->sceneRect();
    if (rect.isEmpty() || viewport()->width() <= 0 || viewport()->height() <= 0) {
        return;
    }
    fitInView(rect, Qt::KeepAspectRatio);
    if (zoom() > kMaxFitZoom) {
        const double factor = kMaxFitZoom / zoom();
        scale(factor, factor);
    }
    centerOn(rect.center());
}

void TopologyView::zoomBy(double factor)
{
    const double target = std::clamp(zoom() * factor, kMinZoom, kMaxZoom);
    const double applied = target / zoom();
    m_fitting = false;
    const ViewportAnchor anchor = transformationAnchor();
    setTransformationAnchor(QGraphicsView::AnchorViewCenter);
    scale(applied, applied);
    setTransformationAnchor(anchor);
}

void TopologyView::setZoom(double value)
{
    zoomBy(value / zoom());
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
    if (!(event->modifiers() & Qt::ControlModifier)) {
        QGraphicsView::wheelEvent(event); // scrolls
        return;
    }
    const double notches = event->angleDelta().y() / 120.0;
    const double target = std::clamp(zoom() * std::pow(kWheelStep, notches), kMinZoom, kMaxZoom);
    m_fitting = false;
    const double factor = target / zoom();
    scale(factor, factor); // anchored under the mouse
    event->accept();
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
}

} // namespace rapid::widgets
