// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

#include <vector>

namespace rapid::widgets {

/// One labelled tick of the timeline's time axis.
struct TimelineTick {
    double seconds = 0;
    QString label;
};

/// Ticks for the visible range [@p from, @p to] drawn on @p widthPx pixels: steps of 1, 2 or 5 times a power of ten,
/// at least @p minSpacingPx apart so labels do not collide. Labels use the unit that suits the range's magnitude
/// (s, ms, µs, ns) with just enough decimals to tell neighbouring ticks apart, so a deep zoom late in a long step
/// reads "9.50001 s" rather than a row of identical "9.5 s".
std::vector<TimelineTick> timelineTicks(double from, double to, double widthPx, double minSpacingPx = 90.0);

/// "12.345 ms", "9.500123 s", "812.3 µs": a point in time or a duration for tooltips, in the unit that suits its
/// magnitude, to about a microsecond (a tenth of one below a millisecond) so neighbouring events can be told apart.
QString formatTimelineTime(double seconds);

} // namespace rapid::widgets
