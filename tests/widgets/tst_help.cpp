// SPDX-License-Identifier: GPL-3.0-or-later
// The workbench speaks its own language (#18 defect 9): problems name a line of a YAML tab and say "set KEY to
// VALUE" instead of "run:12:5" and "--set KEY=VALUE"; field tooltips give unit, range, default and the YAML key;
// Help > First Steps opens a page of the main tasks.
#include "editors/diagnosticspanel.h"
#include "editors/diagnosticwording.h"
#include "mainwindow.h"
#include "widgettestutils.h"

#include <QAction>
#include <QApplication>
#include <QLabel>
#include <QListWidget>
#include <QMessageBox>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTest>
#include <QTimer>

using namespace rapid;
using widgets::DiagnosticWording;

namespace {

/// The tooltip of the form label whose buddy edits @p keyPath.
QString labelToolTip(widgets::MainWindow& window, const QString& keyPath)
{
    for (const QLabel* label : window.findChildren<QLabel*>()) {
        if (label->toolTip().contains(QStringLiteral("YAML key: ") + keyPath + QLatin1Char('\n'))
            || label->toolTip().endsWith(QStringLiteral("YAML key: ") + keyPath)) {
            return label->toolTip();
        }
    }
    return {};
}

} // namespace

class TstHelp : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void messagesSayWhereToSetAKey();
    void placesAreLinesOfTheYamlTabs();
    void windowShowsProblemsInItsOwnWords();
    void fieldToolTipsExplainTheField();
    void firstStepsOpensFromTheHelpMenu();
};

void TstHelp::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("RAPID-LLM-tests"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_help"));
}

void TstHelp::messagesSayWhereToSetAKey()
{
    const QString text = DiagnosticWording::message(
        "24 GPUs, but the hardware has 64; change the degrees or resize the network (e.g. --set "
        "hardware.cluster.network[ib].size=N)");
    QVERIFY2(text.contains(QStringLiteral("set hardware.cluster.network[ib].size to N (Forms or YAML tab))")),
        qPrintable(text));
    QVERIFY(!text.contains(QStringLiteral("--set")));
    QCOMPARE(DiagnosticWording::message("no hint here"), QStringLiteral("no hint here"));
}

void TstHelp::placesAreLinesOfTheYamlTabs()
{
    QCOMPARE(DiagnosticWording::line({ { "run", 12, 5 }, "run.parallelism", "tp*pp*dp*cp = 24" }),
        QStringLiteral("Run YAML, line 12: run.parallelism: tp*pp*dp*cp = 24"));
    QCOMPARE(DiagnosticWording::line({ { "configs/gpus/h100.yaml", 3, 1 }, "hardware.gpu.sm_count", "too many" }),
        QStringLiteral("configs/gpus/h100.yaml, line 3: hardware.gpu.sm_count: too many"));
    QCOMPARE(DiagnosticWording::line({ {}, {}, "plain" }), QStringLiteral("plain"));
}

void TstHelp::windowShowsProblemsInItsOwnWords()
{
    auto window = test::openWindow();
    QVERIFY(window);
    // dp 4 asks for 8*4*4 = 128 of the 64 GPUs, and core's message suggests a --set.
    test::typeIntoSpinBox(test::spinBox(*window, QStringLiteral("run.parallelism.dp")), QStringLiteral("4"));
    QListWidget* list = window->diagnosticsPanel()->list();
    QTRY_VERIFY2(list->count() > 0 && list->item(0)->text().contains(QStringLiteral("GPUs")),
        qPrintable(list->count() > 0 ? list->item(0)->text() : QStringLiteral("(empty)")));
    bool sawHint = false;
    for (int row = 0; row < list->count(); ++row) {
        const QString text = list->item(row)->text();
        QVERIFY2(!text.contains(QStringLiteral("--set")), qPrintable(text));
        QVERIFY2(!text.startsWith(QStringLiteral("run:")), qPrintable(text));
        sawHint = sawHint || text.contains(QStringLiteral("(Forms or YAML tab)"));
    }
    QVERIFY(sawHint);
    for (const QLabel* label : window->statusBar()->findChildren<QLabel*>()) {
        QVERIFY2(!label->text().contains(QStringLiteral("--set")), qPrintable(label->text()));
    }
}

void TstHelp::fieldToolTipsExplainTheField()
{
    auto window = test::openWindow();
    QVERIFY(window);
    const QString tp = labelToolTip(*window, QStringLiteral("run.parallelism.tp"));
    QVERIFY2(tp.contains(QStringLiteral("Range: 1 to")) && tp.contains(QStringLiteral("Default:")), qPrintable(tp));
    const QString hbm = labelToolTip(*window, QStringLiteral("hardware.gpu.hbm.bandwidth_GBps"));
    QVERIFY2(hbm.contains(QStringLiteral("Unit: GBps")), qPrintable(hbm));
    const QString kernel = labelToolTip(*window, QStringLiteral("run.attention_kernel"));
    QVERIFY2(kernel.contains(QStringLiteral("One of: auto, fa2, fa3, cudnn")), qPrintable(kernel));
}

void TstHelp::firstStepsOpensFromTheHelpMenu()
{
    auto window = test::openWindow();
    QVERIFY(window);
    auto* action = window->findChild<QAction*>(QStringLiteral("firstStepsAction"));
    QVERIFY(action);
    QString shown;
    QTimer::singleShot(100, window.get(), [&shown] {
        if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
            shown = box->text();
            box->close();
        }
    });
    action->trigger();
    QVERIFY(shown.contains(QStringLiteral("First steps")));
    QVERIFY(shown.contains(QStringLiteral("Export Figure")));
}

QTEST_MAIN(TstHelp)
#include "tst_help.moc"
