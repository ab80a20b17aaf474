// SPDX-License-Identifier: GPL-3.0-or-later
#include "topology/linkitem.h"

#include "topology/topologystyle.h"

#include <QApplication>
#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPathStroker>
#include <QStyleOptionGraphicsItem>
#include <QWidget>

#include <algorithm>

namespace rapid::widgets {

namespace {

constexpr double kHitWidth = 9; ///< scene units; the view also searches a few pixels around a click
constexpr double kLabelPointSize = 7;
/// Below this zoom the health text would be a few pixels high: the colour alone says "degraded" then.
constexpr double kMinLabelDetail = 0.55;

QString healthText(double health)
{
    return QString::number(health, 'f', 2);
}

} // namespace

LinkItem::LinkItem(int physical, const QString& id, double health, bool writable, const QPainterPath& path)
    : QGraphicsPathItem(path)
    , m_physical(physical)
    , m_id(id)
    , m_health(health)
    , m_writable(writable)
{
    setFlag(ItemIsSelectable);
    setAcceptHoverEvents(true);
    setCursor(Qt::PointingHandCursor);
}

void LinkItem::setUtilisation(std::optional<double> fraction)
{
    if (m_utilisation == fraction) {
        return;
    }
    prepareGeometryChange(); // a loaded link is drawn wider
    m_utilisation = fraction;
    update();
}

QRectF LinkItem::healthLabelRect() const
{
    const QFontMetricsF metrics(topologystyle::font(kLabelPointSize));
    const QSizeF size(metrics.horizontalAdvance(healthText(m_health)) + 6, metrics.height() + 2);
    return QRectF(pointAt(0.5) - QPointF(size.width() / 2, size.height() / 2), size);
}

QRectF LinkItem::boundingRect() const
{
    const double margin = std::max(kHitWidth, topologystyle::utilisationWidth(1) + 8) / 2;
    QRectF rect = path().boundingRect().adjusted(-margin, -margin, margin, margin);
    return showsHealthLabel() ? rect.united(healthLabelRect()) : rect;
}

QPainterPath LinkItem::shape() const
{
    QPainterPathStroker stroker;
    stroker.setWidth(kHitWidth);
    stroker.setCapStyle(Qt::RoundCap);
    QPainterPath hit = stroker.createStroke(path());
    if (showsHealthLabel()) {
        hit.addRect(healthLabelRect());
    }
    return hit;
}

void LinkItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget)
{
    const QPalette palette = widget ? widget->palette() : QApplication::palette();
    const double detail = option->levelOfDetailFromTransform(painter->worldTransform());
    // At least one device pixel wide, however far out the view is zoomed.
    const double minimumWidth = detail > 0 ? 1.0 / detail : 1.0;
    QPen pen = topologystyle::linkPen(palette, m_health, m_utilisation);
    pen.setWidthF(std::max(pen.widthF() + (m_hovered ? 1.0 : 0.0), minimumWidth));
    painter->setBrush(Qt::NoBrush);
    if (isSelected()) {
        QPen halo(topologystyle::selection(palette), pen.widthF() + std::max(6.0, 4 * minimumWidth), Qt::SolidLine,
            Qt::RoundCap, Qt::RoundJoin);
        painter->setPen(halo);
        painter->drawPath(path());
    }
    painter->setPen(pen);
    painter->drawPath(path());
    if (showsHealthLabel() && detail >= kMinLabelDetail) {
        const QRectF box = healthLabelRect();
        painter->setPen(QPen(topologystyle::degraded(), 1));
        painter->setBrush(palette.color(QPalette::Base));
        painter->drawRoundedRect(box, 3, 3);
        painter->setFont(topologystyle::font(kLabelPointSize));
        painter->setPen(topologystyle::text(palette));
        painter->drawText(box, Qt::AlignCenter, healthText(m_health));
    }
}

void LinkItem::hoverEnterEvent(QGraphicsSceneHoverEvent* event)
{
    m_hovered = true;
    update();
    QGraphicsPathItem::hoverEnterEvent(event);
}

void LinkItem::hoverLeaveEvent(QGraphicsSceneHoverEvent* event)
{
    m_hovered = false;
    update();
    QGraphicsPathItem::hoverLeaveEvent(event);
}

} // namespace rapid::widgets
