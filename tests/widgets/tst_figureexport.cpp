// SPDX-License-Identifier: GPL-3.0-or-later
// Paper figures (#18): the default style's figure at 3.5 in has no overlapping text, no text over a bar and a legend
// under a quarter of its area; drawn segments have distinct colours; PDFs embed their fonts and keep text as text
// (read back with poppler's pdffonts and pdftotext); a style's names, title and value axis reach the file; the
// Pareto export has no selection ring; `rapid plot` regenerates the workbench's SVG byte for byte; the export
// dialog's preview follows typed values, refuses a bad height inline, and remembers format and folder; the main
// window keeps the style with the workspace, undoably.
#include "common/chartexporter.h"
#include "common/figuredialog.h"
#include "common/figurelayout.h"
#include "common/figurestylepresets.h"
#include "editors/workspacedocument.h"
#include "evaluation/structureevaluator.h"
#include "mainwindow.h"
#include "results/memorychart.h"
#include "results/resultspanel.h"
#include "results/stepbreakdownchart.h"
#include "sweeps/sweepchart.h"
#include "widgettestutils.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QProcess>
#include <QPushButton>
#include <QScopeGuard>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QXmlStreamReader>

#include <qcustomplot.h>

using namespace rapid;
using widgets::ChartExporter;
using widgets::ExportFormat;
using widgets::ExportOptions;

namespace {

std::optional<widgets::Evaluation> evaluationOf(const QString& workspace, const QStringList& overrides = {})
{
    widgets::WorkspaceDocument document(config::PresetLibrary::standard());
    if (!document.open(workspace)) {
        return std::nullopt;
    }
    for (const QString& assignment : overrides) {
        const auto equals = assignment.indexOf(QLatin1Char('='));
        if (!document.setValue(assignment.left(equals), assignment.mid(equals + 1))) {
            return std::nullopt;
        }
    }
    if (!document.scenario()) {
        return std::nullopt;
    }
    return widgets::StructureEvaluator().evaluate(*document.scenario());
}

config::FigureStyle defaultStyle()
{
    return *widgets::FigureStylePresets::preset(widgets::FigureStylePresets::defaultName());
}

/// The text an SVG file draws (its <text> elements; not the <title> metadata).
QString svgText(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        return {};
    }
    QXmlStreamReader xml(&file);
    QString text;
    int depth = 0; // inside how many <text> elements
    while (!xml.atEnd()) {
        switch (xml.readNext()) {
        case QXmlStreamReader::StartElement:
            depth += xml.name() == QLatin1String("text") ? 1 : 0;
            break;
        case QXmlStreamReader::EndElement:
            depth -= xml.name() == QLatin1String("text") ? 1 : 0;
            break;
        case QXmlStreamReader::Characters:
            if (depth > 0) {
                text += xml.text() + QLatin1Char('\n');
            }
            break;
        default:
            break;
        }
    }
    return xml.hasError() ? QString() : text;
}

/// Standard output of a poppler tool; empty with a failure message when the tool is missing or fails.
QString runTool(const QString& program, const QStringList& arguments)
{
    QProcess process;
    process.start(program, arguments);
    if (!process.waitForFinished(30000) || process.exitCode() != 0) {
        qWarning("%s failed (packaging/install-deps.sh installs poppler-utils)", qPrintable(program));
        return {};
    }
    return QString::fromUtf8(process.readAllStandardOutput());
}

/// Two boxes overlap by more than rounding (a shared edge is no overlap).
bool overlaps(const QRectF& a, const QRectF& b)
{
    const QRectF both = a.intersected(b);
    return both.width() > 0.5 && both.height() > 0.5;
}

/// Okabe & Ito (2008), "Color Universal Design", the published colours.
const QList<QColor> kOkabeIto { QColor(0x00, 0x72, 0xB2), QColor(0xE6, 0x9F, 0x00), QColor(0x00, 0x9E, 0x73),
    QColor(0xD5, 0x5E, 0x00), QColor(0xCC, 0x79, 0xA7), QColor(0x56, 0xB4, 0xE9), QColor(0xF0, 0xE4, 0x42) };

} // namespace

class TstFigureExport : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void figureHasNoOverlaps_data();
    void figureHasNoOverlaps();
    void drawnSegmentsHaveDistinctColours();
    void pdfEmbedsFontsAndKeepsTextAsText();
    void styleReachesTheFile();
    void paretoExportHasNoSelectionRing();
    void screenLooksTheSameAfterAnExport();
    void cliRegeneratesTheSvgByteForByte();
    void dialogPreviewFollowsTypedValues();
    void dialogRefusesABadHeightInline();
    void dialogRemembersFormatAndFolder();
    void windowKeepsTheStyleWithTheWorkspace();
    void freshHomeGetsItsPicturesFolder();

private:
    std::optional<widgets::Evaluation> m_current;
    std::optional<widgets::Evaluation> m_baseline;
    QTemporaryDir m_directory;
};

void TstFigureExport::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("RAPID-LLM-tests"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_figureexport"));
    QSettings().clear();
    QVERIFY(m_directory.isValid());
    if (qEnvironmentVariableIsSet("RAPID_KEEP_EXPORTS")) {
        m_directory.setAutoRemove(false);
        qInfo("exports kept in %s", qUtf8Printable(m_directory.path()));
    }
    m_current = evaluationOf(test::kWorkspacePreset);
    // A baseline that differs where a comparison figure shows it: micro-batches of 2 (memory and step time).
    m_baseline = evaluationOf(test::kWorkspacePreset, { QStringLiteral("run.training.micro_batch=2") });
    QVERIFY(m_current && m_current->training && m_current->memory);
    QVERIFY(m_baseline && m_baseline->training && m_baseline->memory);
}

void TstFigureExport::figureHasNoOverlaps_data()
{
    QTest::addColumn<QString>("chartName");
    QTest::addColumn<bool>("withBaseline");
    QTest::addColumn<double>("width");
    QTest::addColumn<int>("legend");
    QTest::addColumn<bool>("title");
    QTest::addColumn<bool>("isDefaultStyle");
    const int top = static_cast<int>(config::LegendPlacement::Top);
    const int right = static_cast<int>(config::LegendPlacement::Right);
    const int bottom = static_cast<int>(config::LegendPlacement::Bottom);
    for (const QString& chart : { QStringLiteral("step"), QStringLiteral("memory") }) {
        for (const bool baseline : { false, true }) {
            const QString name = chart + (baseline ? QStringLiteral(" vs baseline") : QString());
            QTest::addRow("%s, default style", qPrintable(name)) << chart << baseline << 3.5 << top << false << true;
            QTest::addRow("%s, 7 in, legend right", qPrintable(name))
                << chart << baseline << 7.0 << right << false << false;
            QTest::addRow("%s, titled, legend below", qPrintable(name))
                << chart << baseline << 3.5 << bottom << true << false;
        }
    }
}

void TstFigureExport::figureHasNoOverlaps()
{
    QFETCH(QString, chartName);
    QFETCH(bool, withBaseline);
    QFETCH(double, width);
    QFETCH(int, legend);
    QFETCH(bool, title);
    QFETCH(bool, isDefaultStyle);
    widgets::StepBreakdownChart step;
    widgets::MemoryChart memory;
    widgets::ChartWidget* chart = chartName == QLatin1String("step") ? static_cast<widgets::ChartWidget*>(&step)
                                                                     : static_cast<widgets::ChartWidget*>(&memory);
    step.setResult(m_current->training);
    memory.setEstimate(m_current->memory);
    if (withBaseline) {
        step.setBaseline(m_baseline->training);
        memory.setBaseline(m_baseline->memory, QStringLiteral("micro-batch 2"));
    }
    ExportOptions options { ExportFormat::Svg, defaultStyle() };
    QCOMPARE(options.figure.widthInches, 3.5); // the preset the issue measures
    options.figure.widthInches = width;
    options.figure.legend = static_cast<config::LegendPlacement>(legend);
    options.figure.title = title;
    // The exporter's own steps: the paper style, then the layout at the paper size.
    chart->setPaperStyle(options.figure);
    widgets::layOutChartForPaper(chart, ChartExporter::layoutSize(options));
    const widgets::FigureGeometry geometry = widgets::measureFigure(chart->plot());
    chart->setPaperStyle(std::nullopt);

    QVERIFY(!geometry.bars.isEmpty());
    QVERIFY(!geometry.texts.isEmpty()); // the value label at the bar's end, at least
    for (qsizetype i = 0; i < geometry.texts.size(); ++i) {
        const QRectF& text = geometry.texts[i];
        QVERIFY2(geometry.figure.contains(text), qPrintable(QStringLiteral("text %1 leaves the figure").arg(i)));
        for (qsizetype j = i + 1; j < geometry.texts.size(); ++j) {
            QVERIFY2(!overlaps(text, geometry.texts[j]), qPrintable(QStringLiteral("texts %1 and %2").arg(i).arg(j)));
        }
        for (const QRectF& bar : geometry.bars) {
            QVERIFY2(!overlaps(text, bar), qPrintable(QStringLiteral("text %1 over a bar").arg(i)));
        }
        if (!geometry.legend.isNull()) {
            QVERIFY(!overlaps(text, geometry.legend));
        }
    }
    QVERIFY(!geometry.legend.isNull());
    QVERIFY(!overlaps(geometry.legend, geometry.axisRect));
    QVERIFY(geometry.figure.contains(geometry.legend));
    const double figureArea = geometry.figure.width() * geometry.figure.height();
    const double legendShare = geometry.legend.width() * geometry.legend.height() / figureArea;
    if (isDefaultStyle) {
        QVERIFY2(legendShare < 0.25, qPrintable(QStringLiteral("legend %1 % of the figure").arg(legendShare * 100)));
    }
    // The plot keeps a quarter of the figure even under a title, a verdict and a two-row legend at 3.5 in.
    QVERIFY(geometry.axisRect.width() * geometry.axisRect.height() / figureArea > 0.25);
}

void TstFigureExport::drawnSegmentsHaveDistinctColours()
{
    widgets::StepBreakdownChart chart;
    chart.setResult(m_current->training);
    chart.setPaperStyle(defaultStyle());
    QList<QColor> colours;
    QStringList names;
    for (const QCPBars* bars : chart.currentBars()) {
        colours.append(bars->brush().color());
        names.append(bars->name());
    }
    chart.setPaperStyle(std::nullopt);
    QVERIFY(names.contains(QStringLiteral("MLP")) && names.contains(QStringLiteral("Loss")));
    QVERIFY(colours.size() <= 9);
    for (qsizetype i = 0; i < colours.size(); ++i) {
        for (qsizetype j = i + 1; j < colours.size(); ++j) {
            QVERIFY2(colours[i].rgb() != colours[j].rgb(),
                qPrintable(names[i] + QStringLiteral(" and ") + names[j] + QStringLiteral(" share a colour")));
        }
        // Compute and communication segments take the published Okabe-Ito colours; the bubble and the optimizer
        // are greys.
        const bool grey = colours[i].saturation() == 0 || names[i] == QLatin1String("Optimizer");
        QVERIFY2(grey || kOkabeIto.contains(colours[i].toRgb()), qPrintable(names[i]));
    }
}

void TstFigureExport::pdfEmbedsFontsAndKeepsTextAsText()
{
    widgets::StepBreakdownChart chart;
    chart.setResult(m_current->training);
    const QString path = m_directory.filePath(QStringLiteral("step.pdf"));
    QString error;
    QVERIFY2(
        ChartExporter::exportWidget(&chart, path, { ExportFormat::Pdf, defaultStyle() }, &error), qPrintable(error));

    const QString fonts = runTool(QStringLiteral("pdffonts"), { path });
    const QStringList fontLines = fonts.split(QLatin1Char('\n'), Qt::SkipEmptyParts).mid(2); // after the header
    QVERIFY2(!fontLines.isEmpty(), qPrintable(fonts));
    for (const QString& line : fontLines) {
        // Columns: name, type, encoding, emb, sub, uni, object, generation; "emb" is the fourth from the end.
        const QStringList columns = line.split(QLatin1Char(' '), Qt::SkipEmptyParts);
        QVERIFY2(columns.size() >= 7 && columns[columns.size() - 5] == QLatin1String("yes"), qPrintable(line));
    }

    const QString boxes = runTool(QStringLiteral("pdftotext"), { QStringLiteral("-bbox"), path, QStringLiteral("-") });
    QXmlStreamReader xml(boxes);
    QList<QRectF> words;
    QStringList texts;
    while (!xml.atEnd()) {
        if (xml.readNext() == QXmlStreamReader::StartElement && xml.name() == QLatin1String("word")) {
            const auto number
                = [&xml](const char* name) { return xml.attributes().value(QLatin1String(name)).toDouble(); };
            words.append(QRectF(QPointF(number("xMin"), number("yMin")), QPointF(number("xMax"), number("yMax"))));
            texts.append(xml.readElementText());
        }
    }
    // The legend's names and the axis title are text in the PDF, not paths.
    for (const QString& expected : { QStringLiteral("Attention"), QStringLiteral("MLP"), QStringLiteral("Time") }) {
        QVERIFY2(texts.contains(expected), qPrintable(texts.join(QLatin1Char(' '))));
    }
    for (qsizetype i = 0; i < words.size(); ++i) {
        for (qsizetype j = i + 1; j < words.size(); ++j) {
            QVERIFY2(!overlaps(words[i], words[j]), qPrintable(texts[i] + QStringLiteral(" / ") + texts[j]));
        }
    }
}

void TstFigureExport::styleReachesTheFile()
{
    widgets::StepBreakdownChart chart;
    chart.setResult(m_current->training);
    const QString path = m_directory.filePath(QStringLiteral("styled.svg"));
    config::FigureStyle style = defaultStyle();
    style.seriesNames.push_back({ "MLP", "Feed-forward" });
    style.valueMax = 200;
    style.valueLabel = "Seconds per step";
    QVERIFY(ChartExporter::exportWidget(&chart, path, { ExportFormat::Svg, style }));
    QString text = svgText(path);
    QVERIFY(text.contains(QStringLiteral("Feed-forward")));
    QVERIFY(!text.contains(QStringLiteral("MLP")));
    QVERIFY(text.contains(QStringLiteral("Seconds per step")));
    QVERIFY(text.contains(QStringLiteral("200"))); // the axis ends at the style's maximum, so its last tick is 200
    QVERIFY(!text.contains(chart.title())); // a paper figure's caption carries the title

    style.title = true;
    QVERIFY(ChartExporter::exportWidget(&chart, path, { ExportFormat::Svg, style }));
    QVERIFY(svgText(path).contains(chart.title()));
}

void TstFigureExport::paretoExportHasNoSelectionRing()
{
    auto result = std::make_shared<sweep::SweepResult>();
    for (int index = 0; index < 3; ++index) {
        sweep::SweepRow row;
        row.index = index;
        row.status = sweep::PointStatus::Ok;
        row.tokensPerSecondPerGpu = 1000.0 * (index + 1);
        row.peakMemoryBytes = 20e9 * (index + 1);
        row.capacityBytes = 80e9;
        row.pareto = true;
        result->rows.push_back(row);
    }
    widgets::SweepChart chart;
    chart.resize(600, 400);
    chart.setResult(result, false);
    chart.setHighlightedPoint(1);
    const auto ringShown = [&chart] {
        for (int index = 0; index < chart.plot()->graphCount(); ++index) {
            const QCPGraph* graph = chart.plot()->graph(index);
            if (graph->scatterStyle().size() > 15 && graph->visible() && !graph->data()->isEmpty()) {
                return true;
            }
        }
        return false;
    };
    QVERIFY(ringShown()); // on screen the selected point has its ring
    chart.setPaperStyle(defaultStyle());
    QVERIFY(!ringShown());
    chart.setPaperStyle(std::nullopt);
    QVERIFY(ringShown());
}

void TstFigureExport::screenLooksTheSameAfterAnExport()
{
    widgets::MemoryChart chart;
    chart.resize(640, 360);
    chart.setEstimate(m_current->memory);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    const QImage before = chart.grab().toImage();
    // Everything a style changes: names, axis range and title, legend place, palette, font.
    config::FigureStyle style = defaultStyle();
    style.seriesNames.push_back({ "Weights", "Parameters" });
    style.valueMax = 300;
    style.valueLabel = "GPU memory (GiB)";
    style.legend = config::LegendPlacement::Right;
    style.palette = config::FigurePalette::TolMuted;
    style.fontSizePt = 12;
    QVERIFY(ChartExporter::exportWidget(
        &chart, m_directory.filePath(QStringLiteral("m.svg")), { ExportFormat::Svg, style }));
    QTest::qWait(50); // the queued replot
    QCOMPARE(chart.grab().toImage(), before);
}

void TstFigureExport::cliRegeneratesTheSvgByteForByte()
{
    // The workbench's path: the workspace document, the evaluator behind the dashboard, the results panel.
    widgets::ResultsPanel panel;
    panel.resize(1000, 700);
    panel.showEvaluation(*m_current);
    const QString fromGui = m_directory.filePath(QStringLiteral("gui.svg"));
    QVERIFY(ChartExporter::exportWidget(panel.stepChart(), fromGui, { ExportFormat::Svg, defaultStyle() }));
    const QString fromCli = m_directory.filePath(QStringLiteral("cli.svg"));
    QProcess cli;
    cli.start(QStringLiteral(RAPID_CLI_PATH),
        { QStringLiteral("plot"), test::kWorkspacePreset, QStringLiteral("--chart"), QStringLiteral("step"),
            QStringLiteral("--style"), QStringLiteral("paper-column"), QStringLiteral("--out"), fromCli });
    QVERIFY(cli.waitForFinished(60000));
    QVERIFY2(cli.exitCode() == 0, cli.readAllStandardError().constData());
    QFile a(fromGui);
    QFile b(fromCli);
    QVERIFY(a.open(QIODevice::ReadOnly) && b.open(QIODevice::ReadOnly));
    const QByteArray gui = a.readAll();
    QVERIFY(gui.size() > 1000);
    QVERIFY(gui == b.readAll());
}

void TstFigureExport::dialogPreviewFollowsTypedValues()
{
    widgets::StepBreakdownChart chart;
    chart.setResult(m_current->training);
    widgets::FigureDialog dialog({ { chart.title(), &chart } }, 0, defaultStyle());
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    QSignalSpy previews(&dialog, &widgets::FigureDialog::previewUpdated);
    QVERIFY(previews.wait(2000));
    // 3.5 in at 96 layout pixels per inch.
    QCOMPARE(dialog.previewImage().width(), qRound(3.5 * 96 * dialog.devicePixelRatioF()));

    // Custom width: pick it with the keyboard, then type 5 inches.
    dialog.widthCombo()->setFocus();
    QTest::keyClick(dialog.widthCombo(), Qt::Key_End);
    QCOMPARE(dialog.widthCombo()->currentText(), QStringLiteral("Custom"));
    QVERIFY(dialog.customWidthSpin()->isEnabled());
    dialog.customWidthSpin()->setFocus();
    dialog.customWidthSpin()->selectAll();
    QTest::keyClicks(dialog.customWidthSpin(), QStringLiteral("5"));
    QTRY_COMPARE(dialog.previewImage().width(), qRound(5 * 96 * dialog.devicePixelRatioF()));
    QCOMPARE(dialog.options().figure.widthInches, 5.0);

    // A series typed under a new name shows in the preview's legend (the options carry it to the exporter).
    QTableWidget* series = dialog.seriesTable();
    const auto rows = series->findItems(QStringLiteral("MLP"), Qt::MatchExactly);
    QVERIFY(!rows.isEmpty());
    series->item(rows.front()->row(), 1)->setText(QStringLiteral("Feed-forward"));
    QCOMPARE(dialog.options().figure.displayName("MLP"), std::string("Feed-forward"));

    // No legend: the preview redraws.
    previews.clear();
    dialog.legendCombo()->setFocus();
    QTest::keyClick(dialog.legendCombo(), Qt::Key_End);
    QCOMPARE(dialog.options().figure.legend, config::LegendPlacement::Off);
    QVERIFY(previews.wait(2000));
}

void TstFigureExport::dialogRefusesABadHeightInline()
{
    widgets::MemoryChart chart;
    chart.setEstimate(m_current->memory);
    widgets::FigureDialog dialog({ { chart.title(), &chart } }, 0, defaultStyle());
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    auto* save = dialog.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Save);
    QVERIFY(save->isEnabled());
    QDoubleSpinBox* height = dialog.findChildren<QDoubleSpinBox*>().at(1);
    QCOMPARE(height->specialValueText(), QStringLiteral("auto (from the width)"));
    height->setFocus();
    height->selectAll();
    QTest::keyClicks(height, QStringLiteral("0.5"));
    QVERIFY(!save->isEnabled());
    QVERIFY(dialog.problemLabel()->isVisible());
    QVERIFY(dialog.problemLabel()->text().contains(QStringLiteral("at least 1 in")));
    height->selectAll();
    QTest::keyClicks(height, QStringLiteral("2"));
    QVERIFY(save->isEnabled());
    QVERIFY(!dialog.problemLabel()->isVisible());

    dialog.valueMinEdit()->setFocus();
    QTest::keyClicks(dialog.valueMinEdit(), QStringLiteral("ten"));
    QVERIFY(!save->isEnabled());
}

void TstFigureExport::dialogRemembersFormatAndFolder()
{
    widgets::MemoryChart chart;
    chart.setEstimate(m_current->memory);
    const QString folder = m_directory.filePath(QStringLiteral("figures"));
    QVERIFY(QDir().mkpath(folder));
    {
        widgets::FigureDialog dialog({ { chart.title(), &chart } }, 0, defaultStyle());
        dialog.formatCombo()->setCurrentIndex(dialog.formatCombo()->findData(static_cast<int>(ExportFormat::Svg)));
        dialog.setFilePath(QDir(folder).filePath(QStringLiteral("memory.svg")));
        dialog.rememberChoices();
    }
    widgets::FigureDialog again({ { chart.title(), &chart } }, 0, defaultStyle());
    QCOMPARE(again.options().format, ExportFormat::Svg);
    QCOMPARE(QFileInfo(again.filePath()).absolutePath(), QFileInfo(folder).absoluteFilePath());
    QVERIFY(again.filePath().endsWith(QStringLiteral(".svg")));
}

void TstFigureExport::windowKeepsTheStyleWithTheWorkspace()
{
    auto window = test::openWindow();
    QVERIFY(window);
    widgets::WorkspaceDocument* document = window->document();
    QVERIFY(!document->figureStyle());
    const QString path = m_directory.filePath(QStringLiteral("kept.pdf"));
    bool driven = false;
    // The dialog is modal: it is driven from the event loop it runs.
    QTimer::singleShot(200, window.get(), [&] {
        auto* dialog = qobject_cast<widgets::FigureDialog*>(QApplication::activeModalWidget());
        if (!dialog) {
            return;
        }
        dialog->setFilePath(path);
        dialog->fontSizeSpin()->setValue(9);
        QTest::mouseClick(dialog->keepCheck(), Qt::LeftButton, {}, QPoint(5, dialog->keepCheck()->height() / 2));
        driven = dialog->keepCheck()->isChecked();
        dialog->findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Save)->click();
    });
    window->findChild<QAction*>(QStringLiteral("exportChartAction"))->trigger();
    QVERIFY(driven);
    QVERIFY(QFileInfo(path).size() > 1000);
    QVERIFY(document->figureStyle());
    QCOMPARE(document->figureStyle()->fontSizePt, 9.0);
    QVERIFY(document->composedText().contains(QStringLiteral("figure_style:")));
    QVERIFY(document->isDirty());
    document->undoStack()->undo();
    QVERIFY(!document->figureStyle());
}

void TstFigureExport::freshHomeGetsItsPicturesFolder()
{
    // A fresh account: a home without Pictures, no user-dirs.dirs, no folder remembered from an earlier export.
    QTemporaryDir home;
    QVERIFY(home.isValid());
    const QByteArray oldHome = qgetenv("HOME");
    const QByteArray oldConfig = qgetenv("XDG_CONFIG_HOME");
    qputenv("HOME", home.path().toUtf8());
    qunsetenv("XDG_CONFIG_HOME");
    const auto restore = qScopeGuard([&] {
        qputenv("HOME", oldHome);
        if (!oldConfig.isEmpty()) {
            qputenv("XDG_CONFIG_HOME", oldConfig);
        }
    });
    QSettings().clear();
    const QString pictures = QDir(home.path()).filePath(QStringLiteral("Pictures"));
    QVERIFY(!QFileInfo::exists(pictures));

    auto window = test::openWindow();
    QVERIFY(window);
    QString offered;
    QString note;
    QTimer::singleShot(200, window.get(), [&] {
        auto* dialog = qobject_cast<widgets::FigureDialog*>(QApplication::activeModalWidget());
        if (!dialog) {
            return;
        }
        offered = dialog->filePath();
        note = dialog->folderNote()->isVisible() ? dialog->folderNote()->text() : QString();
        dialog->findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Save)->click();
    });
    // Before the fix the export failed with a modal "Cannot write" box: closed here, so that the test fails rather
    // than waits.
    QString failure;
    const auto closeFailure = [&] {
        if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
            failure = box->text();
            box->reject();
        }
    };
    QTimer::singleShot(3000, window.get(), closeFailure);
    window->findChild<QAction*>(QStringLiteral("exportChartAction"))->trigger();
    QVERIFY2(failure.isEmpty(), qPrintable(failure));
    // Offered in the Pictures folder that is not there, said so, and created on Save: the export is written.
    QCOMPARE(QFileInfo(offered).absolutePath(), pictures);
    QVERIFY2(note.contains(QStringLiteral("does not exist yet")), qPrintable(note));
    QVERIFY(QFileInfo(offered).size() > 1000);
    QVERIFY2(window->statusBar()->currentMessage().contains(QStringLiteral("created the folder")),
        qPrintable(window->statusBar()->currentMessage()));

    // A home under a file, where no Pictures folder can be made (even by root): the dialog offers the temporary
    // folder and says why, and Save stays possible.
    QFile blocker(QDir(home.path()).filePath(QStringLiteral("blocker")));
    QVERIFY(blocker.open(QIODevice::WriteOnly));
    blocker.close();
    qputenv("HOME", QDir(blocker.fileName()).filePath(QStringLiteral("home")).toUtf8());
    QSettings().clear();
    widgets::MemoryChart chart;
    chart.setEstimate(m_current->memory);
    widgets::FigureDialog dialog({ { chart.title(), &chart } }, 0, defaultStyle());
    QCOMPARE(QFileInfo(dialog.filePath()).absolutePath(), QFileInfo(QDir::tempPath()).absoluteFilePath());
    QVERIFY2(dialog.folderNote()->text().contains(QStringLiteral("cannot be created")),
        qPrintable(dialog.folderNote()->text()));
    QVERIFY(dialog.problem().isEmpty());
}

QTEST_MAIN(TstFigureExport)
#include "tst_figureexport.moc"
