// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QFont>
#include <QGraphicsItem>
#include <QString>

#include <vector>

namespace rapid::widgets {

/// Text smaller than this many pixels on screen is not drawn: it cannot be read, and hundreds of unreadable labels
/// only grey the picture (the zoomed-out picture reads by shape and by the labels that keep their size).
constexpr double kMinTextPixels = 7.0;
/// A dynamic property set on an overview of the scene (the mini-map), where labels that keep their size are left out.
inline constexpr char kOverviewProperty[] = "rapidTopologyOverview";

/// A GPU (labelled with its rank) or a switch (labelled `s<tier>.<index>` as in link ids, or by its dimension and
/// instance where that is its only switch) of the topology view. Painted from the view's palette, so it follows a dark
/// palette without being rebuilt. Its label is left out where it would be smaller than kMinTextPixels on screen.
class NodeItem : public QGraphicsItem {
public:
    enum { Type = UserType + 0x7202 };

    NodeItem(int node, bool isSwitch, const QString& label, const QSizeF& size);

    int type() const override { return Type; }
    int nodeIndex() const { return m_node; }
    bool isSwitch() const { return m_isSwitch; }
    QString label() const { return m_label; }
    /// The on-screen height of the label at @p zoom; 0 where it is not drawn.
    double labelPixelHeight(double zoom) const;
    /// Ringed in the selection colour (a search found it).
    void setHighlighted(bool highlighted);
    bool isHighlighted() const { return m_highlighted; }

    QRectF boundingRect() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

private:
    int m_node;
    bool m_isSwitch;
    QString m_label;
    QSizeF m_size;
    bool m_highlighted = false;
};

/// A folded switch tier (see TopologyLimits::maxSwitchesUnfolded): a stack of switch boxes reading "32 spine
/// switches", with a thin line to each switch below it. A double-click in the view unfolds it.
class GlyphItem : public QGraphicsItem {
public:
    enum { Type = UserType + 0x7205 };

    /// @p feeds are scene points; the item sits at @p centre.
    GlyphItem(const QPointF& centre, const QString& text, int dimension, int tier, const std::vector<QPointF>& feeds);

    int type() const override { return Type; }
    QString text() const { return m_text; }
    int dimension() const { return m_dimension; }
    int tier() const { return m_tier; }
    /// The on-screen height of the text at @p zoom; 0 where it is not drawn.
    double textPixelHeight(double zoom) const;

    QRectF boundingRect() const override { return m_bounds; }
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

private:
    QString m_text;
    int m_dimension;
    int m_tier;
    std::vector<QPointF> m_feeds; ///< in item coordinates
    QRectF m_box;
    QRectF m_bounds;
};

class LabelItem;

/// The box around one group of GPUs (an instance of the inner dimensions, e.g. a node). Its title is a LabelItem of
/// its own, stacked above the links, so that links leaving the group do not run through the text.
class GroupItem : public QGraphicsItem {
public:
    enum { Type = UserType + 0x7203 };

    GroupItem(const QRectF& rect, const QString& title);

    int type() const override { return Type; }
    QString title() const { return m_title; }
    void setTitle(const QString& title);
    /// The item that shows the title (owned by the scene); created by createTitleItem().
    LabelItem* createTitleItem();

    QRectF boundingRect() const override { return m_rect.adjusted(-1, -1, 1, 1); }
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

private:
    QRectF m_rect;
    QString m_title;
    LabelItem* m_titleItem = nullptr;
};

/// A line of text in the scene: a switch band's name, an italic "+K more" marker for what is not drawn, or a group's
/// title on a background of the group's colour. Titles and band names keep their size on screen
/// (ItemIgnoresTransformations), so that the picture is named at Fit to View, a title elided to its box's on-screen
/// width; markers scale with the drawing and are left out below kMinTextPixels.
class LabelItem : public QGraphicsItem {
public:
    enum { Type = UserType + 0x7204 };
    enum class Kind { Band, Marker, Title };

    /// @p anchor is the left end of the text, vertically centred on it; a Title is elided to @p maxWidth.
    LabelItem(const QPointF& anchor, const QString& text, Kind kind, double maxWidth = 0);

    int type() const override { return Type; }
    QString text() const { return m_text; }
    void setText(const QString& text);
    Kind kind() const { return m_kind; }
    bool isMarker() const { return m_kind == Kind::Marker; }
    /// Whether it keeps its size on screen at any zoom.
    bool keepsSize() const { return m_kind != Kind::Marker; }
    /// The text drawn at @p zoom: elided for a title, empty where nothing is drawn.
    QString shownText(double zoom) const;
    /// A title may be drawn down to this share of its font size to keep its name whole.
    static constexpr double kMinTitleScale = 0.6;
    /// The on-screen height of the text at @p zoom; 0 where it is not drawn.
    double textPixelHeight(double zoom) const;

    QRectF boundingRect() const override { return m_rect; }
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

private:
    QFont font() const;

    QString m_text;
    Kind m_kind;
    QPointF m_anchor;
    double m_maxWidth;
    QRectF m_rect;
};

} // namespace rapid::widgets
