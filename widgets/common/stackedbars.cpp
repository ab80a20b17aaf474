// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/stackedbars.h"

#include "common/distinctlabels.h"
#include "common/plotstyle.h"

#include <algorithm>
#include <numeric>

#include <qcustomplot.h>

namespace rapid::widgets {

double BarRow::total() const
{
    return std::accumulate(values.begin(), values.end(), 0.0);
}

namespace {

bool isDrawn(const QList<BarRow>& rows, qsizetype index)
{
    const auto slot = static_cast<size_t>(index);
    return std::any_of(rows.begin(), rows.end(),
        [slot](const BarRow& row) { return slot < row.values.size() && row.values[slot] > 0; });
}

} // namespace

void colourDrawnSeries(
    QList<BarSeries>& series, const QList<BarRow>& rows, const PlotStyle& style, const QList<QColor>& reserved)
{
    QList<qsizetype> uncoloured;
    for (qsizetype index = 0; index < series.size(); ++index) {
        if (!series[index].color.isValid() && isDrawn(rows, index)) {
            uncoloured.append(index);
        }
    }
    const QList<QColor> colours = style.categoryColors(static_cast<int>(uncoloured.size()), reserved);
    for (qsizetype at = 0; at < uncoloured.size(); ++at) {
        series[uncoloured[at]].color = colours[at];
    }
}

QList<QList<QCPBars*>> addStackedRows(
    QCustomPlot* plot, const QList<BarSeries>& series, const QList<BarRow>& rows, double lineWidth)
{
    QList<QList<QCPBars*>> result;
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    // A long run name would take the bars' width; the Compare tab's table carries it whole. Shortened, two runs
    // named alike keep the words that tell them apart.
    constexpr qsizetype kLongestLabel = 24;
    QStringList labels;
    for (const BarRow& row : rows) {
        labels.append(row.label);
    }
    labels = elideDistinctly(labels, kLongestLabel);
    for (int row = 0; row < rows.size(); ++row) {
        const double key = row + 1;
        ticker->addTick(key, labels[row]);
        QList<QCPBars*> stack;
        QCPBars* below = nullptr;
        for (int index = 0; index < series.size(); ++index) {
            const auto slot = static_cast<size_t>(index);
            if (!isDrawn(rows, index)) {
                continue;
            }
            auto* bars = new QCPBars(plot->yAxis, plot->xAxis);
            bars->setName(series[index].name);
            bars->setWidth(0.6);
            bars->setBrush(series[index].color);
            // A thin outline in the fill's darker shade separates neighbouring segments of similar colour.
            bars->setPen(QPen(series[index].color.darker(140), lineWidth * 0.5));
            const double value = slot < rows[row].values.size() ? rows[row].values[slot] : 0.0;
            bars->addData(key, value);
            if (below) {
                bars->moveAbove(below);
            }
            below = bars;
            if (row != 0) {
                bars->removeFromLegend();
            }
            stack.append(bars);
        }
        result.append(stack);
    }
    plot->yAxis->setTicker(ticker);
    plot->yAxis->setRangeReversed(true); // first row on top, in reading order
    plot->yAxis->setRange(0.4, static_cast<double>(rows.size()) + 0.6);
    plot->yAxis->grid()->setVisible(false);
    return result;
}

void placeLegendBelow(QCustomPlot* plot, int columns)
{
    plot->legend->setFillOrder(QCPLegend::foColumnsFirst);
    plot->legend->setWrap(columns);
    plot->legend->setVisible(true);
    plot->legend->setMargins(QMargins(4, 0, 4, 2));
    // An empty legend reports a maximum width of a few pixels, and the layout caps the whole column (title and axis
    // rect) at its narrowest element. QCustomPlot honours an explicit maximum only when it stays below
    // QWIDGETSIZE_MAX after adding the margins, so "wide enough for any screen" is spelled as a finite number.
    constexpr int kUnboundedWidth = 100000;
    plot->legend->setMaximumSize(kUnboundedWidth, QWIDGETSIZE_MAX);
    // The layout row: ChartWidget's, when the plot is one (it places the legend where the figure style asks).
    QCPLayout* inset = plot->axisRect()->insetLayout();
    if (!plot->legend->layout() || plot->legend->layout() == inset) {
        if (plot->legend->layout()) {
            inset->take(plot->legend);
        }
        const int row = plot->plotLayout()->rowCount();
        plot->plotLayout()->addElement(row, 0, plot->legend);
        plot->plotLayout()->setRowStretchFactor(row, 0.001);
    }
}

} // namespace rapid::widgets
