// SPDX-License-Identifier: GPL-3.0-or-later
// The dashboard driven like a user would: keyboard edits in the form and the YAML tab change the memory chart's bars
// (read back from QCustomPlot's data containers), a configuration that does not fit turns red, pinning a baseline
// puts a second bar and a delta beside every chart, and the time charts show a prediction only when there is one.
#include "common/figureformat.h"
#include "common/plotstyle.h"
#include "editors/runsession.h"
#include "editors/workspacedocument.h"
#include "editors/yamleditor.h"
#include "mainwindow.h"
#include "results/inferencechart.h"
#include "results/memorychart.h"
#include "results/operatortablemodel.h"
#include "results/resultspanel.h"
#include "results/runspanel.h"
#include "results/stepbreakdownchart.h"
#include "results/summaryfigures.h"
#include "widgettestutils.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTest>

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <memory>

using namespace rapid;
using rapid::test::kWorkspacePreset;
using rapid::test::openWindow;
using rapid::test::spinBox;
using rapid::test::typeIntoSpinBox;
using rapid::widgets::DocumentKind;
using rapid::widgets::MainWindow;

namespace {

/// Selects the value after @p key in the YAML editor and types @p value over it.
bool typeYamlValue(QPlainTextEdit* edit, const QString& key, const QString& oldValue, const QString& value)
{
    QTextCursor found = edit->document()->find(key + QStringLiteral(": ") + oldValue);
    if (found.isNull()) {
        return false;
    }
    found.setPosition(found.selectionEnd() - static_cast<int>(oldValue.size()));
    found.setPosition(found.selectionEnd() + static_cast<int>(oldValue.size()), QTextCursor::KeepAnchor);
    edit->setTextCursor(found);
    edit->setFocus();
    QTest::keyClicks(edit, value);
    return true;
}

/// The value of the one data point of a horizontal bar segment, straight from the plot's data container.
double barValue(const QCPBars* bars)
{
    return bars->data()->isEmpty() ? 0.0 : bars->data()->constBegin()->value;
}

double barKey(const QCPBars* bars)
{
    return bars->data()->isEmpty() ? 0.0 : bars->data()->constBegin()->key;
}

double segmentValue(const QList<QCPBars*>& bars, const QString& name)
{
    for (const QCPBars* segment : bars) {
        if (segment->name() == name) {
            return barValue(segment);
        }
    }
    return -1;
}

double totalValue(const QList<QCPBars*>& bars)
{
    double total = 0;
    for (const QCPBars* segment : bars) {
        total += barValue(segment);
    }
    return total;
}

/// Legend entries; QCPLegend::itemCount() counts the empty cells of its wrapped grid as well.
int legendEntries(QCustomPlot* plot)
{
    int entries = 0;
    for (int index = 0; index < plot->legend->itemCount(); ++index) {
        entries += plot->legend->item(index) ? 1 : 0;
    }
    return entries;
}

bool hasItemText(QCustomPlot* plot, const QString& part)
{
    for (int index = 0; index < plot->itemCount(); ++index) {
        if (auto* text = qobject_cast<QCPItemText*>(plot->item(index)); text && text->text().contains(part)) {
            return true;
        }
    }
    return false;
}

/// A made-up training result, only to drive the chart: the GUI itself never shows numbers that core did not compute.
report::TrainingResult syntheticTraining(double scale)
{
    report::TrainingResult result;
    result.breakdown.parts[static_cast<size_t>(graph::TimeClass::Attention)] = 2.0 * scale;
    result.breakdown.parts[static_cast<size_t>(graph::TimeClass::Mlp)] = 4.0 * scale;
    result.breakdown.parts[static_cast<size_t>(graph::TimeClass::TensorParallel)] = 1.0 * scale;
    result.breakdown.parts[static_cast<size_t>(graph::TimeClass::Optimizer)] = 0.5 * scale;
    result.breakdown.bubbleSeconds = 0.5 * scale;
    result.stepTimeSeconds = result.breakdown.total();
    result.tokensPerSecond = 1000.0 / scale;
    result.mfu = 0.4 / scale;
    return result;
}

} // namespace

class TstDashboard : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void plotStyleComesFromResources();
    void editingMicroBatchChangesMemoryBars();
    void configThatDoesNotFitIsRed();
    void pinnedBaselineAddsBarsAndDeltas();
    void runsPanelSelectsAndRemovesBaselines();
    void noPredictionShowsNoNumbers();
    void slowStepShowsThroughputDigits();
    void stepBreakdownShowsResultAndDelta();
    void inferenceChartShowsLatencies();
    void operatorTableSortsByTime();
    void dashboardScreenshots();
};

void TstDashboard::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("RAPID-LLM-tests"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_dashboard"));
}

void TstDashboard::plotStyleComesFromResources()
{
    const widgets::PlotStyle& style = widgets::PlotStyle::standard();
    QCOMPARE(style.fontFamily(), QStringLiteral("DejaVu Sans"));
    QCOMPARE(style.fontSizePt(), 9.0);
    QCOMPARE(style.palette().size(), 8);
    QCOMPARE(style.palette().first(), QColor(QStringLiteral("#0072B2")));
    QCOMPARE(style.singleColumnInches(), 3.5);
    QCOMPARE(style.doubleColumnInches(), 7.0);
}

void TstDashboard::editingMicroBatchChangesMemoryBars()
{
    auto window = openWindow();
    QVERIFY(window);
    widgets::MemoryChart* chart = window->resultsPanel()->memoryChart();
    QTRY_VERIFY_WITH_TIMEOUT(!chart->currentBars().isEmpty(), 5000);
    const double activations = segmentValue(chart->currentBars(), QStringLiteral("Activations"));
    const double weights = segmentValue(chart->currentBars(), QStringLiteral("Weights"));
    QVERIFY(activations > 0);
    QVERIFY(weights > 0);
    QVERIFY2(chart->verdictText().contains(QLatin1String("fits")), qPrintable(chart->verdictText()));
    QVERIFY(!chart->verdictText().contains(QLatin1String("does not fit")));
    QCOMPARE(chart->verdictColor(), widgets::PlotStyle::standard().goodColor());
    // The bar's total is the estimate's peak in GiB.
    const auto& estimate = window->resultsPanel()->evaluation()->memory;
    QVERIFY(estimate);
    QVERIFY(qAbs(totalValue(chart->currentBars()) - estimate->peakBytes / widgets::kBytesPerGiB) < 1e-6);

    typeIntoSpinBox(spinBox(*window, QStringLiteral("run.training.micro_batch")), QStringLiteral("2"));
    // Twice the sequences per micro-batch: more activations held, the same weights.
    QTRY_VERIFY_WITH_TIMEOUT(
        segmentValue(chart->currentBars(), QStringLiteral("Activations")) > activations * 1.5, 5000);
    QCOMPARE(segmentValue(chart->currentBars(), QStringLiteral("Weights")), weights);

    // Halving TP doubles the weights each GPU holds.
    typeIntoSpinBox(spinBox(*window, QStringLiteral("run.parallelism.tp")), QStringLiteral("4"));
    typeIntoSpinBox(spinBox(*window, QStringLiteral("run.parallelism.dp")), QStringLiteral("4"));
    QTRY_VERIFY_WITH_TIMEOUT(segmentValue(chart->currentBars(), QStringLiteral("Weights")) > weights * 1.9, 5000);
}

void TstDashboard::configThatDoesNotFitIsRed()
{
    auto window = openWindow();
    QVERIFY(window);
    widgets::MemoryChart* chart = window->resultsPanel()->memoryChart();
    QTRY_VERIFY_WITH_TIMEOUT(!chart->currentBars().isEmpty(), 5000);

    // tp 8, pp 1, dp 8 and ZeRO off through the YAML tab: every GPU holds an eighth of all 70 B parameters and their
    // optimizer states, 8.8 B x 16 B = 141 GB. (dp 64 with tp 1 would put dp groups on NVLink, which the workspace's
    // mapping {dp: ib} excludes: a placement error.)
    window->mainTabs()->setCurrentWidget(window->yamlEditor());
    window->yamlEditor()->setCurrentWidget(window->yamlEditor()->editor(DocumentKind::Run));
    QPlainTextEdit* edit = window->yamlEditor()->editor(DocumentKind::Run);
    QVERIFY(typeYamlValue(edit, QStringLiteral("pp"), QStringLiteral("4"), QStringLiteral("1")));
    QVERIFY(typeYamlValue(edit, QStringLiteral("dp"), QStringLiteral("2"), QStringLiteral("8")));
    QVERIFY(typeYamlValue(edit, QStringLiteral("zero_stage"), QStringLiteral("1"), QStringLiteral("0")));
    const auto& diagnostics = window->document()->diagnostics();
    QVERIFY2(diagnostics.empty(), diagnostics.empty() ? "" : diagnostics.front().toString().c_str());

    QTRY_VERIFY_WITH_TIMEOUT(chart->verdictText().contains(QLatin1String("does not fit by")), 5000);
    QVERIFY(chart->verdictText().contains(QLatin1String("GiB")));
    const QColor red = widgets::PlotStyle::standard().badColor();
    QCOMPARE(chart->verdictColor(), red);
    QVERIFY(!chart->currentBars().isEmpty());
    for (const QCPBars* segment : chart->currentBars()) {
        QCOMPARE(segment->pen().color(), red);
    }
    // The peak is past the capacity line; the overflow is hatched red.
    const auto& estimate = window->resultsPanel()->evaluation()->memory;
    QVERIFY(estimate && !estimate->fits);
    QVERIFY(totalValue(chart->currentBars()) > estimate->capacityBytes / widgets::kBytesPerGiB);
    bool hatched = false;
    for (int index = 0; index < chart->plot()->itemCount(); ++index) {
        if (auto* rect = qobject_cast<QCPItemRect*>(chart->plot()->item(index))) {
            hatched = rect->brush().color() == red && rect->brush().style() == Qt::BDiagPattern;
        }
    }
    QVERIFY(hatched);
    // The headline figure agrees.
    QLabel* verdict = window->resultsPanel()->summaryFigures()->deltaLabel(widgets::SummaryFigures::kMemoryFigure);
    QVERIFY2(verdict->text().contains(QLatin1String("does not fit")), qPrintable(verdict->text()));
    QVERIFY(verdict->text().contains(red.name()));
}

void TstDashboard::pinnedBaselineAddsBarsAndDeltas()
{
    auto window = openWindow();
    QVERIFY(window);
    widgets::MemoryChart* chart = window->resultsPanel()->memoryChart();
    QTRY_VERIFY_WITH_TIMEOUT(!chart->currentBars().isEmpty(), 5000);
    QVERIFY(chart->baselineBars().isEmpty());
    const double before = totalValue(chart->currentBars());

    // The toolbar's action through its shortcut, as a user would.
    QVERIFY(window->pinAction());
    QCOMPARE(window->pinAction()->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_B));
    QTest::keySequence(window.get(), window->pinAction()->shortcut());
    widgets::RunSession* session = window->document()->session();
    QCOMPARE(session->count(), 1);
    QCOMPARE(session->baselineIndex(), 0);
    QVERIFY(session->runs().first().name.contains(QLatin1String("tp8 pp4 dp2")));
    QCOMPARE(chart->baselineBars().size(), chart->currentBars().size());
    QVERIFY(qAbs(totalValue(chart->baselineBars()) - before) < 1e-9);
    QVERIFY(chart->currentValueText().contains(QStringLiteral("±0.0%")));

    typeIntoSpinBox(spinBox(*window, QStringLiteral("run.training.micro_batch")), QStringLiteral("2"));
    QTRY_VERIFY_WITH_TIMEOUT(totalValue(chart->currentBars()) > before, 5000);
    // Two bars, baseline on top (key 1) and current below (key 2); the current one carries the change.
    QCOMPARE(barKey(chart->baselineBars().first()), 1.0);
    QCOMPARE(barKey(chart->currentBars().first()), 2.0);
    QVERIFY(qAbs(totalValue(chart->baselineBars()) - before) < 1e-9);
    const double percent = (totalValue(chart->currentBars()) - before) / before * 100.0;
    const QString expected = QStringLiteral("+%1%").arg(percent, 0, 'f', 1);
    QVERIFY2(chart->currentValueText().contains(expected), qPrintable(chart->currentValueText() + expected));
    QVERIFY(hasItemText(chart->plot(), expected));
    QLabel* memoryFigure = window->resultsPanel()->summaryFigures()->deltaLabel(widgets::SummaryFigures::kMemoryFigure);
    QVERIFY2(memoryFigure->text().contains(expected), qPrintable(memoryFigure->text()));
    auto* banner = window->findChild<QLabel*>(QStringLiteral("baselineLabel"));
    QVERIFY(banner && banner->isVisible());

    // Clearing the baseline leaves one bar.
    session->setBaselineIndex(-1);
    QVERIFY(chart->baselineBars().isEmpty());
    QVERIFY(!chart->currentValueText().contains(QLatin1Char('%')));
}

void TstDashboard::runsPanelSelectsAndRemovesBaselines()
{
    auto window = openWindow();
    QVERIFY(window);
    QTRY_VERIFY_WITH_TIMEOUT(window->resultsPanel()->evaluation().has_value(), 5000);
    QVERIFY(window->pinBaseline(QStringLiteral("mb 1")));
    typeIntoSpinBox(spinBox(*window, QStringLiteral("run.training.micro_batch")), QStringLiteral("2"));
    QTRY_COMPARE_WITH_TIMEOUT(window->resultsPanel()->evaluation()->label.find("mb2") != std::string::npos, true, 5000);
    QVERIFY(window->pinBaseline(QStringLiteral("mb 2")));
    QVERIFY(window->pinBaseline(QStringLiteral("mb 2"))); // a taken name gets a number
    widgets::RunSession* session = window->document()->session();
    QCOMPARE(session->count(), 3);
    QCOMPARE(session->runs()[2].name, QStringLiteral("mb 2 (2)"));
    // Each run keeps the texts its result was evaluated from (saved with the workspace, evaluated again on opening).
    QVERIFY(session->runs()[0].source.run.text.find("micro_batch: 1") != std::string::npos);
    QCOMPARE(session->runs()[2].source.run.text, window->document()->documents().run.text);
    QVERIFY(session->runs()[2].source.run.text.find("micro_batch: 2") != std::string::npos);
    QVERIFY(window->document()->isDirty()); // pinning is an edit of the workspace

    QListWidget* list = window->runsPanel()->list();
    QCOMPARE(list->count(), 3);
    QVERIFY(list->item(2)->font().bold());
    // Choose the first run as the baseline with a double-click.
    const QRect first = list->visualItemRect(list->item(0));
    QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, first.center());
    QTest::mouseDClick(list->viewport(), Qt::LeftButton, {}, first.center());
    QCOMPARE(session->baselineIndex(), 0);
    QVERIFY(list->item(0)->font().bold());
    QVERIFY(!list->item(2)->font().bold());
    widgets::MemoryChart* chart = window->resultsPanel()->memoryChart();
    QVERIFY(totalValue(chart->baselineBars()) < totalValue(chart->currentBars()));

    // Rename in place.
    list->item(1)->setText(QStringLiteral("micro batch 2"));
    QCOMPARE(session->runs()[1].name, QStringLiteral("micro batch 2"));

    // Removing the baseline run clears the comparison.
    list->setCurrentRow(0);
    QTest::mouseClick(window->runsPanel()->removeButton(), Qt::LeftButton);
    QCOMPARE(session->count(), 2);
    QCOMPARE(session->baselineIndex(), -1);
    QVERIFY(chart->baselineBars().isEmpty());
}

void TstDashboard::noPredictionShowsNoNumbers()
{
    // The default workspace is predicted by the analytical step model: the dashboard shows its step time and
    // breakdown, and exactly the numbers of the evaluation (the panel computes nothing of its own).
    auto window = openWindow();
    QVERIFY(window);
    widgets::ResultsPanel* results = window->resultsPanel();
    QTRY_VERIFY_WITH_TIMEOUT(results->evaluation().has_value() && results->evaluation()->training, 10000);
    const report::TrainingResult& training = *results->evaluation()->training;
    QVERIFY(training.stepTimeSeconds > 0);
    QVERIFY(!results->noteLabel()->isVisible());
    QVERIFY(!results->stepChart()->currentBars().isEmpty());
    widgets::SummaryFigures* figures = results->summaryFigures();
    QCOMPARE(figures->captionLabel(0)->text(), QStringLiteral("Step time · analytical"));
    QVERIFY(figures->valueLabel(0)->text() != QStringLiteral("—"));
    QVERIFY(figures->valueLabel(widgets::SummaryFigures::kMemoryFigure)->text().contains(QLatin1String("GiB")));
    // Energy per trained token: the step's joules over its tokens, as core computed them (H100 presets give power).
    QVERIFY(training.energy.known());
    QCOMPARE(figures->captionLabel(widgets::SummaryFigures::kEnergyFigure)->text(), QStringLiteral("Energy per token"));
    QCOMPARE(figures->valueLabel(widgets::SummaryFigures::kEnergyFigure)->text(),
        QStringLiteral("%1 J").arg(training.energy.joulesPerToken, 0, 'g', 3));
}

void TstDashboard::slowStepShowsThroughputDigits()
{
    // A GPU of 2 GFLOP/s typed into the form (the schema takes more than 1): a step of days, a fraction of a
    // token per second. The card said "0 tok/s" (rounded to a whole number); it shows two significant digits.
    auto window = openWindow();
    QVERIFY(window);
    widgets::ResultsPanel* results = window->resultsPanel();
    QTRY_VERIFY_WITH_TIMEOUT(results->evaluation() && results->evaluation()->training, 10000);
    auto* peak = window->findChild<QLineEdit*>(QStringLiteral("field:hardware.gpu.tensor_TFLOPs.bf16"));
    QVERIFY(peak);
    test::typeLine(peak, QStringLiteral("0.002"));
    QTest::keyClick(peak, Qt::Key_Return);
    QTRY_VERIFY_WITH_TIMEOUT(results->evaluation()->training->tokensPerSecond < 0.5, 10000);
    const double tokensPerSecond = results->evaluation()->training->tokensPerSecond;
    QVERIFY(tokensPerSecond > 0.005);
    const QString shown = results->summaryFigures()->valueLabel(1)->text();
    QCOMPARE(shown, widgets::formatTokensPerSecond(tokensPerSecond));
    QVERIFY2(shown != QStringLiteral("0 tok/s"), qPrintable(shown));
    // Two significant digits: read back, the number is within 5% of the result.
    const double read = QLocale().toDouble(shown.section(QLatin1Char(' '), 0, 0));
    QVERIFY2(std::abs(read - tokensPerSecond) <= 0.05 * tokensPerSecond, qPrintable(shown));
}

void TstDashboard::stepBreakdownShowsResultAndDelta()
{
    widgets::StepBreakdownChart chart;
    chart.resize(500, 260);
    chart.setResult(syntheticTraining(1.0));
    // Attention, MLP, TP comm., bubble and optimizer: the classes with time, no others.
    QCOMPARE(chart.currentBars().size(), 5);
    QCOMPARE(totalValue(chart.currentBars()), 8.0);
    QCOMPARE(chart.currentValueText(), QStringLiteral("8.00 s"));
    QCOMPARE(chart.plot()->xAxis->label(), QStringLiteral("Time per step (s)"));
    QCOMPARE(legendEntries(chart.plot()), 5);
    QVERIFY(chart.baselineBars().isEmpty());

    chart.setBaseline(syntheticTraining(1.25));
    QCOMPARE(chart.baselineBars().size(), 5);
    QCOMPARE(totalValue(chart.baselineBars()), 10.0);
    QVERIFY2(chart.currentValueText().contains(QStringLiteral("\u221220.0%")), qPrintable(chart.currentValueText()));
    QCOMPARE(legendEntries(chart.plot()), 5); // one legend entry per class, not per bar

    chart.setResult(std::nullopt);
    QVERIFY(chart.currentBars().isEmpty());
}

void TstDashboard::inferenceChartShowsLatencies()
{
    widgets::InferenceChart chart;
    QVERIFY(!chart.currentBars());
    report::InferenceResult result;
    result.ttftSeconds = 0.25;
    result.itlSeconds = 0.02;
    result.e2eSeconds = 0.25 + 0.02 * 127;
    result.tokensPerSecond = 800;
    chart.setResult(result);
    QVERIFY(chart.currentBars());
    QCOMPARE(chart.currentBars()->data()->size(), 3);
    QCOMPARE(chart.currentBars()->data()->at(1)->value, 0.02);
    QCOMPARE(chart.currentValueTexts().first(), QStringLiteral("250 ms"));
    QVERIFY(chart.throughputText().contains(QLatin1String("800 tok/s")));

    report::InferenceResult slower = result;
    slower.ttftSeconds = 0.5;
    slower.tokensPerSecond = 400;
    chart.setBaseline(slower);
    QVERIFY(chart.baselineBars());
    QVERIFY2(chart.currentValueTexts().first().contains(QStringLiteral("\u221250.0%")),
        qPrintable(chart.currentValueTexts().first()));
    QVERIFY(chart.throughputText().contains(QLatin1String("+100.0%")));
}

namespace {

/// Clicks the middle of @p view's horizontal header section @p column.
void clickHeader(QTableView* view, int column)
{
    QHeaderView* header = view->horizontalHeader();
    const QPoint centre(
        header->sectionViewportPosition(column) + header->sectionSize(column) / 2, header->height() / 2);
    QTest::mouseClick(header->viewport(), Qt::LeftButton, {}, centre);
}

/// The Time column's raw seconds of every row, in the view's (sorted) order.
QList<double> viewTimes(QTableView* view)
{
    QList<double> times;
    const QAbstractItemModel* model = view->model();
    for (int row = 0; row < model->rowCount(); ++row) {
        times.append(model->index(row, widgets::OperatorTableModel::Time)
                         .data(widgets::OperatorTableModel::SortRole)
                         .toDouble());
    }
    return times;
}

} // namespace

void TstDashboard::operatorTableSortsByTime()
{
    auto window = openWindow();
    QVERIFY(window);
    widgets::ResultsPanel* panel = window->resultsPanel();
    QTRY_VERIFY_WITH_TIMEOUT(panel->evaluation().has_value(), 5000);
    QVERIFY2(panel->evaluation()->operatorProblem.empty(), panel->evaluation()->operatorProblem.c_str());
    QTabWidget* tabs = panel->tabs();
    int operatorsTab = -1;
    for (int index = 0; index < tabs->count(); ++index) {
        if (tabs->tabText(index) == QStringLiteral("Operators")) {
            operatorsTab = index;
        }
    }
    QVERIFY(operatorsTab >= 0);
    tabs->setCurrentIndex(operatorsTab);
    QTableView* table = panel->operatorTable();
    QTRY_VERIFY(table->isVisible());
    QVERIFY(table->model()->rowCount() > 10); // a training layer: forward, recompute and backward operators
    QVERIFY(panel->operatorTotalsLabel()->text().contains(QStringLiteral("backward")));

    // Default: slowest first.
    QList<double> times = viewTimes(table);
    QCOMPARE(times.first(), *std::max_element(times.cbegin(), times.cend()));

    // Sort by name, then click the Time header: numeric columns sort descending first, numerically.
    clickHeader(table, widgets::OperatorTableModel::Name);
    QCOMPARE(table->horizontalHeader()->sortIndicatorSection(), int(widgets::OperatorTableModel::Name));
    clickHeader(table, widgets::OperatorTableModel::Time);
    QCOMPARE(table->horizontalHeader()->sortIndicatorSection(), int(widgets::OperatorTableModel::Time));
    times = viewTimes(table);
    QVERIFY(times.first() > 0);
    QCOMPARE(times.first(), *std::max_element(times.cbegin(), times.cend()));
    QVERIFY(std::is_sorted(times.crbegin(), times.crend()));
    const QString firstName = table->model()->index(0, widgets::OperatorTableModel::Name).data().toString();
    QVERIFY(!firstName.isEmpty());

    // A second click reverses the order.
    clickHeader(table, widgets::OperatorTableModel::Time);
    times = viewTimes(table);
    QCOMPARE(times.first(), *std::min_element(times.cbegin(), times.cend()));
    QVERIFY(std::is_sorted(times.cbegin(), times.cend()));
}

void TstDashboard::dashboardScreenshots()
{
    auto window = openWindow();
    QVERIFY(window);
    widgets::MemoryChart* chart = window->resultsPanel()->memoryChart();
    QTRY_VERIFY_WITH_TIMEOUT(!chart->currentBars().isEmpty(), 5000);
    QVERIFY(window->pinBaseline(QStringLiteral("Llama-3.1-70B mb 1")));
    typeIntoSpinBox(spinBox(*window, QStringLiteral("run.training.micro_batch")), QStringLiteral("2"));
    QTRY_VERIFY_WITH_TIMEOUT(chart->currentValueText().contains(QLatin1Char('+')), 5000);
    QCOMPARE(window->size(), QSize(1400, 900));
    QTest::qWait(50); // the charts' queued replots
    const QPixmap shot = window->grab();
    QVERIFY(test::saveScreenshot(shot, QStringLiteral("workbench-dashboard.png")));

    // The same under a dark palette, to check by eye that charts follow it (build directory only).
    const QPalette original = QApplication::palette();
    QApplication::setPalette(test::darkPalette());
    QTest::qWait(50); // palette events first, then the charts' queued replots
    const QPixmap darkShot = window->grab();
    QApplication::setPalette(original);
    QVERIFY(darkShot.save(QStringLiteral(RAPID_SCREENSHOT_DIR "/workbench-dashboard-dark.png")));
}

QTEST_MAIN(TstDashboard)
#include "tst_dashboard.moc"
