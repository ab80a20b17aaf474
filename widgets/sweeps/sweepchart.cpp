// SPDX-License-Identifier: GPL-3.0-or-later
#include "sweeps/sweepchart.h"

#include "common/figureformat.h"
#include "common/plotstyle.h"
#include "common/stackedbars.h"

#include <qcustomplot.h>

#include <algorithm>
#include <utility>

namespace rapid::widgets {

namespace {

/// Adds a graph of @p rows (sorted by x) and returns the result row of each of its points, in the graph's order.
std::vector<std::int64_t> fillGraph(QCPGraph* graph, std::vector<std::pair<QPointF, std::int64_t>> points)
{
    std::stable_sort(
        points.begin(), points.end(), [](const auto& a, const auto& b) { return a.first.x() < b.first.x(); });
    QVector<double> keys;
    QVector<double> values;
    std::vector<std::int64_t> rows;
    for (const auto& [point, row] : points) {
        keys.append(point.x());
        values.append(point.y());
        rows.push_back(row);
    }
    graph->setData(keys, values, true);
    return rows;
}

} // namespace

SweepChart::SweepChart(QWidget* parent)
    : ChartWidget(tr("Sweep points and Pareto front"), parent)
{
    setObjectName(QStringLiteral("sweepChart"));
    // Small enough for the Sweep tab of a 1,024 x 700 window beside the Results dock; the title and a three-column
    // legend still fit.
    setMinimumSize(240, 180);
    placeLegendBelow(plot(), 3);
    // Clicks are matched to the nearest drawn point by distance rather than through QCustomPlot's hit test, which
    // gives a click to whatever lies on top (the capacity label, the front's line).
    connect(plot(), &QCustomPlot::mousePress, this, [this](QMouseEvent* event) {
        if (event->button() == Qt::LeftButton) {
            if (const std::int64_t row = pointAt(event->position()); row >= 0) {
                Q_EMIT pointClicked(row);
            }
        }
    });
    refresh();
}

void SweepChart::setResult(std::shared_ptr<const sweep::SweepResult> result, bool inference)
{
    m_result = std::move(result);
    m_inference = inference;
    refresh();
}

void SweepChart::setShowNotFitting(bool show)
{
    if (m_showNotFitting != show) {
        m_showNotFitting = show;
        refresh();
    }
}

double SweepChart::xOf(const sweep::SweepRow& row) const
{
    return m_inference ? row.e2eSeconds : row.peakMemoryBytes / kBytesPerGiB;
}

bool SweepChart::pointPosition(std::int64_t rowIndex, double* x, double* y) const
{
    if (!m_result || rowIndex < 0 || rowIndex >= static_cast<std::int64_t>(m_result->rows.size())) {
        return false;
    }
    const auto drawn = [rowIndex](const std::vector<std::int64_t>& rows) {
        return std::find(rows.begin(), rows.end(), rowIndex) != rows.end();
    };
    const sweep::SweepRow& row = m_result->rows[static_cast<size_t>(rowIndex)];
    if (drawn(m_evaluatedRows)) {
        *x = xOf(row);
        *y = row.tokensPerSecondPerGpu;
        return true;
    }
    if (drawn(m_notFittingRows)) {
        *x = xOf(row);
        *y = 0;
        return true;
    }
    return false;
}

QPoint SweepChart::pointPixel(std::int64_t rowIndex) const
{
    double x = 0;
    double y = 0;
    if (!pointPosition(rowIndex, &x, &y)) {
        return { -1, -1 };
    }
    // The plot fills this widget (no margins), so its coordinates are ours.
    const QPointF pixel(plot()->xAxis->coordToPixel(x), plot()->yAxis->coordToPixel(y));
    return plot()->mapTo(this, pixel.toPoint());
}

void SweepChart::setHighlightedPoint(std::int64_t rowIndex)
{
    if (m_highlighted != rowIndex) {
        m_highlighted = rowIndex;
        updateHighlight();
        plot()->replot(QCustomPlot::rpQueuedReplot);
    }
}

void SweepChart::updateHighlight()
{
    if (!m_highlight) {
        return;
    }
    double x = 0;
    double y = 0;
    if (pointPosition(m_highlighted, &x, &y)) {
        m_highlight->setData({ x }, { y }, true);
    } else {
        m_highlight->data()->clear();
    }
}

std::int64_t SweepChart::pointAt(const QPointF& pixel) const
{
    constexpr double kTolerancePx = 8;
    std::int64_t best = -1;
    double bestDistance = kTolerancePx * kTolerancePx;
    if (!m_result) {
        return best;
    }
    for (const std::vector<std::int64_t>* rows : { &m_evaluatedRows, &m_notFittingRows }) {
        const bool pruned = rows == &m_notFittingRows; // drawn on the bottom axis
        for (const std::int64_t index : *rows) {
            const sweep::SweepRow& row = m_result->rows[static_cast<size_t>(index)];
            const double dx = plot()->xAxis->coordToPixel(xOf(row)) - pixel.x();
            const double dy = plot()->yAxis->coordToPixel(pruned ? 0 : row.tokensPerSecondPerGpu) - pixel.y();
            if (dx * dx + dy * dy <= bestDistance) {
                bestDistance = dx * dx + dy * dy;
                best = index;
            }
        }
    }
    return best;
}

void SweepChart::rebuild()
{
    m_evaluated = m_pareto = m_notFitting = m_highlight = nullptr;
    m_evaluatedRows.clear();
    m_paretoRows.clear();
    m_notFittingRows.clear();
    plot()->legend->setVisible(false);
    const QString xLabel = m_inference ? tr("End-to-end latency (s)") : tr("Memory peak per GPU (GiB)");
    plot()->xAxis->setLabel(xLabel);
    plot()->yAxis->setLabel(tr("Tokens/s per GPU"));
    if (!m_result) {
        showPlaceholder(tr("Run a sweep to see its points"));
        return;
    }
    std::vector<std::pair<QPointF, std::int64_t>> evaluated;
    std::vector<std::pair<QPointF, std::int64_t>> front;
    std::vector<std::pair<QPointF, std::int64_t>> notFitting;
    double capacity = -1; // GiB, when every placed point has the same GPU
    bool oneCapacity = true;
    for (const sweep::SweepRow& row : m_result->rows) {
        if (row.status == sweep::PointStatus::Ok) {
            const QPointF point(xOf(row), row.tokensPerSecondPerGpu);
            evaluated.emplace_back(point, row.index);
            if (row.pareto) {
                front.emplace_back(point, row.index);
            }
        } else if (row.status == sweep::PointStatus::DoesNotFit && !m_inference && m_showNotFitting) {
            notFitting.emplace_back(QPointF(xOf(row), 0), row.index);
        }
        if (row.status == sweep::PointStatus::Ok || row.status == sweep::PointStatus::DoesNotFit) {
            const double gib = row.capacityBytes / kBytesPerGiB;
            oneCapacity = oneCapacity && (capacity < 0 || capacity == gib);
            capacity = gib;
        }
    }
    if (evaluated.empty() && notFitting.empty()) {
        showPlaceholder(tr("No point of this sweep could be evaluated"));
        return;
    }
    const QPalette colours = chartPalette();
    const QColor text = colours.color(QPalette::Text);
    const double line = style().lineWidthPx();
    plot()->legend->setVisible(true);

    if (!notFitting.empty()) {
        QColor grey = text;
        grey.setAlphaF(0.45F);
        m_notFitting = plot()->addGraph();
        m_notFitting->setName(tr("Does not fit (pruned)"));
        m_notFitting->setLineStyle(QCPGraph::lsNone);
        m_notFitting->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCross, QPen(grey, line), Qt::NoBrush, 7));
        m_notFittingRows = fillGraph(m_notFitting, std::move(notFitting));
    }
    const QColor pointColour = style().color(0);
    m_evaluated = plot()->addGraph();
    m_evaluated->setName(tr("Evaluated"));
    m_evaluated->setLineStyle(QCPGraph::lsNone);
    QColor fill = pointColour;
    fill.setAlphaF(0.35F);
    m_evaluated->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(pointColour, line), fill, 7));
    m_evaluatedRows = fillGraph(m_evaluated, std::move(evaluated));

    if (!front.empty()) {
        const QColor frontColour = style().color(1);
        m_pareto = plot()->addGraph();
        m_pareto->setName(tr("Pareto front"));
        m_pareto->setLineStyle(QCPGraph::lsLine);
        m_pareto->setPen(QPen(frontColour, line * 1.3));
        m_pareto->setScatterStyle(
            QCPScatterStyle(QCPScatterStyle::ssDiamond, QPen(frontColour.darker(130), line), frontColour, 11));
        m_paretoRows = fillGraph(m_pareto, std::move(front));
    }
    // The selection ring is for the screen: a paper figure has no current selection.
    m_highlight = plot()->addGraph();
    m_highlight->setVisible(!printMode());
    m_highlight->setLineStyle(QCPGraph::lsNone);
    m_highlight->setScatterStyle(QCPScatterStyle(
        QCPScatterStyle::ssCircle, QPen(colours.color(QPalette::Highlight), line * 1.5), Qt::NoBrush, 17));
    m_highlight->removeFromLegend();
    updateHighlight();

    plot()->rescaleAxes();
    const QCPRange x = plot()->xAxis->range();
    const QCPRange y = plot()->yAxis->range();
    double xLow = m_inference ? x.lower : 0;
    double xHigh = x.upper;
    if (!m_inference && oneCapacity && capacity > 0 && !m_notFittingRows.empty()) {
        xHigh = std::max(xHigh, capacity);
    }
    const double xPad = std::max(xHigh - xLow, std::abs(xHigh) * 0.1 + 1e-9) * 0.06;
    plot()->xAxis->setRange(m_inference ? std::max(0.0, xLow - xPad) : 0, xHigh + xPad);
    const double yHigh = std::max(y.upper, 1e-9) * 1.08;
    plot()->yAxis->setRange(m_notFittingRows.empty() ? 0 : -0.04 * yHigh, yHigh);

    if (!m_inference && oneCapacity && capacity > 0 && !m_notFittingRows.empty()) {
        // A legend entry rather than a label beside the line, which would cover points at paper sizes.
        QCPGraph* capacityLine = plot()->addGraph();
        capacityLine->setName(tr("Capacity %1").arg(formatGiB(capacity * kBytesPerGiB)));
        capacityLine->setPen(QPen(text, line, Qt::DashLine));
        capacityLine->setLineStyle(QCPGraph::lsLine);
        capacityLine->addData(capacity, plot()->yAxis->range().lower);
        capacityLine->addData(capacity, plot()->yAxis->range().upper);
    }
}

} // namespace rapid::widgets
