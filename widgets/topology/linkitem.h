// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QGraphicsPathItem>
#include <QString>

#include <optional>

namespace rapid::widgets {

/// One physical link of the topology view: a line or curve carrying the link's id, its health from the hardware's
/// faults, whether a fault on it can be written to the hardware YAML, and optionally its utilisation. Selectable
/// (the view decides what a click does); its shape is a wider stroke than the drawn one, so a thin line is easy to hit.
class LinkItem : public QGraphicsPathItem {
public:
    enum { Type = UserType + 0x7201 };

    LinkItem(int physical, const QString& id, double health, bool writable, const QPainterPath& path);

    int type() const override { return Type; }
    int physicalIndex() const { return m_physical; }
    QString linkId() const { return m_id; }
    double health() const { return m_health; }
    /// Whether a fault on this link can go into the hardware YAML (see TopologyScene).
    bool isWritable() const { return m_writable; }
    std::optional<double> utilisation() const { return m_utilisation; }
    void setUtilisation(std::optional<double> fraction);
    /// The point @p fraction (0..1) of the way along the link.
    QPointF pointAt(double fraction) const { return path().pointAtPercent(fraction); }

    QRectF boundingRect() const override;
    QPainterPath shape() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

protected:
    void hoverEnterEvent(QGraphicsSceneHoverEvent* event) override;
    void hoverLeaveEvent(QGraphicsSceneHoverEvent* event) override;

private:
    /// Where the health of a degraded link is written: a small box at the link's middle.
    QRectF healthLabelRect() const;
    bool showsHealthLabel() const { return m_health > 0 && m_health < 1; }

    int m_physical;
    QString m_id;
    double m_health;
    bool m_writable;
    std::optional<double> m_utilisation;
    bool m_hovered = false;
};

} // namespace rapid::widgets
