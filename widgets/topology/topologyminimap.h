// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QGraphicsView>

namespace rapid::widgets {

class TopologyView;

/// An overview of the topology view's scene: the whole network small, with the part the view shows outlined; a click
/// or a drag in it centres the view there. Shown by the view over its top-right corner while zoomed in (at Fit to View
/// it would repeat the drawing).
class TopologyMiniMap : public QGraphicsView {
    Q_OBJECT
public:
    explicit TopologyMiniMap(TopologyView* view, QWidget* parent = nullptr);

    /// The scene rectangle the view shows, as outlined.
    QRectF shownSceneRect() const;

    QSize sizeHint() const override { return QSize(200, 130); }

protected:
    void drawForeground(QPainter* painter, const QRectF& rect) override;
    void resizeEvent(QResizeEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;

private:
    void refit();
    void centreViewAt(const QPoint& pos);

    TopologyView* m_view;
};

} // namespace rapid::widgets
