// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "timeline/timelinerows.h"

#include <QRectF>

class QFontMetrics;
class QPainter;

namespace rapid::widgets {

/// Time to x for one repaint: the visible range [from, to] spread over the plot's pixels.
struct TimelineScale {
    double from = 0;
    double to = 1;
    double left = 0;
    double width = 1;
    double x(double seconds) const { return left + (seconds - from) / (to - from) * width; }
    double secondsPerPixel() const { return (to - from) / width; }
};

/// Paints the events of @p lane that fall in @p scale's range into @p band. Bars of a pixel or more are drawn as
/// they are (labelled with timelineBarLabel when @p labels is given and the label fits); thinner ones are summed
/// per pixel column, which is painted in the colour of the category with the most time in it and as opaque as the
/// column is busy. So a zoomed-out stream of short sends reads as the faint, mostly idle stream it is, rather than
/// as one solid bar, and the work per repaint is bounded by the pixels, not the events.
void paintLane(QPainter& painter, const TimelineRows& rows, const TimelineLane& lane, const QRectF& band,
    const TimelineScale& scale, const QFontMetrics* labels);

} // namespace rapid::widgets
