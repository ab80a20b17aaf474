// SPDX-License-Identifier: GPL-3.0-or-later
#include "timeline/timelinestyle.h"

#include "common/plotstyle.h"
#include "timeline/timelineaxis.h"

#include "report/chrometrace.h"

#include <QStringList>

namespace rapid::widgets {

TimelineCategory timelineCategory(const report::TimelineEvent& event)
{
    switch (event.kind) {
    case graph::NodeKind::Compute:
        return event.backward ? TimelineCategory::Backward : TimelineCategory::Forward;
    case graph::NodeKind::PipelineSend:
        return event.backward ? TimelineCategory::SendBackward : TimelineCategory::SendForward;
    case graph::NodeKind::DataParallel:
    case graph::NodeKind::ReplicaReduction:
        return TimelineCategory::Reduction;
    case graph::NodeKind::ParameterGather:
        return TimelineCategory::Gather;
    case graph::NodeKind::Optimizer:
        return TimelineCategory::Optimizer;
    }
    return TimelineCategory::Forward;
}

QColor timelineColor(TimelineCategory category)
{
    // Palette order: blue, orange, bluish green, vermillion, reddish purple, sky blue, yellow. Forward and backward
    // compute get the two most distinct; the two sends, on their own row, the next pair.
    const PlotStyle& style = PlotStyle::standard();
    switch (category) {
    case TimelineCategory::Forward:
        return style.color(0);
    case TimelineCategory::Backward:
        return style.color(1);
    case TimelineCategory::SendForward:
        return style.color(4);
    case TimelineCategory::SendBackward:
        return style.color(5);
    case TimelineCategory::Reduction:
        return style.color(2);
    case TimelineCategory::Gather:
        return style.color(6);
    case TimelineCategory::Optimizer:
        return style.color(3);
    }
    return style.color(0);
}

QString timelineCategoryName(TimelineCategory category)
{
    switch (category) {
    case TimelineCategory::Forward:
        return QStringLiteral("forward");
    case TimelineCategory::Backward:
        return QStringLiteral("backward");
    case TimelineCategory::SendForward:
        return QStringLiteral("activation send");
    case TimelineCategory::SendBackward:
        return QStringLiteral("gradient send");
    case TimelineCategory::Reduction:
        return QStringLiteral("gradient reduction");
    case TimelineCategory::Gather:
        return QStringLiteral("parameter gather");
    case TimelineCategory::Optimizer:
        return QStringLiteral("optimizer");
    }
    return {};
}

QColor textColorOn(const QColor& fill)
{
    // Relative luminance with the Rec. 709 weights; the palette's yellow and orange want black, its blue white.
    const double luminance = 0.2126 * fill.redF() + 0.7152 * fill.greenF() + 0.0722 * fill.blueF();
    return luminance > 0.45 ? QColor(Qt::black) : QColor(Qt::white);
}

QString timelineBarLabel(const report::TimelineEvent& event, bool chunk)
{
    QString label;
    switch (event.kind) {
    case graph::NodeKind::Compute:
    case graph::NodeKind::PipelineSend:
        label = event.backward ? QStringLiteral("B") : QStringLiteral("F");
        break;
    case graph::NodeKind::DataParallel:
        label = QStringLiteral("DP");
        break;
    case graph::NodeKind::ReplicaReduction:
        label = QStringLiteral("AR");
        break;
    case graph::NodeKind::ParameterGather:
        label = QStringLiteral("AG");
        break;
    case graph::NodeKind::Optimizer:
        return QStringLiteral("opt");
    }
    if (event.microBatch >= 0) {
        label += QString::number(event.microBatch);
    }
    if (chunk && event.chunk >= 0) {
        label += QStringLiteral(" c") + QString::number(event.chunk);
    }
    return label;
}

QString timelineEventDescription(const report::TimelineEvent& event)
{
    QStringList lines;
    lines << QString::fromStdString(report::timelineEventName(event));
    lines << QStringLiteral("Stage %1, %2 stream")
                 .arg(event.rank)
                 .arg(QString::fromStdString(report::streamName(event.stream)));
    lines << QStringLiteral("Kind: ") + QString::fromUtf8(graph::toString(event.kind));
    if (event.microBatch >= 0) {
        lines << QStringLiteral("Pass: ") + (event.backward ? QStringLiteral("backward") : QStringLiteral("forward"));
        lines << QStringLiteral("Micro-batch: ") + QString::number(event.microBatch);
    }
    if (event.chunk >= 0) {
        lines << QStringLiteral("Chunk: ") + QString::number(event.chunk);
    }
    lines << QStringLiteral("Start: ") + formatTimelineTime(event.start);
    lines << QStringLiteral("Finish: ") + formatTimelineTime(event.finish);
    lines << QStringLiteral("Duration: ") + formatTimelineTime(event.finish - event.start);
    return lines.join(QLatin1Char('\n'));
}

} // namespace rapid::widgets
