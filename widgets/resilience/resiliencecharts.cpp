// SPDX-License-Identifier: GPL-3.0-or-later
#include "resilience/resiliencecharts.h"

#include "common/chartlines.h"
#include "common/figureformat.h"
#include "common/plotstyle.h"
#include "common/stackedbars.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

namespace rapid::widgets {

namespace {

/// The simulated goodput at each of its intervals: a marker at the mean and a bar over its 95% confidence interval.
void addSimulatedPoints(QCustomPlot* plot, const GoodputFigures& f, const QPen& pen)
{
    QVector<double> keys;
    QVector<double> means;
    QVector<double> errors;
    for (const SimulatedGoodput& point : f.simulated) {
        keys.append(point.interval);
        means.append(100 * point.study.meanEffectiveFraction);
        errors.append(100 * point.halfWidth95());
    }
    QCPGraph* points = plot->addGraph();
    points->setName(QObject::tr("simulated, %1 runs each (95% CI)").arg(f.simulated.front().study.trials));
    points->setPen(pen);
    points->setLineStyle(QCPGraph::lsNone);
    points->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, pen.color(), 4 * pen.widthF()));
    points->setData(keys, means, true);
    auto* bars = new QCPErrorBars(plot->xAxis, plot->yAxis);
    bars->setName(points->name());
    bars->setDataPlottable(points);
    bars->setData(errors);
    bars->setPen(pen);
    bars->setWhiskerWidth(4 * pen.widthF());
    bars->removeFromLegend(); // the points' entry stands for both
}

} // namespace

SlowdownCdfChart::SlowdownCdfChart(QWidget* parent)
    : ChartWidget(tr("Step slowdown distribution per (k, h)"), parent)
{
    setObjectName(QStringLiteral("slowdownCdfChart"));
    setMinimumSize(280, 200);
    placeLegendBelow(plot(), 3);
    refresh();
}

void SlowdownCdfChart::setSeries(std::vector<SlowdownSeries> series)
{
    m_series = std::move(series);
    refresh();
}

void SlowdownCdfChart::rebuild()
{
    plot()->legend->setVisible(false);
    plot()->xAxis->setLabel(tr("Step slowdown (step / healthy step)"));
    plot()->yAxis->setLabel(tr("Share of connected trials"));
    double low = INFINITY;
    double high = -INFINITY;
    for (const SlowdownSeries& series : m_series) {
        for (const double value : series.slowdowns) {
            low = std::min(low, value);
            high = std::max(high, value);
        }
    }
    if (!std::isfinite(low)) {
        showPlaceholder(m_series.empty() ? tr("Run a fault study to see its slowdowns")
                                         : tr("Every trial cut GPUs apart: no slowdown to plot"));
        return;
    }
    const QCPRange x = paddedRange(low, high);
    const QList<QColor> colours = style().categoryColors(static_cast<int>(m_series.size()));
    const double width = style().lineWidthPx() * 1.3;
    for (size_t i = 0; i < m_series.size(); ++i) {
        std::vector<double> sorted = m_series[i].slowdowns;
        if (sorted.empty()) {
            continue; // every trial of the row was cut off; the table says so
        }
        std::sort(sorted.begin(), sorted.end());
        // The empirical CDF as a staircase from the left edge (0) to the right edge (1).
        QVector<double> keys { x.lower };
        QVector<double> values { 0.0 };
        const double n = static_cast<double>(sorted.size());
        for (size_t j = 0; j < sorted.size(); ++j) {
            keys.append(sorted[j]);
            values.append(static_cast<double>(j + 1) / n);
        }
        keys.append(x.upper);
        values.append(1.0);
        QCPGraph* graph = addLineGraph(plot(), m_series[i].name, QPen(colours[static_cast<int>(i)], width));
        graph->setLineStyle(QCPGraph::lsStepLeft);
        graph->setData(keys, values, true);
    }
    plot()->legend->setVisible(true);
    plot()->xAxis->setRange(x);
    plot()->yAxis->setRange(0, 1.04);
}

StragglerChart::StragglerChart(QWidget* parent)
    : ChartWidget(tr("Step slowdown with slow GPUs"), parent)
{
    setObjectName(QStringLiteral("stragglerChart"));
    setMinimumSize(280, 200);
    placeLegendBelow(plot(), 2);
    refresh();
}

void StragglerChart::setSeries(std::vector<StragglerSeries> series)
{
    m_series = std::move(series);
    refresh();
}

QCPAxis* StragglerChart::valueAxis() const
{
    return plot()->yAxis;
}

void StragglerChart::rebuild()
{
    plot()->legend->setVisible(false);
    plot()->xAxis->setLabel(tr("Slowdown of a slow GPU"));
    plot()->yAxis->setLabel(tr("Step slowdown"));
    if (m_series.empty()) {
        showPlaceholder(tr("Run a straggler study to see its curves"));
        return;
    }
    double low = INFINITY;
    double high = -INFINITY;
    double top = 1;
    for (const StragglerSeries& series : m_series) {
        for (size_t i = 0; i < series.slowdowns.size(); ++i) {
            low = std::min(low, series.slowdowns[i]);
            high = std::max(high, series.slowdowns[i]);
            top = std::max({ top, series.p50[i], series.p99[i] });
        }
    }
    const QList<QColor> colours = style().categoryColors(static_cast<int>(m_series.size()));
    const double width = style().lineWidthPx() * 1.3;
    QColor grey = chartPalette().color(QPalette::Text);
    grey.setAlphaF(0.45F);
    // The bound: a step never stretches by more than its slowest GPU (docs/resilience.md, tst_faultstudy).
    QCPGraph* bound = addLineGraph(plot(), tr("bound: step slowdown = S"), QPen(grey, width * 0.8, Qt::DotLine));
    bound->setData({ low, high }, { low, high }, true);
    for (size_t i = 0; i < m_series.size(); ++i) {
        const StragglerSeries& series = m_series[i];
        const QColor colour = colours[static_cast<int>(i)];
        const QVector<double> keys(series.slowdowns.begin(), series.slowdowns.end());
        QCPGraph* median = addLineGraph(plot(), tr("%1, p50").arg(series.name), QPen(colour, width));
        median->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 5));
        median->setData(keys, QVector<double>(series.p50.begin(), series.p50.end()), true);
        QCPGraph* tail = addLineGraph(plot(), tr("%1, p99").arg(series.name), QPen(colour, width, Qt::DashLine));
        tail->setData(keys, QVector<double>(series.p99.begin(), series.p99.end()), true);
    }
    plot()->legend->setVisible(true);
    plot()->xAxis->setRange(paddedRange(low, high));
    plot()->yAxis->setRange(paddedRange(1, std::max(top, high)));
}

GoodputChart::GoodputChart(QWidget* parent)
    : ChartWidget(tr("Goodput against the checkpoint interval"), parent)
{
    setObjectName(QStringLiteral("goodputChart"));
    setMinimumSize(280, 200);
    placeLegendBelow(plot(), 4);
    refresh();
}

void GoodputChart::setFigures(std::optional<GoodputFigures> figures)
{
    m_figures = std::move(figures);
    refresh();
}

QCPAxis* GoodputChart::valueAxis() const
{
    return plot()->yAxis;
}

void GoodputChart::rebuild()
{
    plot()->legend->setVisible(false);
    plot()->xAxis->setLabel(tr("Checkpoint interval (s of training)"));
    plot()->yAxis->setLabel(tr("Goodput (% of wall time)")); // expected and simulated; shorter fits 300 px
    plot()->xAxis->setScaleType(QCPAxis::stLogarithmic);
    plot()->xAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    if (!m_figures || m_figures->intervals.empty()) {
        showPlaceholder(tr("Compute to see goodput against the interval"));
        return;
    }
    const GoodputFigures& f = *m_figures;
    const double width = style().lineWidthPx() * 1.3;
    QVector<double> percents;
    for (const double fraction : f.fractions) {
        percents.append(100 * fraction);
    }
    addLineGraph(plot(), tr("expected goodput"), QPen(style().color(0), width))
        ->setData(QVector<double>(f.intervals.begin(), f.intervals.end()), percents, true);
    double lowest = *std::min_element(percents.begin(), percents.end());
    double highest = *std::max_element(percents.begin(), percents.end());
    if (!f.simulated.empty()) {
        addSimulatedPoints(plot(), f, QPen(style().color(4), width));
        for (const SimulatedGoodput& point : f.simulated) {
            const double mean = 100 * point.study.meanEffectiveFraction;
            lowest = std::min(lowest, mean - 100 * point.halfWidth95());
            highest = std::max(highest, mean + 100 * point.halfWidth95());
        }
    }
    const QCPRange y = paddedRange(lowest, highest);
    const auto mark = [&](double interval, const QString& name, int colour, Qt::PenStyle line) {
        addLineGraph(
            plot(), QStringLiteral("%1 %2").arg(name, durationText(interval)), QPen(style().color(colour), width, line))
            ->setData({ interval, interval }, { y.lower, y.upper }, true);
    };
    mark(f.young, tr("Young"), 1, Qt::DashLine);
    mark(f.daly, tr("Daly"), 2, Qt::DotLine);
    mark(f.optimum, tr("optimum"), 3, Qt::SolidLine);
    plot()->legend->setVisible(true);
    plot()->xAxis->setRange(f.intervals.front(), f.intervals.back());
    plot()->yAxis->setRange(y);
}

} // namespace rapid::widgets
