// SPDX-License-Identifier: GPL-3.0-or-later
#include "results/memorychart.h"

#include "common/figureformat.h"
#include "common/plotstyle.h"
#include "common/stackedbars.h"

#include <qcustomplot.h>

namespace rapid::widgets {

namespace {

using memory::MemoryCategory;

// Palette slots per category. Vermillion (3) is kept for "does not fit" and black (7) would vanish in the dark
// palette, so the categories use the other six and then their lighter shades.
constexpr std::array<int, memory::kMemoryCategoryCount> kColourSlots = {
    0, // weights: blue
    1, // gradients: orange
    2, // master weights: bluish green
    4, // optimizer states: reddish purple
    5, // gathered parameters: sky blue
    6, // communication buffers: yellow
    8, // activations: light blue
    9, // logits: light orange
    10, // transient: light green
    12, // KV cache: light purple
    -1, // overhead: grey, it is nobody's data
};

QList<BarSeries> categorySeries(const PlotStyle& style)
{
    QList<BarSeries> series;
    for (int index = 0; index < memory::kMemoryCategoryCount; ++index) {
        const int slot = kColourSlots[static_cast<size_t>(index)];
        series.append({ MemoryChart::categoryName(static_cast<MemoryCategory>(index)),
            slot < 0 ? QColor(0x99, 0x99, 0x99) : style.color(slot) });
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
    setMinimumHeight(230);
    plot()->plotLayout()->insertRow(1);
    plot()->plotLayout()->addElement(1, 0, m_verdict);
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

void MemoryChart::rebuild()
{
    m_currentBars.clear();
    m_baselineBars.clear();
    m_currentValueText.clear();
    m_verdict->setText(verdictText());
    m_verdict->setTextColor(verdictColor());
    m_verdict->setFont(style().font());
    if (!m_estimate) {
        plot()->yAxis->setTicker(QSharedPointer<QCPAxisTickerText>(new QCPAxisTickerText));
        showPlaceholder(m_problem.isEmpty() ? tr("No memory estimate for this configuration") : m_problem);
        return;
    }
    const QColor text = chartPalette().color(QPalette::Text);
    QList<BarRow> rows;
    if (m_baseline) {
        rows.append(rowOf(tr("Baseline"), *m_baseline));
    }
    rows.append(rowOf(tr("Current"), *m_estimate));
    const QList<QList<QCPBars*>> bars = addStackedRows(plot(), categorySeries(style()), rows, style().lineWidthPx());
    m_currentBars = bars.last();
    if (m_baseline) {
        m_baselineBars = bars.first();
    }

    const double capacity = m_estimate->capacityBytes / kBytesPerGiB;
    double largest = capacity;
    for (const BarRow& row : rows) {
        largest = qMax(largest, row.total());
    }
    // Room right of the longest bar for its value and delta label.
    plot()->xAxis->setRange(0, largest * (m_baseline ? 1.45 : 1.3));

    const double currentKey = static_cast<double>(rows.size());
    const double currentPeak = m_estimate->peakBytes / kBytesPerGiB;
    if (!m_estimate->fits) {
        // Red outline and a red hatch over the part past the capacity: visible without reading the label.
        for (QCPBars* segment : std::as_const(m_currentBars)) {
            segment->setPen(QPen(style().badColor(), style().lineWidthPx() * 1.5));
        }
        auto* overflow = new QCPItemRect(plot());
        overflow->topLeft->setCoords(capacity, currentKey - 0.3);
        overflow->bottomRight->setCoords(currentPeak, currentKey + 0.3);
        overflow->setPen(QPen(style().badColor(), style().lineWidthPx()));
        overflow->setBrush(QBrush(style().badColor(), Qt::BDiagPattern));
    }

    auto* capacityLine = new QCPItemStraightLine(plot());
    capacityLine->point1->setCoords(capacity, 0);
    capacityLine->point2->setCoords(capacity, 1);
    capacityLine->setPen(QPen(text, style().lineWidthPx(), Qt::DashLine));
    auto* capacityLabel = new QCPItemText(plot());
    capacityLabel->position->setTypeX(QCPItemPosition::ptPlotCoords);
    capacityLabel->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    capacityLabel->position->setCoords(capacity, 0.0);
    // Left of the line, in the empty strip above the bars: the right side may hold a bar's value label.
    capacityLabel->setPositionAlignment(Qt::AlignRight | Qt::AlignTop);
    capacityLabel->setText(tr("capacity %1").arg(formatGiB(m_estimate->capacityBytes)) + QLatin1Char(' '));
    capacityLabel->setFont(style().font());
    capacityLabel->setColor(text);

    for (int index = 0; index < rows.size(); ++index) {
        const bool current = index == rows.size() - 1;
        const memory::MemoryEstimate& estimate = current ? *m_estimate : *m_baseline;
        QString value = formatGiB(estimate.peakBytes);
        if (current && m_baseline) {
            if (const auto change = relativeChange(estimate.peakBytes, m_baseline->peakBytes)) {
                value += QStringLiteral(" (") + formatDelta(*change) + QLatin1Char(')');
            }
            m_currentValueText = value;
        } else if (current) {
            m_currentValueText = value;
        }
        auto* label = new QCPItemText(plot());
        label->position->setCoords(qMax(rows[index].total(), current ? currentPeak : 0.0), index + 1.0);
        label->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
        label->setText(QStringLiteral(" ") + value);
        label->setFont(style().font());
        label->setColor(current && !m_estimate->fits ? style().badColor() : text);
    }
}

} // namespace rapid::widgets
