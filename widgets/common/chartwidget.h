// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "common/plotstyle.h"
#include "config/figurestyle.h"

#include <QList>
#include <QWidget>

#include <optional>

class QCPAxis;
class QCPLayoutElement;
class QCPTextElement;
class QCustomPlot;

namespace rapid::widgets {

/// Base of the dashboard charts: one QCustomPlot with a title, styled by PlotStyle, following the desktop palette,
/// with an "Export…" context menu. Subclasses only put their data on the plot in rebuild().
class ChartWidget : public QWidget {
    Q_OBJECT
public:
    explicit ChartWidget(const QString& title, QWidget* parent = nullptr);

    QCustomPlot* plot() const { return m_plot; }
    QString title() const { return m_title; }
    /// Renames the chart (its title line, the export dialog's list and file name), e.g. after the data it shows.
    void setTitle(const QString& title);
    /// Print colours (black on white) instead of the desktop palette, for paper exports; rebuilds the plot.
    void setPrintMode(bool print);
    bool printMode() const { return m_printMode; }
    /// Print colours and the paper style @p figure: its font and palette, the title (and the lines under it) only
    /// when asked for, the legend where it asks, series under their new names, the value axis's range and title.
    /// nullopt goes back to the screen. Rebuilds the plot.
    void setPaperStyle(const std::optional<config::FigureStyle>& figure);
    const std::optional<config::FigureStyle>& paperStyle() const { return m_figure; }
    /// Wraps the legend into as many columns as its entries' widths fit in @p width layout pixels (one column when
    /// it stands right of the plot); the exporter calls it for the paper width.
    void fitLegendToWidth(int width);
    /// Widens the value axis until every value label drawn at a data coordinate ends inside the plot. Needs a layout
    /// at the final size (the exporter lays out first).
    void keepLabelsInside();
    /// The legend's entries as the screen shows them (the names a figure style can rename), in legend order.
    QStringList seriesNames() const;
    /// The axis values are read on: time, memory, parameters (horizontal bars) or tokens/s (the sweep's points).
    virtual QCPAxis* valueAxis() const;

Q_SIGNALS:
    /// The user asked to export this chart (context menu); the window owns the dialog.
    void exportRequested(rapid::widgets::ChartWidget* chart);

protected:
    void changeEvent(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    /// Clears the plot's data and items and draws them again from the subclass's state.
    virtual void rebuild() = 0;
    /// Restyles and rebuilds; subclasses call it whenever their data change.
    void refresh();
    /// The colours to draw with: the widget's palette, or the print palette while exporting.
    QPalette chartPalette() const;
    const PlotStyle& style() const;
    /// A centred grey message in the empty plot ("No time prediction yet").
    void showPlaceholder(const QString& message);
    /// A line under the title (the memory verdict): shown and hidden with the title.
    void addHeader(QCPLayoutElement* element);

private:
    void showContextMenu(const QPoint& position);
    void compactLegend();
    void fitLabelsOnScreen();
    void applyPaperStyle();
    /// Puts the title and headers, the legend and the axis rect into the plot layout in the order the style asks.
    void arrangeLayout();

    QString m_title;
    QCustomPlot* m_plot;
    QCPTextElement* m_titleElement;
    QList<QCPLayoutElement*> m_headers;
    bool m_printMode = false;
    std::optional<config::FigureStyle> m_figure;
    std::optional<PlotStyle> m_figurePlotStyle; ///< PlotStyle::forFigure(*m_figure) while it is set
    std::optional<QString> m_savedValueLabel; ///< the value axis title a paper style replaced
};

} // namespace rapid::widgets
