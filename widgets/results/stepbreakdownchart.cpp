// SPDX-License-Identifier: GPL-3.0-or-later
#include "results/stepbreakdownchart.h"

#include "common/figureformat.h"
#include "common/plotstyle.h"
#include "common/stackedbars.h"

#include <qcustomplot.h>

namespace rapid::widgets {

namespace {

using graph::TimeClass;

// Display order: compute, the host-dispatch wait, exposed communication, the bubble, the optimizer. Colours are given
// to the segments a result draws, in this order (colourDrawnSeries), so no two drawn segments share one. The bubble is
// a pseudo-class stored outside the TimeBreakdown; kBubble marks it.
constexpr int kBubble = -1;
constexpr std::array<int, graph::kTimeClassCount + 1> kSegments = {
    static_cast<int>(TimeClass::Attention),
    static_cast<int>(TimeClass::Mlp),
    static_cast<int>(TimeClass::Moe),
    static_cast<int>(TimeClass::Norm),
    static_cast<int>(TimeClass::Embedding),
    static_cast<int>(TimeClass::LmHead),
    static_cast<int>(TimeClass::Loss),
    static_cast<int>(TimeClass::Other),
    static_cast<int>(TimeClass::HostDispatch),
    static_cast<int>(TimeClass::TensorParallel),
    static_cast<int>(TimeClass::ContextParallel),
    static_cast<int>(TimeClass::ExpertParallel),
    static_cast<int>(TimeClass::PipelineParallel),
    static_cast<int>(TimeClass::DataParallel),
    kBubble,
    static_cast<int>(TimeClass::Optimizer),
};

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
    case static_cast<int>(TimeClass::HostDispatch):
        return StepBreakdownChart::tr("Host dispatch");
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

/// The segments' names; the bubble is light grey (idle time) and the optimizer a dark grey from the text colour (the
/// palette's black would vanish on a dark background), the rest take palette colours.
QList<BarSeries> segmentSeries(const QPalette& colours)
{
    QList<BarSeries> series;
    for (const int timeClass : kSegments) {
        QColor colour;
        if (timeClass == kBubble) {
            colour = QColor(0xbb, 0xbb, 0xbb);
        } else if (timeClass == static_cast<int>(TimeClass::Optimizer)) {
            colour = colours.color(QPalette::Text);
            colour.setAlphaF(0.55F);
        }
        series.append({ segmentName(timeClass), colour });
    }
    return series;
}

BarRow rowOf(const QString& label, const report::TrainingResult& result, double scale)
{
    BarRow row { label, {} };
    for (const int timeClass : kSegments) {
        const double seconds = timeClass == kBubble ? result.breakdown.bubbleSeconds
                                                    : result.breakdown.parts[static_cast<size_t>(timeClass)];
        row.values.push_back(seconds * scale);
    }
    return row;
}

} // namespace

StepBreakdownChart::StepBreakdownChart(QWidget* parent)
    : ChartWidget(tr("Step time breakdown (busiest stage)"), parent)
{
    setObjectName(QStringLiteral("stepBreakdownChart"));
    setMinimumHeight(150);
    placeLegendBelow(plot(), 4);
    refresh();
}

QStringList StepBreakdownChart::segmentNames()
{
    QStringList names;
    for (const int timeClass : kSegments) {
        names.append(segmentName(timeClass));
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

void StepBreakdownChart::setRows(const QList<Row>& rows, int reference)
{
    m_rows = rows;
    m_reference = rows.isEmpty() ? -1 : qBound(-1, reference, static_cast<int>(rows.size()) - 1);
    refresh();
}

QList<StepBreakdownChart::Row> StepBreakdownChart::drawnRows(int* reference) const
{
    if (!m_rows.isEmpty()) {
        *reference = m_reference;
        return m_rows;
    }
    QList<Row> rows;
    if (!m_result) {
        return rows;
    }
    *reference = m_baseline ? 0 : -1;
    if (m_baseline) {
        rows.append({ tr("Baseline"), *m_baseline });
    }
    // A lone bar needs no name on paper; beside a baseline it is "Current".
    rows.append({ m_baseline || !printMode() ? tr("Current") : QString(), *m_result });
    return rows;
}

void StepBreakdownChart::rebuild()
{
    m_currentBars.clear();
    m_baselineBars.clear();
    m_currentValueText.clear();
    int reference = -1;
    const QList<Row> entries = drawnRows(&reference);
    if (entries.isEmpty()) {
        plot()->xAxis->setLabel(QString());
        plot()->yAxis->setTicker(QSharedPointer<QCPAxisTickerText>(new QCPAxisTickerText));
        showPlaceholder(tr("No time prediction yet"));
        return;
    }
    // Milliseconds read better than fractions of a second for the short steps of small models.
    double longest = 0;
    for (const Row& entry : entries) {
        longest = qMax(longest, entry.result.stepTimeSeconds);
    }
    const bool milliseconds = longest < 1.0;
    const double scale = milliseconds ? 1e3 : 1.0;
    plot()->xAxis->setLabel(milliseconds ? tr("Time per step (ms)") : tr("Time per step (s)"));

    QList<BarRow> rows;
    for (const Row& entry : entries) {
        rows.append(rowOf(entry.label, entry.result, scale));
    }
    QList<BarSeries> series = segmentSeries(chartPalette());
    colourDrawnSeries(series, rows, style());
    const QList<QList<QCPBars*>> bars = addStackedRows(plot(), series, rows, style().lineWidthPx());
    if (m_rows.isEmpty()) {
        m_currentBars = bars.last();
        if (m_baseline) {
            m_baselineBars = bars.first();
        }
    }
    double largest = 0;
    for (const BarRow& row : rows) {
        largest = qMax(largest, row.total());
    }
    plot()->xAxis->setRange(0, qMax(largest, longest * scale) * (reference >= 0 ? 1.45 : 1.3));

    const QColor text = chartPalette().color(QPalette::Text);
    for (int index = 0; index < entries.size(); ++index) {
        const report::TrainingResult& result = entries[index].result;
        QString value = formatSeconds(result.stepTimeSeconds);
        QColor colour = text;
        if (reference >= 0 && index != reference) {
            const double base = entries[reference].result.stepTimeSeconds;
            if (const auto change = relativeChange(result.stepTimeSeconds, base)) {
                value += QStringLiteral(" (") + formatDelta(*change) + QLatin1Char(')');
                // Shorter steps are better.
                colour = *change < -0.05 ? style().goodColor() : *change > 0.05 ? style().badColor() : text;
            }
        }
        if (m_rows.isEmpty() && index == entries.size() - 1) {
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
