// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/chartlines.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

namespace rapid::widgets {

QCPRange paddedRange(double low, double high)
{
    const double span = high > low ? high - low : std::max(std::abs(high), 1e-9) * 2;
    return QCPRange(low - 0.05 * span, high + 0.05 * span);
}

QCPGraph* addLineGraph(QCustomPlot* plot, const QString& name, const QPen& pen)
{
    QCPGraph* graph = plot->addGraph();
    graph->setName(name);
    graph->setPen(pen);
    graph->setLineStyle(QCPGraph::lsLine);
    return graph;
}

} // namespace rapid::widgets
