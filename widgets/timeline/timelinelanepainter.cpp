// SPDX-License-Identifier: GPL-3.0-or-later
#include "timeline/timelinelanepainter.h"

#include "timeline/timelinestyle.h"

#include <QFontMetrics>
#include <QPainter>

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>

namespace rapid::widgets {

namespace {

constexpr double kGapFromPx = 5.0; ///< bars at least this wide leave a pixel free at their end
constexpr double kLabelFromPx = 18.0; ///< narrower bars never carry a label
constexpr double kFaintestColumn = 0.35; ///< opacity of an almost idle column, so short events stay visible

/// The time of each category that fell into one pixel column.
class PixelColumn {
public:
    bool holds(int column) const { return m_column == column; }
    void start(int column)
    {
        m_column = column;
        m_seconds.fill(0.0);
    }
    void add(TimelineCategory category, double seconds)
    {
        m_seconds[static_cast<size_t>(category)] += std::max(0.0, seconds);
    }
    void flush(QPainter& painter, const QRectF& band, double secondsPerPixel)
    {
        if (m_column == INT_MIN) {
            return;
        }
        const auto most = std::max_element(m_seconds.begin(), m_seconds.end());
        double total = 0;
        for (double seconds : m_seconds) {
            total += seconds;
        }
        QColor color = timelineColor(static_cast<TimelineCategory>(most - m_seconds.begin()));
        color.setAlphaF(static_cast<float>(std::clamp(total / secondsPerPixel, kFaintestColumn, 1.0)));
        painter.fillRect(QRectF(m_column, band.top(), 1.0, band.height()), color);
        m_column = INT_MIN;
    }

private:
    int m_column = INT_MIN;
    std::array<double, kTimelineCategoryCount> m_seconds {};
};

} // namespace

void paintLane(QPainter& painter, const TimelineRows& rows, const TimelineLane& lane, const QRectF& band,
    const TimelineScale& scale, const QFontMetrics* labels)
{
    const auto [first, last] = rows.overlapping(lane, scale.from, scale.to);
    const double secondsPerPixel = scale.secondsPerPixel();
    const double right = scale.left + scale.width;
    PixelColumn column;
    for (size_t i = first; i < last; ++i) {
        const report::TimelineEvent& event = rows.events()[static_cast<size_t>(lane.events[i])];
        // Clamped to just outside the plot: zoomed far in, raw coordinates would overflow QPainter's integers.
        const double x0 = std::max(scale.x(event.start), scale.left - 2.0);
        const double x1 = std::min(scale.x(event.finish), right + 3.0);
        const TimelineCategory category = timelineCategory(event);
        if (x1 - x0 < 1.0) {
            const int pixel = static_cast<int>(std::floor(x0));
            if (!column.holds(pixel)) {
                column.flush(painter, band, secondsPerPixel);
                column.start(pixel);
            }
            column.add(category, event.finish - event.start);
            continue;
        }
        column.flush(painter, band, secondsPerPixel);
        const QColor color = timelineColor(category);
        // A one-pixel gap keeps back-to-back bars of one colour apart once they are wide enough to spare it.
        const QRectF bar(x0, band.top(), x1 - x0 - (x1 - x0 >= kGapFromPx ? 1.0 : 0.0), band.height());
        painter.fillRect(bar, color);
        if (labels && bar.width() >= kLabelFromPx && band.height() >= labels->height()) {
            for (bool chunk : { true, false }) {
                const QString label = timelineBarLabel(event, chunk);
                if (labels->horizontalAdvance(label) + 6 <= bar.width()) {
                    painter.setPen(textColorOn(color));
                    painter.drawText(bar, Qt::AlignCenter, label);
                    break;
                }
            }
        }
    }
    column.flush(painter, band, secondsPerPixel);
}

} // namespace rapid::widgets
