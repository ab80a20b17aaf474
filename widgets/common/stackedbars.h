// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QColor>
#include <QList>
#include <QString>

#include <vector>

class QCPBars;
class QCustomPlot;

namespace rapid::widgets {

class PlotStyle;

/// One kind of segment of a stacked bar (a memory category, a time class): its legend name and colour (invalid: one
/// of the palette's, see colourDrawnSeries).
struct BarSeries {
    QString name;
    QColor color;
};

/// One horizontal bar: its axis label and one value per series.
struct BarRow {
    QString label;
    std::vector<double> values;
    double total() const;
};

/// Stacked horizontal bars, one per row, top to bottom at keys 1..n on the plot's left axis (the axis is reversed and
/// labelled with the rows' labels). Series that are zero in every row are left out, so the legend lists only what is
/// drawn; only the first row's bars enter the legend, since every row uses the same colours. Returns the bars of each
/// row, bottom segment first.
QList<QList<QCPBars*>> addStackedRows(
    QCustomPlot* plot, const QList<BarSeries>& series, const QList<BarRow>& rows, double lineWidth);

/// Gives every series without a colour that some row draws (a value above zero) its own palette colour, in series
/// order, so the colours of what is drawn are all different whatever subset a configuration has
/// (PlotStyle::categoryColors; @p reserved stay for verdicts).
void colourDrawnSeries(
    QList<BarSeries>& series, const QList<BarRow>& rows, const PlotStyle& style, const QList<QColor>& reserved = {});

/// Shows the legend in its own layout row (under the axis rect unless a ChartWidget placed it already), wrapping
/// after @p columns entries, so it never covers bars and shrinks to what it lists.
void placeLegendBelow(QCustomPlot* plot, int columns);

} // namespace rapid::widgets
