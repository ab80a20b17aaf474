// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "report/stepresult.h"

#include <QColor>
#include <QList>
#include <QString>

namespace rapid::widgets {

/// How the timeline tells events apart: forward and backward compute, activation and gradient sends, gradient
/// reductions, parameter gathers and the optimizer.
enum class TimelineCategory { Forward, Backward, SendForward, SendBackward, Reduction, Gather, Optimizer };
constexpr int kTimelineCategoryCount = 7;

TimelineCategory timelineCategory(const report::TimelineEvent& event);

/// One Okabe-Ito colour (from PlotStyle, so the palette stays the charts') per category: seven categories, seven
/// colours, none of them the palette's black, which would vanish on a dark background.
QColor timelineColor(TimelineCategory category);
inline QColor timelineColor(const report::TimelineEvent& event)
{
    return timelineColor(timelineCategory(event));
}
/// "forward compute", "gradient send", ...: the legend's words for @p category.
QString timelineCategoryName(TimelineCategory category);

/// Black or white, whichever reads better on @p fill.
QColor textColorOn(const QColor& fill);

/// "F12 c1", "B12 c0", "DP c0", "opt": what fits inside a bar once zoomed in; without @p chunk the shorter "F12" for
/// bars too narrow for the whole label.
QString timelineBarLabel(const report::TimelineEvent& event, bool chunk = true);

/// The hover text of an event, one fact per line: name, stage and stream, kind, pass, micro-batch, chunk (those the
/// event has), start, finish and duration.
QString timelineEventDescription(const report::TimelineEvent& event);

} // namespace rapid::widgets
