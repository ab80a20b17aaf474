// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QGraphicsView>
#include <QPoint>

namespace rapid::widgets {

/// A QGraphicsView where the left button either clicks or, once the mouse has moved far enough, drags the view
/// around (closed-hand cursor while panning). Subclasses say what a click does and learn when panning starts; other
/// buttons and hover moves go to QGraphicsView as usual. Shared by the Graph and Topology views.
class PannableGraphicsView : public QGraphicsView {
    Q_OBJECT
public:
    explicit PannableGraphicsView(QWidget* parent = nullptr);

protected:
    /// A left press released without panning, at @p viewportPos.
    virtual void clicked(const QPoint& viewportPos, Qt::KeyboardModifiers modifiers) = 0;
    /// The press became a pan; called before the view first moves.
    virtual void panStarted() { }
    /// Pixels (Manhattan length) the mouse must move from the press to start panning; less is still a click.
    virtual int panThreshold() const;

    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;

private:
    bool m_pressed = false;
    bool m_panning = false;
    QPoint m_pressPos;
    QPoint m_lastPos;
};

} // namespace rapid::widgets
