// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>

class QCPTextElement;
class QCustomPlot;

namespace rapid::widgets {

class PlotStyle;

/// Base of the dashboard charts: one QCustomPlot with a title, styled by PlotStyle, following the desktop palette,
/// with an "Export…" context menu. Subclasses only put their data on the plot in rebuild().
class ChartWidget : public QWidget {
    Q_OBJECT
public:
    explicit ChartWidget(const QString& title, QWidget* parent = nullptr);

    QCustomPlot* plot() const { return m_plot; }
    QString title() const { return m_title; }
    /// Print colours (black on white) instead of the desktop palette, for paper exports; rebuilds the plot.
    void setPrintMode(bool print);
    bool printMode() const { return m_printMode; }
    /// Wraps the legend into as many columns as fit @p width layout pixels; the exporter calls it for the paper width.
    void fitLegendToWidth(int width);

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

private:
    void showContextMenu(const QPoint& position);

    QString m_title;
    QCustomPlot* m_plot;
    QCPTextElement* m_titleElement;
    bool m_printMode = false;
};

} // namespace rapid::widgets
