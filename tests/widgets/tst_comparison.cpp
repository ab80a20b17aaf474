// SPDX-License-Identifier: GPL-3.0-or-later
// Comparing many runs (#18): runs pinned with the keyboard are named by what they change against the baseline; the
// Compare tab lists every run and the current result with the change of each figure against the baseline (the
// deltas recomputed here from the runs' own results), and draws one breakdown bar and one memory bar per run, with
// the runs' names on the axis; the comparison charts export as paper figures without overlapping text.
#include "common/chartexporter.h"
#include "common/figureformat.h"
#include "common/figurelayout.h"
#include "common/figurestylepresets.h"
#include "editors/workspacedocument.h"
#include "mainwindow.h"
#include "results/comparisonpanel.h"
#include "results/memorychart.h"
#include "results/resultspanel.h"
#include "results/stepbreakdownchart.h"
#include "widgettestutils.h"

#include <QTabWidget>
#include <QTableWidget>
#include <QTest>

#include <qcustomplot.h>

using namespace rapid;
using widgets::ComparisonPanel;

namespace {

/// The labels of the chart's key axis, top to bottom.
QStringList rowLabels(widgets::ChartWidget* chart)
{
    QStringList labels;
    auto ticker = chart->plot()->yAxis->ticker().dynamicCast<QCPAxisTickerText>();
    if (ticker) {
        for (auto tick = ticker->ticks().constBegin(); tick != ticker->ticks().constEnd(); ++tick) {
            labels.append(tick.value());
        }
    }
    return labels;
}

} // namespace

class TstComparison : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void pinnedRunsAreComparedSideBySide();
};

void TstComparison::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("RAPID-LLM-tests"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_comparison"));
}

void TstComparison::pinnedRunsAreComparedSideBySide()
{
    auto window = test::openWindow();
    QVERIFY(window);
    widgets::ResultsPanel* results = window->resultsPanel();
    widgets::WorkspaceDocument* document = window->document();
    QTRY_VERIFY_WITH_TIMEOUT(results->evaluation() && results->evaluation()->training, 10000);

    // The default workspace as the baseline (Ctrl+B), then micro-batches of 2 pinned as a run (Ctrl+Shift+B).
    QTest::keyClick(window.get(), Qt::Key_B, Qt::ControlModifier);
    QCOMPARE(document->session()->count(), 1);
    QCOMPARE(document->session()->baselineIndex(), 0);
    const report::TrainingResult baseline = *results->evaluation()->training;
    const double baselinePeak = results->evaluation()->memory->peakBytes;
    QVERIFY(document->setValue(QStringLiteral("run.training.micro_batch"), QStringLiteral("2")));
    QTRY_VERIFY_WITH_TIMEOUT(results->evaluation()->label.find("mb2") != std::string::npos, 10000);
    QTest::keyClick(window.get(), Qt::Key_B, Qt::ControlModifier | Qt::ShiftModifier);
    QCOMPARE(document->session()->count(), 2);
    QCOMPARE(document->session()->runs()[1].name, QStringLiteral("mb 2"));
    QCOMPARE(document->session()->baselineIndex(), 0); // pinning a run leaves the baseline
    const report::TrainingResult doubled = *results->evaluation()->training;
    const double doubledPeak = results->evaluation()->memory->peakBytes;

    // The Compare tab: baseline, the pinned run, the current result (the same scenario as the run).
    results->tabs()->setCurrentWidget(results->comparison());
    QTableWidget* table = results->comparison()->table();
    QCOMPARE(table->rowCount(), 3);
    QVERIFY(table->item(0, ComparisonPanel::RunColumn)->text().contains(QStringLiteral("(baseline)")));
    QCOMPARE(table->item(1, ComparisonPanel::DiffersColumn)->text(), QStringLiteral("mb 2"));
    QCOMPARE(table->item(2, ComparisonPanel::DiffersColumn)->text(), QStringLiteral("mb 2"));
    QCOMPARE(table->item(0, ComparisonPanel::TimeDelta)->text(), QString()); // no change against itself
    const double stepChange = (doubled.stepTimeSeconds - baseline.stepTimeSeconds) / baseline.stepTimeSeconds * 100;
    QCOMPARE(table->item(1, ComparisonPanel::TimeDelta)->text(), widgets::formatDelta(stepChange));
    const double peakChange = (doubledPeak - baselinePeak) / baselinePeak * 100;
    QVERIFY(peakChange > 0); // twice the activations of a micro-batch
    QCOMPARE(table->item(1, ComparisonPanel::MemoryDelta)->text(), widgets::formatDelta(peakChange));
    QCOMPARE(table->item(1, ComparisonPanel::TimeColumn)->text(), widgets::formatSeconds(doubled.stepTimeSeconds));

    // One bar per run in both charts, named as in the table; a name over 24 characters is cut to 23 and "…" (the
    // baseline's generated name, "Llama-3.1-70B · tp8 pp4 dp2 cp1 · mb1").
    QCOMPARE(document->session()->runs()[0].name, QStringLiteral("Llama-3.1-70B · tp8 pp4 dp2 cp1 · mb1"));
    const QStringList names { QStringLiteral("Llama-3.1-70B · tp8 pp4") + QChar(0x2026), QStringLiteral("mb 2"),
        QStringLiteral("Current") };
    QCOMPARE(rowLabels(results->comparison()->stepChart()), names);
    QCOMPARE(rowLabels(results->comparison()->memoryChart()), names);

    // Exported at one column with the default style: no text over another or over a bar.
    for (widgets::ChartWidget* chart : { static_cast<widgets::ChartWidget*>(results->comparison()->stepChart()),
             static_cast<widgets::ChartWidget*>(results->comparison()->memoryChart()) }) {
        QVERIFY(results->charts().contains(chart)); // offered by Export Figure
        widgets::ExportOptions options { widgets::ExportFormat::Svg,
            *widgets::FigureStylePresets::preset(widgets::FigureStylePresets::defaultName()) };
        chart->setPaperStyle(options.figure);
        widgets::layOutChartForPaper(chart, widgets::ChartExporter::layoutSize(options));
        const widgets::FigureGeometry geometry = widgets::measureFigure(chart->plot());
        chart->setPaperStyle(std::nullopt);
        QCOMPARE(geometry.texts.size(), 3); // a value label per run
        for (qsizetype i = 0; i < geometry.texts.size(); ++i) {
            for (const QRectF& bar : geometry.bars) {
                const QRectF both = geometry.texts[i].intersected(bar);
                QVERIFY(both.width() <= 0.5 || both.height() <= 0.5);
            }
            for (qsizetype j = i + 1; j < geometry.texts.size(); ++j) {
                const QRectF both = geometry.texts[i].intersected(geometry.texts[j]);
                QVERIFY(both.width() <= 0.5 || both.height() <= 0.5);
            }
        }
    }
}

QTEST_MAIN(TstComparison)
#include "tst_comparison.moc"
