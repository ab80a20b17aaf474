// SPDX-License-Identifier: GPL-3.0-or-later
// The Sweep tab driven like a user would: axes typed line by line give the point count, a malformed line shows its
// problem beside it and disables Run; Run evaluates every point in the background and the table and plot show them
// (one point checked against an independent evaluation of the same documents and overrides); Copy overrides and
// Export CSV; Cancel keeps the window responsive and applies nothing; an edit during a sweep neither stops nor
// changes it, and the status line says the result is from the documents at its start.
#include "widgettestutils.h"

#include "common/chartexporter.h"
#include "common/figureformat.h"
#include "editors/workspacedocument.h"
#include "mainwindow.h"
#include "sweeps/sweepaxeseditor.h"
#include "sweeps/sweepchart.h"
#include "sweeps/sweepjob.h"
#include "sweeps/sweeppanel.h"
#include "sweeps/sweeptablemodel.h"

#include "config/configloader.h"
#include "sim/stepmodel.h"
#include "sweep/sweepspace.h"

#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QClipboard>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <limits>

using namespace rapid;
using rapid::test::openWindow;

namespace {

constexpr int kSweepTimeoutMs = 300000;

/// Types @p lines into the editor's lines, adding lines with the Add button as needed.
void typeAxes(widgets::SweepAxesEditor* editor, const QStringList& lines)
{
    for (int i = 0; i < lines.size(); ++i) {
        if (i >= editor->lineCount()) {
            QTest::mouseClick(editor->addButton(), Qt::LeftButton);
        }
        test::typeLine(editor->lineEdit(i), lines[i]);
    }
}

widgets::SweepPanel* showSweepTab(widgets::MainWindow& window)
{
    window.mainTabs()->setCurrentWidget(window.sweepPanel());
    return window.sweepPanel();
}

/// The splits of the default workspace's 64 GPUs over tp, pp, dp with tp within a node (8), as the panel makes them.
sweep::SweepAxis defaultSplits()
{
    return sweep::parallelSplits(64, { "tp", "pp", "dp" }, 8);
}

/// The step time of the point with overrides @p pointOverrides on @p documents, evaluated here, not by the panel.
double independentStepTime(const config::WorkspaceDocuments& documents, const std::vector<std::string>& pointOverrides)
{
    std::vector<std::string> overrides = documents.overrides;
    overrides.insert(overrides.end(), pointOverrides.begin(), pointOverrides.end());
    const config::ConfigLoader loader(config::PresetLibrary::standard());
    return sim::StepModel(loader.loadTexts(documents.model, documents.hardware, documents.run, overrides))
        .training(false)
        .stepTimeSeconds;
}

/// The table's rows whose status column says @p status, as result indices.
QList<qint64> rowsWithStatus(widgets::SweepPanel* panel, sweep::PointStatus status)
{
    widgets::SweepTableModel* model = panel->tableModel();
    const int column = model->column(widgets::SweepTableModel::Figure::Status);
    QList<qint64> rows;
    for (int row = 0; row < model->rowCount(); ++row) {
        const QModelIndex index = model->index(row, column);
        if (index.data().toString() == widgets::SweepTableModel::statusText(status)) {
            rows.append(index.data(widgets::SweepTableModel::RowIndexRole).toLongLong());
        }
    }
    return rows;
}

/// Runs the panel's current axes with the Run button and waits for the result.
bool runToCompletion(widgets::SweepPanel* panel)
{
    QSignalSpy shown(panel, &widgets::SweepPanel::resultShown);
    if (!panel->runButton()->isEnabled()) {
        return false;
    }
    QTest::mouseClick(panel->runButton(), Qt::LeftButton);
    return shown.wait(kSweepTimeoutMs) || shown.count() == 1;
}

} // namespace

class TestSweepPanel : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void axesGiveThePointCountAndProblemsInline()
    {
        auto window = openWindow();
        QVERIFY(window);
        widgets::SweepPanel* panel = showSweepTab(*window);
        widgets::SweepAxesEditor* editor = panel->axesEditor();
        QVERIFY(editor->splitsCheck()->isChecked()); // tp, pp, dp by default, tp within a node
        QCOMPARE(editor->maxTpSpin()->value(), 8);
        const auto splits = static_cast<qint64>(defaultSplits().values.size());
        QCOMPARE(panel->pointCount(), splits);

        typeAxes(editor,
            { QStringLiteral("run.training.micro_batch=1..8:x2"),
                QStringLiteral("run.training.recompute=none,selective,full") });
        QCOMPARE(editor->lineCount(), 2);
        QCOMPARE(panel->pointCount(), splits * 4 * 3);
        QCOMPARE(panel->pointCountLabel()->text(), QStringLiteral("%1 points").arg(splits * 12));
        QVERIFY(panel->runButton()->isEnabled());
        QVERIFY(editor->problemLabel(0)->isHidden());
        QVERIFY(editor->problemLabel(1)->isHidden());

        // Without the splits the two axes alone.
        QTest::mouseClick(editor->splitsCheck(), Qt::LeftButton);
        QCOMPARE(panel->pointCount(), qint64(12));

        // A malformed line: its problem beside it, no count, Run disabled; the other line stays clean.
        test::typeLine(editor->lineEdit(1), QStringLiteral("run.training.recompute"));
        QVERIFY(editor->problemLabel(1)->isVisible());
        QVERIFY2(editor->problemLabel(1)->text().contains(QStringLiteral("expected KEY=VALUES")),
            qPrintable(editor->problemLabel(1)->text()));
        QVERIFY(editor->problemLabel(0)->isHidden());
        QVERIFY(!editor->isValid());
        QCOMPARE(panel->pointCount(), qint64(-1));
        QVERIFY(!panel->runButton()->isEnabled());
        test::typeLine(editor->lineEdit(0), QStringLiteral("run.training.micro_batch=8..1"));
        QVERIFY2(editor->problemLabel(0)->text().contains(QStringLiteral("ends before it starts")),
            qPrintable(editor->problemLabel(0)->text()));

        // Fixed again: the count and Run come back.
        test::typeLine(editor->lineEdit(0), QStringLiteral("run.training.micro_batch=1,2"));
        test::typeLine(editor->lineEdit(1), QStringLiteral("run.training.recompute=none,full"));
        QVERIFY(editor->problemLabel(0)->isHidden());
        QVERIFY(editor->problemLabel(1)->isHidden());
        QCOMPARE(panel->pointCount(), qint64(4));
        QVERIFY(panel->runButton()->isEnabled());

        // Splits with no axis checked are a problem of the splits row.
        QTest::mouseClick(editor->splitsCheck(), Qt::LeftButton);
        for (const QString& axis : { QStringLiteral("tp"), QStringLiteral("pp"), QStringLiteral("dp") }) {
            QTest::mouseClick(editor->splitAxisCheck(axis), Qt::LeftButton);
        }
        QVERIFY(editor->splitsProblemLabel()->isVisible());
        QVERIFY(!panel->runButton()->isEnabled());
    }

    void axesAreSavedWithTheWorkspaceAndUndoable()
    {
        auto window = openWindow();
        QVERIFY(window);
        widgets::SweepPanel* panel = showSweepTab(*window);
        widgets::SweepAxesEditor* editor = panel->axesEditor();
        widgets::WorkspaceDocument* document = window->document();
        // Opening a workspace is not an edit: nothing to save, no sweep section.
        QVERIFY(!document->isDirty());
        QVERIFY(!document->sweepSettings());

        typeAxes(editor, { QStringLiteral("run.training.micro_batch=1..8:x2") });
        QTest::mouseClick(editor->splitAxisCheck(QStringLiteral("dp")), Qt::LeftButton);
        QVERIFY(document->isDirty());
        QVERIFY(document->sweepSettings());
        QCOMPARE(document->sweepSettings()->axes, std::vector<std::string> { "run.training.micro_batch=1..8:x2" });
        QCOMPARE(document->sweepSettings()->splitAxes, (std::vector<std::string> { "tp", "pp" }));

        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("swept.rapid.yaml"));
        QString error;
        QVERIFY2(document->save(path, &error), qPrintable(error));
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(file.readAll());
        QVERIFY2(text.contains(QStringLiteral("sweep:\n  axes:\n    - \"run.training.micro_batch=1..8:x2\"\n"
                                              "  splits: true\n  split_axes: [tp, pp]\n")),
            qPrintable(text));

        // A fresh window opening the file shows the same axes and splits, and the same point count.
        auto reopened = openWindow(path);
        QVERIFY(reopened);
        widgets::SweepPanel* again = showSweepTab(*reopened);
        QCOMPARE(again->axesEditor()->lines(), QStringList { QStringLiteral("run.training.micro_batch=1..8:x2") });
        QVERIFY(!again->axesEditor()->splitAxisCheck(QStringLiteral("dp"))->isChecked());
        QVERIFY(again->axesEditor()->splitAxisCheck(QStringLiteral("pp"))->isChecked());
        QCOMPARE(again->pointCount(), panel->pointCount());
        QCOMPARE(
            again->pointCount(), static_cast<qint64>(sweep::parallelSplits(64, { "tp", "pp" }, 8).values.size()) * 4);
        QVERIFY(!reopened->document()->isDirty());

        // Undo takes the edits back, in the editor too: the default axes, and nothing left to save.
        while (document->undoStack()->canUndo()) {
            document->undoStack()->undo();
        }
        QVERIFY(!document->sweepSettings());
        QCOMPARE(editor->settings(), config::SweepSettings {});
        QVERIFY(editor->splitAxisCheck(QStringLiteral("dp"))->isChecked());
        QCOMPARE(panel->pointCount(), static_cast<qint64>(defaultSplits().values.size()));
    }

    void runFillsTheTableAndThePlot()
    {
        auto window = openWindow();
        QVERIFY(window);
        widgets::SweepPanel* panel = showSweepTab(*window);
        // The table's model and the panel's own sorting proxy stay consistent through the fill and the sorts.
        QAbstractItemModelTester modelTester(
            panel->tableModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester proxyTester(
            panel->table()->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(panel->tableModel()->rowCount(), 0);
        typeAxes(panel->axesEditor(), { QStringLiteral("run.training.micro_batch=1,2,4") });
        const qint64 points = panel->pointCount();
        QCOMPARE(points, static_cast<qint64>(defaultSplits().values.size()) * 3);

        QSignalSpy progress(panel->job(), &widgets::SweepJob::progressChanged);
        QSignalSpy shown(panel, &widgets::SweepPanel::resultShown);
        QTest::mouseClick(panel->runButton(), Qt::LeftButton);
        QVERIFY(panel->progressBar()->isVisible());
        QVERIFY(panel->cancelButton()->isEnabled());
        QVERIFY(!panel->runButton()->isEnabled());
        QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, kSweepTimeoutMs);
        qInfo("%lld points in %.3f s", static_cast<long long>(points), panel->result()->seconds);
        QVERIFY(progress.count() > 0);
        QVERIFY(!panel->progressBar()->isVisible());
        QVERIFY(panel->runButton()->isEnabled());

        QCOMPARE(panel->tableModel()->rowCount(), static_cast<int>(points));
        QCOMPARE(panel->table()->model()->rowCount(), static_cast<int>(points));
        const QList<qint64> ok = rowsWithStatus(panel, sweep::PointStatus::Ok);
        const QList<qint64> notFitting = rowsWithStatus(panel, sweep::PointStatus::DoesNotFit);
        const QList<qint64> invalid = rowsWithStatus(panel, sweep::PointStatus::Invalid);
        QVERIFY(!ok.isEmpty());
        QCOMPARE(static_cast<qint64>(ok.size()), panel->result()->count(sweep::PointStatus::Ok));
        const QString status = panel->statusLabel()->text();
        QVERIFY2(status.contains(QStringLiteral("%1 points: %2 ok, %3 do not fit, %4 invalid")
                                     .arg(points)
                                     .arg(ok.size())
                                     .arg(notFitting.size())
                                     .arg(invalid.size())),
            qPrintable(status));
        QVERIFY2(!status.contains(QStringLiteral("edited")), qPrintable(status));

        // One evaluated point against an independent evaluation of the same documents and overrides.
        const config::WorkspaceDocuments& documents = window->document()->documents();
        const qint64 checked = ok.first();
        const std::vector<std::string> overrides = panel->result()->space.overrides(checked);
        widgets::SweepTableModel* model = panel->tableModel();
        const double shownStep
            = model->index(static_cast<int>(checked), model->column(widgets::SweepTableModel::Figure::StepTime))
                  .data(widgets::SweepTableModel::SortRole)
                  .toDouble();
        QCOMPARE(shownStep, independentStepTime(documents, overrides));
        QVERIFY(shownStep > 0);

        // Invalid rows explain themselves in their tooltip.
        if (!invalid.isEmpty()) {
            const QString tip = model->index(static_cast<int>(invalid.first()), 0).data(Qt::ToolTipRole).toString();
            QVERIFY(!tip.isEmpty());
        }

        // The plot: one point per evaluated row, the front a subset, the pruned ones greyed at their memory.
        widgets::SweepChart* chart = panel->chart();
        QCOMPARE(chart->evaluatedPointCount(), static_cast<int>(ok.size()));
        QVERIFY(chart->paretoPointCount() >= 1);
        QVERIFY(chart->paretoPointCount() <= chart->evaluatedPointCount());
        QCOMPARE(chart->notFittingPointCount(), static_cast<int>(notFitting.size()));
        double x = 0;
        double y = 0;
        QVERIFY(chart->pointPosition(checked, &x, &y));
        QCOMPARE(x, panel->result()->rows[static_cast<size_t>(checked)].peakMemoryBytes / widgets::kBytesPerGiB);
        QCOMPARE(y, panel->result()->rows[static_cast<size_t>(checked)].tokensPerSecondPerGpu);
        QTest::mouseClick(panel->showNotFittingCheck(), Qt::LeftButton);
        QCOMPARE(chart->notFittingPointCount(), 0);
        QTest::mouseClick(panel->showNotFittingCheck(), Qt::LeftButton);

        // Sorted best first: the first row has the most tokens/s per GPU.
        const QModelIndex top = panel->table()->model()->index(0, 0);
        double best = 0;
        for (qint64 row : ok) {
            best = std::max(best, panel->result()->rows[static_cast<size_t>(row)].tokensPerSecondPerGpu);
        }
        const qint64 topRow = top.data(widgets::SweepTableModel::RowIndexRole).toLongLong();
        QCOMPARE(panel->result()->rows[static_cast<size_t>(topRow)].tokensPerSecondPerGpu, best);
        // Sorted by step time, shortest first (a header click): the fastest point on top, points without a step time
        // (not fitting, invalid) last.
        const auto pointAt = [panel](int row) -> const sweep::SweepRow& {
            const qint64 index
                = panel->table()->model()->index(row, 0).data(widgets::SweepTableModel::RowIndexRole).toLongLong();
            return panel->result()->rows[static_cast<size_t>(index)];
        };
        panel->table()->sortByColumn(model->column(widgets::SweepTableModel::Figure::StepTime), Qt::AscendingOrder);
        double fastest = std::numeric_limits<double>::infinity();
        for (qint64 row : ok) {
            fastest = std::min(fastest, panel->result()->rows[static_cast<size_t>(row)].stepTimeSeconds);
        }
        QCOMPARE(pointAt(0).stepTimeSeconds, fastest);
        QCOMPARE(pointAt(static_cast<int>(points) - 1).status == sweep::PointStatus::Ok, ok.size() == points);
        panel->table()->sortByColumn(
            model->column(widgets::SweepTableModel::Figure::TokensPerGpu), Qt::DescendingOrder);

        // Clicking a point of the plot selects its row (nothing is applied to the workspace: the typed axes are its
        // only edits).
        QVERIFY(!panel->copyButton()->isEnabled());
        const int edits = window->document()->undoStack()->count();
        const int editIndex = window->document()->undoStack()->index();
        QCoreApplication::processEvents(); // the plot's queued replot lays it out
        const QPoint pixel = chart->pointPixel(checked);
        QVERIFY(chart->rect().contains(pixel));
        QWidget* plotWidget = chart->childAt(pixel);
        QVERIFY(plotWidget);
        QTest::mouseClick(plotWidget, Qt::LeftButton, {}, plotWidget->mapFrom(chart, pixel));
        QCOMPARE(panel->selectedRowIndex(), checked);
        QCOMPARE(chart->highlightedPoint(), checked);
        QCOMPARE(window->document()->undoStack()->count(), edits);
        QCOMPARE(window->document()->undoStack()->index(), editIndex);

        // Copy overrides of the selected point: its --set arguments.
        QVERIFY(panel->copyButton()->isEnabled());
        QTest::mouseClick(panel->copyButton(), Qt::LeftButton);
        QString expected;
        for (const std::string& assignment : overrides) {
            // Text a shell would change (the braces of "mapping={}") is single-quoted.
            QString text = QString::fromStdString(assignment);
            if (text.contains(QLatin1Char('{'))) {
                text = QLatin1Char('\'') + text + QLatin1Char('\'');
            }
            expected += (expected.isEmpty() ? QString() : QStringLiteral(" ")) + QStringLiteral("--set ") + text;
        }
        QCOMPARE(QApplication::clipboard()->text(), expected);

        // Apply to workspace: the point's values become the workspace's, as one undoable edit (issue #18, defect 12).
        QVERIFY(panel->applyButton()->isEnabled());
        const int before = window->document()->undoStack()->index();
        QTest::mouseClick(panel->applyButton(), Qt::LeftButton);
        QCOMPARE(window->document()->undoStack()->index(), before + 1);
        QVERIFY(window->document()->scenario());
        for (const std::string& assignment : overrides) {
            const auto equals = assignment.find('=');
            const QString key = QString::fromStdString(assignment.substr(0, equals));
            if (key.startsWith(QLatin1String("run.parallelism.")) && key.count(QLatin1Char('.')) == 2
                && !key.endsWith(QLatin1String("mapping"))) {
                QCOMPARE(window->document()->valueAt(key).value_or(QString()),
                    QString::fromStdString(assignment.substr(equals + 1)));
            }
        }
        window->document()->undoStack()->undo();
        QCOMPARE(window->document()->undoStack()->index(), before);

        // Export CSV: the header of `rapid sweep --csv`, one line per point, the checked point's step time.
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("sweep.csv"));
        QString error;
        QVERIFY2(panel->exportCsv(path, &error), qPrintable(error));
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QStringList lines = QString::fromUtf8(file.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), static_cast<int>(points) + 1);
        const QStringList header = lines.first().split(QLatin1Char(','));
        QCOMPARE(header,
            QStringList({ QStringLiteral("index"), QStringLiteral("split"), QStringLiteral("run.training.micro_batch"),
                QStringLiteral("status"), QStringLiteral("step_time_s"), QStringLiteral("ttft_s"),
                QStringLiteral("itl_s"), QStringLiteral("e2e_s"), QStringLiteral("tokens_per_s"),
                QStringLiteral("tokens_per_s_per_gpu"), QStringLiteral("mfu"), QStringLiteral("joules_per_token"),
                QStringLiteral("peak_memory_gib"), QStringLiteral("capacity_gib"), QStringLiteral("message") }));
        const QStringList fields = lines[static_cast<int>(checked) + 1].split(QLatin1Char(','));
        QCOMPARE(fields[0], QString::number(checked));
        const sweep::SweepRow& checkedRow = panel->result()->rows[static_cast<size_t>(checked)];
        const std::string& splitLabel
            = panel->result()->space.axes()[0].values[static_cast<size_t>(checkedRow.coordinates[0])].label;
        QCOMPARE(fields[1], QStringLiteral("\"%1\"").arg(QString::fromStdString(splitLabel)));
        QCOMPARE(fields[header.indexOf(QStringLiteral("status"))], QStringLiteral("ok"));
        QCOMPARE(fields[header.indexOf(QStringLiteral("step_time_s"))].toDouble(),
            QString::number(shownStep, 'g', 9).toDouble());

        // The plot exports like the dashboard's charts (paper size, print colours).
        for (const QString& name :
            { QStringLiteral("sweep.pdf"), QStringLiteral("sweep.svg"), QStringLiteral("sweep.png") }) {
            const QString chartPath = dir.filePath(name);
            widgets::ExportOptions options;
            options.format = widgets::ChartExporter::formatForPath(chartPath, widgets::ExportFormat::Pdf);
            QVERIFY2(widgets::ChartExporter::exportWidget(chart, chartPath, options, &error), qPrintable(error));
            QVERIFY(QFileInfo(chartPath).size() > 1000);
        }
    }

    void screenshotOfADefaultWorkspaceSweep()
    {
        auto window = openWindow();
        QVERIFY(window);
        window->resize(1800, 1000); // a full-HD screen: room for every column beside the plot
        widgets::SweepPanel* panel = showSweepTab(*window);
        typeAxes(panel->axesEditor(),
            { QStringLiteral("run.training.micro_batch=1,2,4"),
                QStringLiteral("run.training.recompute=none,selective,full") });
        QVERIFY(runToCompletion(panel));
        QVERIFY(panel->chart()->evaluatedPointCount() > 0);
        // The best point selected, as after a click on it.
        panel->selectPoint(
            panel->table()->model()->index(0, 0).data(widgets::SweepTableModel::RowIndexRole).toLongLong());
        QTest::mouseClick(panel->copyButton(), Qt::LeftButton);
        QCoreApplication::processEvents(); // the plot's queued replot
        QVERIFY(test::saveScreenshot(panel->grab(), QStringLiteral("sweep.png")));
    }

    void cancelAppliesNothingAndKeepsTheWindowResponsive()
    {
        auto window = openWindow();
        QVERIFY(window);
        widgets::SweepPanel* panel = showSweepTab(*window);
        // A first, small sweep to completion: its result must survive the cancelled one.
        QVERIFY(runToCompletion(panel));
        const std::shared_ptr<const sweep::SweepResult> before = panel->result();
        QVERIFY(before);
        const int rowsBefore = panel->tableModel()->rowCount();
        QCOMPARE(rowsBefore, static_cast<int>(defaultSplits().values.size()));

        // Thousands of points: still running when Cancel is clicked.
        typeAxes(panel->axesEditor(),
            { QStringLiteral("run.training.micro_batch=1..64:x2"),
                QStringLiteral("run.training.recompute=none,selective,full"),
                QStringLiteral("run.training.global_batch=64..8192:x2"),
                QStringLiteral("run.training.seq_length=1024..32768:x2") });
        QCOMPARE(panel->pointCount(), static_cast<qint64>(rowsBefore) * 7 * 3 * 8 * 6);
        QSignalSpy finished(panel->job(), &widgets::SweepJob::finished);
        QSignalSpy cancelled(panel->job(), &widgets::SweepJob::cancelled);
        QSignalSpy shown(panel, &widgets::SweepPanel::resultShown);
        QTest::mouseClick(panel->runButton(), Qt::LeftButton);
        QVERIFY(panel->job()->isRunning());
        QVERIFY(panel->cancelButton()->isVisible());
        // The event loop runs while the workers do: progress arrives through it, the window repaints and the Cancel
        // click is handled.
        QSignalSpy progress(panel->job(), &widgets::SweepJob::progressChanged);
        QTRY_VERIFY_WITH_TIMEOUT(progress.count() > 0, kSweepTimeoutMs);
        window->repaint();
        QVERIFY(panel->job()->isRunning());
        QVERIFY(panel->progressBar()->value() > 0);
        QTest::mouseClick(panel->cancelButton(), Qt::LeftButton);
        QCOMPARE(cancelled.count(), 1);
        QVERIFY(!panel->job()->isRunning());
        QVERIFY(!panel->progressBar()->isVisible());
        QVERIFY(panel->runButton()->isEnabled());
        QVERIFY2(panel->statusLabel()->text().contains(QStringLiteral("cancelled")),
            qPrintable(panel->statusLabel()->text()));
        for (int i = 0; i < 20; ++i) {
            QTest::qWait(50);
            window->repaint();
        }
        QCOMPARE(finished.count(), 0);
        QCOMPARE(shown.count(), 0);
        QCOMPARE(panel->result(), before);
        QCOMPARE(panel->tableModel()->rowCount(), rowsBefore);
        QCOMPARE(panel->chart()->evaluatedPointCount(), static_cast<int>(before->count(sweep::PointStatus::Ok)));
    }

    void anEditDuringASweepNeitherStopsNorChangesIt()
    {
        auto window = openWindow();
        QVERIFY(window);
        widgets::SweepPanel* panel = showSweepTab(*window);
        typeAxes(panel->axesEditor(), { QStringLiteral("run.training.micro_batch=1,2") });
        const config::WorkspaceDocuments started = window->document()->documents();
        QSignalSpy shown(panel, &widgets::SweepPanel::resultShown);
        QSignalSpy cancelled(panel->job(), &widgets::SweepJob::cancelled);
        QTest::mouseClick(panel->runButton(), Qt::LeftButton);
        const QString run = window->document()->text(widgets::DocumentKind::Run);
        QVERIFY(run.contains(QStringLiteral("global_batch: 512")));
        window->document()->setText(widgets::DocumentKind::Run,
            QString(run).replace(QStringLiteral("global_batch: 512"), QStringLiteral("global_batch: 256")));
        QVERIFY(panel->job()->isRunning());
        QVERIFY2(panel->statusLabel()->text().contains(QStringLiteral("edited since")),
            qPrintable(panel->statusLabel()->text()));
        QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, kSweepTimeoutMs);
        QCOMPARE(cancelled.count(), 0);
        QVERIFY2(panel->statusLabel()->text().contains(QStringLiteral("from the documents at its start")),
            qPrintable(panel->statusLabel()->text()));
        QVERIFY(panel->resultDocuments() == started);
        // The numbers are those of the documents at the start, not of the edited ones.
        const QList<qint64> ok = rowsWithStatus(panel, sweep::PointStatus::Ok);
        QVERIFY(!ok.isEmpty());
        const sweep::SweepRow& row = panel->result()->rows[static_cast<size_t>(ok.first())];
        const std::vector<std::string> overrides = panel->result()->space.overrides(row.index);
        QCOMPARE(row.stepTimeSeconds, independentStepTime(started, overrides));
        QVERIFY(row.stepTimeSeconds != independentStepTime(window->document()->documents(), overrides));
        // Undoing the edit makes the result current again.
        window->document()->undoStack()->undo();
        QVERIFY2(!panel->statusLabel()->text().contains(QStringLiteral("edited since")),
            qPrintable(panel->statusLabel()->text()));
    }
};

QTEST_MAIN(TestSweepPanel)
#include "tst_sweeppanel.moc"
