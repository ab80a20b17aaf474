// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/chartexporter.h"

#include "common/chartwidget.h"

#include <QImage>
#include <QPageSize>
#include <QPdfWriter>
#include <QSvgGenerator>

#include <qcustomplot.h>

#include <cmath>

namespace rapid::widgets {

namespace {

constexpr double kLayoutDpi = 96.0;
constexpr double kInchesPerMetre = 1.0 / 0.0254;

int dotsPerMetre(double dpi)
{
    return static_cast<int>(std::lround(dpi * kInchesPerMetre));
}

/// Restores print mode when the export ends, also on early returns.
class PrintModeScope {
public:
    explicit PrintModeScope(ChartWidget* chart)
        : m_chart(chart)
    {
        if (m_chart) {
            m_chart->setPrintMode(true);
        }
    }
    ~PrintModeScope()
    {
        if (m_chart) {
            m_chart->setPrintMode(false);
        }
    }
    PrintModeScope(const PrintModeScope&) = delete;
    PrintModeScope& operator=(const PrintModeScope&) = delete;

private:
    ChartWidget* m_chart;
};

} // namespace

QString suffixOf(ExportFormat format)
{
    switch (format) {
    case ExportFormat::Svg:
        return QStringLiteral("svg");
    case ExportFormat::Pdf:
        return QStringLiteral("pdf");
    case ExportFormat::Png:
        break;
    }
    return QStringLiteral("png");
}

QSize ChartExporter::layoutSize(const ExportOptions& options)
{
    return { static_cast<int>(std::lround(options.widthInches * kLayoutDpi)),
        static_cast<int>(std::lround(options.height() * kLayoutDpi)) };
}

ExportFormat ChartExporter::formatForPath(const QString& filePath, ExportFormat fallback)
{
    for (ExportFormat format : { ExportFormat::Png, ExportFormat::Svg, ExportFormat::Pdf }) {
        if (filePath.endsWith(QLatin1Char('.') + suffixOf(format), Qt::CaseInsensitive)) {
            return format;
        }
    }
    return fallback;
}

bool ChartExporter::exportWidget(QWidget* widget, const QString& filePath, const ExportOptions& options, QString* error)
{
    const auto fail = [error](const QString& message) {
        if (error) {
            *error = message;
        }
        return false;
    };
    if (!widget) {
        return fail(QObject::tr("Nothing to export"));
    }
    if (options.widthInches <= 0 || options.height() <= 0 || options.dpi <= 0) {
        return fail(QObject::tr("The export size must be positive"));
    }
    auto* chart = qobject_cast<ChartWidget*>(widget);
    QCustomPlot* plot = chart ? chart->plot() : qobject_cast<QCustomPlot*>(widget);
    const PrintModeScope printMode(chart);
    const QSize size = layoutSize(options);
    if (chart) {
        chart->fitLegendToWidth(size.width());
    }

    switch (options.format) {
    case ExportFormat::Png: {
        const QSize pixels(static_cast<int>(std::lround(options.widthInches * options.dpi)),
            static_cast<int>(std::lround(options.height() * options.dpi)));
        QImage image(pixels, QImage::Format_ARGB32_Premultiplied);
        image.fill(Qt::white);
        // Lay out at 96 per inch and let the device pixel ratio supply the resolution: fonts in points resolve
        // against the 96, so 9 pt stays 9 pt on paper at any DPI.
        image.setDevicePixelRatio(options.dpi / kLayoutDpi);
        image.setDotsPerMeterX(dotsPerMetre(kLayoutDpi));
        image.setDotsPerMeterY(dotsPerMetre(kLayoutDpi));
        paint(widget, plot, &image, size, false);
        // The file then states its real resolution, so a paper's toolchain places it at the chosen width.
        image.setDevicePixelRatio(1.0);
        image.setDotsPerMeterX(dotsPerMetre(options.dpi));
        image.setDotsPerMeterY(dotsPerMetre(options.dpi));
        if (!image.save(filePath, "PNG")) {
            return fail(QObject::tr("Cannot write %1").arg(filePath));
        }
        return true;
    }
    case ExportFormat::Svg: {
        QSvgGenerator generator;
        generator.setFileName(filePath);
        generator.setSize(size);
        generator.setViewBox(QRect(QPoint(0, 0), size));
        generator.setResolution(static_cast<int>(kLayoutDpi)); // the SVG's width and height come out in mm
        generator.setTitle(chart ? chart->title() : widget->windowTitle());
        generator.setDescription(QObject::tr("Exported by RAPID-LLM Workbench"));
        paint(widget, plot, &generator, size, true);
        if (!QFileInfo(filePath).isFile() || QFileInfo(filePath).size() == 0) {
            return fail(QObject::tr("Cannot write %1").arg(filePath));
        }
        return true;
    }
    case ExportFormat::Pdf:
        break;
    }
    QPdfWriter writer(filePath);
    writer.setResolution(static_cast<int>(kLayoutDpi));
    writer.setPageSize(QPageSize(QSizeF(options.widthInches, options.height()), QPageSize::Inch));
    writer.setPageMargins(QMarginsF(0, 0, 0, 0));
    writer.setCreator(QStringLiteral("RAPID-LLM Workbench"));
    writer.setTitle(chart ? chart->title() : widget->windowTitle());
    paint(widget, plot, &writer, size, true);
    if (!QFileInfo(filePath).isFile() || QFileInfo(filePath).size() == 0) {
        return fail(QObject::tr("Cannot write %1").arg(filePath));
    }
    return true;
}

void ChartExporter::paint(QWidget* widget, QCustomPlot* plot, QPaintDevice* device, QSize size, bool vector)
{
    if (plot) {
        QCPPainter painter(device);
        if (vector) {
            painter.setMode(QCPPainter::pmVectorized);
        }
        plot->toPainter(&painter, size.width(), size.height());
        painter.end();
        if (auto* chart = qobject_cast<ChartWidget*>(widget)) {
            chart->fitLegendToWidth(chart->width()); // back to the screen's legend
        }
        plot->replot(QCustomPlot::rpQueuedReplot); // the screen layout was replaced by the paper one
        return;
    }
    // A plain widget is laid out at the paper size for the duration of the render, then put back.
    const QRect geometry = widget->geometry();
    widget->resize(size);
    QPainter painter(device);
    widget->render(&painter, QPoint(), QRegion(), QWidget::DrawChildren | QWidget::DrawWindowBackground);
    painter.end();
    widget->setGeometry(geometry);
}

} // namespace rapid::widgets
