// SPDX-License-Identifier: GPL-3.0-or-later
#include "results/stepbreakdownchart.h"

#include "common/figureformat.h"
#include "common/plotstyle.h"
#include "common/stackedbars.h"

#include <qcustomplot.h>

namespace rapid::widgets {

namespace {

using graph::TimeClass;

// Display order (compute, exposed communication, bubble, optimizer) and palette slot of each segment. Compute is in
// blues and greens, communication in warm colours, so the two families read apart at a glance. The bubble is a
// pseudo-class stored outside the TimeBreakdown; kBubble marks it.
constexpr int kBubble = -1;
struct Segment {
    int timeClass;
    int colourSlot;
};
constexpr std::array<Segment, graph::kTimeClassCount + 1> kSegments = { {
    { static_cast<int>(TimeClass::Attention), 0 },
    { static_cast<int>(TimeClass::Mlp), 5 },
    { static_cast<int>(TimeClass::Moe), 2 },
    { static_cast<int>(TimeClass::Norm), 8 },
    { static_cast<int>(TimeClass::Embedding), 10 },
    { static_cast<int>(TimeClass::LmHead), 13 },
    { static_cast<int>(TimeClass::Loss), 16 },
    { static_cast<int>(TimeClass::Other), 21 },
    { static_cast<int>(TimeClass::TensorParallel), 1 },
    { static_cast<int>(TimeClass::ContextParallel), 4 },
    { static_cast<int>(TimeClass::ExpertParallel), 6 },
    { static_cast<int>(TimeClass::PipelineParallel), 9 },
    { static_cast<int>(TimeClass::DataParallel), 3 },
    { kBubble, -1 },
    { static_cast<int>(TimeClass::Optimizer), 7 },
} };

QString segmentName(int timeClass)
{
    switch (timeClass) {
    case static_cast<int>(TimeClass::Attention):
        return StepBreakdownChart::tr("Attention");
    case static_cast<int>(TimeClass::Mlp):
        return StepBreakdownChart::tr("MLP");
    case static_cast<int>(TimeClass::Moe):
        return StepBreakdownChart::tr("MoE");
    case static_cast<int>(TimeClass::Norm):
        return StepBreakdownChart::tr("Norms");
    case static_cast<int>(TimeClass::Embedding):
        return StepBreakdownChart::tr("Embedding");
    case static_cast<int>(TimeClass::LmHead):
        return StepBreakdownChart::tr("LM head");
    case static_cast<int>(TimeClass::Loss):
        return StepBreakdownChart::tr("Loss");
    case static_cast<int>(TimeClass::Other):
        return StepBreakdownChart::tr("Other compute");
    case static_cast<int>(TimeClass::TensorParallel):
        return StepBreakdownChart::tr("TP comm.");
    case static_cast<int>(TimeClass::ContextParallel):
        return StepBreakdownChart::tr("CP comm.");
    case static_cast<int>(TimeClass::ExpertParallel):
        return StepBreakdownChart::tr("EP comm.");
    case static_cast<int>(TimeClass::PipelineParallel):
        return StepBreakdownChart::tr("PP comm.");
    case static_cast<int>(TimeClass::DataParallel):
        return StepBreakdownChart::tr("DP comm.");
    case static_cast<int>(TimeClass::Optimizer):
        return StepBreakdownChart::tr("Optimizer");
    default:
        break;
    }
    return StepBreakdownChart::tr("Bubble");
}

QList<BarSeries> segmentSeries(const PlotStyle& style, const QPalette& colours)
{
    QList<BarSeries> series;
    for (const Segment& segment : kSegments) {
        QColor colour = segment.colourSlot >= 0 ? style.color(segment.colourSlot) : QColor(0xbb, 0xbb, 0xbb);
        if (segment.timeClass == static_cast<int>(TimeClass::Optimizer)) {
            colour = colours.color(QPalette::Text); // the palette's black would vanish on a dark background
            colour.setAlphaF(0.55F);
        }
        series.append({ segmentName(segment.timeClass), colour });
    }
    return series;
}

BarRow rowOf(const QString& label, const report::TrainingResult& result, double scale)
{
    BarRow row { label, {} };
    for (const Segment& segment : kSegments) {
        const double seconds = segment.timeClass == kBubble
            ? result.breakdown.bubbleSeconds
            : result.breakdown.parts[static_cast<size_t>(segment.timeClass)];
        row.values.push_back(seconds * scale);
    }
    return row;
}

} // namespace

StepBreakdownChart::StepBreakdownChart(QWidget* parent)
    : ChartWidget(tr("Step time breakdown (busiest stage)"), parent)
{
    setObjectName(QStringLiteral("stepBreakdownChart"));
    setMinimumHeight(200);
    placeLegendBelow(plot(), 4);
    refresh();
}

QStringList StepBreakdownChart::segmentNames()
{
    QStringList names;
    for (const Segment& segment : kSegments) {
        names.append(segmentName(segment.timeClass));
    }
    return names;
}

void StepBreakdownChart::setResult(const std::optional<report::TrainingResult>& result)
{
    m_result = result;
    refresh();
}

void StepBreakdownChart::setBaseline(const std::optional<report::TrainingResult>& baseline)
{
    m_baseline = baseline;
    refresh();
}

void StepBreakdownChart::rebuild()
{
    m_currentBars.clear();
    m_baselineBars.clear();
    m_currentValueText.clear();
    if (!m_result) {
        plot()->xAxis->setLabel(QString());
        plot()->yAxis->setTicker(QSharedPointer<QCPAxisTickerText>(new QCPAxisTickerText));
        showPlaceholder(tr("No time prediction yet"));
        return;
    }
    // Milliseconds read better than fractions of a second for the short steps of small models.
    double longest = m_result->stepTimeSeconds;
    if (m_baseline) {
        longest = qMax(longest, m_baseline->stepTimeSeconds);
    }
    const bool milliseconds = longest < 1.0;
    const double scale = milliseconds ? 1e3 : 1.0;
    plot()->xAxis->setLabel(milliseconds ? tr("Time per step (ms)") : tr("Time per step (s)"));

    QList<BarRow> rows;
    if (m_baseline) {
        rows.append(rowOf(tr("Baseline"), *m_baseline, scale));
    }
    rows.append(rowOf(tr("Current"), *m_result, scale));
    const QList<QList<QCPBars*>> bars
        = addStackedRows(plot(), segmentSeries(style(), chartPalette()), rows, style().lineWidthPx());
    m_currentBars = bars.last();
    if (m_baseline) {
        m_baselineBars = bars.first();
    }
    double largest = 0;
    for (const BarRow& row : rows) {
        largest = qMax(largest, row.total());
    }
    plot()->xAxis->setRange(0, qMax(largest, longest * scale) * (m_baseline ? 1.45 : 1.3));

    const QColor text = chartPalette().color(QPalette::Text);
    for (int index = 0; index < rows.size(); ++index) {
        const bool current = index == rows.size() - 1;
        const report::TrainingResult& result = current ? *m_result : *m_baseline;
        QString value = formatSeconds(result.stepTimeSeconds);
        QColor colour = text;
        if (current && m_baseline) {
            if (const auto change = relativeChange(result.stepTimeSeconds, m_baseline->stepTimeSeconds)) {
                value += QStringLiteral(" (") + formatDelta(*change) + QLatin1Char(')');
                // Shorter steps are better.
                colour = *change < -0.05 ? style().goodColor() : *change > 0.05 ? style().badColor() : text;
            }
        }
        if (current) {
            m_currentValueText = value;
        }
        auto* label = new QCPItemText(plot());
        label->position->setCoords(qMax(rows[index].total(), result.stepTimeSeconds * scale), index + 1.0);
        label->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
        label->setText(QStringLiteral(" ") + value);
        label->setFont(style().font());
        label->setColor(colour);
    }
}

} // namespace rapid::widgets
