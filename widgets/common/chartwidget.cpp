// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/chartwidget.h"

#include "common/plotstyle.h"

#include <QEvent>
#include <QMenu>
#include <QResizeEvent>
#include <QVBoxLayout>

#include <qcustomplot.h>

namespace rapid::widgets {

namespace {

// Room for one legend entry at the plot style's 9 pt: icon, spacing and a name like "Optimizer states".
constexpr int kLegendEntryWidthPx = 125;

} // namespace

ChartWidget::ChartWidget(const QString& title, QWidget* parent)
    : QWidget(parent)
    , m_title(title)
    , m_plot(new QCustomPlot(this))
    , m_titleElement(new QCPTextElement(m_plot, title))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    m_plot->plotLayout()->insertRow(0);
    m_plot->plotLayout()->addElement(0, 0, m_titleElement);
    // The context menu belongs to the chart, not the plot, so the export can be offered for every chart alike.
    m_plot->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_plot, &QWidget::customContextMenuRequested, this, &ChartWidget::showContextMenu);
}

void ChartWidget::setPrintMode(bool print)
{
    if (m_printMode != print) {
        m_printMode = print;
        refresh();
    }
}

void ChartWidget::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange && !m_printMode) {
        refresh();
    }
}

void ChartWidget::refresh()
{
    const QPalette colours = chartPalette();
    style().apply(m_plot, colours);
    m_titleElement->setFont(style().titleFont());
    m_titleElement->setTextColor(colours.color(QPalette::Text));
    m_plot->clearPlottables();
    m_plot->clearItems();
    m_plot->xAxis->setVisible(true);
    m_plot->yAxis->setVisible(true);
    rebuild();
    // Queued: several data changes in one event-loop turn cost one repaint.
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void ChartWidget::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    fitLegendToWidth(event->size().width());
}

void ChartWidget::fitLegendToWidth(int width)
{
    const int columns = qBound(1, width / kLegendEntryWidthPx, 6);
    if (m_plot->legend->wrap() != columns) {
        m_plot->legend->setWrap(columns);
        m_plot->legend->setFillOrder(QCPLegend::foColumnsFirst, true); // re-flows the existing entries
        m_plot->replot(QCustomPlot::rpQueuedReplot);
    }
}

QPalette ChartWidget::chartPalette() const
{
    return m_printMode ? PlotStyle::printPalette() : palette();
}

const PlotStyle& ChartWidget::style() const
{
    return PlotStyle::standard();
}

void ChartWidget::showPlaceholder(const QString& message)
{
    // Empty axes with a default range would look like a result of zero.
    m_plot->xAxis->setVisible(false);
    m_plot->yAxis->setVisible(false);
    auto* text = new QCPItemText(m_plot);
    text->position->setType(QCPItemPosition::ptAxisRectRatio);
    text->position->setCoords(0.5, 0.5);
    text->setPositionAlignment(Qt::AlignCenter);
    text->setText(message);
    text->setFont(style().font());
    QColor grey = chartPalette().color(QPalette::Text);
    grey.setAlphaF(0.6F);
    text->setColor(grey);
}

void ChartWidget::showContextMenu(const QPoint& position)
{
    QMenu menu(this);
    menu.addAction(tr("Export…"), this, [this] { Q_EMIT exportRequested(this); });
    menu.exec(m_plot->mapToGlobal(position));
}

} // namespace rapid::widgets
