// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "common/exportoptions.h"

#include <QImage>
#include <QSize>

class QCustomPlot;
class QPaintDevice;
class QWidget;

namespace rapid::widgets {

/// Writes a chart or any view to PNG, SVG or PDF at a physical paper size. The layout is redone at that size with the
/// plot style's fonts (QCustomPlot charts) so text is 9 pt on paper rather than a scaled-down screen grab; other
/// widgets are rendered through QWidget::render at the paper size. Charts are drawn in print colours, whatever the
/// desktop palette.
class ChartExporter {
public:
    /// ChartWidget and QCustomPlot are re-laid out at the paper size; other widgets go through QWidget::render.
    static bool exportWidget(
        QWidget* widget, const QString& filePath, const ExportOptions& options, QString* error = nullptr);
    /// The figure as an image at @p dpi (the export dialog's preview; PNG exports at the style's DPI); null with
    /// @p error set when the options are out of range.
    static QImage renderImage(QWidget* widget, const ExportOptions& options, double dpi, QString* error = nullptr);
    /// The paper size in layout pixels: 96 per inch, as on a standard-DPI screen (fonts and pen widths in points
    /// and pixels then keep their screen proportions).
    static QSize layoutSize(const ExportOptions& options);
    /// The format a file name asks for by its suffix; @p fallback when it names none.
    static ExportFormat formatForPath(const QString& filePath, ExportFormat fallback);

private:
    static void paint(QWidget* widget, QCustomPlot* plot, QPaintDevice* device, QSize size, bool vector);
};

} // namespace rapid::widgets
