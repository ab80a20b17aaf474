// SPDX-License-Identifier: GPL-3.0-or-later
// The congestion backend from the Topology tab: "Simulate congestion" runs off the GUI thread with a progress bar,
// reports the step against the analytical one and colours the links by utilisation; Cancel keeps the window
// responsive and applies nothing; an edit forgets a result that no longer describes the workspace.
#include "widgettestutils.h"

#include "common/figureformat.h"
#include "editors/workspacedocument.h"
#include "mainwindow.h"
#include "results/resultspanel.h"
#include "results/summaryfigures.h"
#include "topology/congestionrunbox.h"
#include "topology/linkitem.h"
#include "topology/topologypanel.h"
#include "topology/topologyscene.h"

#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTest>

using namespace rapid;
using rapid::test::openWindow;

namespace {

constexpr int kRunTimeoutMs = 120000;

bool anyLinkColoured(widgets::TopologyScene& scene)
{
    for (QGraphicsItem* item : scene.items()) {
        if (auto* link = dynamic_cast<widgets::LinkItem*>(item); link && link->utilisation()) {
            return true;
        }
    }
    return false;
}

} // namespace

class TestCongestionRun : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void simulateColoursTheLinksAndReportsTheStep()
    {
        auto window = openWindow();
        QVERIFY(window);
        window->mainTabs()->setCurrentWidget(window->topologyPanel());
        widgets::CongestionRunBox* box = window->topologyPanel()->congestionRun();
        QSignalSpy finished(box->runner(), &widgets::CongestionRunner::finished);
        QVERIFY(!anyLinkColoured(*window->topologyPanel()->scene()));
        QTest::mouseClick(box->simulateButton(), Qt::LeftButton);
        QVERIFY(box->progressBar()->isVisible());
        QVERIFY(box->cancelButton()->isEnabled());
        QVERIFY(!box->simulateButton()->isEnabled());
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kRunTimeoutMs);
        QVERIFY(!box->progressBar()->isVisible());
        QVERIFY(box->simulateButton()->isEnabled());
        QVERIFY(box->lastOutcome().has_value());
        // The default workspace's groups share no link (rail-optimised, non-blocking): the step stays within 0.1%.
        const widgets::CongestionOutcome& outcome = *box->lastOutcome();
        QVERIFY(std::abs(outcome.congestion.stepTimeSeconds - outcome.analyticalStepSeconds)
            <= 1e-3 * outcome.analyticalStepSeconds);
        QVERIFY2(box->resultLabel()->text().contains(QStringLiteral("Congestion backend: step")),
            qPrintable(box->resultLabel()->text()));
        QVERIFY(anyLinkColoured(*window->topologyPanel()->scene()));
        rapid::test::saveScreenshot(window->grab(), QStringLiteral("topology-congestion.png"));

        // The dashboard shows the congestion step beside the analytical one (#18 defect 8), each card naming its
        // network model.
        widgets::ResultsPanel* results = window->resultsPanel();
        QVERIFY(results->congestionStep().has_value());
        QCOMPARE(results->congestionStep()->stepTimeSeconds, outcome.congestion.stepTimeSeconds);
        widgets::SummaryFigures* figures = results->summaryFigures();
        QVERIFY(figures->captionLabel(0)->text().contains(QStringLiteral("analytical")));
        QVERIFY2(figures->deltaLabel(0)->text().contains(QStringLiteral("congestion backend: ")
                     + widgets::formatSeconds(outcome.congestion.stepTimeSeconds)),
            qPrintable(figures->deltaLabel(0)->text()));

        // An edit makes the result stale: it is forgotten and the colours go.
        QSignalSpy cleared(box, &widgets::CongestionRunBox::utilisationCleared);
        const QString hardware = window->document()->text(widgets::DocumentKind::Hardware);
        QVERIFY(hardware.contains(QStringLiteral("latency_ns: 675")));
        window->document()->setText(widgets::DocumentKind::Hardware,
            QString(hardware).replace(QStringLiteral("latency_ns: 675"), QStringLiteral("latency_ns: 700")));
        QTRY_VERIFY(cleared.count() > 0);
        QVERIFY(!box->lastOutcome().has_value());
        QVERIFY(!anyLinkColoured(*window->topologyPanel()->scene()));
        QVERIFY(!results->congestionStep().has_value());
        QTRY_VERIFY(!figures->deltaLabel(0)->text().contains(QStringLiteral("congestion backend")));
    }

    void cancelAppliesNothingAndKeepsTheWindowResponsive()
    {
        auto window = openWindow();
        QVERIFY(window);
        window->mainTabs()->setCurrentWidget(window->topologyPanel());
        widgets::CongestionRunBox* box = window->topologyPanel()->congestionRun();
        QSignalSpy finished(box->runner(), &widgets::CongestionRunner::finished);
        QSignalSpy cancelled(box->runner(), &widgets::CongestionRunner::cancelled);
        QTest::mouseClick(box->simulateButton(), Qt::LeftButton);
        QTest::mouseClick(box->cancelButton(), Qt::LeftButton);
        QCOMPARE(cancelled.count(), 1);
        QVERIFY(box->simulateButton()->isEnabled());
        QVERIFY(!box->progressBar()->isVisible());
        QVERIFY2(
            box->resultLabel()->text().contains(QStringLiteral("cancelled")), qPrintable(box->resultLabel()->text()));
        // The event loop keeps running (the window repaints and answers) while the worker winds down, and whatever
        // the worker still returns is dropped.
        for (int i = 0; i < 20; ++i) {
            QTest::qWait(50);
            window->repaint();
        }
        QCOMPARE(finished.count(), 0);
        QVERIFY(!box->lastOutcome().has_value());
        QVERIFY(!anyLinkColoured(*window->topologyPanel()->scene()));
    }
};

QTEST_MAIN(TestCongestionRun)
#include "tst_congestionrun.moc"
