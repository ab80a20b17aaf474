// SPDX-License-Identifier: GPL-3.0-or-later
#include "topology/topologyitems.h"

#include "topology/topologystyle.h"

#include <algorithm>

#include <QApplication>
#include <QFontMetricsF>
#include <QGraphicsView>
#include <QPainter>
#include <QStyleOptionGraphicsItem>
#include <QWidget>

namespace rapid::widgets {

namespace {

constexpr double kNodePointSize = 7.5;
constexpr double kTitlePointSize = 8;
constexpr double kHaloWidth = 6; ///< the ring of a found node, in the links' selection colour
constexpr double kTitleBand = 20; ///< the top of a group box that holds its title (the layout's box header)

QPalette paletteOf(const QWidget* widget)
{
    return widget ? widget->palette() : QApplication::palette();
}

double detailOf(const QStyleOptionGraphicsItem* option, const QPainter* painter)
{
    return option->levelOfDetailFromTransform(painter->worldTransform());
}

const QGraphicsView* viewOf(const QWidget* widget)
{
    return widget ? qobject_cast<const QGraphicsView*>(widget->parentWidget()) : nullptr;
}

/// The zoom of the view painting into @p widget (its viewport); 1 when painted elsewhere (an export).
double viewZoom(const QWidget* widget)
{
    const QGraphicsView* view = viewOf(widget);
    return view ? view->transform().m11() : 1.0;
}

} // namespace

NodeItem::NodeItem(int node, bool isSwitch, const QString& label, const QSizeF& size)
    : m_node(node)
    , m_isSwitch(isSwitch)
    , m_label(label)
    , m_size(size)
{
    setZValue(2); // above the links, which end at the node's centre
    setAcceptHoverEvents(true); // tooltips
}

QRectF NodeItem::boundingRect() const
{
    const double halo = kHaloWidth / 2 + 1;
    return QRectF(
        -m_size.width() / 2 - halo, -m_size.height() / 2 - halo, m_size.width() + 2 * halo, m_size.height() + 2 * halo);
}

void NodeItem::setHighlighted(bool highlighted)
{
    if (m_highlighted != highlighted) {
        m_highlighted = highlighted;
        update();
    }
}

void NodeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget)
{
    const QPalette palette = paletteOf(widget);
    const QRectF box(-m_size.width() / 2, -m_size.height() / 2, m_size.width(), m_size.height());
    if (m_highlighted) {
        painter->setPen(QPen(topologystyle::selection(palette), kHaloWidth));
        painter->setBrush(Qt::NoBrush);
        painter->drawRoundedRect(box, 5, 5);
    }
    painter->setPen(QPen(m_isSwitch ? topologystyle::switchBorder() : topologystyle::gpuBorder(), 1.2));
    painter->setBrush(m_isSwitch ? topologystyle::switchFill(palette) : topologystyle::gpuFill(palette));
    painter->drawRoundedRect(box, m_isSwitch ? 2 : 5, m_isSwitch ? 2 : 5);
    if (labelPixelHeight(detailOf(option, painter)) <= 0) {
        return;
    }
    painter->setFont(topologystyle::font(kNodePointSize, !m_isSwitch));
    painter->setPen(topologystyle::text(palette));
    painter->drawText(box, Qt::AlignCenter, m_label);
}

double NodeItem::labelPixelHeight(double zoom) const
{
    const double height = QFontMetricsF(topologystyle::font(kNodePointSize, !m_isSwitch)).height() * zoom;
    return height >= kMinTextPixels ? height : 0;
}

GlyphItem::GlyphItem(
    const QPointF& centre, const QString& text, int dimension, int tier, const std::vector<QPointF>& feeds)
    : m_text(text)
    , m_dimension(dimension)
    , m_tier(tier)
{
    setPos(centre);
    setZValue(2); // a switch: above the links
    setAcceptHoverEvents(true); // tooltips
    const QFontMetricsF metrics(topologystyle::font(kNodePointSize, true));
    const double width = metrics.horizontalAdvance(text) + 16;
    m_box = QRectF(-width / 2, -12, width, 24);
    m_bounds = m_box.adjusted(-1, -5, 5, 1); // the stack's offset boxes
    for (const QPointF& feed : feeds) {
        m_feeds.push_back(feed - centre);
        m_bounds = m_bounds.united(QRectF(m_feeds.back(), QSizeF(1, 1)));
    }
    m_bounds.adjust(-2, -2, 2, 2);
}

double GlyphItem::textPixelHeight(double zoom) const
{
    const double height = QFontMetricsF(topologystyle::font(kNodePointSize, true)).height() * zoom;
    return height >= kMinTextPixels ? height : 0;
}

void GlyphItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget)
{
    const QPalette palette = paletteOf(widget);
    painter->setPen(topologystyle::linkPen(palette, 1.0, std::nullopt));
    for (const QPointF& feed : m_feeds) {
        painter->drawLine(feed, QPointF(0, 0));
    }
    painter->setPen(QPen(topologystyle::switchBorder(), 1.2));
    painter->setBrush(topologystyle::switchFill(palette));
    for (int layer = 2; layer >= 0; --layer) { // a stack: many switches behind the front one
        painter->drawRoundedRect(m_box.translated(2.0 * layer, -2.0 * layer), 3, 3);
    }
    if (textPixelHeight(detailOf(option, painter)) <= 0) {
        return;
    }
    painter->setFont(topologystyle::font(kNodePointSize, true));
    painter->setPen(topologystyle::text(palette));
    painter->drawText(m_box, Qt::AlignCenter, m_text);
}

GroupItem::GroupItem(const QRectF& rect, const QString& title)
    : m_rect(rect)
    , m_title(title)
{
    setZValue(-10);
    setAcceptHoverEvents(true); // tooltips
}

void GroupItem::setTitle(const QString& title)
{
    m_title = title;
    if (m_titleItem) {
        m_titleItem->setText(title);
        m_titleItem->setToolTip(title); // the whole title, when the box is too narrow for it
    }
}

LabelItem* GroupItem::createTitleItem()
{
    m_titleItem = new LabelItem(QPointF(m_rect.left() + 6, m_rect.top() + kTitleBand / 2 + 2), m_title,
        LabelItem::Kind::Title, m_rect.width() - 12);
    return m_titleItem;
}

void GroupItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* /*option*/, QWidget* widget)
{
    const QPalette palette = paletteOf(widget);
    painter->setPen(QPen(topologystyle::groupBorder(palette), 1));
    painter->setBrush(topologystyle::groupFill(palette));
    painter->drawRoundedRect(m_rect, 6, 6);
}

LabelItem::LabelItem(const QPointF& anchor, const QString& text, Kind kind, double maxWidth)
    : m_kind(kind)
    , m_anchor(anchor)
    , m_maxWidth(maxWidth)
{
    // Titles sit above the links (z 0) and below the nodes (z 2); the others just above the links.
    setZValue(kind == Kind::Title ? 1.5 : 1);
    if (keepsSize()) {
        // The item's origin is the anchor, its rectangle in pixels from there.
        setFlag(ItemIgnoresTransformations);
        setPos(anchor);
        m_anchor = QPointF();
    }
    setText(text);
}

QFont LabelItem::font() const
{
    return topologystyle::font(kTitlePointSize, m_kind != Kind::Marker, m_kind == Kind::Marker);
}

void LabelItem::setText(const QString& text)
{
    prepareGeometryChange();
    const QFontMetricsF metrics(font());
    m_text = text;
    const double height = metrics.height();
    m_rect = QRectF(m_anchor.x(), m_anchor.y() - height / 2, metrics.horizontalAdvance(m_text) + 8, height);
    update();
}

QString LabelItem::shownText(double zoom) const
{
    if (textPixelHeight(zoom) <= 0) {
        return {};
    }
    if (m_kind != Kind::Title || m_maxWidth <= 0) {
        return m_text;
    }
    // The box's width on screen, less the text's padding: a wider title would run into the next box. A title too long
    // drops its details after " · " ("node 3 · GPUs 24–31" -> "node 3"), then is drawn smaller (paint), before it is
    // elided: "nod…" names nothing.
    const double room = m_maxWidth * zoom - 8;
    const QFontMetricsF metrics(font());
    if (metrics.horizontalAdvance(m_text) <= room) {
        return m_text;
    }
    const QString name = m_text.section(QStringLiteral(" · "), 0, 0);
    if (metrics.horizontalAdvance(name) * kMinTitleScale <= room) {
        return name;
    }
    return room < metrics.horizontalAdvance(QStringLiteral("ab…")) ? QString()
                                                                   : metrics.elidedText(name, Qt::ElideRight, room);
}

double LabelItem::textPixelHeight(double zoom) const
{
    const double height = QFontMetricsF(font()).height() * (keepsSize() ? 1.0 : zoom);
    return height >= kMinTextPixels ? height : 0;
}

void LabelItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget)
{
    const QGraphicsView* view = viewOf(widget);
    if (keepsSize() && view && view->property(kOverviewProperty).toBool()) {
        return;
    }
    const double zoom = keepsSize() ? viewZoom(widget) : detailOf(option, painter);
    const QString text = shownText(zoom);
    if (text.isEmpty()) {
        return;
    }
    const QPalette palette = paletteOf(widget);
    QFont shownFont = font();
    if (m_kind == Kind::Title && m_maxWidth > 0) {
        // A title's name a little too wide for its box at this zoom is drawn smaller rather than elided.
        const double advance = QFontMetricsF(shownFont).horizontalAdvance(text);
        const double room = m_maxWidth * zoom - 8;
        if (advance > room && room > 0) {
            shownFont.setPointSizeF(shownFont.pointSizeF() * std::max(kMinTitleScale, room / advance));
        }
    }
    const QRectF box(m_rect.topLeft(), QSizeF(QFontMetricsF(shownFont).horizontalAdvance(text) + 8, m_rect.height()));
    if (m_kind == Kind::Title) {
        painter->setPen(Qt::NoPen);
        painter->setBrush(topologystyle::groupFill(palette));
        painter->drawRoundedRect(box, 3, 3);
    }
    painter->setFont(shownFont);
    painter->setPen(m_kind == Kind::Marker ? topologystyle::mutedText(palette) : topologystyle::text(palette));
    painter->drawText(box.adjusted(4, 0, -4, 0), Qt::AlignLeft | Qt::AlignVCenter, text);
}

} // namespace rapid::widgets
