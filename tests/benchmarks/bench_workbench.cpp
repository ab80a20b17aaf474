// SPDX-License-Identifier: GPL-3.0-or-later
// Edit-to-dashboard latency of the workbench (issue 8): on the default workspace (Llama-3.1-70B training on 64 H100),
// one YAML edit of the run document changes TP 8 -> 4 and DP 2 -> 4 (still 64 GPUs) and lets dp span nvlink as well
// (otherwise the placement is rejected and only the cheap structure path runs; that case is timed too); the time runs
// from the edit until the results panel has applied the new evaluation (ResultsPanel::evaluationShown), and,
// separately, until the event loop has also processed the repaint that follows. Ten repetitions, each after restoring
// TP 8 / DP 2 (not timed). Prints min / median / max; asserts nothing about time.
#include "editors/workspacedocument.h"
#include "evaluation/evaluationrunner.h"
#include "results/resultspanel.h"
#include "widgets/widgettestutils.h"

#include <QElapsedTimer>
#include <QEventLoop>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTest>
#include <QTimer>

#include <algorithm>
#include <vector>

using namespace rapid;

namespace {

QString withParallelism(QString text, int tp, int dp)
{
    text.replace(QRegularExpression(QStringLiteral("(\\btp: )\\d+")), QStringLiteral("\\1") + QString::number(tp));
    text.replace(QRegularExpression(QStringLiteral("(\\bdp: )\\d+")), QStringLiteral("\\1") + QString::number(dp));
    return text;
}

/// Applies @p text to the run document and waits (at most 10 s) until the panel shows an evaluation whose label
/// contains @p expectedLabel. Returns the milliseconds to evaluationShown, or -1 on timeout.
double editAndWait(widgets::MainWindow& window, const QString& text, const QString& expectedLabel, double* paintedMs)
{
    widgets::ResultsPanel* panel = window.resultsPanel();
    QEventLoop loop;
    QElapsedTimer timer;
    double shownMs = -1;
    const auto connection
        = QObject::connect(panel, &widgets::ResultsPanel::evaluationShown, &loop, [&](const widgets::Evaluation& e) {
              if (QString::fromStdString(e.label).contains(expectedLabel)) {
                  shownMs = static_cast<double>(timer.nsecsElapsed()) / 1e6;
                  loop.quit();
              }
          });
    QTimer::singleShot(10000, &loop, &QEventLoop::quit);
    timer.start();
    window.document()->setText(widgets::DocumentKind::Run, text);
    if (shownMs < 0) { // a synchronous evaluator would have shown it already
        loop.exec();
    }
    QObject::disconnect(connection);
    window.repaint(); // the paint the user waits for, done now rather than at the next event-loop turn
    if (paintedMs) {
        *paintedMs = static_cast<double>(timer.nsecsElapsed()) / 1e6;
    }
    return shownMs;
}

void printLatencies(const char* what, std::vector<double> ms)
{
    std::sort(ms.begin(), ms.end());
    const double median = ms.size() % 2 ? ms[ms.size() / 2] : (ms[ms.size() / 2 - 1] + ms[ms.size() / 2]) / 2;
    qInfo("%s over %d edits: min %.2f ms, median %.2f ms, max %.2f ms", what, static_cast<int>(ms.size()), ms.front(),
        median, ms.back());
}

} // namespace

class BenchWorkbench : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void tpChangeUpdatesDashboard();
};

void BenchWorkbench::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("RAPID-LLM-tests"));
    QCoreApplication::setApplicationName(QStringLiteral("bench_workbench"));
}

void BenchWorkbench::tpChangeUpdatesDashboard()
{
    auto window = test::openWindow();
    QVERIFY(window);
    widgets::ResultsPanel* panel = window->resultsPanel();
    QTRY_VERIFY_WITH_TIMEOUT(panel->evaluation().has_value(), 10000);
    QVERIFY2(panel->evaluation()->label.find("tp8 pp4 dp2") != std::string::npos, panel->evaluation()->label.c_str());
    QVERIFY(panel->evaluation()->training);
    const QString original = window->document()->text(widgets::DocumentKind::Run);
    const QString tp8 = withParallelism(original, 8, 2);
    // The preset maps dp to ib only; dp groups of stride 4 also span half of each NVLink domain, so the mapping must
    // let dp use nvlink as well, or the placement is rejected and the step model does not run at all.
    QString tp4 = withParallelism(original, 4, 4);
    tp4.replace(QStringLiteral("dp: ib"), QStringLiteral("dp: [nvlink, ib]"));
    QVERIFY2(tp4 != original && tp4.contains(QStringLiteral("[nvlink, ib]")), qPrintable(original));
    // The same edit without the mapping change: rejected placement, structure and memory only (the cheap path).
    const QString tp4Rejected = withParallelism(original, 4, 4);

    std::vector<double> shown;
    std::vector<double> painted;
    std::vector<double> rejected;
    for (int repetition = 0; repetition < 10; ++repetition) {
        double paintedMs = 0;
        const double ms = editAndWait(*window, tp4, QStringLiteral("tp4 pp4 dp4"), &paintedMs);
        QVERIFY2(ms >= 0, "no evaluation for tp4 dp4 within 10 s");
        QVERIFY2(panel->evaluation()->placementProblems.empty() && panel->evaluation()->training,
            "the step model did not run for tp4 dp4");
        shown.push_back(ms);
        painted.push_back(paintedMs);
        QVERIFY(editAndWait(*window, tp8, QStringLiteral("tp8 pp4 dp2"), nullptr) >= 0); // restore, not timed
        const double rejectedMs = editAndWait(*window, tp4Rejected, QStringLiteral("tp4 pp4 dp4"), nullptr);
        QVERIFY(rejectedMs >= 0);
        QVERIFY(!panel->evaluation()->placementProblems.empty());
        rejected.push_back(rejectedMs);
        QVERIFY(editAndWait(*window, tp8, QStringLiteral("tp8 pp4 dp2"), nullptr) >= 0);
    }
    printLatencies("TP 8 -> 4, DP 2 -> 4 (dp mapped to nvlink+ib), edit to evaluationShown", shown);
    printLatencies("TP 8 -> 4, DP 2 -> 4 (dp mapped to nvlink+ib), edit to repainted window", painted);
    printLatencies("TP 8 -> 4, DP 2 -> 4 (mapping unchanged: placement rejected), edit to evaluationShown", rejected);
}

QTEST_MAIN(BenchWorkbench)
#include "bench_workbench.moc"
