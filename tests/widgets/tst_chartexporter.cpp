// SPDX-License-Identifier: GPL-3.0-or-later
// Paper exports: a memory chart (QCustomPlot) and the summary figures (a plain widget) written to SVG, PDF and PNG at
// column widths. The SVG must be XML carrying the chart's own text, the PDF a PDF, the PNG exactly width × DPI pixels.
#include "common/chartexporter.h"
#include "common/figuredialog.h"
#include "editors/workspacedocument.h"
#include "evaluation/structureevaluator.h"
#include "results/memorychart.h"
#include "results/summaryfigures.h"

#include <QComboBox>
#include <QFile>
#include <QImage>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QXmlStreamReader>

#include <cmath>
#include <optional>

using namespace rapid;
using widgets::ChartExporter;
using widgets::ExportFormat;
using widgets::ExportOptions;

namespace {

/// The evaluation of the shipped Llama-3.1-70B workspace, through the same evaluator the window uses.
std::optional<widgets::Evaluation> presetEvaluation()
{
    widgets::WorkspaceDocument document(config::PresetLibrary::standard());
    if (!document.open(QStringLiteral("llama-3.1-70b-64xh100")) || !document.scenario()) {
        return std::nullopt;
    }
    return widgets::StructureEvaluator().evaluate(*document.scenario());
}

/// All character data of an SVG, or an empty string with @p error set when it is not well-formed XML.
QString svgText(const QString& path, QString* error)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = file.errorString();
        return {};
    }
    QXmlStreamReader reader(&file);
    QString text;
    bool svgRoot = false;
    while (!reader.atEnd()) {
        reader.readNext();
        if (reader.isStartElement() && reader.name() == QLatin1String("svg")) {
            svgRoot = true;
        }
        if (reader.isCharacters()) {
            text += reader.text() + QLatin1Char('\n');
        }
    }
    if (reader.hasError()) {
        *error = reader.errorString();
        return {};
    }
    if (!svgRoot) {
        *error = QStringLiteral("no <svg> element");
        return {};
    }
    return text;
}

QByteArray head(const QString& path, int bytes)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.read(bytes) : QByteArray();
}

} // namespace

class TstChartExporter : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void layoutSizeFollowsPaperWidth_data();
    void layoutSizeFollowsPaperWidth();
    void chartToSvgIsXmlWithChartText();
    void chartToPdf();
    void chartToPng_data();
    void chartToPng();
    void plainWidgetExports();
    void dialogGathersOptions();

private:
    std::optional<widgets::Evaluation> m_evaluation;
    QTemporaryDir m_directory;
};

void TstChartExporter::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_directory.isValid());
    // To look at the exports by eye: RAPID_KEEP_EXPORTS=1 keeps the directory and prints where it is.
    if (qEnvironmentVariableIsSet("RAPID_KEEP_EXPORTS")) {
        m_directory.setAutoRemove(false);
        qInfo("exports kept in %s", qUtf8Printable(m_directory.path()));
    }
    m_evaluation = presetEvaluation();
    QVERIFY(m_evaluation && m_evaluation->memory);
}

void TstChartExporter::layoutSizeFollowsPaperWidth_data()
{
    QTest::addColumn<double>("width");
    QTest::addColumn<QSize>("expected");
    QTest::addRow("single_column_3.5in") << 3.5 << QSize(336, 252);
    QTest::addRow("double_column_7in") << 7.0 << QSize(672, 302);
}

void TstChartExporter::layoutSizeFollowsPaperWidth()
{
    QFETCH(double, width);
    QFETCH(QSize, expected);
    ExportOptions options;
    options.figure.widthInches = width;
    QCOMPARE(ChartExporter::layoutSize(options), expected);
}

void TstChartExporter::chartToSvgIsXmlWithChartText()
{
    widgets::MemoryChart chart;
    chart.resize(500, 300);
    chart.setEstimate(m_evaluation->memory);
    const QString path = m_directory.filePath(QStringLiteral("memory.svg"));
    ExportOptions options;
    options.format = ExportFormat::Svg;
    options.figure.title = true; // with the title and the verdict line under it
    QString error;
    QVERIFY2(ChartExporter::exportWidget(&chart, path, options, &error), qPrintable(error));
    QVERIFY(QFile::exists(path));
    const QString text = svgText(path, &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    // The axis label, the title, a legend entry and the verdict are text, not pixels.
    QVERIFY2(text.contains(QLatin1String("Memory per GPU (GiB)")), qPrintable(text.left(2000)));
    QVERIFY(text.contains(QLatin1String("Memory per GPU at the peak")));
    QVERIFY(text.contains(QLatin1String("Weights")));
    QVERIFY(text.contains(QLatin1String("fits")));
    // Physical size: 3.5 in is 88.9 mm.
    const QByteArray start = head(path, 2000);
    QVERIFY2(start.contains("width=\"88.9mm\""), start.constData());
    // The chart is back in screen colours.
    QVERIFY(!chart.printMode());
}

void TstChartExporter::chartToPdf()
{
    widgets::MemoryChart chart;
    chart.setEstimate(m_evaluation->memory);
    const QString path = m_directory.filePath(QStringLiteral("memory.pdf"));
    ExportOptions options;
    options.format = ExportFormat::Pdf;
    options.figure.widthInches = 7.0;
    QString error;
    QVERIFY2(ChartExporter::exportWidget(&chart, path, options, &error), qPrintable(error));
    QVERIFY(QFile::exists(path));
    QCOMPARE(head(path, 4), QByteArray("%PDF"));
    QVERIFY(QFileInfo(path).size() > 1000);
}

void TstChartExporter::chartToPng_data()
{
    QTest::addColumn<double>("width");
    QTest::addColumn<int>("dpi");
    QTest::addColumn<int>("pixels");
    QTest::addRow("single_column_300dpi") << 3.5 << 300 << 1050;
    QTest::addRow("single_column_600dpi") << 3.5 << 600 << 2100;
    QTest::addRow("double_column_300dpi") << 7.0 << 300 << 2100;
}

void TstChartExporter::chartToPng()
{
    QFETCH(double, width);
    QFETCH(int, dpi);
    QFETCH(int, pixels);
    widgets::MemoryChart chart;
    chart.setEstimate(m_evaluation->memory);
    const QString path = m_directory.filePath(QStringLiteral("memory-%1-%2.png").arg(width).arg(dpi));
    ExportOptions options;
    options.format = ExportFormat::Png;
    options.figure.widthInches = width;
    options.figure.dpi = dpi;
    QString error;
    QVERIFY2(ChartExporter::exportWidget(&chart, path, options, &error), qPrintable(error));
    const QImage image(path);
    QVERIFY(!image.isNull());
    QCOMPARE(image.width(), pixels);
    QCOMPARE(image.height(), static_cast<int>(std::lround(options.figure.height() * dpi)));
    // The file states its resolution, so a paper places it at the chosen width.
    QVERIFY(qAbs(image.dotsPerMeterX() * 0.0254 - dpi) < 0.5);
    // Something was drawn: not a blank white page.
    int dark = 0;
    for (int y = 0; y < image.height(); y += 4) {
        for (int x = 0; x < image.width(); x += 4) {
            dark += qGray(image.pixel(x, y)) < 128 ? 1 : 0;
        }
    }
    QVERIFY(dark > 100);
}

void TstChartExporter::plainWidgetExports()
{
    widgets::SummaryFigures figures;
    figures.resize(560, 140); // two rows of figures
    figures.setEvaluation(*m_evaluation, nullptr);
    for (ExportFormat format : { ExportFormat::Svg, ExportFormat::Pdf, ExportFormat::Png }) {
        const QString path = m_directory.filePath(QStringLiteral("figures.") + widgets::suffixOf(format));
        ExportOptions options;
        options.format = format;
        options.figure.widthInches = 7.0;
        options.figure.heightInches = 1.0;
        QString error;
        QVERIFY2(ChartExporter::exportWidget(&figures, path, options, &error), qPrintable(error));
        QVERIFY(QFileInfo(path).size() > 0);
    }
    QString error;
    const QString text = svgText(m_directory.filePath(QStringLiteral("figures.svg")), &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QVERIFY2(text.contains(QLatin1String("Memory per GPU")), qPrintable(text));
    QCOMPARE(head(m_directory.filePath(QStringLiteral("figures.pdf")), 4), QByteArray("%PDF"));
    QCOMPARE(QImage(m_directory.filePath(QStringLiteral("figures.png"))).width(), 2100);
    QCOMPARE(figures.size(), QSize(560, 140)); // put back after the render
}

void TstChartExporter::dialogGathersOptions()
{
    widgets::MemoryChart chart;
    widgets::FigureDialog dialog({ { QStringLiteral("Memory"), &chart } }, 0, config::FigureStyle());
    QCOMPARE(dialog.selectedWidget(), &chart);
    QCOMPARE(dialog.options().figure, config::FigureStyle());
    QCOMPARE(dialog.options().format, ExportFormat::Pdf); // vector, for papers, until another is chosen
    QVERIFY(dialog.filePath().endsWith(QLatin1String(".pdf")));
    dialog.formatCombo()->setCurrentIndex(1);
    QCOMPARE(dialog.options().format, ExportFormat::Svg);
    QVERIFY(dialog.filePath().endsWith(QLatin1String(".svg")));
    QVERIFY(!dialog.dpiSpin()->isEnabled());
    dialog.widthCombo()->setCurrentIndex(1);
    QCOMPARE(dialog.options().figure.widthInches, 7.0);
}

QTEST_MAIN(TstChartExporter)
#include "tst_chartexporter.moc"
