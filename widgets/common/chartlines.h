// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

class QCPGraph;
class QCPRange;
class QCustomPlot;
class QPen;
class QString;

namespace rapid::widgets {

/// [low, high] padded by 5% on each side (a flat range by 5% of its value), so curves do not run along the frame.
QCPRange paddedRange(double low, double high);

/// A new line graph of @p plot named @p name (its legend entry), drawn with @p pen.
QCPGraph* addLineGraph(QCustomPlot* plot, const QString& name, const QPen& pen);

} // namespace rapid::widgets
