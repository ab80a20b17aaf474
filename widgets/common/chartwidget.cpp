// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/chartwidget.h"

#include "common/figurelayout.h"
#include "common/plotstyle.h"

#include <QEvent>
#include <QMenu>
#include <QResizeEvent>
#include <QVBoxLayout>

#include <algorithm>

#include <qcustomplot.h>

namespace rapid::widgets {

namespace {

constexpr int kMaxLegendColumns = 6;
// Stretch of the layout rows that hold text (title, headers, legend): they take their minimum height, the axis
// rect the rest.
constexpr double kTextRowStretch = 0.001;

/// Columns of a legend filled row by row (QCPLegend::foColumnsFirst) whose entries are @p widths wide, that fit in
/// @p available pixels with @p spacing between columns.
int legendColumnsFitting(const QList<int>& widths, int available, int spacing)
{
    for (int columns = std::min<int>(kMaxLegendColumns, static_cast<int>(widths.size())); columns > 1; --columns) {
        int total = spacing * (columns - 1);
        for (int column = 0; column < columns; ++column) {
            int widest = 0;
            for (qsizetype index = column; index < widths.size(); index += columns) {
                widest = std::max(widest, widths[index]);
            }
            total += widest;
        }
        if (total <= available) {
            return columns;
        }
    }
    return 1;
}

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
    arrangeLayout();
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

void ChartWidget::setPaperStyle(const std::optional<config::FigureStyle>& figure)
{
    m_figure = figure;
    m_figurePlotStyle.reset();
    if (figure) {
        m_figurePlotStyle = PlotStyle::forFigure(*figure);
    }
    m_printMode = figure.has_value();
    refresh();
}

void ChartWidget::addHeader(QCPLayoutElement* element)
{
    m_headers.append(element);
    arrangeLayout();
}

QStringList ChartWidget::seriesNames() const
{
    QStringList names;
    for (int index = 0; index < m_plot->legend->itemCount(); ++index) {
        if (auto* item = qobject_cast<QCPPlottableLegendItem*>(m_plot->legend->item(index))) {
            names.append(item->plottable()->name());
        }
    }
    return names;
}

QCPAxis* ChartWidget::valueAxis() const
{
    return m_plot->xAxis;
}

void ChartWidget::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange && !m_printMode) {
        refresh();
    }
}

void ChartWidget::setTitle(const QString& title)
{
    m_title = title;
    m_titleElement->setText(title);
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
    // A paper style's value-axis title is put back before the chart draws for the screen again (charts that set
    // their title once, in the constructor, would keep it).
    if (m_savedValueLabel) {
        valueAxis()->setLabel(*m_savedValueLabel);
        m_savedValueLabel.reset();
    }
    rebuild();
    compactLegend();
    applyPaperStyle();
    arrangeLayout();
    if (!m_figure && m_plot->width() > 0 && m_plot->height() > 0) {
        fitLabelsOnScreen();
    }
    // Queued: several data changes in one event-loop turn cost one repaint.
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void ChartWidget::fitLabelsOnScreen()
{
    // The value labels at the bars' ends must end inside the plot on screen as on paper ("64.71 s (−10.2%)" was cut
    // at the right edge of a narrow results column).
    layOutPlot(m_plot, m_plot->size());
    keepLabelsInside();
}

void ChartWidget::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    fitLegendToWidth(event->size().width());
    if (!m_figure && m_plot->width() > 0 && m_plot->height() > 0) {
        fitLabelsOnScreen();
    }
}

void ChartWidget::compactLegend()
{
    // QCustomPlot's default item margins (8 px each side) and icon padding would spend a fifth of a one-column
    // figure's width on gaps between legend entries.
    QCPLegend* legend = m_plot->legend;
    legend->setIconTextPadding(4);
    legend->setColumnSpacing(10);
    legend->setRowSpacing(0);
    for (int index = 0; index < legend->itemCount(); ++index) {
        if (QCPAbstractLegendItem* item = legend->item(index)) { // a wrapped legend's grid has empty cells
            item->setMargins(QMargins(0, 1, 0, 1));
        }
    }
}

void ChartWidget::applyPaperStyle()
{
    if (!m_figure) {
        return;
    }
    for (int index = 0; index < m_plot->plottableCount(); ++index) {
        QCPAbstractPlottable* plottable = m_plot->plottable(index);
        plottable->setName(QString::fromStdString(m_figure->displayName(plottable->name().toStdString())));
    }
    QCPAxis* axis = valueAxis();
    if (axis->visible() && (m_figure->valueMin || m_figure->valueMax)) {
        const QCPRange range = axis->range();
        axis->setRange(m_figure->valueMin.value_or(range.lower), m_figure->valueMax.value_or(range.upper));
    }
    if (axis->visible() && !m_figure->valueLabel.empty()) {
        m_savedValueLabel = axis->label();
        axis->setLabel(QString::fromStdString(m_figure->valueLabel));
    }
}

void ChartWidget::arrangeLayout()
{
    const bool titled = !m_figure || m_figure->title;
    const config::LegendPlacement placement = m_figure ? m_figure->legend : config::LegendPlacement::Bottom;
    QCPLayoutGrid* grid = m_plot->plotLayout();
    QCPLegend* legend = m_plot->legend;
    QCPAxisRect* rect = m_plot->axisRect();
    // Take every element out (a right-hand legend shares a nested grid with the axis rect), then put them back.
    auto* nested = qobject_cast<QCPLayoutGrid*>(rect->layout());
    if (nested == grid) {
        nested = nullptr;
    }
    QList<QCPLayoutElement*> elements { m_titleElement };
    elements += m_headers;
    elements << legend << rect;
    for (QCPLayoutElement* element : std::as_const(elements)) {
        if (element->layout()) {
            element->layout()->take(element);
        }
    }
    if (nested) {
        grid->take(nested);
        delete nested;
    }
    grid->simplify();
    // QCustomPlot keeps 15 px free around the axis rect; a paper figure keeps only what the last tick label
    // overhangs, so the plot gets the space.
    rect->setMinimumMargins(m_figure ? QMargins(2, 4, 12, 2) : QMargins(15, 15, 15, 15));

    int row = 0;
    const auto addRow = [grid, &row](QCPLayoutElement* element, double stretch) {
        grid->addElement(row, 0, element);
        grid->setRowStretchFactor(row, stretch);
        ++row;
    };
    m_titleElement->setVisible(titled);
    for (QCPLayoutElement* header : std::as_const(m_headers)) {
        header->setVisible(titled);
    }
    if (titled) {
        addRow(m_titleElement, kTextRowStretch);
        for (QCPLayoutElement* header : std::as_const(m_headers)) {
            addRow(header, kTextRowStretch);
        }
    }
    if (placement == config::LegendPlacement::Off) {
        legend->setVisible(false);
    }
    const bool legendShown = legend->visible();
    if (placement == config::LegendPlacement::Top && legendShown) {
        addRow(legend, kTextRowStretch);
    }
    if (placement == config::LegendPlacement::Right && legendShown) {
        // Plot and legend side by side; the legend's column holds it at the top with an empty cell under it, or its
        // rows would spread over the plot's height.
        auto* side = new QCPLayoutGrid;
        addRow(side, 1);
        side->addElement(0, 0, rect);
        auto* column = new QCPLayoutGrid;
        side->addElement(0, 1, column);
        side->setColumnStretchFactor(1, kTextRowStretch);
        side->setColumnSpacing(0);
        column->addElement(0, 0, legend);
        column->addElement(1, 0, new QCPLayoutElement(m_plot));
        column->setRowStretchFactor(0, kTextRowStretch);
    } else {
        addRow(rect, 1);
    }
    if (placement == config::LegendPlacement::Bottom && legendShown) {
        addRow(legend, kTextRowStretch);
    }
}

void ChartWidget::keepLabelsInside()
{
    QCPAxis* axis = valueAxis();
    if (axis != m_plot->xAxis || axis->rangeReversed()) {
        return; // only horizontal bars carry value labels at their ends
    }
    const QRect inside = m_plot->axisRect()->rect();
    for (int index = 0; index < m_plot->itemCount(); ++index) {
        auto* text = qobject_cast<QCPItemText*>(m_plot->item(index));
        if (!text || text->position->typeX() != QCPItemPosition::ptPlotCoords) {
            continue;
        }
        const double right = text->bottomRight->pixelPosition().x();
        const double width = right - text->topLeft->pixelPosition().x();
        const double room = inside.width() - width;
        if (right <= inside.right() || room <= 0) {
            continue;
        }
        // The anchor's value v must map to at most (room) pixels from the left: lower + (v - lower) * W / room.
        const QCPRange range = axis->range();
        const double anchor = text->position->coords().x();
        axis->setRangeUpper(range.lower + (anchor - range.lower) * inside.width() / room);
    }
}

void ChartWidget::fitLegendToWidth(int width)
{
    QCPLegend* legend = m_plot->legend;
    int columns = 1;
    if (!m_figure || m_figure->legend != config::LegendPlacement::Right) {
        QList<int> widths;
        for (int index = 0; index < legend->itemCount(); ++index) {
            if (QCPAbstractLegendItem* item = legend->item(index)) {
                widths.append(item->minimumOuterSizeHint().width());
            }
        }
        const QMargins margins = legend->margins();
        columns = legendColumnsFitting(widths, width - margins.left() - margins.right(), legend->columnSpacing());
    }
    if (legend->wrap() != columns) {
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
    return m_figurePlotStyle ? *m_figurePlotStyle : PlotStyle::standard();
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
