// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/chartexporter.h"

#include "common/chartwidget.h"
#include "common/figurelayout.h"

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

/// The widget to export drawn for paper: a chart in the paper style, laid out at the paper size @p size, and back on
/// the screen when the scope ends, also on early returns. plot() is the QCustomPlot to paint (null for a plain
/// widget).
class PaperStyleScope {
public:
    PaperStyleScope(QWidget* widget, const config::FigureStyle& figure, QSize size)
        : m_chart(qobject_cast<ChartWidget*>(widget))
        , m_plot(m_chart ? m_chart->plot() : qobject_cast<QCustomPlot*>(widget))
    {
        if (m_chart) {
            m_chart->setPaperStyle(figure);
            layOutChartForPaper(m_chart, size);
        }
    }
    QCustomPlot* plot() const { return m_plot; }
    QString title(const QWidget* widget) const { return m_chart ? m_chart->title() : widget->windowTitle(); }
    ~PaperStyleScope()
    {
        if (m_chart) {
            m_chart->setPaperStyle(std::nullopt);
            m_chart->fitLegendToWidth(m_chart->width());
            m_chart->plot()->setViewport(m_chart->plot()->rect());
            m_chart->plot()->replot(QCustomPlot::rpQueuedReplot); // the paper layout replaced the screen's
        }
    }
    PaperStyleScope(const PaperStyleScope&) = delete;
    PaperStyleScope& operator=(const PaperStyleScope&) = delete;

private:
    ChartWidget* m_chart;
    QCustomPlot* m_plot;
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
    return { static_cast<int>(std::lround(options.figure.widthInches * kLayoutDpi)),
        static_cast<int>(std::lround(options.figure.height() * kLayoutDpi)) };
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

namespace {

/// Why @p widget cannot be exported with @p options, or empty.
QString exportProblem(const QWidget* widget, const ExportOptions& options)
{
    if (!widget) {
        return QObject::tr("Nothing to export");
    }
    const config::FigureStyle& figure = options.figure;
    if (figure.widthInches < config::kMinFigureInches || figure.widthInches > config::kMaxFigureInches
        || figure.height() < config::kMinFigureInches || figure.height() > config::kMaxFigureInches) {
        return QObject::tr("The figure must be %1 to %2 inches wide and high")
            .arg(config::kMinFigureInches)
            .arg(config::kMaxFigureInches);
    }
    if (figure.dpi < config::kMinFigureDpi || figure.dpi > config::kMaxFigureDpi) {
        return QObject::tr("The resolution must be %1 to %2 dots per inch")
            .arg(config::kMinFigureDpi)
            .arg(config::kMaxFigureDpi);
    }
    return {};
}

} // namespace

QImage ChartExporter::renderImage(QWidget* widget, const ExportOptions& options, double dpi, QString* error)
{
    if (const QString problem = exportProblem(widget, options); !problem.isEmpty()) {
        if (error) {
            *error = problem;
        }
        return {};
    }
    const config::FigureStyle& figure = options.figure;
    const QSize size = layoutSize(options);
    const PaperStyleScope paper(widget, figure, size);
    const QSize pixels(
        static_cast<int>(std::lround(figure.widthInches * dpi)), static_cast<int>(std::lround(figure.height() * dpi)));
    QImage image(pixels, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::white);
    // Lay out at 96 per inch and let the device pixel ratio supply the resolution: fonts in points resolve against
    // the 96, so 9 pt stays 9 pt on paper at any DPI.
    image.setDevicePixelRatio(dpi / kLayoutDpi);
    image.setDotsPerMeterX(dotsPerMetre(kLayoutDpi));
    image.setDotsPerMeterY(dotsPerMetre(kLayoutDpi));
    paint(widget, paper.plot(), &image, size, false);
    // The image then states its real resolution, so a paper's toolchain places it at the chosen width.
    image.setDevicePixelRatio(1.0);
    image.setDotsPerMeterX(dotsPerMetre(dpi));
    image.setDotsPerMeterY(dotsPerMetre(dpi));
    return image;
}

bool ChartExporter::exportWidget(QWidget* widget, const QString& filePath, const ExportOptions& options, QString* error)
{
    const auto fail = [error](const QString& message) {
        if (error) {
            *error = message;
        }
        return false;
    };
    if (const QString problem = exportProblem(widget, options); !problem.isEmpty()) {
        return fail(problem);
    }
    const config::FigureStyle& figure = options.figure;
    if (options.format == ExportFormat::Png) {
        const QImage image = renderImage(widget, options, figure.dpi, error);
        if (image.isNull() || !image.save(filePath, "PNG")) {
            return fail(QObject::tr("Cannot write %1").arg(filePath));
        }
        return true;
    }
    const QSize size = layoutSize(options);
    const PaperStyleScope paper(widget, figure, size);
    if (options.format == ExportFormat::Svg) {
        QSvgGenerator generator;
        generator.setFileName(filePath);
        generator.setSize(size);
        generator.setViewBox(QRect(QPoint(0, 0), size));
        generator.setResolution(static_cast<int>(kLayoutDpi)); // the SVG's width and height come out in mm
        generator.setTitle(paper.title(widget));
        generator.setDescription(QObject::tr("Exported by RAPID-LLM Workbench"));
        paint(widget, paper.plot(), &generator, size, true);
        if (!QFileInfo(filePath).isFile() || QFileInfo(filePath).size() == 0) {
            return fail(QObject::tr("Cannot write %1").arg(filePath));
        }
        return true;
    }
    QPdfWriter writer(filePath);
    writer.setResolution(static_cast<int>(kLayoutDpi));
    writer.setPageSize(QPageSize(QSizeF(figure.widthInches, figure.height()), QPageSize::Inch));
    writer.setPageMargins(QMarginsF(0, 0, 0, 0));
    writer.setCreator(QStringLiteral("RAPID-LLM Workbench"));
    writer.setTitle(paper.title(widget));
    paint(widget, paper.plot(), &writer, size, true);
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
        if (!qobject_cast<ChartWidget*>(widget)) {
            plot->setViewport(plot->rect());
            plot->replot(QCustomPlot::rpQueuedReplot);
        }
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
