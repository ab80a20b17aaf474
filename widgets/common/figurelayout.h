// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QList>
#include <QRectF>
#include <QSize>

class QCustomPlot;

namespace rapid::widgets {

class ChartWidget;

/// Lays @p plot out at @p size layout pixels, as QCustomPlot::toPainter does before it draws, so positions of items
/// and layout elements can be read (and adjusted) before the figure is painted.
void layOutPlot(QCustomPlot* plot, QSize size);

/// Lays a chart out for a paper figure of @p size layout pixels: the legend wrapped to the width, then the value
/// axis widened until the value labels fit, each followed by a new layout.
void layOutChartForPaper(ChartWidget* chart, QSize size);

/// Where a laid-out plot draws text and bars, in layout pixels: what the export tests check for overlaps.
struct FigureGeometry {
    QRectF figure;
    QRectF axisRect;
    QRectF legend; ///< null when the legend is not drawn
    QList<QRectF> texts; ///< text items (value labels, placeholders) and visible text elements (title, verdict)
    QList<QRectF> bars; ///< every drawn bar segment
};

/// Measures @p plot as last laid out (layOutPlot, replot or an export).
FigureGeometry measureFigure(QCustomPlot* plot);

} // namespace rapid::widgets
