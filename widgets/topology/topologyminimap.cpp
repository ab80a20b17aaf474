// SPDX-License-Identifier: GPL-3.0-or-later
#include "topology/topologyminimap.h"

#include "topology/topologyitems.h"
#include "topology/topologyscene.h"
#include "topology/topologystyle.h"
#include "topology/topologyview.h"

#include <QMouseEvent>
#include <QScrollBar>
#include <QWheelEvent>

#include <cmath>

namespace rapid::widgets {

TopologyMiniMap::TopologyMiniMap(TopologyView* view, QWidget* parent)
    : QGraphicsView(view->topologyScene(), parent)
    , m_view(view)
{
    setObjectName(QStringLiteral("topologyMiniMap"));
    // Labels that keep their size on screen would cover the whole overview: they leave it out (LabelItem::paint).
    setProperty(kOverviewProperty, true);
    setInteractive(false);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setFrameShape(QFrame::Box);
    setRenderHints(QPainter::Antialiasing);
    setCursor(Qt::PointingHandCursor);
    setFocusPolicy(Qt::NoFocus);
    connect(view->topologyScene(), &TopologyScene::topologyRebuilt, this, &TopologyMiniMap::refit);
    // The outline follows every scroll and zoom of the view.
    auto redraw = [this] { viewport()->update(); };
    connect(view->horizontalScrollBar(), &QScrollBar::valueChanged, this, redraw);
    connect(view->verticalScrollBar(), &QScrollBar::valueChanged, this, redraw);
    connect(view->horizontalScrollBar(), &QScrollBar::rangeChanged, this, redraw);
    connect(view->verticalScrollBar(), &QScrollBar::rangeChanged, this, redraw);
}

QRectF TopologyMiniMap::shownSceneRect() const
{
    return m_view->mapToScene(m_view->viewport()->rect()).boundingRect();
}

void TopologyMiniMap::refit()
{
    if (!scene()->sceneRect().isEmpty()) {
        fitInView(scene()->sceneRect(), Qt::KeepAspectRatio);
    }
}

void TopologyMiniMap::resizeEvent(QResizeEvent* event)
{
    QGraphicsView::resizeEvent(event);
    refit();
}

void TopologyMiniMap::drawForeground(QPainter* painter, const QRectF& /*rect*/)
{
    const QColor outline = topologystyle::selection(palette());
    QColor fill = outline;
    fill.setAlpha(50);
    painter->setPen(QPen(outline, 0)); // cosmetic: one pixel at the overview's tiny scale
    painter->setBrush(fill);
    painter->drawRect(shownSceneRect().intersected(scene()->sceneRect()));
}

void TopologyMiniMap::centreViewAt(const QPoint& pos)
{
    m_view->centerOn(mapToScene(pos));
}

void TopologyMiniMap::mousePressEvent(QMouseEvent* event)
{
    if (event->button() == Qt::LeftButton) {
        centreViewAt(event->position().toPoint());
    }
    event->accept();
}

void TopologyMiniMap::mouseMoveEvent(QMouseEvent* event)
{
    if (event->buttons() & Qt::LeftButton) {
        centreViewAt(event->position().toPoint());
    }
    event->accept();
}

void TopologyMiniMap::wheelEvent(QWheelEvent* event)
{
    // The overview keeps its scale; the wheel zooms the view around its centre (the outlined part), as it would not
    // reach the view by propagation (the view's frame ignores wheel events meant for its viewport).
    m_view->zoomBy(std::pow(TopologyView::kWheelStep, event->angleDelta().y() / 120.0));
    event->accept();
}

} // namespace rapid::widgets
