// SPDX-License-Identifier: GPL-3.0-or-later
// The Serving tab driven like a user would: typed loads are checked as typed (inline message, Serve disabled); one
// client alone sees the step model's prefill as its time to first token and its mean decode step as its ITL (the
// serving engine and StepModel::inference are separate paths); the curve has a point per load, and crowded loads'
// labels neither overlap nor leave the plot at any size; hovering a marker names its load and clicking it selects it;
// a saturated closed loop obeys Little's law; picking a load redraws its request timeline; Cancel stops a long sweep
// and shows nothing; a training workspace says why it cannot be served; an edit marks the result stale; every chart
// exports; the Engine field picked from the keyboard serves with SGLang's defaults; typed scheduler knobs are what the
// engine runs with; the inputs are kept with the workspace (undo, save, reopen).
#include "widgettestutils.h"

#include "common/chartexporter.h"
#include "common/pointlabels.h"
#include "editors/workspacedocument.h"
#include "mainwindow.h"
#include "resilience/jobcontrols.h"
#include "serving/servingcharts.h"
#include "serving/servingpanel.h"
#include "serving/servingrunner.h"
#include "serving/servingsimulator.h"

#include "sim/stepmodel.h"

#include <qcustomplot.h>

#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QFileInfo>
#include <QFontMetrics>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStyle>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <set>

using namespace rapid;
using namespace rapid::widgets;

namespace {

constexpr int kTimeoutMs = 120000;

/// Llama-3.1-8B on one H100, 1,500-token prompts (the decode preset's run).
const char* const kServeWorkspace = "name: Serve 8B\n"
                                    "model: llama-3.1-8b\n"
                                    "hardware: h100-sxm5-80gb\n"
                                    "run: llama-3.1-8b-decode-1gpu\n";

} // namespace

class TstServingView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void pointLabelsTakeTheFirstFreeCorner()
    {
        // By hand: 30 x 12 labels, 4 px off their point, markers of radius 5, in a 400 x 300 plot. A's corners on the
        // right reach B's marker 4 px away (distance 4 < 5), so A goes above left; B's above right is 8 px clear of
        // A; D, between A and B, has no corner clear of both markers and is not shown; E at the right edge goes
        // left; C has room everywhere.
        const std::vector<QPointF> points = { { 100, 100 }, { 104, 100 }, { 300, 200 }, { 102, 100 }, { 390, 150 } };
        const std::vector<QSizeF> sizes(points.size(), QSizeF(30, 12));
        const std::vector<LabelPlacement> placed = placePointLabels(points, sizes, QRectF(0, 0, 400, 300), 5, 4);
        QCOMPARE(placed[0].corner, LabelCorner::AboveLeft);
        QCOMPARE(placed[0].rect, QRectF(66, 84, 30, 12));
        QCOMPARE(placed[1].corner, LabelCorner::AboveRight);
        QCOMPARE(placed[1].rect, QRectF(108, 84, 30, 12));
        QCOMPARE(placed[2].corner, LabelCorner::AboveRight);
        QVERIFY(!placed[3].shown);
        QCOMPARE(placed[4].corner, LabelCorner::AboveLeft);
        QCOMPARE(placed[4].rect, QRectF(356, 134, 30, 12));
        for (size_t i : { 0, 1, 2, 4 }) {
            QVERIFY(placed[i].shown);
        }
    }

    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QFile file(m_dir.filePath(QStringLiteral("serve.rapid.yaml")));
        QVERIFY(file.open(QIODevice::WriteOnly) && file.write(kServeWorkspace) > 0);
    }

    void loadsAreCheckedAsTyped()
    {
        auto window = open();
        QVERIFY(window);
        ServingPanel* panel = window->servingPanel();
        QPushButton* serve = panel->controls()->runButton();
        QVERIFY(serve->isEnabled());
        test::typeLine(panel->loadsEdit(), QStringLiteral("1, 2.5"));
        QVERIFY(panel->findChild<QLabel*>(QStringLiteral("servingLoadsProblem"))->isVisible());
        QVERIFY(!serve->isEnabled());
        test::typeLine(panel->loadsEdit(), QStringLiteral("0"));
        QVERIFY(!serve->isEnabled());
        test::typeLine(panel->loadsEdit(), QStringLiteral("1, 4"));
        QVERIFY(!panel->findChild<QLabel*>(QStringLiteral("servingLoadsProblem"))->isVisible());
        QVERIFY(serve->isEnabled());
        // As rates, 2.5 requests/s is a load.
        panel->loadKindCombo()->setCurrentIndex(1);
        test::typeLine(panel->loadsEdit(), QStringLiteral("2.5"));
        QVERIFY(serve->isEnabled());
    }

    void oneClientSeesThePrefillThenTheDecodeSteps()
    {
        auto window = open();
        QVERIFY(window);
        ServingPanel* panel = window->servingPanel();
        QVERIFY(serve(panel, QStringLiteral("1, 8"), QStringLiteral("64"), QStringLiteral("16")));
        QCOMPARE(panel->table()->rowCount(), 2);
        // The step model's own prediction of one request of 1,500 + 64 tokens.
        const report::InferenceResult expected = predictedAlone(*window, 64, panel->curve()->results[0].options);
        const serving::ServingSummary& one = panel->curve()->results[0].summary;
        QVERIFY2(std::abs(one.ttft.mean - expected.ttftSeconds) <= 1e-9 * expected.ttftSeconds,
            qPrintable(QStringLiteral("%1 vs %2").arg(one.ttft.mean).arg(expected.ttftSeconds)));
        QVERIFY(std::abs(one.itl.mean - expected.itlSeconds) <= 1e-3 * expected.itlSeconds);
        // The table shows it in milliseconds (the column says so), to 3 significant digits.
        QCOMPARE(panel->table()->item(0, 3)->text(), QString::number(expected.ttftSeconds * 1e3, 'g', 3));
        // From 1,000 on, whole numbers: "1.91e+03" did not fit its column (seen under Xvfb).
        for (int row = 0; row < panel->table()->rowCount(); ++row) {
            for (int column = 1; column < panel->table()->columnCount(); ++column) {
                const QString cell = panel->table()->item(row, column)->text();
                QVERIFY2(!cell.contains(QLatin1Char('e')), qPrintable(cell));
            }
        }
        const double perGpu = panel->curve()->results[1].summary.outputTokensPerSecondPerGpu;
        if (perGpu >= 1e4) { // 4 significant digits in that column
            QCOMPARE(panel->table()->item(1, 1)->text(), QString::number(perGpu, 'f', 0));
        }
        // Little's law over the 8 clients' closed loop: requests/s x mean E2E = 8 (16 requests: the first and last
        // wave make it approximate; within 15%).
        const serving::ServingSummary& eight = panel->curve()->results[1].summary;
        QVERIFY(std::abs(eight.requestsPerSecond * eight.e2e.mean / 8 - 1) < 0.15);
        // The curve has a marker per load; the percentile chart a median per load.
        QCOMPARE(panel->curveChart()->plot()->graph(0)->dataCount(), 2);
        QVERIFY(panel->ttftChart()->plot()->graphCount() >= 3);
        // Picking the second load redraws its 16 requests as two bars each.
        panel->chartTabs()->setCurrentWidget(panel->timelineChart());
        panel->table()->setCurrentCell(1, 0);
        QCOMPARE(panel->timelineChart()->point(), 1);
        QCOMPARE(panel->timelineChart()->plot()->itemCount(), 2 * 16);
        // The status line counts the loads; an edit makes the result stale.
        QVERIFY(panel->controls()->statusLabel()->text().contains(QStringLiteral("2 loads served")));
        QVERIFY(window->document()->setValue(QStringLiteral("run.inference.prompt_length"), QStringLiteral("1000")));
        QTRY_VERIFY(panel->controls()->statusLabel()->text().contains(QStringLiteral("Serve again")));
        QVERIFY(panel->isStale());
    }

    void theEnginesHostTimeIsCharged()
    {
        // One client, 2 ms of host time per iteration and 0.5 ms per sequence, in step with the GPU: every iteration
        // of the lone request takes 2.5 ms more than the step model's prediction (its prefill and each decode).
        auto window = open();
        QVERIFY(window);
        ServingPanel* panel = window->servingPanel();
        test::typeSpin(panel->hostTimeSpin(), QStringLiteral("2"));
        test::typeSpin(panel->hostPerRequestSpin(), QStringLiteral("0.5"));
        QVERIFY(serve(panel, QStringLiteral("1"), QStringLiteral("64"), QStringLiteral("1")));
        const report::InferenceResult expected = predictedAlone(*window, 64, panel->curve()->results[0].options);
        const serving::ServingSummary& one = panel->curve()->results[0].summary;
        QVERIFY2(std::abs(one.ttft.mean - (expected.ttftSeconds + 2.5e-3)) <= 1e-9 * expected.ttftSeconds,
            qPrintable(QStringLiteral("%1 vs %2").arg(one.ttft.mean).arg(expected.ttftSeconds + 2.5e-3)));
        QVERIFY(std::abs(one.itl.mean - (expected.itlSeconds + 2.5e-3)) <= 1e-3 * expected.itlSeconds);
    }

    void draftsNeedTheirAcceptanceAndShortenTheSteps()
    {
        // Draft tokens without an acceptance cannot be served (it has no default): an inline message, Serve disabled.
        // Three prompt-lookup drafts (free on the GPU) kept every time: a lone request's 64 tokens after the first take
        // 16 verifications of 4 tokens, each reading the 16 GB of weights once as a one-token step does (the 4 rows
        // add under a fifth on an H100), so its ITL is 1/4 to 1.2/4 of the step model's decode step.
        auto window = open();
        QVERIFY(window);
        ServingPanel* panel = window->servingPanel();
        QPushButton* serveButton = panel->controls()->runButton();
        QVERIFY(!panel->acceptanceSpin()->isEnabled());
        QVERIFY(!panel->draftCombo()->isEnabled());
        test::typeSpin(panel->draftTokensSpin(), QStringLiteral("3"));
        QVERIFY(panel->acceptanceSpin()->isEnabled());
        QVERIFY(panel->speculationProblemLabel()->isVisible());
        QVERIFY(!serveButton->isEnabled());
        test::typeSpin(panel->acceptanceSpin(), QStringLiteral("1"));
        QVERIFY(!panel->speculationProblemLabel()->isVisible());
        QVERIFY(serveButton->isEnabled());
        QVERIFY(panel->draftLayersSpin()->isEnabled());
        panel->draftCombo()->setFocus();
        QTest::keyClick(panel->draftCombo(), Qt::Key_Down);
        QCOMPARE(panel->draftCombo()->currentText(), QStringLiteral("Prompt lookup (n-gram)"));
        QVERIFY(!panel->draftLayersSpin()->isEnabled());
        QVERIFY(serve(panel, QStringLiteral("1"), QStringLiteral("65"), QStringLiteral("1")));
        const serving::ServingResult& served = panel->curve()->results[0];
        QCOMPARE(served.options.speculative.draftTokens, 3);
        QCOMPARE(served.options.speculative.method, serving::DraftMethod::Ngram);
        QCOMPARE(served.trace.iterations.size(), size_t(17));
        const double step = predictedAlone(*window, 65, served.options).itlSeconds;
        const double itl = served.summary.itl.mean;
        QVERIFY2(itl >= step / 4 && itl <= 1.2 * step / 4, qPrintable(QStringLiteral("%1 vs %2").arg(itl).arg(step)));
        QVERIFY2(panel->controls()->statusLabel()->text().contains(QStringLiteral("3 drafts, 4 tokens on average")),
            qPrintable(panel->controls()->statusLabel()->text()));

        // Kept with the workspace, the acceptance too; set back to off, the draft's fields are kept but greyed out.
        const QString saved = m_dir.filePath(QStringLiteral("drafts.rapid.yaml"));
        QVERIFY(window->saveWorkspace(saved));
        auto reopened = test::openWindow(saved);
        QVERIFY(reopened);
        ServingPanel* shown = reopened->servingPanel();
        QCOMPARE(shown->draftTokensSpin()->value(), 3);
        QCOMPARE(shown->acceptanceSpin()->value(), 1.0);
        QCOMPARE(shown->draftCombo()->currentText(), QStringLiteral("Prompt lookup (n-gram)"));
        test::typeSpin(shown->draftTokensSpin(), QStringLiteral("0"));
        QVERIFY(!shown->acceptanceSpin()->isEnabled());
        QCOMPARE(shown->settings().acceptance, 1.0);
    }

    void acceptanceGivenAsItsMeanLength()
    {
        // Three drafts yield 1 to 4 tokens per verification: a length of 4.5 is shown as a problem (the spin keeps
        // what was typed), 4 is every draft kept (P = 1). Switching the kind shows the same drafts' other figure:
        // P = 0.6 is 1 + 0.6 + 0.36 + 0.216 = 2.176 tokens, shown as 2.18 at two decimals.
        auto window = open();
        QVERIFY(window);
        ServingPanel* panel = window->servingPanel();
        QPushButton* serveButton = panel->controls()->runButton();
        QVERIFY(!panel->acceptanceKindCombo()->isEnabled());
        test::typeSpin(panel->draftTokensSpin(), QStringLiteral("3"));
        QVERIFY(panel->acceptanceKindCombo()->isEnabled());
        panel->acceptanceKindCombo()->setFocus();
        QTest::keyClick(panel->acceptanceKindCombo(), Qt::Key_Down);
        QCOMPARE(panel->acceptanceKindCombo()->currentText(), QStringLiteral("Mean acceptance length"));
        QCOMPARE(panel->acceptanceSpin()->text(), QStringLiteral("not set"));
        QVERIFY(panel->speculationProblemLabel()->text().contains(QStringLiteral("mean acceptance length")));
        test::typeSpin(panel->acceptanceSpin(), QStringLiteral("4.5"));
        QCOMPARE(panel->acceptanceSpin()->value(), 4.5);
        QVERIFY(panel->speculationProblemLabel()->isVisible());
        QCOMPARE(panel->speculationProblemLabel()->text(),
            QStringLiteral("A mean length of 4.5 needs at least 4 draft tokens"));
        QVERIFY(!serveButton->isEnabled());
        test::typeSpin(panel->acceptanceSpin(), QStringLiteral("4"));
        QVERIFY(!panel->speculationProblemLabel()->isVisible());
        QVERIFY(serveButton->isEnabled());
        QCOMPARE(panel->settings().acceptanceLength, 4.0);
        QCOMPARE(panel->settings().acceptance, -1.0);

        // Served as P = 1: a lone request's 64 tokens after the first in 16 verifications of 4 tokens.
        panel->draftCombo()->setFocus();
        QTest::keyClick(panel->draftCombo(), Qt::Key_Down);
        QVERIFY(serve(panel, QStringLiteral("1"), QStringLiteral("65"), QStringLiteral("1")));
        const serving::ServingResult& served = panel->curve()->results[0];
        QCOMPARE(served.options.speculative.acceptance, 1.0);
        QCOMPARE(served.trace.iterations.size(), size_t(17));

        // Kept with the workspace as the length; the kind switched converts what is shown.
        const QString saved = m_dir.filePath(QStringLiteral("length.rapid.yaml"));
        QVERIFY(window->saveWorkspace(saved));
        auto reopened = test::openWindow(saved);
        QVERIFY(reopened);
        ServingPanel* shown = reopened->servingPanel();
        QCOMPARE(shown->acceptanceKindCombo()->currentIndex(), 1);
        QCOMPARE(shown->acceptanceSpin()->value(), 4.0);
        shown->acceptanceKindCombo()->setFocus();
        QTest::keyClick(shown->acceptanceKindCombo(), Qt::Key_Up);
        QCOMPARE(shown->acceptanceSpin()->value(), 1.0);
        test::typeSpin(shown->acceptanceSpin(), QStringLiteral("0.6"));
        QTest::keyClick(shown->acceptanceKindCombo(), Qt::Key_Down);
        QCOMPARE(shown->acceptanceSpin()->value(), 2.18);
        QCOMPARE(shown->settings().acceptanceLength, 2.18);
    }

    void burstyArrivalsAndSpreadLengths()
    {
        // Burstiness belongs to a rate: greyed out for clients, and kept unapplied when the load goes back to them.
        // At a rate, the typed burstiness and spreads are the workload served: the same arrivals and lengths as
        // rapid serve's core given them directly, the prompts spread around the run's 1,500 tokens (40 draws of
        // deviation 100: the mean within 5 standard errors, 5 x 100 / sqrt(40) = 79 tokens) and kept with the
        // workspace.
        auto window = open();
        QVERIFY(window);
        ServingPanel* panel = window->servingPanel();
        QVERIFY(!panel->burstinessSpin()->isEnabled());
        panel->loadKindCombo()->setFocus();
        QTest::keyClick(panel->loadKindCombo(), Qt::Key_Down);
        QCOMPARE(panel->loadKindCombo()->currentIndex(), 1);
        QVERIFY(panel->burstinessSpin()->isEnabled());
        test::typeSpin(panel->burstinessSpin(), QStringLiteral("0.25"));
        test::typeSpin(panel->promptSpreadSpin(), QStringLiteral("100"));
        test::typeSpin(panel->outputSpreadSpin(), QStringLiteral("4"));
        QCOMPARE(panel->promptSpreadSpin()->text(), QStringLiteral("± 100"));
        QVERIFY(serve(panel, QStringLiteral("4"), QStringLiteral("16"), QStringLiteral("40")));
        const std::vector<serving::RequestRecord>& served = panel->curve()->results[0].trace.requests;
        QCOMPARE(served.size(), size_t(40));

        serving::WorkloadSpec workload;
        workload.arrival = serving::ArrivalKind::Poisson;
        workload.ratePerSecond = 4;
        workload.requests = 40;
        workload.burstiness = 0.25;
        workload.promptTokens = 1500;
        workload.outputTokens = 16;
        workload.promptTokensStddev = 100;
        workload.outputTokensStddev = 4;
        const serving::ServingResult direct
            = serving::simulateServing(*window->document()->scenario(), workload, serving::EngineOptions {});
        double promptSum = 0;
        std::set<std::int64_t> prompts;
        for (size_t i = 0; i < served.size(); ++i) {
            QCOMPARE(served[i].arrivalSeconds, direct.trace.requests[i].arrivalSeconds);
            QCOMPARE(served[i].promptTokens, direct.trace.requests[i].promptTokens);
            QCOMPARE(served[i].outputTokens, direct.trace.requests[i].outputTokens);
            promptSum += static_cast<double>(served[i].promptTokens);
            prompts.insert(served[i].promptTokens);
        }
        QVERIFY2(std::abs(promptSum / 40 - 1500) < 79, qPrintable(QString::number(promptSum / 40)));
        QVERIFY(prompts.size() > 10);
        // The status line says how they were drawn: a coefficient of variation of 1 / sqrt(0.25) = 2.
        const QString status = panel->controls()->statusLabel()->text();
        QVERIFY2(status.contains(QStringLiteral("Arrival gaps gamma-distributed, shape 0.25 (coefficient of variation "
                                                "2). Lengths drawn: prompts 1500 ± 100, outputs 16 ± 4 tokens.")),
            qPrintable(status));

        QVERIFY(window->document()->servingSettings());
        QCOMPARE(window->document()->servingSettings()->burstiness, 0.25);
        QCOMPARE(window->document()->servingSettings()->inputTokensStddev, 100.0);
        QCOMPARE(window->document()->servingSettings()->outputTokensStddev, 4.0);
        // Back to clients: the burstiness is greyed out and kept, and not served (no usage error, Poisson-free loop).
        QTest::keyClick(panel->loadKindCombo(), Qt::Key_Up);
        QVERIFY(!panel->burstinessSpin()->isEnabled());
        QCOMPARE(panel->settings().burstiness, 0.25);
        QVERIFY(serve(panel, QStringLiteral("2"), QStringLiteral("16"), QStringLiteral("4")));
        QCOMPARE(panel->curve()->results[0].trace.requests.size(), size_t(4));
        QVERIFY(!panel->controls()->statusLabel()->text().contains(QStringLiteral("gamma")));
    }

    void aPromptPoolIsServedFromTheCacheAndKept()
    {
        // Typed from the keyboard, a pool of 3 prompts is the workload served: the same draws, and so the same share
        // of prompt tokens from the prefix cache, as the core given promptPool 3 (every prompt's first request
        // computes it, the others find all but its last block cached). The field reads "all distinct" at 0, the
        // status says how the prompts were drawn, and the pool is kept with the workspace.
        auto window = open();
        QVERIFY(window);
        ServingPanel* panel = window->servingPanel();
        QCOMPARE(panel->promptPoolSpin()->text(), QStringLiteral("all distinct"));
        test::typeSpin(panel->promptPoolSpin(), QStringLiteral("3"));
        QCOMPARE(panel->promptPoolSpin()->value(), 3);
        QVERIFY(serve(panel, QStringLiteral("2"), QStringLiteral("8"), QStringLiteral("12")));
        const serving::ServingResult& served = panel->curve()->results[0];
        serving::WorkloadSpec workload;
        workload.concurrency = 2;
        workload.requests = 12;
        workload.promptTokens = window->document()->scenario()->run.promptLength;
        workload.outputTokens = 8;
        workload.promptPool = 3;
        const serving::ServingResult direct
            = serving::simulateServing(*window->document()->scenario(), workload, serving::EngineOptions {});
        QVERIFY(served.summary.prefixCacheHitRate > 0);
        QCOMPARE(served.summary.prefixCacheHitRate, direct.summary.prefixCacheHitRate);
        QCOMPARE(served.trace.cachedPromptTokens, direct.trace.cachedPromptTokens);
        const QString status = panel->controls()->statusLabel()->text();
        QVERIFY2(status.contains(QStringLiteral("Prompts drawn from a pool of 3, served from the prefix cache")),
            qPrintable(status));
        QVERIFY(window->document()->servingSettings());
        QCOMPARE(window->document()->servingSettings()->promptPool, 3);
    }

    void preemptionBySwapIsVllmsAndServed()
    {
        // Swapping is vLLM's: chosen from the keyboard it is served with the typed swap space and the H100 preset's
        // host link (51 GB/s to the GPU, 52 from it). Llama-3.1-8B's bf16 KV cache on one GPU is 131,072 B per token,
        // 2 MiB per block of 16: 8 GiB hold 4,096 blocks. For SGLang the choice is greyed out, kept and not applied.
        auto window = open();
        QVERIFY(window);
        ServingPanel* panel = window->servingPanel();
        QVERIFY(panel->preemptionCombo()->isEnabled());
        QVERIFY(!panel->swapSpaceSpin()->isEnabled());
        panel->preemptionCombo()->setFocus();
        QTest::keyClick(panel->preemptionCombo(), Qt::Key_Down);
        QCOMPARE(panel->preemptionCombo()->currentText(), QStringLiteral("Swap to host"));
        QVERIFY(panel->swapSpaceSpin()->isEnabled());
        test::typeSpin(panel->swapSpaceSpin(), QStringLiteral("8"));
        QVERIFY(serve(panel, QStringLiteral("2"), QStringLiteral("16"), QStringLiteral("4")));
        const serving::EngineOptions& used = panel->curve()->results[0].options;
        QCOMPARE(used.preemption, serving::Preemption::Swap);
        QCOMPARE(used.swapSpaceBytes, 8.0 * 1024 * 1024 * 1024);
        QCOMPARE(used.swap.hostBlocks, std::int64_t { 4096 });
        const QString status = panel->controls()->statusLabel()->text();
        QVERIFY2(status.contains(QStringLiteral("Preempted requests swapped to 8 GiB of host memory per GPU (")),
            qPrintable(status));
        QVERIFY2(status.contains(QStringLiteral("blocks) over 51 / 52 GB/s to / from the GPU.")), qPrintable(status));
        QVERIFY(window->document()->servingSettings());
        QCOMPARE(window->document()->servingSettings()->preemption, std::string("swap"));
        QCOMPARE(window->document()->servingSettings()->swapSpaceGiB, 8.0);
        // Under KV pressure (a quarter of the HBM: 1,525 blocks of 16 tokens beside the 16 GB of weights, where 32
        // clients of 1,500 + 400 tokens need 3,808) requests are swapped out: the KV chart draws them and the
        // preemptions so far, ending at the run's count.
        test::typeSpin(panel->memoryShareSpin(), QStringLiteral("0.25"));
        QVERIFY(serve(panel, QStringLiteral("32"), QStringLiteral("400"), QStringLiteral("64")));
        const serving::ServingTrace& pressed = panel->curve()->results[0].trace;
        QVERIFY(pressed.swapOuts > 0);
        QCOMPARE(pressed.swapOuts, pressed.preemptions);
        QCPGraph* preempted = nullptr;
        QCPGraph* swapped = nullptr;
        QCustomPlot* kv = panel->kvChart()->plot();
        for (int i = 0; i < kv->graphCount(); ++i) {
            preempted = kv->graph(i)->name() == QStringLiteral("preempted (total)") ? kv->graph(i) : preempted;
            swapped = kv->graph(i)->name() == QStringLiteral("swapped out") ? kv->graph(i) : swapped;
        }
        QVERIFY(preempted && swapped);
        QCOMPARE(preempted->data()->at(preempted->data()->size() - 1)->value, double(pressed.preemptions));
        double mostSwapped = 0;
        for (auto point = swapped->data()->constBegin(); point != swapped->data()->constEnd(); ++point) {
            mostSwapped = std::max(mostSwapped, point->value);
        }
        QVERIFY(mostSwapped > 0);

        panel->engineCombo()->setFocus();
        QTest::keyClick(panel->engineCombo(), Qt::Key_Down);
        QTest::keyClick(panel->engineCombo(), Qt::Key_Down);
        QCOMPARE(panel->engineCombo()->currentText(), QStringLiteral("SGLang"));
        QVERIFY(!panel->preemptionCombo()->isEnabled());
        QVERIFY(!panel->swapSpaceSpin()->isEnabled());
        QCOMPARE(panel->preemptionCombo()->currentText(), QStringLiteral("Swap to host"));
        QVERIFY(serve(panel, QStringLiteral("2"), QStringLiteral("16"), QStringLiteral("4")));
        QCOMPARE(panel->curve()->results[0].options.preemption, serving::Preemption::Recompute);
        QVERIFY(!panel->controls()->statusLabel()->text().contains(QStringLiteral("swapped")));
    }

    void crowdedLoadsKeepTheirLabelsApart()
    {
        auto window = open();
        QVERIFY(window);
        ServingPanel* panel = window->servingPanel();
        // Light loads of short requests land close together where the curve starts.
        QVERIFY(
            serve(panel, QStringLiteral("1, 2, 3, 4, 5, 6, 7, 8, 9, 10"), QStringLiteral("16"), QStringLiteral("20")));
        LatencyThroughputChart* chart = panel->curveChart();
        for (const QSize size : { QSize(700, 450), QSize(300, 200) }) {
            chart->resize(size);
            chart->plot()->replot();
            const QRectF inside = chart->plot()->axisRect()->rect();
            std::vector<QRectF> shown;
            for (const QPointer<QCPItemText>& label : chart->loadLabels()) {
                QVERIFY(label);
                if (label->visible()) {
                    const QMargins pad = label->padding(); // the anchors' box includes it; the text is inside
                    shown.push_back(QRectF(label->topLeft->pixelPosition(), label->bottomRight->pixelPosition())
                                        .adjusted(pad.left(), pad.top(), -pad.right(), -pad.bottom()));
                }
            }
            QCOMPARE(chart->loadLabels().size(), size_t(10));
            // At the small size the light loads crowd: some labels move to another corner or give way.
            const auto moved = std::count_if(
                chart->loadLabels().begin(), chart->loadLabels().end(), [](const QPointer<QCPItemText>& label) {
                    return !label->visible() || label->positionAlignment() != (Qt::AlignLeft | Qt::AlignBottom);
                });
            QVERIFY(size.width() > 300 || moved > 0);
            QVERIFY(!shown.empty());
            for (size_t i = 0; i < shown.size(); ++i) {
                QVERIFY(inside.contains(shown[i]));
                for (size_t j = i + 1; j < shown.size(); ++j) {
                    QVERIFY2(!shown[i].intersects(shown[j]),
                        qPrintable(QStringLiteral("labels %1 and %2 at %3").arg(i).arg(j).arg(size.width())));
                }
            }
        }
    }

    void hoveringAndClickingAPointPicksItsLoad()
    {
        auto window = open();
        QVERIFY(window);
        ServingPanel* panel = window->servingPanel();
        QVERIFY(serve(panel, QStringLiteral("1, 4, 16"), QStringLiteral("16"), QStringLiteral("16")));
        LatencyThroughputChart* chart = panel->curveChart();
        chart->resize(700, 450);
        chart->plot()->replot();
        const serving::ServingSummary& four = panel->curve()->results[1].summary;
        const QPoint marker(qRound(chart->plot()->xAxis->coordToPixel(four.outputTokensPerSecondPerUser)),
            qRound(chart->plot()->yAxis->coordToPixel(four.outputTokensPerSecondPerGpu)));
        QCOMPARE(chart->pointAt(marker + QPointF(3, -2)), 1);
        QCOMPARE(chart->pointAt(marker + QPointF(40, 40)), -1);
        QVERIFY2(chart->pointText(1).startsWith(QStringLiteral("c4")), qPrintable(chart->pointText(1)));
        QVERIFY(chart->pointText(1).contains(QString::number(four.outputTokensPerSecondPerGpu, 'f', 0)));
        // A click on the marker selects the load: its row, its request timeline, the ring on the curve.
        QCOMPARE(panel->table()->currentRow(), 0);
        QTest::mouseClick(chart->plot(), Qt::LeftButton, Qt::NoModifier, marker);
        QCOMPARE(panel->table()->currentRow(), 1);
        QCOMPARE(panel->timelineChart()->point(), 1);
        QCOMPARE(panel->timelineChart()->title(), QStringLiteral("Request timeline at c4"));
        QCOMPARE(panel->kvChart()->title(), QStringLiteral("KV-cache occupancy at c4"));
        QCOMPARE(chart->point(), 1);
        QCPGraph* ring = nullptr;
        for (int i = 0; i < chart->plot()->graphCount(); ++i) {
            ring = chart->plot()->graph(i)->name() == QStringLiteral("selected load") ? chart->plot()->graph(i) : ring;
        }
        QVERIFY(ring);
        QCOMPARE(ring->data()->at(0)->value, four.outputTokensPerSecondPerGpu);
        // A click away from every marker changes nothing.
        QTest::mouseClick(chart->plot(), Qt::LeftButton, Qt::NoModifier, marker + QPoint(60, 60));
        QCOMPARE(panel->table()->currentRow(), 1);
    }

    void theEngineComboPicksSglangsDefaults()
    {
        // Two presses of the down arrow on the Engine field pick SGLang (vLLM V1, TensorRT-LLM, SGLang): its defaults
        // for one H100 (80 GiB = 81,920 MiB, tp 1): 8,192-token prefill batches and mem_fraction_static
        // (81,920 - 13,440) / 81,920 = 0.836 (to 0.001), the reserve 512 + 8,192 x 1.5 + 256 CUDA-graph sizes x 2
        // + 1/8 x 1,024 MiB (server_args.py since v0.5.3).
        auto window = open();
        QVERIFY(window);
        ServingPanel* panel = window->servingPanel();
        auto* engine = panel->findChild<QComboBox*>(QStringLiteral("servingEngine"));
        QVERIFY(engine);
        engine->setFocus();
        QTest::keyClick(engine, Qt::Key_Down);
        QTest::keyClick(engine, Qt::Key_Down);
        QCOMPARE(engine->currentText(), QStringLiteral("SGLang"));
        test::typeLine(panel->loadsEdit(), QStringLiteral("2"));
        test::typeSpin(panel->outputSpin(), QStringLiteral("8"));
        test::typeSpin(panel->requestsSpin(), QStringLiteral("4"));
        QSignalSpy finished(panel->runner(), &ServingRunner::finished);
        QTest::mouseClick(panel->controls()->runButton(), Qt::LeftButton);
        QVERIFY(finished.wait(kTimeoutMs));
        QCOMPARE(panel->table()->rowCount(), 1);
        const serving::EngineOptions& used = panel->curve()->results[0].options;
        QCOMPARE(used.profile, serving::EngineProfile::Sglang);
        QCOMPARE(used.maxNumBatchedTokens, 8192);
        QVERIFY(std::abs(used.gpuMemoryUtilization - 0.836) < 1e-12);
        // "The engine's" admission is SGLang's: its new_token_ratio share of the running outputs.
        QCOMPARE(used.capacityPolicy, serving::CapacityPolicy::NewTokenRatio);
        // The status line says what "the engine's" knobs came to: SGLang's defaults for the H100 (8,192-token chunks,
        // 16,384 prompt tokens per pass, token-sized pages) and the cache they left.
        const QString status = panel->controls()->statusLabel()->text();
        const QLocale locale;
        QVERIFY2(
            status.contains(
                QStringLiteral("8,192 tokens per iteration").replace(QStringLiteral(","), locale.groupSeparator())),
            qPrintable(status));
        QVERIFY2(
            status.contains(
                QStringLiteral("16,384 prompt tokens per pass").replace(QStringLiteral(","), locale.groupSeparator())),
            qPrintable(status));
        QVERIFY2(status.contains(QStringLiteral("a KV cache of %1 tokens per replica in blocks of 1.")
                                     .arg(locale.toString(static_cast<qlonglong>(used.kvBlocks)))),
            qPrintable(status));
    }

    void theSchedulerKnobsReachTheEngine()
    {
        // Typed scheduler knobs are what the engine runs with: one sequence per iteration (two clients then never run
        // together), 600 tokens per iteration (the 1,500-token prompts go in chunks of at most 600), 8-token KV
        // blocks, half the HBM, prompt batches alone, the overlap scheduler on (vLLM's own is off). SGLang's prefill
        // budget is greyed out for vLLM, kept when typed for SGLang, and applied only with SGLang.
        auto window = open();
        QVERIFY(window);
        ServingPanel* panel = window->servingPanel();
        QVERIFY(!panel->maxPrefillTokensSpin()->isEnabled());
        test::typeSpin(panel->maxNumSeqsSpin(), QStringLiteral("1"));
        test::typeSpin(panel->maxBatchedTokensSpin(), QStringLiteral("600"));
        test::typeSpin(panel->blockSizeSpin(), QStringLiteral("8"));
        test::typeSpin(panel->memoryShareSpin(), QStringLiteral("0.5"));
        panel->batchingCombo()->setFocus();
        QTest::keyClick(panel->batchingCombo(), Qt::Key_Down);
        QTest::keyClick(panel->batchingCombo(), Qt::Key_Down);
        QCOMPARE(panel->batchingCombo()->currentText(), QStringLiteral("Prefill first"));
        panel->overlapSchedulerCombo()->setFocus();
        QTest::keyClick(panel->overlapSchedulerCombo(), Qt::Key_Down);
        QCOMPARE(panel->overlapSchedulerCombo()->currentText(), QStringLiteral("On"));
        QCOMPARE(panel->settings().overlapScheduler, std::string("on"));
        panel->engineCombo()->setFocus();
        QTest::keyClick(panel->engineCombo(), Qt::Key_Down);
        QTest::keyClick(panel->engineCombo(), Qt::Key_Down);
        QVERIFY(panel->maxPrefillTokensSpin()->isEnabled());
        test::typeSpin(panel->maxPrefillTokensSpin(), QStringLiteral("700"));
        QTest::keyClick(panel->engineCombo(), Qt::Key_Up);
        QTest::keyClick(panel->engineCombo(), Qt::Key_Up);
        QCOMPARE(panel->engineCombo()->currentText(), QStringLiteral("vLLM V1"));
        QVERIFY(!panel->maxPrefillTokensSpin()->isEnabled());
        QCOMPARE(panel->maxPrefillTokensSpin()->value(), 700);
        QCOMPARE(panel->settings().maxPrefillTokens, 700);

        QVERIFY(serve(panel, QStringLiteral("2"), QStringLiteral("8"), QStringLiteral("4")));
        const serving::ServingResult& vllm = panel->curve()->results[0];
        QCOMPARE(vllm.options.maxNumSeqs, 1);
        QCOMPARE(vllm.options.maxNumBatchedTokens, 600);
        QCOMPARE(vllm.options.blockSize, 8);
        QCOMPARE(vllm.options.gpuMemoryUtilization, 0.5);
        QCOMPARE(vllm.options.batching, serving::Batching::PrefillFirst);
        QCOMPARE(vllm.options.overlapScheduling, serving::OverlapScheduling::On);
        QVERIFY2(panel->controls()->statusLabel()->text().contains(QStringLiteral("composed one iteration ahead")),
            qPrintable(panel->controls()->statusLabel()->text()));
        QCOMPARE(vllm.options.maxPrefillTokens, 0);
        QVERIFY(!vllm.trace.iterations.empty());
        for (const serving::OccupancySample& iteration : vllm.trace.iterations) {
            QVERIFY(iteration.running <= 1);
            QVERIFY(iteration.batchedTokens <= 600);
        }
        // One at a time: each request starts after the one before it finished.
        const std::vector<serving::RequestRecord>& requests = vllm.trace.requests;
        QCOMPARE(requests.size(), size_t(4));
        for (size_t i = 1; i < requests.size(); ++i) {
            QVERIFY(requests[i].firstTokenSeconds > requests[i - 1].finishSeconds);
        }

        panel->engineCombo()->setFocus();
        QTest::keyClick(panel->engineCombo(), Qt::Key_Down);
        QTest::keyClick(panel->engineCombo(), Qt::Key_Down);
        QVERIFY(serve(panel, QStringLiteral("2"), QStringLiteral("8"), QStringLiteral("4")));
        QCOMPARE(panel->curve()->results[0].options.profile, serving::EngineProfile::Sglang);
        QCOMPARE(panel->curve()->results[0].options.maxPrefillTokens, 700);

        // Unchunked, a 1,508-token request cannot fit 600 tokens per iteration: the status line says so, nothing is
        // served with a changed input, and the last result stays.
        QTest::mouseClick(
            panel->chunkedPrefillCheck(), Qt::LeftButton, {}, QPoint(4, panel->chunkedPrefillCheck()->height() / 2));
        QVERIFY(!panel->chunkedPrefillCheck()->isChecked());
        QSignalSpy failed(panel->runner(), &ServingRunner::failed);
        QTest::mouseClick(panel->controls()->runButton(), Qt::LeftButton);
        QVERIFY(failed.wait(kTimeoutMs));
        const QString status = panel->controls()->statusLabel()->text();
        QVERIFY2(status.contains(QStringLiteral("1508")) && status.contains(QStringLiteral("600")), qPrintable(status));
        QCOMPARE(panel->curve()->results[0].options.maxPrefillTokens, 700);

        // Kept with the workspace: a window that opens the saved file shows every knob again.
        const QString saved = m_dir.filePath(QStringLiteral("knobs.rapid.yaml"));
        QVERIFY(window->saveWorkspace(saved));
        auto reopened = test::openWindow(saved);
        QVERIFY(reopened);
        ServingPanel* shown = reopened->servingPanel();
        QCOMPARE(shown->maxNumSeqsSpin()->value(), 1);
        QCOMPARE(shown->maxBatchedTokensSpin()->value(), 600);
        QVERIFY(!shown->chunkedPrefillCheck()->isChecked());
        QCOMPARE(shown->blockSizeSpin()->value(), 8);
        QCOMPARE(shown->memoryShareSpin()->value(), 0.5);
        QCOMPARE(shown->batchingCombo()->currentText(), QStringLiteral("Prefill first"));
        QCOMPARE(shown->overlapSchedulerCombo()->currentText(), QStringLiteral("On"));
        QCOMPARE(shown->maxPrefillTokensSpin()->value(), 700);
        QVERIFY(shown->maxPrefillTokensSpin()->isEnabled());
    }

    void theSetUpIsKeptWithTheWorkspace()
    {
        // Typed inputs are edits of the workspace: they mark it modified, undo as one step per field, are written to
        // the file and come back in a window that opens it.
        auto window = open();
        QVERIFY(window);
        ServingPanel* panel = window->servingPanel();
        WorkspaceDocument* document = window->document();
        QVERIFY(!document->servingSettings());
        QVERIFY(!document->isDirty());
        test::typeLine(panel->loadsEdit(), QStringLiteral("2, 8"));
        panel->engineCombo()->setFocus();
        QTest::keyClick(panel->engineCombo(), Qt::Key_Down);
        panel->capacityPolicyCombo()->setFocus();
        QTest::keyClick(panel->capacityPolicyCombo(), Qt::Key_Down);
        QTest::keyClick(panel->capacityPolicyCombo(), Qt::Key_Down);
        QCOMPARE(panel->capacityPolicyCombo()->currentText(), QStringLiteral("Reserve whole run"));
        test::typeSpin(panel->outputSpin(), QStringLiteral("64"));
        QTest::qWait(1600); // past the burst that merges quick edits into one undo step (EditTextCommand::kBurstGapMs)
        test::typeSpin(panel->ttftSloSpin(), QStringLiteral("300"));
        QTest::qWait(1600);
        test::typeSpin(panel->hostTimeSpin(), QStringLiteral("1.25"));
        QTest::mouseClick(panel->overlapHostCheck(), Qt::LeftButton, {},
            QPoint(4, panel->overlapHostCheck()->height() / 2)); // on the box itself
        QVERIFY(panel->overlapHostCheck()->isChecked());
        QVERIFY(document->isDirty());
        QVERIFY(document->servingSettings());
        config::ServingSettings expected;
        expected.loads = "2, 8";
        expected.engine = "trtllm";
        expected.capacityPolicy = "guaranteed-no-evict";
        expected.outputTokens = 64;
        expected.ttftSloMilliseconds = 300;
        expected.hostMilliseconds = 1.25;
        expected.overlapHost = true;
        QVERIFY(*document->servingSettings() == expected);
        QCOMPARE(panel->settings().engine, std::string("trtllm"));

        // Undo takes the host edits back (one step: they came in one burst), then the SLO, in the document and in
        // the fields, and leaves the earlier burst; redo brings the SLO again.
        document->undoStack()->undo();
        QCOMPARE(panel->hostTimeSpin()->value(), 0.0);
        QVERIFY(!panel->overlapHostCheck()->isChecked());
        QCOMPARE(document->servingSettings()->ttftSloMilliseconds, 300.0);
        document->undoStack()->undo();
        QCOMPARE(panel->ttftSloSpin()->value(), 0.0);
        QCOMPARE(document->servingSettings()->ttftSloMilliseconds, 0.0);
        QCOMPARE(panel->loadsEdit()->text(), QStringLiteral("2, 8"));
        document->undoStack()->redo();
        QCOMPARE(panel->ttftSloSpin()->value(), 300.0);
        document->undoStack()->redo();
        QCOMPARE(panel->hostTimeSpin()->value(), 1.25);
        QVERIFY(panel->overlapHostCheck()->isChecked());

        const QString saved = m_dir.filePath(QStringLiteral("kept.rapid.yaml"));
        QVERIFY(window->saveWorkspace(saved));
        QFile file(saved);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(file.readAll());
        QVERIFY2(text.contains(QStringLiteral("serving:\n  load: concurrency\n  loads: \"2, 8\"\n")), qPrintable(text));
        auto reopened = test::openWindow(saved);
        QVERIFY(reopened);
        ServingPanel* shown = reopened->servingPanel();
        QCOMPARE(shown->loadsEdit()->text(), QStringLiteral("2, 8"));
        QCOMPARE(shown->engineCombo()->currentText(), QStringLiteral("TensorRT-LLM"));
        QCOMPARE(shown->capacityPolicyCombo()->currentText(), QStringLiteral("Reserve whole run"));
        QCOMPARE(shown->outputSpin()->value(), 64);
        QCOMPARE(shown->ttftSloSpin()->value(), 300.0);
        QCOMPARE(shown->hostTimeSpin()->value(), 1.25);
        QVERIFY(shown->overlapHostCheck()->isChecked());
        QVERIFY(!reopened->document()->isDirty());
    }

    void prefillAndDecodePoolsServeTogether()
    {
        // Llama-3.1-8B on an HGX H100 node, one prefill and one decode worker of tp 4: the summary counts both
        // workers' 8 GPUs, and one client's TTFT exceeds an aggregated tp-4 worker's by the KV move (under 1 ms for
        // 1,500 tokens of 32 KiB per GPU over NVLink: 49 MB / 450 GB/s = 0.11 ms plus the network's fixed costs).
        QTemporaryDir dir;
        QFile file(dir.filePath(QStringLiteral("node.rapid.yaml")));
        QVERIFY(file.open(QIODevice::WriteOnly)
            && file.write("name: Serve 8B on a node\nmodel: llama-3.1-8b\nhardware: hgx-h100-8gpu\n"
                          "run: llama-3.1-8b-decode-1gpu\noverrides:\n  - run.parallelism.tp=8\n")
                > 0);
        file.close();
        auto window = test::openWindow(file.fileName());
        QVERIFY(window);
        window->mainTabs()->setCurrentWidget(window->servingPanel());
        ServingPanel* panel = window->servingPanel();
        QPushButton* serve = panel->controls()->runButton();
        test::typeLine(panel->loadsEdit(), QStringLiteral("1"));
        test::typeSpin(panel->outputSpin(), QStringLiteral("16"));
        test::typeSpin(panel->requestsSpin(), QStringLiteral("2"));
        QVERIFY(!panel->prefillTpSpin()->isEnabled());
        test::typeSpin(panel->prefillWorkersSpin(), QStringLiteral("1"));
        // Prefill workers without decode workers: said under the fields, and Serve waits.
        QVERIFY(panel->findChild<QLabel*>(QStringLiteral("servingPoolsProblem"))->isVisible());
        QVERIFY(!serve->isEnabled());
        test::typeSpin(panel->decodeWorkersSpin(), QStringLiteral("1"));
        QVERIFY(serve->isEnabled());
        QVERIFY(panel->prefillTpSpin()->isEnabled());
        test::typeSpin(panel->prefillTpSpin(), QStringLiteral("4"));
        test::typeSpin(panel->decodeTpSpin(), QStringLiteral("4"));
        QSignalSpy finished(panel->runner(), &ServingRunner::finished);
        QTest::mouseClick(serve, Qt::LeftButton);
        QVERIFY(finished.wait(kTimeoutMs));
        const serving::ServingSummary& pools = panel->curve()->results[0].summary;
        QCOMPARE(pools.gpus, 8);
        config::Scenario worker = *window->document()->scenario();
        worker.run.parallelism.tp = 4;
        worker.run.parallelism.dp = 2;
        serving::WorkloadSpec one;
        one.concurrency = 2;
        one.requests = 4;
        one.promptTokens = worker.run.promptLength;
        one.outputTokens = 16;
        const serving::ServingResult aggregated = serving::simulateServing(worker, one, serving::EngineOptions {});
        const double move = pools.ttft.mean - aggregated.summary.ttft.mean;
        QVERIFY2(move > 0.1e-3 && move < 1e-3, qPrintable(QString::number(move)));
        QCOMPARE(panel->table()->rowCount(), 1);
        QVERIFY(panel->controls()->statusLabel()->text().contains(QStringLiteral("on 1 prefill + 1 decode workers")));
    }

    void cancelStopsALongSweepAndShowsNothing()
    {
        auto window = open();
        QVERIFY(window);
        ServingPanel* panel = window->servingPanel();
        test::typeLine(panel->loadsEdit(), QStringLiteral("64, 128, 256, 512, 1024, 2048"));
        QSignalSpy cancelled(panel->runner(), &ServingRunner::cancelled);
        QTest::mouseClick(panel->controls()->runButton(), Qt::LeftButton);
        QVERIFY(panel->controls()->cancelButton()->isVisible());
        QTest::mouseClick(panel->controls()->cancelButton(), Qt::LeftButton);
        QCOMPARE(cancelled.count(), 1);
        QVERIFY(!panel->runner()->isRunning());
        QCOMPARE(panel->table()->rowCount(), 0);
        QVERIFY(panel->controls()->runButton()->isEnabled());
        QVERIFY(panel->controls()->statusLabel()->text().contains(QStringLiteral("Cancelled")));
    }

    void aNarrowWindowPutsTheInputsAboveTheResults()
    {
        auto window = open();
        QVERIFY(window);
        ServingPanel* panel = window->servingPanel();
        QVERIFY(serve(panel, QStringLiteral("1, 2"), QStringLiteral("16"), QStringLiteral("4")));
        QHeaderView* header = panel->table()->horizontalHeader();
        // No header of the table is elided and the curve's tab shows whole, wide or narrow: each column at least as
        // wide as the lines of its header and the header's margins, the chart tabs no narrower than the table.
        const QFontMetrics metrics(header->font());
        const int margins = 2 * header->style()->pixelMetric(QStyle::PM_HeaderMargin, nullptr, header);
        auto nothingElided = [&] {
            for (int column = 0; column < header->count(); ++column) {
                for (const QString& line :
                    panel->table()->horizontalHeaderItem(column)->text().split(QLatin1Char('\n'))) {
                    if (header->sectionSize(column) < metrics.horizontalAdvance(line) + margins) {
                        return false;
                    }
                }
            }
            return panel->chartTabs()->width() >= panel->table()->width() - 1;
        };
        window->resize(1600, 900);
        QTRY_VERIFY(panel->inputsBesideResults());
        QTRY_VERIFY(nothingElided());
        const int besideInputsLeft = panel->loadsEdit()->mapTo(panel, QPoint()).x();

        window->resize(1000, 700);
        QTRY_VERIFY(!panel->inputsBesideResults());
        QTRY_VERIFY(nothingElided());
        // Above the results the inputs span the panel, and the results below them start at its left edge.
        QVERIFY(panel->table()->mapTo(panel, QPoint()).x() < besideInputsLeft + 270);
        QCOMPARE(panel->table()->mapTo(panel, QPoint()).x(), panel->controls()->mapTo(panel, QPoint()).x());
        QVERIFY(panel->controls()->runButton()->isVisible());

        window->resize(1600, 900);
        QTRY_VERIFY(panel->inputsBesideResults());
        QTRY_VERIFY(nothingElided());
    }

    void aTrainingWorkspaceSaysWhy()
    {
        auto window = test::openWindow();
        QVERIFY(window);
        ServingPanel* panel = window->servingPanel();
        QVERIFY(!panel->run());
        QVERIFY(panel->controls()->statusLabel()->text().contains(QStringLiteral("inference run")));
    }

    void everyChartExports()
    {
        auto window = open();
        QVERIFY(window);
        ServingPanel* panel = window->servingPanel();
        test::typeLine(panel->loadsEdit(), QStringLiteral("1, 2"));
        test::typeSpin(panel->outputSpin(), QStringLiteral("16"));
        QSignalSpy finished(panel->runner(), &ServingRunner::finished);
        QTest::mouseClick(panel->controls()->runButton(), Qt::LeftButton);
        QVERIFY(finished.wait(kTimeoutMs));
        for (const FigureDialog::Target& target : panel->figures()) {
            const QString path = m_dir.filePath(target.widget->objectName() + QStringLiteral(".svg"));
            QString error;
            QVERIFY2(ChartExporter::exportWidget(target.widget, path, ExportOptions(), &error), qPrintable(error));
            QVERIFY(QFileInfo(path).size() > 1000);
        }
    }

private:
    /// Types the loads, output length and request count, clicks Serve and waits for the curve.
    static bool serve(ServingPanel* panel, const QString& loads, const QString& output, const QString& requests)
    {
        test::typeLine(panel->loadsEdit(), loads);
        test::typeSpin(panel->outputSpin(), output);
        test::typeSpin(panel->requestsSpin(), requests);
        QSignalSpy finished(panel->runner(), &ServingRunner::finished);
        QTest::mouseClick(panel->controls()->runButton(), Qt::LeftButton);
        return finished.wait(kTimeoutMs);
    }

    /// The step model's prediction of the window's inference run for one request of @p output tokens.
    /// The step model's prediction of one request, its layers as @p engine runs them (serving::engineScenario).
    static report::InferenceResult predictedAlone(MainWindow& window, int output, const serving::EngineOptions& engine)
    {
        config::Scenario alone = *window.document()->scenario();
        alone.run.batch = 1;
        alone.run.decodeLength = output;
        sim::StepModel model(serving::engineScenario(alone, engine));
        return model.inference();
    }

    std::unique_ptr<MainWindow> open()
    {
        auto window = test::openWindow(m_dir.filePath(QStringLiteral("serve.rapid.yaml")));
        if (window) {
            window->mainTabs()->setCurrentWidget(window->servingPanel());
        }
        return window;
    }

    QTemporaryDir m_dir;
};

QTEST_MAIN(TstServingView)
#include "tst_servingview.moc"
