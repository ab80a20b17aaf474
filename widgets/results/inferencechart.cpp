// SPDX-License-Identifier: GPL-3.0-or-later
#include "results/inferencechart.h"

#include "common/figureformat.h"
#include "common/plotstyle.h"
#include "common/stackedbars.h"

#include <qcustomplot.h>

#include <array>

namespace rapid::widgets {

namespace {

std::array<double, 3> latencies(const report::InferenceResult& result)
{
    return { result.ttftSeconds, result.itlSeconds, result.e2eSeconds };
}

} // namespace

InferenceChart::InferenceChart(QWidget* parent)
    : ChartWidget(tr("Inference latency"), parent)
    , m_group(new QCPBarsGroup(plot()))
{
    setObjectName(QStringLiteral("inferenceChart"));
    setMinimumHeight(150);
    placeLegendBelow(plot(), 2);
    refresh();
}

void InferenceChart::setResult(const std::optional<report::InferenceResult>& result)
{
    m_result = result;
    refresh();
}

void InferenceChart::setBaseline(const std::optional<report::InferenceResult>& baseline)
{
    m_baseline = baseline;
    refresh();
}

QString InferenceChart::throughputText() const
{
    if (!m_result) {
        return {};
    }
    QString text = tr("Throughput %1").arg(formatTokensPerSecond(m_result->tokensPerSecond));
    if (m_baseline) {
        if (const auto change = relativeChange(m_result->tokensPerSecond, m_baseline->tokensPerSecond)) {
            text += QStringLiteral(" (") + formatDelta(*change) + QLatin1Char(')');
        }
    }
    return text;
}

void InferenceChart::rebuild()
{
    m_currentBars = nullptr;
    m_baselineBars = nullptr;
    m_currentValueTexts.clear();
    QSharedPointer<QCPAxisTickerText> names(new QCPAxisTickerText);
    if (!m_result) {
        plot()->xAxis->setLabel(QString());
        plot()->xAxis->setScaleType(QCPAxis::stLinear);
        plot()->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
        plot()->yAxis->setTicker(names);
        showPlaceholder(tr("No time prediction yet"));
        return;
    }
    names->addTick(1, tr("TTFT"));
    names->addTick(2, tr("ITL"));
    names->addTick(3, tr("End to end"));
    plot()->yAxis->setTicker(names);
    plot()->yAxis->setRangeReversed(true);
    plot()->yAxis->setRange(0.4, 3.6);
    plot()->yAxis->grid()->setVisible(false);
    plot()->xAxis->setScaleType(QCPAxis::stLogarithmic);
    plot()->xAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    plot()->xAxis->setLabel(tr("Seconds (log scale) · %1").arg(throughputText()));

    const auto addBars = [&](const report::InferenceResult& result, const QString& name, const QColor& colour) {
        auto* bars = new QCPBars(plot()->yAxis, plot()->xAxis);
        bars->setName(name);
        bars->setWidth(m_baseline ? 0.35 : 0.6);
        bars->setBrush(colour);
        bars->setPen(QPen(colour.darker(140), style().lineWidthPx() * 0.5));
        const std::array<double, 3> values = latencies(result);
        for (size_t index = 0; index < values.size(); ++index) {
            bars->addData(static_cast<double>(index + 1), values[index]);
        }
        bars->setBarsGroup(m_group);
        return bars;
    };
    if (m_baseline) {
        m_baselineBars = addBars(*m_baseline, tr("Baseline"), style().color(5));
    }
    m_currentBars = addBars(*m_result, tr("Current"), style().color(0));

    double smallest = 1e300;
    double largest = 0;
    for (const auto* result : { &*m_result, m_baseline ? &*m_baseline : &*m_result }) {
        for (double value : latencies(*result)) {
            if (value > 0) {
                smallest = qMin(smallest, value);
            }
            largest = qMax(largest, value);
        }
    }
    if (largest <= 0) {
        smallest = largest = 1;
    }
    plot()->xAxis->setRange(smallest / 10, largest * 20); // log room for the labels on the right
    // Log axes have no zero: bars start at the axis' left end, a tenth of the shortest latency.
    m_currentBars->setBaseValue(smallest / 10);
    if (m_baselineBars) {
        m_baselineBars->setBaseValue(smallest / 10);
    }

    const QColor text = chartPalette().color(QPalette::Text);
    const std::array<double, 3> current = latencies(*m_result);
    for (size_t index = 0; index < current.size(); ++index) {
        QString value = formatSeconds(current[index]);
        QColor colour = text;
        if (m_baseline) {
            if (const auto change = relativeChange(current[index], latencies(*m_baseline)[index])) {
                value += QStringLiteral(" (") + formatDelta(*change) + QLatin1Char(')');
                colour = *change < -0.05 ? style().goodColor() : *change > 0.05 ? style().badColor() : text;
            }
        }
        m_currentValueTexts.append(value);
        const double key = static_cast<double>(index + 1) + (m_baseline ? 0.18 : 0.0);
        auto* label = new QCPItemText(plot());
        label->position->setCoords(qMax(current[index], smallest / 10), key);
        label->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
        label->setText(QStringLiteral(" ") + value);
        label->setFont(style().font());
        label->setColor(colour);
    }
    plot()->legend->setVisible(m_baseline.has_value());
}

} // namespace rapid::widgets
