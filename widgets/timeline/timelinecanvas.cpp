// SPDX-License-Identifier: GPL-3.0-or-later
#include "timeline/timelinecanvas.h"

#include "common/figureformat.h"
#include "timeline/timelineaxis.h"
#include "timeline/timelinelanepainter.h"
#include "timeline/timelinestyle.h"

#include "report/chrometrace.h"

#include <QApplication>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace rapid::widgets {

namespace {

constexpr double kMinimumSpanSeconds = 1e-8; ///< deepest zoom: 10 ns across the plot
constexpr double kFitMargin = 0.01; ///< fraction of the step left free on each side when fitted
constexpr double kWheelZoomPerNotch = 1.25;
constexpr double kHitTolerancePx = 3.0; ///< hover reach for bars thinner than the cursor
constexpr int kAutoCollapseAbove = 8; ///< more stages than this start collapsed, so the overview fits
constexpr int kLabelIndent = 22;

/// A right-pointing (collapsed) or down-pointing (expanded) triangle centred in @p box. Painted rather than a
/// glyph, as fonts without U+25B8 would show a box.
void drawDisclosure(QPainter& painter, const QRectF& box, bool collapsed, const QColor& color)
{
    const QPointF c = box.center();
    const double r = 4.0;
    QPolygonF triangle;
    if (collapsed) {
        triangle << QPointF(c.x() - r * 0.6, c.y() - r) << QPointF(c.x() + r * 0.8, c.y())
                 << QPointF(c.x() - r * 0.6, c.y() + r);
    } else {
        triangle << QPointF(c.x() - r, c.y() - r * 0.6) << QPointF(c.x() + r, c.y() - r * 0.6)
                 << QPointF(c.x(), c.y() + r * 0.8);
    }
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setPen(Qt::NoPen);
    painter.setBrush(color);
    painter.drawPolygon(triangle);
    painter.restore();
}

} // namespace

TimelineCanvas::TimelineCanvas(QWidget* parent)
    : QAbstractScrollArea(parent)
{
    setObjectName(QStringLiteral("timelineCanvas"));
    viewport()->setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setVerticalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    setFrameShape(QFrame::NoFrame);
    m_rowTops = { 0 };
    clear(tr("No timeline."));
}

void TimelineCanvas::setEvents(std::vector<report::TimelineEvent> events)
{
    m_rows = TimelineRows(std::move(events));
    m_message.clear();
    if (static_cast<int>(m_rows.stages().size()) > kAutoCollapseAbove) {
        m_rows.setAllCollapsed(true);
    }
    m_hovered = -1;
    verticalScrollBar()->setValue(0);
    rowsChangedInternally();
    fitToView();
}

void TimelineCanvas::clear(const QString& message)
{
    m_rows = TimelineRows();
    m_message = message;
    m_hovered = -1;
    rowsChangedInternally();
}

void TimelineCanvas::setVisibleRange(double from, double to)
{
    if (m_rows.empty() || !std::isfinite(from) || !std::isfinite(to)) {
        return;
    }
    const double lo = fullFrom();
    const double hi = fullTo();
    const double maxSpan = hi - lo;
    const double minSpan = std::min(maxSpan, std::max(kMinimumSpanSeconds, maxSpan * 1e-12));
    const double requested = to - from;
    const double span = std::clamp(requested, minSpan, maxSpan);
    // A clamped span keeps the requested centre; then the range slides back inside the step.
    double start = span == requested ? from : (from + to) / 2 - span / 2;
    start = std::clamp(start, lo, hi - span);
    if (start == m_from && start + span == m_to) {
        return;
    }
    m_from = start;
    m_to = start + span;
    viewport()->update();
    Q_EMIT visibleRangeChanged(m_from, m_to);
}

void TimelineCanvas::fitToView()
{
    setVisibleRange(fullFrom(), fullTo());
}

void TimelineCanvas::zoomBy(double factor, double anchorX)
{
    if (m_rows.empty() || !(factor > 0)) {
        return;
    }
    const QRect plot = plotRect();
    const double fraction = std::clamp((anchorX - plot.left()) / plot.width(), 0.0, 1.0);
    const double anchor = m_from + fraction * (m_to - m_from);
    const double maxSpan = fullTo() - fullFrom();
    const double span = std::clamp((m_to - m_from) / factor, std::min(maxSpan, kMinimumSpanSeconds), maxSpan);
    setVisibleRange(anchor - fraction * span, anchor - fraction * span + span);
}

void TimelineCanvas::panBy(double pixels)
{
    const double seconds = pixels * (m_to - m_from) / plotRect().width();
    setVisibleRange(m_from + seconds, m_to + seconds);
}

void TimelineCanvas::setStageCollapsed(int stage, bool collapsed)
{
    if (m_rows.setCollapsed(stage, collapsed)) {
        rowsChangedInternally();
    }
}

void TimelineCanvas::toggleStage(int stage)
{
    setStageCollapsed(stage, !m_rows.isCollapsed(stage));
}

void TimelineCanvas::setAllCollapsed(bool collapsed)
{
    if (m_rows.setAllCollapsed(collapsed)) {
        rowsChangedInternally();
    }
}

QRect TimelineCanvas::plotRect() const
{
    const QRect area = viewport()->rect();
    return QRect(
        kLabelWidth, kAxisHeight, std::max(1, area.width() - kLabelWidth), std::max(1, area.height() - kAxisHeight));
}

double TimelineCanvas::xOfTime(double seconds) const
{
    const QRect plot = plotRect();
    return plot.left() + (seconds - m_from) / (m_to - m_from) * plot.width();
}

double TimelineCanvas::timeAtX(double x) const
{
    const QRect plot = plotRect();
    return m_from + (x - plot.left()) / plot.width() * (m_to - m_from);
}

int TimelineCanvas::rowHeight(int row) const
{
    const TimelineRow& r = m_rows.rows()[static_cast<size_t>(row)];
    if (r.kind == TimelineRowKind::Stream) {
        return kStreamRowHeight;
    }
    return r.collapsed ? kCollapsedRowHeight : kHeaderRowHeight;
}

QRect TimelineCanvas::rowRect(int row) const
{
    if (row < 0 || row >= rowCount()) {
        return {};
    }
    const int top = kAxisHeight + m_rowTops[static_cast<size_t>(row)] - verticalScrollBar()->value();
    return QRect(0, top, viewport()->width(), rowHeight(row));
}

int TimelineCanvas::rowAt(int y) const
{
    if (y < kAxisHeight || m_rows.empty()) {
        return -1;
    }
    const int content = y - kAxisHeight + verticalScrollBar()->value();
    const auto it = std::upper_bound(m_rowTops.begin(), m_rowTops.end(), content);
    const int row = static_cast<int>(it - m_rowTops.begin()) - 1;
    return row >= 0 && row < rowCount() ? row : -1;
}

QRectF TimelineCanvas::laneBand(int row, int laneIndex) const
{
    const QRect rect = rowRect(row);
    const QRect plot = plotRect();
    const TimelineRow& r = m_rows.rows()[static_cast<size_t>(row)];
    const double top = rect.top() + 3.0;
    const double height = rect.height() - 6.0;
    if (r.kind == TimelineRowKind::Stream || r.lanes.empty()) {
        return QRectF(plot.left(), top, plot.width(), height);
    }
    // A collapsed stage stacks its lanes in one row, a pixel apart.
    const double band = height / static_cast<double>(r.lanes.size());
    return QRectF(plot.left(), top + laneIndex * band, plot.width(), std::max(1.0, band - 1.0));
}

int TimelineCanvas::laneAt(int row, int y) const
{
    if (row < 0 || row >= rowCount()) {
        return -1;
    }
    const TimelineRow& r = m_rows.rows()[static_cast<size_t>(row)];
    for (size_t k = 0; k < r.lanes.size(); ++k) {
        const QRectF band = laneBand(row, static_cast<int>(k));
        // The row's margins count as the nearest lane: hovering need not hit a 7-pixel band exactly.
        const bool first = k == 0;
        const bool last = k + 1 == r.lanes.size();
        if ((first || y >= band.top()) && (last || y < band.top() + band.height() + 1.0)) {
            return r.lanes[k];
        }
    }
    return -1;
}

QRectF TimelineCanvas::eventRect(int event) const
{
    const int row = m_rows.rowOfEvent(event);
    if (row < 0) {
        return {};
    }
    const report::TimelineEvent& e = m_rows.events()[static_cast<size_t>(event)];
    const TimelineRow& r = m_rows.rows()[static_cast<size_t>(row)];
    for (size_t k = 0; k < r.lanes.size(); ++k) {
        if (m_rows.lanes()[static_cast<size_t>(r.lanes[k])].stream == e.stream) {
            const QRectF band = laneBand(row, static_cast<int>(k));
            const double x0 = xOfTime(e.start);
            return QRectF(x0, band.top(), std::max(1.0, xOfTime(e.finish) - x0), band.height());
        }
    }
    return {};
}

int TimelineCanvas::eventAt(const QPoint& pos) const
{
    if (m_rows.empty() || !plotRect().contains(pos)) {
        return -1;
    }
    const int row = rowAt(pos.y());
    const int lane = laneAt(row, pos.y());
    const double tolerance = kHitTolerancePx * (m_to - m_from) / plotRect().width();
    return m_rows.eventAt(lane, timeAtX(pos.x() + 0.5), tolerance);
}

QString TimelineCanvas::hoverText() const
{
    if (m_hovered < 0 || m_hovered >= static_cast<int>(m_rows.events().size())) {
        return {};
    }
    return timelineEventDescription(m_rows.events()[static_cast<size_t>(m_hovered)]);
}

double TimelineCanvas::fullFrom() const
{
    const double extent = std::max(m_rows.finishTime() - m_rows.startTime(), kMinimumSpanSeconds);
    return m_rows.startTime() - kFitMargin * extent;
}

double TimelineCanvas::fullTo() const
{
    const double extent = std::max(m_rows.finishTime() - m_rows.startTime(), kMinimumSpanSeconds);
    return m_rows.startTime() + extent + kFitMargin * extent;
}

void TimelineCanvas::rowsChangedInternally()
{
    m_rowTops.assign(1, 0);
    for (int row = 0; row < rowCount(); ++row) {
        m_rowTops.push_back(m_rowTops.back() + rowHeight(row));
    }
    if (m_hovered >= 0 && m_rows.rowOfEvent(m_hovered) < 0) {
        m_hovered = -1;
    }
    updateScrollRange();
    viewport()->update();
    Q_EMIT rowsChanged();
}

void TimelineCanvas::updateScrollRange()
{
    const int page = std::max(0, viewport()->height() - kAxisHeight);
    QScrollBar* bar = verticalScrollBar();
    bar->setRange(0, std::max(0, m_rowTops.back() - page));
    bar->setPageStep(page);
    bar->setSingleStep(kStreamRowHeight);
}

void TimelineCanvas::setHovered(int event, const QPoint& globalPos)
{
    if (event != m_hovered) {
        m_hovered = event;
        viewport()->update();
        Q_EMIT hoveredEventChanged(event);
    }
    if (event >= 0) {
        QToolTip::showText(globalPos, hoverText(), viewport());
    } else {
        QToolTip::hideText();
    }
}

void TimelineCanvas::paintEvent(QPaintEvent* /*event*/)
{
    QPainter painter(viewport());
    const QPalette& colours = palette();
    const QRect area = viewport()->rect();
    painter.fillRect(area, colours.color(QPalette::Base));
    if (m_rows.empty()) {
        painter.setPen(colours.color(QPalette::WindowText));
        painter.drawText(area.adjusted(20, 20, -20, -20), Qt::AlignCenter | Qt::TextWordWrap, m_message);
        return;
    }
    const QRect plot = plotRect();
    const std::vector<TimelineTick> ticks = timelineTicks(m_from, m_to, plot.width());
    // Lines in the text colour, mostly transparent: quiet on a light and on a dark palette alike (Mid is often left
    // at its light default by dark themes).
    QColor grid = colours.color(QPalette::WindowText);
    grid.setAlpha(36);
    QColor separator = colours.color(QPalette::WindowText);
    separator.setAlpha(80);
    QFont barFont = font();
    barFont.setPointSizeF(std::max(6.0, barFont.pointSizeF() - 1.0));
    const QFontMetrics barMetrics(barFont);
    QFont boldFont = font();
    boldFont.setBold(true);

    painter.save();
    painter.setClipRect(QRect(0, kAxisHeight, area.width(), area.height() - kAxisHeight));
    // Backgrounds: a band per stage, alternating, with the header in the window colour.
    int firstRow = -1;
    int lastRow = -1;
    for (int row = 0; row < rowCount(); ++row) {
        const QRect rect = rowRect(row);
        if (rect.bottom() < kAxisHeight || rect.top() > area.bottom()) {
            continue;
        }
        firstRow = firstRow < 0 ? row : firstRow;
        lastRow = row;
        const TimelineRow& r = m_rows.rows()[static_cast<size_t>(row)];
        const bool odd
            = (std::lower_bound(m_rows.stages().begin(), m_rows.stages().end(), r.stage) - m_rows.stages().begin()) % 2;
        const QColor fill = r.kind == TimelineRowKind::StageHeader && !r.collapsed
            ? colours.color(QPalette::Window)
            : colours.color(odd ? QPalette::AlternateBase : QPalette::Base);
        painter.fillRect(rect, fill);
        if (r.kind == TimelineRowKind::StageHeader) {
            painter.setPen(separator);
            painter.drawLine(rect.topLeft(), rect.topRight());
        }
    }
    // Grid lines under the bars.
    painter.setPen(grid);
    for (const TimelineTick& tick : ticks) {
        const double x = std::round(xOfTime(tick.seconds)) + 0.5;
        painter.drawLine(QPointF(x, kAxisHeight), QPointF(x, area.bottom()));
    }
    // Bars.
    painter.setFont(barFont);
    const TimelineScale scale { m_from, m_to, static_cast<double>(plot.left()), static_cast<double>(plot.width()) };
    for (int row = firstRow; row >= 0 && row <= lastRow; ++row) {
        const TimelineRow& r = m_rows.rows()[static_cast<size_t>(row)];
        for (size_t k = 0; k < r.lanes.size(); ++k) {
            const TimelineLane& lane = m_rows.lanes()[static_cast<size_t>(r.lanes[k])];
            const QRectF band = laneBand(row, static_cast<int>(k));
            // Labels only in full-height rows: a folded stage's stacked lanes are too thin for text.
            paintLane(painter, m_rows, lane, band, scale, r.kind == TimelineRowKind::Stream ? &barMetrics : nullptr);
        }
    }
    // The hovered bar, outlined in the text colour so it stands out on either palette.
    if (m_hovered >= 0) {
        const QRectF bar = eventRect(m_hovered).intersected(QRectF(plot).adjusted(-2, 0, 2, 0));
        if (!bar.isEmpty()) {
            painter.setPen(QPen(colours.color(QPalette::WindowText), 2.0));
            painter.setBrush(Qt::NoBrush);
            painter.drawRect(bar.adjusted(-1, -1, 1, 1));
        }
    }
    // Row labels over their own column.
    painter.fillRect(QRect(0, kAxisHeight, kLabelWidth, area.height() - kAxisHeight), colours.color(QPalette::Window));
    for (int row = firstRow; row >= 0 && row <= lastRow; ++row) {
        const TimelineRow& r = m_rows.rows()[static_cast<size_t>(row)];
        const QRect rect = rowRect(row);
        painter.setPen(colours.color(QPalette::WindowText));
        if (r.kind == TimelineRowKind::StageHeader) {
            painter.setPen(separator);
            painter.drawLine(QPoint(0, rect.top()), QPoint(kLabelWidth, rect.top()));
            drawDisclosure(
                painter, QRectF(4, rect.top(), 14, rect.height()), r.collapsed, colours.color(QPalette::WindowText));
            painter.setFont(boldFont);
            painter.setPen(colours.color(QPalette::WindowText));
            const QString text = r.collapsed ? tr("Stage %1 (%2 streams)").arg(r.stage).arg(r.lanes.size())
                                             : tr("Stage %1").arg(r.stage);
            painter.drawText(rect.adjusted(kLabelIndent, 0, -4, 0), Qt::AlignLeft | Qt::AlignVCenter, text);
        } else {
            painter.setFont(font());
            const TimelineLane& lane = m_rows.lanes()[static_cast<size_t>(r.lanes.front())];
            painter.drawText(rect.adjusted(kLabelIndent, 0, -4, 0), Qt::AlignLeft | Qt::AlignVCenter,
                QString::fromStdString(report::streamName(lane.stream)));
        }
    }
    painter.setPen(separator);
    painter.drawLine(QPoint(kLabelWidth, kAxisHeight), QPoint(kLabelWidth, area.bottom()));
    painter.restore();

    paintAxis(painter, ticks, separator);
}

/// The axis: labels left-aligned at their tick, like trace viewers do, clipped to the plot's width.
void TimelineCanvas::paintAxis(QPainter& painter, const std::vector<TimelineTick>& ticks, const QColor& separator)
{
    const QPalette& colours = palette();
    const QRect area = viewport()->rect();
    const QRect plot = plotRect();
    painter.fillRect(QRect(0, 0, area.width(), kAxisHeight), colours.color(QPalette::Window));
    painter.setFont(font());
    painter.setPen(colours.color(QPalette::WindowText));
    painter.drawText(QRect(6, 0, kLabelWidth - 12, kAxisHeight), Qt::AlignLeft | Qt::AlignVCenter,
        tr("%1 shown").arg(formatSeconds(m_to - m_from)));
    painter.save();
    painter.setClipRect(QRect(plot.left(), 0, plot.width(), kAxisHeight));
    for (const TimelineTick& tick : ticks) {
        const double x = std::round(xOfTime(tick.seconds)) + 0.5;
        painter.setPen(colours.color(QPalette::WindowText));
        painter.drawLine(QPointF(x, kAxisHeight - 6), QPointF(x, kAxisHeight));
        // The last label turns to the left of its tick rather than being cut at the edge.
        const int width = painter.fontMetrics().horizontalAdvance(tick.label);
        const bool fits = x + 3 + width <= plot.right();
        painter.drawText(QRectF(fits ? x + 3 : x - 3 - width, 0, width + 1, kAxisHeight - 4),
            Qt::AlignLeft | Qt::AlignVCenter, tick.label);
    }
    painter.restore();
    painter.setPen(separator);
    painter.drawLine(QPoint(0, kAxisHeight - 1), QPoint(area.right(), kAxisHeight - 1));
}

void TimelineCanvas::resizeEvent(QResizeEvent* event)
{
    QAbstractScrollArea::resizeEvent(event);
    updateScrollRange();
}

void TimelineCanvas::scrollContentsBy(int /*dx*/, int /*dy*/)
{
    viewport()->update();
}

void TimelineCanvas::wheelEvent(QWheelEvent* event)
{
    if (m_rows.empty()) {
        event->ignore();
        return;
    }
    const QPoint delta = event->angleDelta();
    if (event->modifiers() & Qt::ShiftModifier) {
        // Some platforms turn Shift+wheel into a horizontal wheel; either way it scrolls the rows.
        const int steps = delta.y() != 0 ? delta.y() : delta.x();
        verticalScrollBar()->setValue(verticalScrollBar()->value() - steps * kStreamRowHeight / 40);
    } else if (std::abs(delta.x()) > std::abs(delta.y())) {
        panBy(-delta.x() / 120.0 * plotRect().width() / 10.0); // a notch pans a tenth of the plot
    } else if (delta.y() != 0) {
        zoomBy(std::pow(kWheelZoomPerNotch, delta.y() / 120.0), event->position().x());
    }
    // The bars moved under a cursor that did not: what it points at now is what the tooltip should describe.
    setHovered(eventAt(event->position().toPoint()), event->globalPosition().toPoint());
    event->accept();
}

void TimelineCanvas::mousePressEvent(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton) {
        QAbstractScrollArea::mousePressEvent(event);
        return;
    }
    m_pressed = true;
    m_dragging = false;
    m_pressPos = m_lastPos = event->position().toPoint();
    event->accept();
}

void TimelineCanvas::mouseMoveEvent(QMouseEvent* event)
{
    const QPoint pos = event->position().toPoint();
    if (m_pressed && (event->buttons() & Qt::LeftButton)) {
        if (!m_dragging && (pos - m_pressPos).manhattanLength() >= QApplication::startDragDistance()) {
            m_dragging = true;
            viewport()->setCursor(Qt::ClosedHandCursor);
            setHovered(-1, {});
        }
        if (m_dragging) {
            panBy(m_lastPos.x() - pos.x());
            verticalScrollBar()->setValue(verticalScrollBar()->value() + m_lastPos.y() - pos.y());
            m_lastPos = pos;
        }
        event->accept();
        return;
    }
    setHovered(eventAt(pos), event->globalPosition().toPoint());
    event->accept();
}

void TimelineCanvas::mouseReleaseEvent(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton) {
        QAbstractScrollArea::mouseReleaseEvent(event);
        return;
    }
    if (m_pressed && !m_dragging) {
        const int row = rowAt(event->position().toPoint().y());
        if (row >= 0 && m_rows.rows()[static_cast<size_t>(row)].kind == TimelineRowKind::StageHeader) {
            toggleStage(m_rows.rows()[static_cast<size_t>(row)].stage);
        }
    }
    if (m_dragging) {
        viewport()->unsetCursor();
    }
    m_pressed = false;
    m_dragging = false;
    event->accept();
}

void TimelineCanvas::mouseDoubleClickEvent(QMouseEvent* event)
{
    // The first click of a double click on a header has already toggled it; elsewhere a double click fits.
    const int row = rowAt(event->position().toPoint().y());
    if (event->button() == Qt::LeftButton
        && (row < 0 || m_rows.rows()[static_cast<size_t>(row)].kind != TimelineRowKind::StageHeader)) {
        fitToView();
    }
    event->accept();
}

void TimelineCanvas::keyPressEvent(QKeyEvent* event)
{
    const double centre = plotRect().center().x();
    switch (event->key()) {
    case Qt::Key_0:
    case Qt::Key_F:
        fitToView();
        break;
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        zoomBy(2.0, centre);
        break;
    case Qt::Key_Minus:
        zoomBy(0.5, centre);
        break;
    case Qt::Key_Left:
        panBy(-plotRect().width() / 10.0);
        break;
    case Qt::Key_Right:
        panBy(plotRect().width() / 10.0);
        break;
    default:
        QAbstractScrollArea::keyPressEvent(event);
        return;
    }
    event->accept();
}

bool TimelineCanvas::viewportEvent(QEvent* event)
{
    // QAbstractScrollArea does not forward Leave to a handler; without this the last bar would stay highlighted.
    if (event->type() == QEvent::Leave && !m_dragging) {
        setHovered(-1, {});
    }
    return QAbstractScrollArea::viewportEvent(event);
}

} // namespace rapid::widgets
