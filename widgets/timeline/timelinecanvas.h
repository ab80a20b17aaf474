// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "timeline/timelineaxis.h"
#include "timeline/timelinerows.h"

#include <QAbstractScrollArea>
#include <QColor>
#include <QString>

#include <vector>

class QPainter;

namespace rapid::widgets {

/// The painted part of the timeline: a time axis on top, row labels on the left, and bars for the events of each
/// stage's streams (see TimelineRows). The mouse wheel zooms around the cursor (Shift+wheel scrolls the rows, a
/// horizontal wheel pans), dragging pans in time and across rows, a double click on the bars fits the whole step,
/// hovering shows the event's details, and a click on a stage's header folds its streams into one summary row.
/// Painting is bounded by the pixels, not the events: only bars in the visible time range of visible rows are
/// visited, and bars thinner than a pixel are summed per pixel column (see paintLane), so a step of ~10^5 nodes
/// still repaints at once when fully zoomed out.
class TimelineCanvas : public QAbstractScrollArea {
    Q_OBJECT
public:
    static constexpr int kLabelWidth = 150;
    static constexpr int kAxisHeight = 26;
    static constexpr int kStreamRowHeight = 22;
    static constexpr int kHeaderRowHeight = 20;
    static constexpr int kCollapsedRowHeight = 30;

    explicit TimelineCanvas(QWidget* parent = nullptr);

    /// Shows @p events (the collapse state of stages resets) and fits the whole step.
    void setEvents(std::vector<report::TimelineEvent> events);
    /// Shows no bars, only @p message in the middle.
    void clear(const QString& message);
    QString message() const { return m_message; }

    const TimelineRows& rows() const { return m_rows; }
    int rowCount() const { return m_rows.rowCount(); }

    double visibleFrom() const { return m_from; }
    double visibleTo() const { return m_to; }
    /// Shows [@p from, @p to], kept inside the step (with a small margin) and no narrower than a few nanoseconds.
    void setVisibleRange(double from, double to);
    /// Shows the whole step.
    void fitToView();
    /// Multiplies the zoom by @p factor (> 1 zooms in) keeping the time under viewport x @p anchorX in place.
    void zoomBy(double factor, double anchorX);
    /// Pans by @p pixels to the right (content moves left).
    void panBy(double pixels);

    bool isStageCollapsed(int stage) const { return m_rows.isCollapsed(stage); }
    void setStageCollapsed(int stage, bool collapsed);
    void toggleStage(int stage);
    void setAllCollapsed(bool collapsed);

    /// Where the bars are drawn, in viewport coordinates (right of the labels, below the axis).
    QRect plotRect() const;
    double xOfTime(double seconds) const;
    double timeAtX(double x) const;
    /// Row @p row in viewport coordinates (scrolled; may lie outside the viewport).
    QRect rowRect(int row) const;
    /// The row at viewport y @p y, or -1.
    int rowAt(int y) const;
    /// Where event @p event's bar is drawn in viewport coordinates (before clipping), or an empty rect if no row
    /// shows it.
    QRectF eventRect(int event) const;
    /// The event under viewport point @p pos (bars narrower than a few pixels are hit within that distance), or -1.
    int eventAt(const QPoint& pos) const;

    int hoveredEvent() const { return m_hovered; }
    /// The tooltip text of the hovered event (see timelineEventDescription), empty when none is hovered.
    QString hoverText() const;

Q_SIGNALS:
    void visibleRangeChanged(double from, double to);
    /// Stages were collapsed or expanded, or new events arrived: the row count may have changed.
    void rowsChanged();
    void hoveredEventChanged(int event);

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void scrollContentsBy(int dx, int dy) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    bool viewportEvent(QEvent* event) override;

private:
    void paintAxis(QPainter& painter, const std::vector<TimelineTick>& ticks, const QColor& separator);
    void rowsChangedInternally();
    void updateScrollRange();
    void setHovered(int event, const QPoint& globalPos);
    /// The lane of row @p row at viewport y @p y (a collapsed header stacks its lanes), or -1.
    int laneAt(int row, int y) const;
    /// Top and height of lane @p laneIndex (of row @p row) in viewport coordinates.
    QRectF laneBand(int row, int laneIndex) const;
    int rowHeight(int row) const;
    double fullFrom() const;
    double fullTo() const;

    TimelineRows m_rows;
    std::vector<int> m_rowTops; ///< content y of each row, plus the total height at the end
    QString m_message;
    double m_from = 0;
    double m_to = 1;
    int m_hovered = -1;
    bool m_pressed = false;
    bool m_dragging = false;
    QPoint m_pressPos;
    QPoint m_lastPos;
};

} // namespace rapid::widgets
