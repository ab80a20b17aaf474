// SPDX-License-Identifier: GPL-3.0-or-later
#include "timeline/timelineaxis.h"

#include <algorithm>
#include <cmath>

namespace rapid::widgets {

namespace {

struct TimeUnit {
    double seconds;
    const char16_t* symbol;
};

/// The unit in which @p magnitude (seconds) reads as a number of at least one.
TimeUnit unitFor(double magnitude)
{
    if (magnitude >= 1.0) {
        return { 1.0, u"s" };
    }
    if (magnitude >= 1e-3) {
        return { 1e-3, u"ms" };
    }
    if (magnitude >= 1e-6) {
        return { 1e-6, u"µs" };
    }
    return { 1e-9, u"ns" };
}

QString withUnit(double seconds, const TimeUnit& unit, int decimals)
{
    double value = seconds / unit.seconds;
    if (std::abs(value) < 0.5 * std::pow(10.0, -decimals)) {
        value = 0.0; // no "-0.00"
    }
    return QString::number(value, 'f', decimals) + QLatin1Char(' ') + QString::fromUtf16(unit.symbol);
}

} // namespace

std::vector<TimelineTick> timelineTicks(double from, double to, double widthPx, double minSpacingPx)
{
    std::vector<TimelineTick> ticks;
    const double span = to - from;
    if (!(span > 0) || !(widthPx > 0) || !std::isfinite(span)) {
        return ticks;
    }
    const double raw = span * std::max(1.0, minSpacingPx) / widthPx;
    const double power = std::pow(10.0, std::floor(std::log10(raw)));
    const double normalised = raw / power;
    const double step = (normalised <= 1.0 ? 1.0 : normalised <= 2.0 ? 2.0 : normalised <= 5.0 ? 5.0 : 10.0) * power;
    const TimeUnit unit = unitFor(std::max(std::abs(from), std::abs(to)));
    const int decimals = std::clamp(static_cast<int>(std::ceil(-std::log10(step / unit.seconds) - 1e-9)), 0, 12);
    // Multiples of the step (not from + k * step), so the labels stay put while panning; the tolerance keeps a tick
    // that sits exactly on `from` despite rounding in the division.
    const double first = std::ceil(from / step - 1e-9);
    for (double k = first; k * step <= to + step * 1e-9 && ticks.size() < 1000; k += 1.0) {
        const double seconds = k * step;
        ticks.push_back({ seconds, withUnit(seconds, unit, decimals) });
    }
    return ticks;
}

QString formatTimelineTime(double seconds)
{
    if (seconds == 0.0) {
        return QStringLiteral("0 s"); // not "0 ns": the step's start is no tiny time
    }
    const TimeUnit unit = unitFor(std::abs(seconds));
    // About a microsecond of resolution in every unit, a tenth of one for sub-millisecond values.
    const int decimals = unit.seconds >= 1.0 ? 6 : unit.seconds >= 1e-3 ? 3 : unit.seconds >= 1e-6 ? 1 : 0;
    return withUnit(seconds, unit, decimals);
}

} // namespace rapid::widgets
