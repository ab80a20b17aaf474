// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/pannablegraphicsview.h"

#include <QApplication>
#include <QMouseEvent>
#include <QScrollBar>

namespace rapid::widgets {

PannableGraphicsView::PannableGraphicsView(QWidget* parent)
    : QGraphicsView(parent)
{
    setDragMode(QGraphicsView::NoDrag); // panning and clicks are told apart in the mouse handlers
}

int PannableGraphicsView::panThreshold() const
{
    return QApplication::startDragDistance();
}

void PannableGraphicsView::mousePressEvent(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton) {
        QGraphicsView::mousePressEvent(event);
        return;
    }
    m_pressed = true;
    m_panning = false;
    m_pressPos = event->position().toPoint();
    m_lastPos = m_pressPos;
    event->accept();
}

void PannableGraphicsView::mouseMoveEvent(QMouseEvent* event)
{
    if (!m_pressed) {
        QGraphicsView::mouseMoveEvent(event); // hover highlighting
        return;
    }
    const QPoint position = event->position().toPoint();
    if (!m_panning && (position - m_pressPos).manhattanLength() >= panThreshold()) {
        m_panning = true;
        panStarted();
        viewport()->setCursor(Qt::ClosedHandCursor);
    }
    if (m_panning) {
        const QPoint delta = position - m_lastPos;
        horizontalScrollBar()->setValue(horizontalScrollBar()->value() - delta.x());
        verticalScrollBar()->setValue(verticalScrollBar()->value() - delta.y());
    }
    m_lastPos = position;
    event->accept();
}

void PannableGraphicsView::mouseReleaseEvent(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton || !m_pressed) {
        QGraphicsView::mouseReleaseEvent(event);
        return;
    }
    m_pressed = false;
    if (m_panning) {
        m_panning = false;
        viewport()->unsetCursor();
    } else {
        clicked(event->position().toPoint(), event->modifiers());
    }
    event->accept();
}

} // namespace rapid::widgets
