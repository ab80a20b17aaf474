// SPDX-License-Identifier: GPL-3.0-or-later
// The Resilience tab driven like a user would, against figures derived by hand: on a ring whose step is its
// gradient all-reduce (bandwidth-bound, compute and latency negligible), one link at health h makes the step 1/h as
// long, so the fault study's CDF jumps at 1/h; Cancel of a long study keeps the window responsive, shows nothing and
// lets the next study run at once; the criticality map gives the link whose loss hurts most the scale's extreme
// colour (on a 2-stage pipeline the stage-internal links carry the all-reduces, the links between stages only the
// activations); straggler curves stay under S; the goodput curve peaks at the optimum and its failure rate is the
// Llama 3 run's 419 interruptions in 54 days on 16,384 GPUs scaled to the ring's 4; bad inputs show an inline
// message and disable Run; an edit marks a result stale; every figure exports.
#include "widgettestutils.h"

#include "common/chartexporter.h"
#include "common/figureformat.h"
#include "editors/documentkind.h"
#include "editors/workspacedocument.h"
#include "mainwindow.h"
#include "resilience/criticalitymap.h"
#include "resilience/criticalitypage.h"
#include "resilience/faultstudypage.h"
#include "resilience/goodputpage.h"
#include "resilience/jobcontrols.h"
#include "resilience/resiliencecharts.h"
#include "resilience/resiliencefields.h"
#include "resilience/resiliencepanel.h"
#include "resilience/resiliencerunner.h"
#include "resilience/stragglerpage.h"
#include "topology/linkitem.h"
#include "topology/topologyitems.h"
#include "topology/topologylegend.h"
#include "topology/topologypanel.h"
#include "topology/topologyscene.h"
#include "topology/topologyview.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include <cmath>

using namespace rapid;
using namespace rapid::widgets;

namespace {

constexpr int kTimeoutMs = 60000;

/// Llama-2-7B data-parallel over a ring of 4 GPUs of 10 MB/s links without latency: the step is the gradient
/// all-reduce of ~13 GB (bf16), ~1,000 s, against well under a second of compute and optimizer, so it is
/// bandwidth-bound to 1e-4. @p pp 2 splits the ring into two stages of 2 GPUs each (dp 2).
QString ringWorkspace(int pp)
{
    return QStringLiteral("name: Ring of 4\n"
                          "model: llama-2-7b\n"
                          "hardware:\n"
                          "  name: Ring of 4\n"
                          "  gpu: H100-SXM5-80GB\n"
                          "  cluster:\n"
                          "    gpus_per_node: 4\n"
                          "    network:\n"
                          "      - {name: ring, kind: ring, size: 4, link_bandwidth_GBps: 0.01, latency_ns: 0}\n"
                          "run:\n"
                          "  name: DP over the ring\n"
                          "  mode: training\n"
                          "  training: {global_batch: 4, micro_batch: 1, seq_length: 128, recompute: none}\n"
                          "  flash_attention: true\n"
                          "  precision: {compute: bf16, weights: bf16, activations: bf16, gradients: bf16, "
                          "optimizer: fp32, master_weights: true}\n"
                          "  parallelism: {tp: 1, pp: %1, dp: %2, cp: 1}\n")
        .arg(pp)
        .arg(4 / pp);
}

bool choose(QComboBox* combo, const QString& text)
{
    const int index = combo->findText(text);
    combo->setCurrentIndex(index);
    return index >= 0;
}

double cellNumber(QTableWidget* table, int row, int column)
{
    return table->item(row, column)->text().toDouble();
}

} // namespace

class TstResilienceView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QVERIFY(write(QStringLiteral("ring.rapid.yaml"), ringWorkspace(1)));
        QVERIFY(write(QStringLiteral("ring-pp2.rapid.yaml"), ringWorkspace(2)));
    }

    void listsAreCheckedAsTyped();
    void oneGpuHasNoLinksToFailAndSaysSo();
    void nodeNicClassesStartUncheckedAsTheCliDrawsThem();
    void oneLinkAtHealthHSlowsTheRingByOneOverH();
    void cancelStopsALongStudyAndTheWindowStaysResponsive();
    void criticalityGivesTheWorstLinkTheExtremeColour();
    void stragglerCurvesStayUnderTheirSlowdown();
    void goodputPeaksAtTheOptimalInterval();
    void simulatedGoodputFallsOnTheExpectedCurve();
    void cancelStopsTheGoodputSimulation();
    void resultsComeBackWithTheWorkspace();
    void tokensAndStepsReadAsCounts();
    void criticalityMapFillsItsAreaBesideItsLegend();
    void everyFigureExports();
    void aNarrowWindowPutsTheInputsAboveTheResults();

private:
    std::unique_ptr<MainWindow> openRing(const QString& name)
    {
        auto window = test::openWindow(m_dir.filePath(name));
        if (window) {
            window->mainTabs()->setCurrentWidget(window->resiliencePanel());
        }
        return window;
    }
    bool write(const QString& name, const QString& text)
    {
        QFile file(m_dir.filePath(name));
        return file.open(QIODevice::WriteOnly) && file.write(text.toUtf8()) > 0;
    }

    QTemporaryDir m_dir;
};

void TstResilienceView::listsAreCheckedAsTyped()
{
    QString problem;
    QVERIFY(!parseNumberList(QStringLiteral("0, 1"), { 0, 1, true, false, false, 8 }, &problem));
    QVERIFY2(problem.contains(QStringLiteral("to below 1")), qPrintable(problem));
    QVERIFY(!parseNumberList(QStringLiteral("1,,2"), { 1, 10, true, true, true, 8 }, &problem));
    QVERIFY(!parseNumberList(QStringLiteral("1.5"), { 1, 10, true, true, true, 8 }, &problem));
    QVERIFY2(problem.contains(QStringLiteral("whole")), qPrintable(problem));
    QCOMPARE(*parseNumberList(QStringLiteral(" 0.5, 0 ,0.5"), { 0, 1, true, false, false, 8 }, nullptr),
        (std::vector<double> { 0.5, 0 }));

    auto window = openRing(QStringLiteral("ring.rapid.yaml"));
    QVERIFY(window);
    FaultStudyPage* page = window->resiliencePanel()->faultStudy();
    QPushButton* run = page->controls()->runButton();
    QVERIFY(run->isEnabled());
    test::typeLine(page->healthEdit()->lineEdit(), QStringLiteral("0.5, 1"));
    QVERIFY(page->healthEdit()->problemLabel()->isVisible());
    QVERIFY(page->healthEdit()->problemLabel()->text().contains(QStringLiteral("out of range")));
    QVERIFY(!run->isEnabled());
    test::typeLine(page->healthEdit()->lineEdit(), QStringLiteral("0.5"));
    QVERIFY(!page->healthEdit()->problemLabel()->isVisible());
    QVERIFY(run->isEnabled());
    // Every class unchecked: the list says so and Run waits.
    QListWidget* classes = page->classList()->list();
    QCOMPARE(classes->count(), 1); // a ring has one class
    classes->item(0)->setCheckState(Qt::Unchecked);
    QVERIFY(!run->isEnabled());
    classes->item(0)->setCheckState(Qt::Checked);
    QVERIFY(run->isEnabled());
    // A fault on a link the ring does not have: the loader accepts the id, the network refuses it. The page says
    // why instead of listing classes (this once ended the program from the GUI thread).
    QVERIFY(window->topologyPanel()->setLinkHealth({ QStringLiteral("ring:0-2") }, 0.0));
    QVERIFY(window->document()->scenario());
    QCOMPARE(classes->count(), 0);
    QVERIFY(page->classList()
                ->findChild<QLabel*>(QStringLiteral("faultClassesProblem"))
                ->text()
                .contains(QStringLiteral("no such link")));
    QVERIFY(!run->isEnabled());
    window->document()->undoStack()->undo();
    QCOMPARE(classes->count(), 1);
    QVERIFY(run->isEnabled());
}

void TstResilienceView::oneGpuHasNoLinksToFailAndSaysSo()
{
    // A GPU preset as the hardware: no network, no link classes. The list asked to "check at least one class" where
    // there was none to check.
    QVERIFY(write(QStringLiteral("one.rapid.yaml"),
        QStringLiteral(
            "name: One GPU\nmodel: llama-3.1-8b\nhardware: a100-sxm4-80gb\nrun: llama-3.1-8b-decode-1gpu\n")));
    auto window = openRing(QStringLiteral("one.rapid.yaml"));
    QVERIFY(window);
    FaultStudyPage* page = window->resiliencePanel()->faultStudy();
    QCOMPARE(page->classList()->list()->count(), 0);
    const QLabel* problem = page->classList()->findChild<QLabel*>(QStringLiteral("faultClassesProblem"));
    QVERIFY(problem->isVisibleTo(page));
    QCOMPARE(problem->text(), QStringLiteral("This hardware has no links to fail"));
    QVERIFY(!page->controls()->runButton()->isEnabled());
}

void TstResilienceView::nodeNicClassesStartUncheckedAsTheCliDrawsThem()
{
    // A scale-out network has an opt-in class, a node's NICs failing together, which `rapid resilience` draws only
    // when named. The list showed it checked while the study, handed "every class", left it out.
    QVERIFY(write(QStringLiteral("superpod.rapid.yaml"),
        QStringLiteral(
            "name: Superpod\nmodel: llama-3.1-70b\nhardware: dgx-h100-superpod\nrun: llama-3.1-70b-train-64\n")));
    auto window = openRing(QStringLiteral("superpod.rapid.yaml"));
    QVERIFY(window);
    FaultStudyPage* page = window->resiliencePanel()->faultStudy();
    QListWidget* classes = page->classList()->list();
    QCOMPARE(classes->count(), 4);
    QStringList shown;
    for (int row = 0; row < classes->count(); ++row) {
        shown.append(classes->item(row)->text()
            + (classes->item(row)->checkState() == Qt::Checked ? QStringLiteral(" [x]") : QStringLiteral(" [ ]")));
    }
    // 8 nodes of 8 GPUs: 64 GPU-switch and 64 GPU-leaf links; the NIC class's unit is a node's 8 NIC links.
    QCOMPARE(shown,
        (QStringList { QStringLiteral("nvlink GPU-switch · 64 links [x]"), QStringLiteral("ib GPU-leaf · 64 links [x]"),
            QStringLiteral("ib leaf-spine · 256 links [x]"), QStringLiteral("ib node NICs · 8 × 8 links [ ]") }));
    QVERIFY(!classes->item(3)->toolTip().isEmpty());
    QVERIFY(page->classList()->checkedClasses().empty()); // the default: what the CLI draws without --class
    classes->item(3)->setCheckState(Qt::Checked);
    QCOMPARE(page->classList()->checkedClasses(),
        (std::vector<std::string> { "nvlink GPU-switch", "ib GPU-leaf", "ib leaf-spine", "ib node NICs" }));
    classes->item(2)->setCheckState(Qt::Unchecked);
    QCOMPARE(page->classList()->checkedClasses(),
        (std::vector<std::string> { "nvlink GPU-switch", "ib GPU-leaf", "ib node NICs" }));
    // An edit of the hardware lists the classes again and keeps what was ticked.
    QVERIFY(window->document()->setValue(QStringLiteral("hardware.name"), QStringLiteral("Edited SuperPOD")));
    QCOMPARE(classes->item(3)->checkState(), Qt::Checked);
    QCOMPARE(classes->item(2)->checkState(), Qt::Unchecked);
}

void TstResilienceView::oneLinkAtHealthHSlowsTheRingByOneOverH()
{
    auto window = openRing(QStringLiteral("ring.rapid.yaml"));
    QVERIFY(window);
    FaultStudyPage* page = window->resiliencePanel()->faultStudy();
    test::typeLine(page->faultyLinksEdit()->lineEdit(), QStringLiteral("1"));
    test::typeLine(page->healthEdit()->lineEdit(), QStringLiteral("0.5, 0.25"));
    test::typeSpin(page->trialsSpin(), QStringLiteral("3"));
    QVERIFY(choose(page->backendCombo(), QStringLiteral("congestion")));
    QSignalSpy finished(page->runner(), &ResilienceRunner::studiesFinished);
    QTest::mouseClick(page->controls()->runButton(), Qt::LeftButton);
    QVERIFY(page->controls()->cancelButton()->isVisible());
    QVERIFY(finished.wait(kTimeoutMs));
    QVERIFY(!page->controls()->cancelButton()->isVisible());

    // The table: one row per h, every trial connected, p50 = p99 = max = 1/h.
    QTableWidget* table = page->table();
    QCOMPARE(table->rowCount(), 2);
    for (int row = 0; row < 2; ++row) {
        const double h = row == 0 ? 0.5 : 0.25;
        QCOMPARE(table->item(row, 2)->text(), QStringLiteral("3"));
        QCOMPARE(table->item(row, 3)->text(), QStringLiteral("0"));
        for (const int column : { 5, 7, 8 }) {
            QVERIFY2(
                std::abs(cellNumber(table, row, column) - 1 / h) < 1e-3, qPrintable(table->item(row, column)->text()));
        }
    }
    // What is drawn: each CDF is 0 left of 1/h and 1 from 1/h on.
    QCustomPlot* plot = page->chart()->plot();
    QCOMPARE(plot->graphCount(), 2);
    for (int i = 0; i < 2; ++i) {
        const double jump = i == 0 ? 2.0 : 4.0;
        QCPGraph* graph = plot->graph(i);
        QCOMPARE(
            graph->name(), QStringLiteral("k 1, h %1").arg(i == 0 ? QStringLiteral("0.5") : QStringLiteral("0.25")));
        for (auto point = graph->data()->constBegin(); point != graph->data()->constEnd(); ++point) {
            QVERIFY(point->value == 0 ? point->key < jump + 1e-3 : point->key > jump - 1e-3);
        }
        QCOMPARE((graph->data()->constEnd() - 1)->value, 1.0);
    }
    QVERIFY(page->controls()->statusLabel()->text().contains(QStringLiteral("0 trials cut GPUs apart")));
    QVERIFY(!page->isStale());

    // An edit of the workspace marks the result stale; opening another clears it.
    QVERIFY(window->document()->setValue(QStringLiteral("run.training.global_batch"), QStringLiteral("8")));
    QTRY_VERIFY(page->controls()->statusLabel()->text().contains(QStringLiteral("Stale")));
    QVERIFY(page->isStale());
    QVERIFY(window->openWorkspace(m_dir.filePath(QStringLiteral("ring-pp2.rapid.yaml"))));
    QCOMPARE(table->rowCount(), 0);
    QVERIFY(page->chart()->series().empty());
}

void TstResilienceView::cancelStopsALongStudyAndTheWindowStaysResponsive()
{
    auto window = openRing(QStringLiteral("ring.rapid.yaml"));
    QVERIFY(window);
    FaultStudyPage* page = window->resiliencePanel()->faultStudy();
    test::typeSpin(page->trialsSpin(), QStringLiteral("100000")); // minutes of trials
    QSignalSpy progress(page->runner(), &ResilienceRunner::progressChanged);
    QSignalSpy cancelled(page->runner(), &ResilienceRunner::cancelled);
    QSignalSpy finished(page->runner(), &ResilienceRunner::studiesFinished);
    QTest::mouseClick(page->controls()->runButton(), Qt::LeftButton);
    QVERIFY(progress.wait(kTimeoutMs));
    QVERIFY(page->controls()->progressBar()->isVisible());
    QVERIFY(page->controls()->progressBar()->format().contains(QStringLiteral("of 400,000"))
        || page->controls()->progressBar()->format().contains(QStringLiteral("of 400000")));
    // The window answers while the study runs: switching pages is immediate.
    window->resiliencePanel()->pages()->setCurrentIndex(3);
    QTest::qWait(50);
    window->resiliencePanel()->pages()->setCurrentIndex(0);
    QTest::mouseClick(page->controls()->cancelButton(), Qt::LeftButton);
    QCOMPARE(cancelled.size(), 1);
    QVERIFY(!page->controls()->progressBar()->isVisible());
    QVERIFY(page->controls()->runButton()->isEnabled());
    QVERIFY(page->controls()->statusLabel()->text().contains(QStringLiteral("Cancelled")));
    // The stopped study never shows; the next one runs at once (the worker stopped at its next trial).
    test::typeSpin(page->trialsSpin(), QStringLiteral("2"));
    test::typeLine(page->healthEdit()->lineEdit(), QStringLiteral("0.5"));
    QElapsedTimer timer;
    timer.start();
    QTest::mouseClick(page->controls()->runButton(), Qt::LeftButton);
    QVERIFY(finished.wait(kTimeoutMs));
    QCOMPARE(finished.size(), 1);
    QVERIFY2(timer.elapsed() < 20000, qPrintable(QString::number(timer.elapsed())));
    QCOMPARE(page->rows()->results.front().trials.size(), size_t { 2 });
}

void TstResilienceView::criticalityGivesTheWorstLinkTheExtremeColour()
{
    auto window = openRing(QStringLiteral("ring-pp2.rapid.yaml"));
    QVERIFY(window);
    CriticalityPage* page = window->resiliencePanel()->criticality();
    window->resiliencePanel()->pages()->setCurrentWidget(page);
    test::typeSpin(page->healthSpin(), QStringLiteral("0.5"));
    QVERIFY(choose(page->backendCombo(), QStringLiteral("analytical")));
    QSignalSpy finished(page->runner(), &ResilienceRunner::criticalityFinished);
    QTest::mouseClick(page->controls()->runButton(), Qt::LeftButton);
    QVERIFY(finished.wait(kTimeoutMs));

    // Two stages of a data-parallel pair each: the links inside a pair carry its gradient all-reduce (the step), at
    // h = 0.5 twice as long; the links between the stages carry only activations, which barely change the step.
    QTableWidget* table = page->table();
    QCOMPARE(table->rowCount(), 4);
    const double worst = cellNumber(table, 0, 1);
    const double mildest = cellNumber(table, 3, 1);
    QVERIFY2(std::abs(worst - 2) < 2e-3, qPrintable(QString::number(worst)));
    QVERIFY2(mildest < 1.01, qPrintable(QString::number(mildest)));

    // The drawing: the worst link at the scale's high end (1), the mildest at (almost) the low end.
    TopologyScene* scene = page->mapView()->scene();
    LinkItem* worstLink = scene->linkItem(table->item(0, 3)->text());
    LinkItem* mildestLink = scene->linkItem(table->item(3, 3)->text());
    QVERIFY(worstLink && mildestLink);
    QVERIFY(worstLink->utilisation() && mildestLink->utilisation());
    QCOMPARE(*worstLink->utilisation(), 1.0);
    QVERIFY(*mildestLink->utilisation() < 0.02);
    for (LinkItem* link : scene->linkItems()) {
        QVERIFY(*link->utilisation() <= *worstLink->utilisation());
    }
    QVERIFY(worstLink->toolTip().contains(QStringLiteral("rank 1 of 4")));
    QVERIFY(page->mapView()->legend()->showsUtilisation());
    QVERIFY(page->mapView()->legend()->scaleCaption().contains(QStringLiteral("0.5")));
    // A table row selects its link in the drawing.
    table->selectRow(3);
    QCOMPARE(scene->selectedLinkIds(), QStringList { table->item(3, 3)->text() });
}

void TstResilienceView::stragglerCurvesStayUnderTheirSlowdown()
{
    auto window = openRing(QStringLiteral("ring.rapid.yaml"));
    QVERIFY(window);
    StragglerPage* page = window->resiliencePanel()->stragglers();
    test::typeLine(page->sharesEdit()->lineEdit(), QStringLiteral("0.25, 1"));
    test::typeLine(page->slowdownsEdit()->lineEdit(), QStringLiteral("2, 1.5"));
    test::typeSpin(page->trialsSpin(), QStringLiteral("2"));
    QSignalSpy finished(page->runner(), &ResilienceRunner::studiesFinished);
    QTest::mouseClick(page->controls()->runButton(), Qt::LeftButton);
    QVERIFY(finished.wait(kTimeoutMs));
    // 1 and 4 slow GPUs, each at S = 1.5 and 2 (sorted): two series of two points.
    const std::vector<StragglerSeries>& series = page->chart()->series();
    QCOMPARE(series.size(), size_t { 2 });
    QCOMPARE(series[0].name, QStringLiteral("1 slow GPU"));
    QCOMPARE(series[1].name, QStringLiteral("4 slow GPUs"));
    for (const StragglerSeries& curve : series) {
        QCOMPARE(curve.slowdowns, (std::vector<double> { 1.5, 2 }));
        for (size_t i = 0; i < 2; ++i) {
            QVERIFY(curve.p50[i] >= 1 && curve.p99[i] <= curve.slowdowns[i] * (1 + 1e-9));
        }
    }
    // Drawn: the bound, then a p50 and a p99 line per series.
    QCOMPARE(page->chart()->plot()->graphCount(), 5);
    QCOMPARE(page->table()->rowCount(), 4);
}

void TstResilienceView::goodputPeaksAtTheOptimalInterval()
{
    auto window = openRing(QStringLiteral("ring.rapid.yaml"));
    QVERIFY(window);
    GoodputPage* page = window->resiliencePanel()->goodput();
    window->resiliencePanel()->pages()->setCurrentWidget(page);
    test::typeSpin(page->relaunchSpin(), QStringLiteral("30"));
    QSignalSpy finished(page->runner(), &ResilienceRunner::goodputFinished);
    QTest::mouseClick(page->controls()->runButton(), Qt::LeftButton);
    QVERIFY(finished.wait(kTimeoutMs));
    const GoodputFigures& f = *page->chart()->figures();
    // The Llama 3 rate by hand: 419 interruptions in 54 days on 16,384 GPUs, so 4 GPUs see one every
    // 54 d x 16,384 / (419 x 4).
    const double mtbf = 54.0 * 86400 * 16384 / (419.0 * 4);
    QVERIFY2(std::abs(f.run.mtbfSeconds / mtbf - 1) < 1e-9, qPrintable(QString::number(f.run.mtbfSeconds)));
    // Restart: 10 min detection + 30 min relaunch + reading the checkpoint back.
    QVERIFY(std::abs(f.run.restartSeconds - (600 + 1800 + f.run.checkpointSeconds)) < 1e-6);
    QVERIFY(std::abs(f.young - std::sqrt(2 * f.run.checkpointSeconds * f.run.mtbfSeconds)) < 1e-6 * f.young);

    // The drawn curve peaks at the optimum, within one step of the log grid.
    QCPGraph* curve = page->chart()->plot()->graph(0);
    double bestKey = 0;
    double bestValue = -1;
    for (auto point = curve->data()->constBegin(); point != curve->data()->constEnd(); ++point) {
        if (point->value > bestValue) {
            bestValue = point->value;
            bestKey = point->key;
        }
    }
    const double gridStep = std::log(kCurveSpan) / (kCurvePoints / 2);
    QVERIFY2(std::abs(std::log(bestKey / f.optimum)) <= gridStep + 1e-12,
        qPrintable(QStringLiteral("peak at %1 s, optimum %2 s").arg(bestKey).arg(f.optimum)));
    // The optimum's line is drawn at the optimum.
    const int graphs = page->chart()->plot()->graphCount();
    QCOMPARE(graphs, 4);
    QCPGraph* optimumLine = page->chart()->plot()->graph(3);
    QVERIFY(optimumLine->name().startsWith(QStringLiteral("optimum")));
    QCOMPARE(optimumLine->data()->constBegin()->key, f.optimum);
    QVERIFY(page->figuresLabel()->text().contains(QStringLiteral("Llama 3")));
    // 10^12 tokens are ~2 x 10^9 steps of ~2,000 s: far more checkpoint intervals than 200 simulated runs of each
    // can go through. The expected curve shows; the status line says why there are no simulated points.
    QVERIFY(f.simulated.empty());
    QCOMPARE(page->table()->rowCount(), 0);
    QVERIFY(page->controls()->statusLabel()->text().contains(QStringLiteral("Not simulated")));
}

namespace {

/// The ring's goodput in a regime of frequent interruptions, typed into the page: 10^6 tokens (1,954 steps of
/// ~2,000 s), one interruption every 2 h, the 88 GiB checkpoint at 1 GB/s (~94 s), @p trials runs per interval.
void typeFrequentFailures(GoodputPage* page, int trials)
{
    test::typeSpin(page->tokensSpin(), QStringLiteral("0.001"));
    test::typeSpin(page->mtbfSpin(), QStringLiteral("2"));
    test::typeSpin(page->storageSpin(), QStringLiteral("1"));
    test::typeSpin(page->trialsSpin(), QString::number(trials));
}

} // namespace

void TstResilienceView::simulatedGoodputFallsOnTheExpectedCurve()
{
    auto window = openRing(QStringLiteral("ring.rapid.yaml"));
    QVERIFY(window);
    GoodputPage* page = window->resiliencePanel()->goodput();
    window->resiliencePanel()->pages()->setCurrentWidget(page);
    typeFrequentFailures(page, 200);
    QSignalSpy finished(page->runner(), &ResilienceRunner::goodputFinished);
    QTest::mouseClick(page->controls()->runButton(), Qt::LeftButton);
    QVERIFY(finished.wait(kTimeoutMs));
    const GoodputFigures& f = *page->chart()->figures();
    const double W = f.run.workSeconds;
    const double M = f.run.mtbfSeconds;
    const double C = f.run.checkpointSeconds;
    const double R = f.run.restartSeconds;
    QCOMPARE(M, 7200.0);
    QVERIFY2(std::abs(C - f.checkpointBytes / 1e9) < 1e-9, qPrintable(QString::number(C)));

    // Seven intervals, 1/8 to 8 times the optimum by factors of 2, each a row of the table.
    QCOMPARE(f.simulated.size(), size_t { 7 });
    QCOMPARE(page->table()->rowCount(), 7);
    for (size_t i = 0; i < f.simulated.size(); ++i) {
        const SimulatedGoodput& point = f.simulated[i];
        QVERIFY(std::abs(point.interval / f.optimum - std::pow(2.0, static_cast<double>(i) - 3)) < 1e-12);
        QCOMPARE(point.study.trials, 200);
        // Daly's expectation (eq. 13) by hand: W / tau whole segments of M e^(R/M) (e^((tau + C)/M) - 1) each, the
        // last one shorter.
        const double tau = point.interval;
        const auto segmentWall = [&](double length) { return M * std::exp(R / M) * std::expm1((length + C) / M); };
        const double whole = std::floor(W / tau);
        const double rest = W - whole * tau;
        const double expectedWall = whole * segmentWall(tau) + (rest > 0 ? segmentWall(rest) : 0.0);
        const double expected = W / expectedWall;
        const double simulated = point.study.meanEffectiveFraction;
        // The goodput's standard error, carried from the mean wall time's: d(W/x) = W dx / x^2.
        const double standardError = W * point.study.standardError / std::pow(point.study.meanWallSeconds, 2);
        QVERIFY2(std::abs(simulated - expected) <= 4 * standardError,
            qPrintable(QStringLiteral("tau %1 s: simulated %2, expected %3, SE %4")
                           .arg(tau)
                           .arg(simulated)
                           .arg(expected)
                           .arg(standardError)));
        if (i >= 2 && i <= 4) {
            // Near the optimum the points also lie within the first-order model's error (Young's waste: C / tau of
            // checkpoints, (tau + C) / 2M lost per interruption, R / M restarting), here about 2 points of goodput.
            const double firstOrder = 1 / (1 + C / tau + (tau + C) / (2 * M) + R / M);
            QVERIFY(std::abs(simulated - expected) < std::abs(firstOrder - expected));
        }
        // The drawn point and its bar: the mean and 1.96 standard errors, in percent.
        QVERIFY(std::abs(point.halfWidth95() - 1.96 * standardError) < 1e-12);
        QCOMPARE(page->table()->item(static_cast<int>(i), 0)->text(), durationText(tau));
        QCOMPARE(
            page->table()->item(static_cast<int>(i), 2)->text(), QStringLiteral("%1%").arg(100 * simulated, 0, 'f', 3));
    }
    QCPGraph* points = nullptr;
    for (int i = 0; i < page->chart()->plot()->graphCount(); ++i) {
        if (page->chart()->plot()->graph(i)->name().startsWith(QStringLiteral("simulated"))) {
            points = page->chart()->plot()->graph(i);
        }
    }
    QVERIFY(points);
    QCOMPARE(points->data()->size(), 7);
    QCOMPARE(points->data()->at(3)->key, f.simulated[3].interval);
    QCOMPARE(points->data()->at(3)->value, 100 * f.simulated[3].study.meanEffectiveFraction);
    QCPErrorBars* bars = nullptr;
    for (int i = 0; i < page->chart()->plot()->plottableCount(); ++i) {
        bars = bars ? bars : qobject_cast<QCPErrorBars*>(page->chart()->plot()->plottable(i));
    }
    QVERIFY(bars && bars->dataPlottable() == points);
    QCOMPARE(bars->data()->at(3).errorPlus, 100 * f.simulated[3].halfWidth95());
    // The analytical curve, the three interval lines and the points are the legend's entries; the bars are not.
    QCOMPARE(page->chart()->plot()->legend->itemCount(), 5);
    // At 1280x720 the table's columns fit its width (they scrolled sideways with p10 and p90 apart).
    window->resize(1280, 720);
    QTRY_COMPARE(window->size(), QSize(1280, 720));
    QTest::qWait(50);
    QVERIFY(!page->table()->horizontalScrollBar()->isVisible());
}

void TstResilienceView::cancelStopsTheGoodputSimulation()
{
    auto window = openRing(QStringLiteral("ring.rapid.yaml"));
    QVERIFY(window);
    GoodputPage* page = window->resiliencePanel()->goodput();
    window->resiliencePanel()->pages()->setCurrentWidget(page);
    typeFrequentFailures(page, 30000); // ~27,000 segments a run at 1/8 of the optimum: minutes of simulation
    QSignalSpy progress(page->runner(), &ResilienceRunner::progressChanged);
    QSignalSpy cancelled(page->runner(), &ResilienceRunner::cancelled);
    QSignalSpy finished(page->runner(), &ResilienceRunner::goodputFinished);
    QTest::mouseClick(page->controls()->runButton(), Qt::LeftButton);
    QVERIFY(progress.wait(kTimeoutMs));
    QCOMPARE(progress.last().at(1).toLongLong(), 7 * 30000LL);
    QVERIFY(page->controls()->progressBar()->isVisible());
    QTest::mouseClick(page->controls()->cancelButton(), Qt::LeftButton);
    QCOMPARE(cancelled.size(), 1);
    QVERIFY(!page->controls()->progressBar()->isVisible());
    QVERIFY(page->controls()->runButton()->isEnabled());
    QVERIFY(page->controls()->statusLabel()->text().contains(QStringLiteral("Cancelled")));
    // The stopped simulation never shows, and the next run starts at once (the worker stops before its next trial).
    test::typeSpin(page->trialsSpin(), QStringLiteral("2"));
    QElapsedTimer timer;
    timer.start();
    QTest::mouseClick(page->controls()->runButton(), Qt::LeftButton);
    QVERIFY(finished.wait(kTimeoutMs));
    QCOMPARE(finished.size(), 1);
    QVERIFY2(timer.elapsed() < 20000, qPrintable(QString::number(timer.elapsed())));
    QCOMPARE(page->chart()->figures()->simulated.front().study.trials, 2);
    QVERIFY(!page->controls()->statusLabel()->text().contains(QStringLiteral("Cancelled")));
}

namespace {

/// Every cell of @p table, row by row.
QStringList cells(const QTableWidget* table)
{
    QStringList texts;
    for (int row = 0; row < table->rowCount(); ++row) {
        for (int column = 0; column < table->columnCount(); ++column) {
            texts.append(table->item(row, column) ? table->item(row, column)->text() : QString());
        }
    }
    return texts;
}

/// The four pages' tables of @p window, in page order.
QList<QStringList> resultTables(MainWindow& window)
{
    ResiliencePanel* panel = window.resiliencePanel();
    return { cells(panel->faultStudy()->table()), cells(panel->criticality()->table()),
        cells(panel->stragglers()->table()), cells(panel->goodput()->table()) };
}

QList<ResiliencePage*> pagesOf(MainWindow& window)
{
    ResiliencePanel* panel = window.resiliencePanel();
    return { panel->faultStudy(), panel->criticality(), panel->stragglers(), panel->goodput() };
}

} // namespace

void TstResilienceView::resultsComeBackWithTheWorkspace()
{
    const QString path = m_dir.filePath(QStringLiteral("kept.rapid.yaml"));
    QVERIFY(write(QStringLiteral("kept.rapid.yaml"), ringWorkspace(2)));
    auto window = openRing(QStringLiteral("kept.rapid.yaml"));
    QVERIFY(window);
    ResiliencePanel* panel = window->resiliencePanel();
    // A small study on each page, as a user would start them.
    test::typeSpin(panel->faultStudy()->trialsSpin(), QStringLiteral("3"));
    QVERIFY(choose(panel->criticality()->backendCombo(), QStringLiteral("analytical")));
    test::typeSpin(panel->stragglers()->trialsSpin(), QStringLiteral("2"));
    typeFrequentFailures(panel->goodput(), 20);
    QSignalSpy studies(panel->faultStudy()->runner(), &ResilienceRunner::studiesFinished);
    QSignalSpy map(panel->criticality()->runner(), &ResilienceRunner::criticalityFinished);
    QSignalSpy stragglers(panel->stragglers()->runner(), &ResilienceRunner::studiesFinished);
    QSignalSpy goodput(panel->goodput()->runner(), &ResilienceRunner::goodputFinished);
    for (ResiliencePage* page : pagesOf(*window)) {
        panel->pages()->setCurrentWidget(page);
        QTest::mouseClick(page->controls()->runButton(), Qt::LeftButton);
    }
    QVERIFY(studies.size() == 1 || studies.wait(kTimeoutMs));
    QVERIFY(map.size() == 1 || map.wait(kTimeoutMs));
    QVERIFY(stragglers.size() == 1 || stragglers.wait(kTimeoutMs));
    QVERIFY(goodput.size() == 1 || goodput.wait(kTimeoutMs));
    const QList<QStringList> tables = resultTables(*window);
    // 2 x 2 (k, h) rows, 4 links, 4 slowdowns (2% and 10% of 4 GPUs are both one GPU), 7 simulated intervals.
    QCOMPARE(tables[0].size(), 4 * 9);
    QCOMPARE(tables[1].size(), 4 * 4);
    QCOMPARE(tables[2].size(), 4 * 6);
    QCOMPARE(tables[3].size(), 7 * 6);
    // A result is unsaved work: the window asks before closing, and the autosave writes it.
    QVERIFY(window->document()->isDirty());
    QVERIFY(window->document()->composedText().contains(QStringLiteral("view: \"resilience.faultStudy\"")));

    QVERIFY(window->saveWorkspace(path));
    QVERIFY(!window->document()->isDirty());
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QString saved = QString::fromUtf8(file.readAll());
    file.close();
    QCOMPARE(saved.count(QStringLiteral("  - view: \"resilience.")), 4);
    // Current results name the workspace's documents by fingerprint rather than repeat them.
    QCOMPARE(saved.count(QStringLiteral("\n    hardware: ")), 0);

    auto reopened = openRing(QStringLiteral("kept.rapid.yaml"));
    QVERIFY(reopened);
    QCOMPARE(resultTables(*reopened), tables);
    for (ResiliencePage* page : pagesOf(*reopened)) {
        QVERIFY(page->hasResult());
        QVERIFY(!page->isStale());
    }
    QCOMPARE(reopened->resiliencePanel()->faultStudy()->chart()->series().size(), size_t { 4 });
    // The inputs that produced the restored rows come back with them (the defaults are 50 and 20 trials).
    QCOMPARE(reopened->resiliencePanel()->faultStudy()->trialsSpin()->value(), 3);
    QCOMPARE(reopened->resiliencePanel()->stragglers()->trialsSpin()->value(), 2);
    QCOMPARE(reopened->resiliencePanel()->criticality()->backendCombo()->currentText(), QStringLiteral("analytical"));
    QCOMPARE(reopened->resiliencePanel()->criticality()->mapView()->scene()->linkItems().size(), 4);
    QCOMPARE(reopened->resiliencePanel()->goodput()->chart()->figures()->simulated.size(), size_t { 7 });
    QVERIFY(!reopened->document()->isDirty());

    // Edited and saved: the results come back marked stale, still drawn on the network they were computed on.
    // A ring of 8 now: the workspace's network has 8 links, the map's 4.
    WorkspaceDocument* document = reopened->document();
    QString hardware = document->text(DocumentKind::Hardware);
    hardware.replace(QStringLiteral("gpus_per_node: 4"), QStringLiteral("gpus_per_node: 8"));
    hardware.replace(QStringLiteral("size: 4"), QStringLiteral("size: 8"));
    document->replaceText(DocumentKind::Hardware, hardware, QStringLiteral("Ring of 8"));
    QVERIFY(document->setValue(QStringLiteral("run.parallelism.dp"), QStringLiteral("4")));
    QVERIFY(document->scenario());
    QVERIFY(reopened->saveWorkspace(path));
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(QString::fromUtf8(file.readAll()).count(QStringLiteral("\n    hardware: ")), 4); // now they must
    file.close();
    auto edited = openRing(QStringLiteral("kept.rapid.yaml"));
    QVERIFY(edited);
    QCOMPARE(resultTables(*edited), tables);
    for (ResiliencePage* page : pagesOf(*edited)) {
        QVERIFY(page->isStale());
        QVERIFY(page->controls()->statusLabel()->text().contains(QStringLiteral("Stale")));
    }
    QCOMPARE(edited->resiliencePanel()->criticality()->mapView()->scene()->linkItems().size(), 4);
}

void TstResilienceView::tokensAndStepsReadAsCounts()
{
    // Three significant digits with the suffix that keeps the integer part under 1000; rounding first.
    QCOMPARE(formatShortCount(1e12), QStringLiteral("1.00 T"));
    QCOMPARE(formatShortCount(3.5e11), QStringLiteral("350 B"));
    QCOMPARE(formatShortCount(999.7e9), QStringLiteral("1.00 T"));
    QCOMPARE(formatShortCount(1.25e7), QStringLiteral("12.5 M"));
    QCOMPARE(formatShortCount(12345), QStringLiteral("12.3 K"));
    QCOMPARE(formatShortCount(1954), QStringLiteral("1954"));
    QCOMPARE(formatShortCount(15.6e12), QStringLiteral("15.6 T"));
    QCOMPARE(parseCount(QStringLiteral("1.5T")), std::optional<double>(1.5e12));
    QCOMPARE(parseCount(QStringLiteral(" 350 b ")), std::optional<double>(3.5e11));
    QCOMPARE(parseCount(QStringLiteral("2G")), std::optional<double>(2e9));
    QCOMPARE(parseCount(QStringLiteral("350"), 1e9), std::optional<double>(3.5e11));
    QVERIFY(!parseCount(QStringLiteral("lots")));

    auto window = openRing(QStringLiteral("ring.rapid.yaml"));
    QVERIFY(window);
    GoodputPage* page = window->resiliencePanel()->goodput();
    window->resiliencePanel()->pages()->setCurrentWidget(page);
    QDoubleSpinBox* tokens = page->tokensSpin();
    QCOMPARE(tokens->text(), QStringLiteral("1.00 T tokens")); // was "1000.000 B tokens"
    test::typeSpin(tokens, QStringLiteral("350"));
    QCOMPARE(tokens->value(), 350.0);
    QCOMPARE(tokens->text(), QStringLiteral("350 B tokens"));
    test::typeSpin(tokens, QStringLiteral("1.5T"));
    QCOMPARE(tokens->value(), 1500.0);
    QCOMPARE(tokens->text(), QStringLiteral("1.50 T tokens"));
    QTest::keyClick(tokens, Qt::Key_Up); // the second significant digit
    QCOMPARE(tokens->text(), QStringLiteral("1.60 T tokens"));
    QTest::keyClick(tokens, Qt::Key_Down);
    QTest::keyClick(tokens, Qt::Key_Down);
    QCOMPARE(tokens->text(), QStringLiteral("1.40 T tokens"));

    // 1.4 x 10^12 tokens in steps of 4 x 128: 2,734,375,000 steps, "2.73 B steps".
    QSignalSpy finished(page->runner(), &ResilienceRunner::goodputFinished);
    QTest::mouseClick(page->controls()->runButton(), Qt::LeftButton);
    QVERIFY(finished.wait(kTimeoutMs));
    QCOMPARE(page->chart()->figures()->steps, 2734375000.0);
    QVERIFY2(page->figuresLabel()->text().contains(QStringLiteral("× 2.73 B steps")),
        qPrintable(page->figuresLabel()->text()));
}

void TstResilienceView::criticalityMapFillsItsAreaBesideItsLegend()
{
    // The 64-GPU workspace (8 DGX H100 nodes) in a 1280x720 window, its criticality map on the analytical backend.
    auto window = test::openWindow();
    QVERIFY(window);
    window->resize(1280, 720);
    window->mainTabs()->setCurrentWidget(window->resiliencePanel());
    CriticalityPage* page = window->resiliencePanel()->criticality();
    window->resiliencePanel()->pages()->setCurrentWidget(page);
    QVERIFY(choose(page->backendCombo(), QStringLiteral("analytical")));
    QSignalSpy finished(page->runner(), &ResilienceRunner::criticalityFinished);
    QTest::mouseClick(page->controls()->runButton(), Qt::LeftButton);
    QVERIFY(finished.wait(kTimeoutMs));
    QTest::qWait(100);
    QCOMPARE(window->size(), QSize(1280, 720));
    CriticalityMapView* map = page->mapView();
    TopologyView* view = map->view();
    TopologyLegend* legend = map->legend();
    QVERIFY(legend->isVisible());
    QVERIFY(test::saveScreenshot(window->grab(), QStringLiteral("view-resilience-criticality-1280x720.png")));

    // Every drawn GPU, switch and link in window coordinates, against the legend's rectangle.
    const auto inWindow = [&](const QGraphicsItem* item) {
        const QRect onViewport = view->mapFromScene(item->sceneBoundingRect()).boundingRect();
        return QRect(view->viewport()->mapTo(window.get(), onViewport.topLeft()), onViewport.size());
    };
    const QRect legendRect(legend->mapTo(window.get(), QPoint(0, 0)), legend->size());
    QRect drawing;
    int items = 0;
    for (const QGraphicsItem* item : view->scene()->items()) {
        if (!dynamic_cast<const LinkItem*>(item) && !dynamic_cast<const NodeItem*>(item)) {
            continue;
        }
        const QRect rect = inWindow(item);
        QVERIFY2(!rect.intersects(legendRect),
            qPrintable(QStringLiteral("item at %1,%2 %3x%4 under the legend at %5,%6 %7x%8")
                           .arg(rect.x())
                           .arg(rect.y())
                           .arg(rect.width())
                           .arg(rect.height())
                           .arg(legendRect.x())
                           .arg(legendRect.y())
                           .arg(legendRect.width())
                           .arg(legendRect.height())));
        drawing |= rect;
        ++items;
    }
    QVERIFY(items > 64);
    // Fitted: the drawing spans (nearly) the whole width or height the view has for it.
    const QRect viewport(view->viewport()->mapTo(window.get(), QPoint(0, 0)), view->viewport()->size());
    QVERIFY2(drawing.width() >= 0.85 * viewport.width() || drawing.height() >= 0.85 * viewport.height(),
        qPrintable(QStringLiteral("drawing %1x%2 in a viewport of %3x%4")
                       .arg(drawing.width())
                       .arg(drawing.height())
                       .arg(viewport.width())
                       .arg(viewport.height())));
}

void TstResilienceView::everyFigureExports()
{
    auto window = openRing(QStringLiteral("ring-pp2.rapid.yaml"));
    QVERIFY(window);
    CriticalityPage* page = window->resiliencePanel()->criticality();
    QSignalSpy finished(page->runner(), &ResilienceRunner::criticalityFinished);
    QVERIFY(choose(page->backendCombo(), QStringLiteral("analytical")));
    QVERIFY(page->run());
    QVERIFY(finished.wait(kTimeoutMs));
    // The File > Export Figure list holds the four figures, the current page's being the one the dialog starts on.
    window->resiliencePanel()->pages()->setCurrentWidget(page);
    QCOMPARE(window->resiliencePanel()->currentFigure(), static_cast<QWidget*>(page->mapView()));
    const QList<FigureDialog::Target> figures = window->resiliencePanel()->figures();
    QCOMPARE(figures.size(), 4);
    ExportOptions options;
    for (const FigureDialog::Target& figure : figures) {
        for (const ExportFormat format : { ExportFormat::Png, ExportFormat::Svg, ExportFormat::Pdf }) {
            options.format = format;
            const QString path = m_dir.filePath(figure.widget->objectName() + QLatin1Char('.') + suffixOf(format));
            QString error;
            QVERIFY2(ChartExporter::exportWidget(figure.widget, path, options, &error), qPrintable(error));
            QVERIFY(QFileInfo(path).size() > 1000);
        }
    }
}

QTEST_MAIN(TstResilienceView)
#include "tst_resilienceview.moc"

/// At 1,024 x 700 (a 1,024 x 768 screen) the tab beside the Results dock is ~540 px wide: the inputs column (270 px)
/// goes above the figure and table, which span the page; a goodput result (chart, word-wrapped figures and a table)
/// does not make the window grow; at 1,600 x 900 the column is back beside the results on every page.
void TstResilienceView::aNarrowWindowPutsTheInputsAboveTheResults()
{
    auto window = openRing(QStringLiteral("ring.rapid.yaml"));
    QVERIFY(window);
    ResiliencePanel* panel = window->resiliencePanel();
    const std::vector<ResiliencePage*> pages { panel->faultStudy(), panel->criticality(), panel->stragglers(),
        panel->goodput() };
    window->resize(1024, 700);
    for (ResiliencePage* page : pages) {
        panel->pages()->setCurrentWidget(page);
        QTRY_VERIFY(!page->inputsBesideResults());
        // The inputs above: the Run button over the results, both starting at the page's left margin.
        const QPushButton* run = page->controls()->runButton();
        QVERIFY(run->isVisible());
        const QRect runRect(run->mapTo(page, QPoint()), run->size());
        const QWidget* table = page->findChild<QTableWidget*>();
        QVERIFY(table);
        QVERIFY(runRect.bottom() < table->mapTo(page, QPoint()).y());
        QCOMPARE(run->mapTo(page, QPoint()).x(), table->mapTo(page, QPoint()).x());
        QVERIFY(table->width() > page->width() - 20);
    }
    GoodputPage* goodput = panel->goodput();
    panel->pages()->setCurrentWidget(goodput);
    QSignalSpy finished(goodput->runner(), &ResilienceRunner::goodputFinished);
    QTest::mouseClick(goodput->controls()->runButton(), Qt::LeftButton);
    QVERIFY(finished.wait(kTimeoutMs));
    QTest::qWait(100);
    QCOMPARE(window->size(), QSize(1024, 700));
    QVERIFY(!goodput->inputsBesideResults());
    QVERIFY(goodput->chart()->isVisible());
    // The caption (four lines at this width) under the chart, whole, not drawn over the chart's legend; the chart at
    // least at its minimum; the page scrolls to the table instead.
    const QLabel* caption = goodput->figuresLabel();
    QVERIFY(caption->isVisible());
    QVERIFY(goodput->chart()->geometry().bottom() < caption->geometry().top());
    QVERIFY(caption->height() >= caption->heightForWidth(caption->width()));
    QVERIFY(goodput->chart()->height() >= goodput->chart()->minimumHeight());
    QTRY_VERIFY(
        goodput->findChild<QScrollArea*>(QString(), Qt::FindDirectChildrenOnly)->verticalScrollBar()->isVisible());

    window->resize(1600, 900);
    for (ResiliencePage* page : pages) {
        panel->pages()->setCurrentWidget(page);
        QTRY_VERIFY(page->inputsBesideResults());
        QCOMPARE(page->controls()->width(), 270);
        // Everything fits: the scroll area shows no bar.
        const QScrollArea* scroll = page->findChild<QScrollArea*>(QString(), Qt::FindDirectChildrenOnly);
        QTRY_VERIFY(!scroll->verticalScrollBar()->isVisible());
        QTRY_VERIFY(!scroll->horizontalScrollBar()->isVisible());
    }
}
