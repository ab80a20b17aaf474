// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/figurelayout.h"

#include "common/chartwidget.h"

#include <qcustomplot.h>

#include <algorithm>

namespace rapid::widgets {

namespace {

/// Bar segment rectangles of @p bars: each data point from the top of the bars it is stacked on to its own value.
void addBarRects(const QCPBars* bars, QList<QRectF>& rects)
{
    const QCPAxis* keyAxis = bars->keyAxis();
    const QCPAxis* valueAxis = bars->valueAxis();
    for (auto point = bars->data()->constBegin(); point != bars->data()->constEnd(); ++point) {
        double base = 0;
        for (const QCPBars* below = bars->barBelow(); below; below = below->barBelow()) {
            const auto at = below->data()->findBegin(point->key, false);
            if (at != below->data()->constEnd() && at->key == point->key) {
                base += at->value;
            }
        }
        const double keyLow = keyAxis->coordToPixel(point->key - bars->width() / 2);
        const double keyHigh = keyAxis->coordToPixel(point->key + bars->width() / 2);
        const double valueLow = valueAxis->coordToPixel(base);
        const double valueHigh = valueAxis->coordToPixel(base + point->value);
        const bool horizontal = keyAxis->orientation() == Qt::Vertical;
        rects.append(horizontal ? QRectF(QPointF(valueLow, keyLow), QPointF(valueHigh, keyHigh)).normalized()
                                : QRectF(QPointF(keyLow, valueLow), QPointF(keyHigh, valueHigh)).normalized());
    }
}

} // namespace

void layOutPlot(QCustomPlot* plot, QSize size)
{
    plot->setViewport(QRect(QPoint(0, 0), size));
    QCPLayoutGrid* layout = plot->plotLayout();
    layout->update(QCPLayoutElement::upPreparation);
    layout->update(QCPLayoutElement::upMargins);
    layout->update(QCPLayoutElement::upLayout);
}

void layOutChartForPaper(ChartWidget* chart, QSize size)
{
    QCustomPlot* plot = chart->plot();
    layOutPlot(plot, size);
    chart->fitLegendToWidth(size.width());
    layOutPlot(plot, size);
    chart->keepLabelsInside();
    layOutPlot(plot, size);
}

FigureGeometry measureFigure(QCustomPlot* plot)
{
    FigureGeometry geometry;
    geometry.figure = QRectF(plot->viewport());
    geometry.axisRect = QRectF(plot->axisRect()->rect());
    if (plot->legend->realVisibility() && plot->legend->layout()) {
        geometry.legend = QRectF(plot->legend->outerRect());
    }
    for (int index = 0; index < plot->itemCount(); ++index) {
        if (auto* text = qobject_cast<QCPItemText*>(plot->item(index)); text && text->realVisibility()) {
            geometry.texts.append(
                QRectF(text->topLeft->pixelPosition(), text->bottomRight->pixelPosition()).normalized());
        }
    }
    for (QCPLayoutElement* element : plot->plotLayout()->elements(true)) {
        if (const auto* text = qobject_cast<const QCPTextElement*>(element); text && text->realVisibility()) {
            geometry.texts.append(QRectF(text->rect()));
        }
    }
    for (int index = 0; index < plot->plottableCount(); ++index) {
        if (const auto* bars = qobject_cast<const QCPBars*>(plot->plottable(index)); bars && bars->realVisibility()) {
            addBarRects(bars, geometry.bars);
        }
    }
    return geometry;
}

} // namespace rapid::widgets
