// SPDX-License-Identifier: GPL-3.0-or-later
#include "results/memorychart.h"

#include "common/figureformat.h"
#include "common/plotstyle.h"
#include "common/stackedbars.h"

#include <qcustomplot.h>

namespace rapid::widgets {

namespace {

using memory::MemoryCategory;

/// The categories' names; overhead is grey (it is nobody's data), the rest take palette colours in category order.
QList<BarSeries> categorySeries()
{
    QList<BarSeries> series;
    for (int index = 0; index < memory::kMemoryCategoryCount; ++index) {
        const auto category = static_cast<MemoryCategory>(index);
        series.append({ MemoryChart::categoryName(category),
            category == MemoryCategory::Overhead ? QColor(0x99, 0x99, 0x99) : QColor() });
    }
    return series;
}

BarRow rowOf(const QString& label, const memory::MemoryEstimate& estimate)
{
    BarRow row { label, {} };
    for (double bytes : estimate.breakdown) {
        row.values.push_back(bytes / kBytesPerGiB);
    }
    return row;
}

} // namespace

MemoryChart::MemoryChart(QWidget* parent)
    : ChartWidget(tr("Memory per GPU at the peak"), parent)
    , m_verdict(new QCPTextElement(plot(), QString()))
{
    setObjectName(QStringLiteral("memoryChart"));
    setMinimumHeight(170); // with the step chart and the figures, the results column fits a 720-pixel screen
    addHeader(m_verdict);
    plot()->xAxis->setLabel(tr("Memory per GPU (GiB)"));
    placeLegendBelow(plot(), 4); // re-wrapped to the width by ChartWidget
    refresh();
}

QString MemoryChart::categoryName(memory::MemoryCategory category)
{
    switch (category) {
    case MemoryCategory::Weights:
        return tr("Weights");
    case MemoryCategory::Gradients:
        return tr("Gradients");
    case MemoryCategory::MasterWeights:
        return tr("Master weights");
    case MemoryCategory::OptimizerStates:
        return tr("Optimizer states");
    case MemoryCategory::GatheredParameters:
        return tr("Gathered parameters");
    case MemoryCategory::CommunicationBuffers:
        return tr("Comm. buffers");
    case MemoryCategory::Activations:
        return tr("Activations");
    case MemoryCategory::Logits:
        return tr("Logits");
    case MemoryCategory::Transient:
        return tr("Transient");
    case MemoryCategory::KvCache:
        return tr("KV cache");
    case MemoryCategory::Overhead:
        break;
    }
    return tr("Overhead");
}

void MemoryChart::setEstimate(const std::optional<memory::MemoryEstimate>& estimate, const QString& problem)
{
    m_estimate = estimate;
    m_problem = problem;
    refresh();
}

void MemoryChart::setBaseline(const std::optional<memory::MemoryEstimate>& baseline, const QString& name)
{
    m_baseline = baseline;
    m_baselineName = name;
    // The bar says only "Baseline"; the run's full name would not fit beside it.
    plot()->setToolTip(baseline ? tr("Baseline: %1").arg(name) : QString());
    refresh();
}

QString MemoryChart::verdictText() const
{
    if (!m_estimate) {
        return m_problem.isEmpty() ? tr("No memory estimate") : tr("No memory estimate: %1").arg(m_problem);
    }
    const QString peak
        = tr("Peak %1 of %2").arg(formatGiB(m_estimate->peakBytes), formatGiB(m_estimate->capacityBytes));
    return m_estimate->fits ? tr("%1: fits, %2 free").arg(peak, formatGiB(m_estimate->marginBytes))
                            : tr("%1: does not fit by %2").arg(peak, formatGiB(-m_estimate->marginBytes));
}

QColor MemoryChart::verdictColor() const
{
    if (!m_estimate) {
        return chartPalette().color(QPalette::Text);
    }
    return m_estimate->fits ? style().goodColor() : style().badColor();
}

void MemoryChart::setRows(const QList<Row>& rows, int reference)
{
    m_rows = rows;
    m_reference = rows.isEmpty() ? -1 : qBound(-1, reference, static_cast<int>(rows.size()) - 1);
    refresh();
}

QList<MemoryChart::Row> MemoryChart::drawnRows(int* reference) const
{
    if (!m_rows.isEmpty()) {
        *reference = m_reference;
        return m_rows;
    }
    QList<Row> rows;
    if (!m_estimate) {
        return rows;
    }
    *reference = m_baseline ? 0 : -1;
    if (m_baseline) {
        rows.append({ tr("Baseline"), *m_baseline });
    }
    // A lone bar needs no name on paper; beside a baseline it is "Current".
    rows.append({ m_baseline || !printMode() ? tr("Current") : QString(), *m_estimate });
    return rows;
}

void MemoryChart::markOverflow(const memory::MemoryEstimate& estimate, double key, const QList<QCPBars*>& bars)
{
    // Red outline and a red hatch over the part past the capacity: visible without reading the label.
    for (QCPBars* segment : bars) {
        segment->setPen(QPen(style().badColor(), style().lineWidthPx() * 1.5));
    }
    auto* overflow = new QCPItemRect(plot());
    overflow->topLeft->setCoords(estimate.capacityBytes / kBytesPerGiB, key - 0.3);
    overflow->bottomRight->setCoords(estimate.peakBytes / kBytesPerGiB, key + 0.3);
    overflow->setPen(QPen(style().badColor(), style().lineWidthPx()));
    overflow->setBrush(QBrush(style().badColor(), Qt::BDiagPattern));
}

void MemoryChart::rebuild()
{
    m_currentBars.clear();
    m_baselineBars.clear();
    m_currentValueText.clear();
    const bool comparison = !m_rows.isEmpty();
    m_verdict->setText(comparison ? tr("Peak per GPU of each run against its GPU's capacity") : verdictText());
    m_verdict->setTextColor(comparison ? chartPalette().color(QPalette::Text) : verdictColor());
    m_verdict->setFont(style().font());
    int reference = -1;
    const QList<Row> entries = drawnRows(&reference);
    if (entries.isEmpty()) {
        plot()->yAxis->setTicker(QSharedPointer<QCPAxisTickerText>(new QCPAxisTickerText));
        showPlaceholder(m_problem.isEmpty() ? tr("No memory estimate for this configuration") : m_problem);
        return;
    }
    const QColor text = chartPalette().color(QPalette::Text);
    QList<BarRow> rows;
    for (const Row& entry : entries) {
        rows.append(rowOf(entry.label, entry.estimate));
    }
    QList<BarSeries> series = categorySeries();
    // The bad colour is kept for "does not fit".
    colourDrawnSeries(series, rows, style(), { style().badColor() });
    const QList<QList<QCPBars*>> bars = addStackedRows(plot(), series, rows, style().lineWidthPx());
    if (!comparison) {
        m_currentBars = bars.last();
        if (m_baseline) {
            m_baselineBars = bars.first();
        }
    }

    QList<double> capacities; // GiB, one dashed line per GPU size among the rows
    double largest = 0;
    for (int index = 0; index < entries.size(); ++index) {
        const memory::MemoryEstimate& estimate = entries[index].estimate;
        const double capacity = estimate.capacityBytes / kBytesPerGiB;
        if (!capacities.contains(capacity)) {
            capacities.append(capacity);
        }
        largest = qMax(largest, qMax(capacity, rows[index].total()));
        if (!estimate.fits) {
            markOverflow(estimate, index + 1.0, bars[index]);
        }
    }
    // Room right of the longest bar for its value and delta label.
    const double upper = largest * (reference >= 0 ? 1.45 : 1.3);
    plot()->xAxis->setRange(0, upper);

    // The capacity is a legend entry, not a label on the plot: a label beside the line collides with bars and
    // their value labels at paper sizes.
    for (const double capacity : std::as_const(capacities)) {
        QCPGraph* capacityLine = plot()->addGraph(plot()->xAxis, plot()->yAxis);
        capacityLine->setName(tr("Capacity %1").arg(formatGiB(capacity * kBytesPerGiB)));
        capacityLine->setPen(QPen(text, style().lineWidthPx(), Qt::DashLine));
        capacityLine->addData(capacity, 0.4);
        capacityLine->addData(capacity, static_cast<double>(rows.size()) + 0.6);
    }

    for (int index = 0; index < entries.size(); ++index) {
        const memory::MemoryEstimate& estimate = entries[index].estimate;
        QString value = formatGiB(estimate.peakBytes);
        if (reference >= 0 && index != reference) {
            if (const auto change = relativeChange(estimate.peakBytes, entries[reference].estimate.peakBytes)) {
                value += QStringLiteral(" (") + formatDelta(*change) + QLatin1Char(')');
            }
        }
        if (!comparison && index == entries.size() - 1) {
            m_currentValueText = value;
        }
        // Right of the bar, or right of the capacity line when the bar ends just short of it (the label would
        // cross the line).
        double anchor = qMax(rows[index].total(), estimate.peakBytes / kBytesPerGiB);
        const double capacity = estimate.capacityBytes / kBytesPerGiB;
        if (anchor < capacity && capacity - anchor < 0.3 * upper) {
            anchor = capacity;
        }
        auto* label = new QCPItemText(plot());
        label->position->setCoords(anchor, index + 1.0);
        label->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
        label->setText(QStringLiteral(" ") + value);
        label->setFont(style().font());
        label->setColor(estimate.fits ? text : style().badColor());
    }
}

} // namespace rapid::widgets
