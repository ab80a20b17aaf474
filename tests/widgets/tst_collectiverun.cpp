// SPDX-License-Identifier: GPL-3.0-or-later
// The collective what-if of the Topology tab, driven like a user would: one collective timed by the analytical,
// congestion and packet backends against the alpha-beta closed form worked out by hand; an invalid size disables Run
// and says why; Cancel of a long packet-level run applies nothing; a link edit forgets the result (and running again
// shows the slower link); failed links that cut the ring apart are reported inline; the wheel over the side column
// scrolls it and leaves the backend alone unless the combo has the keyboard focus.
#include "widgettestutils.h"

#include "editors/workspacedocument.h"
#include "mainwindow.h"
#include "topology/collectiverunbox.h"
#include "topology/linkitem.h"
#include "topology/topologypanel.h"
#include "topology/topologyscene.h"
#include "topology/topologyview.h"

#include "config/units.h"
#include "network/analyticalnetwork.h"

#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace rapid;
using rapid::widgets::CollectiveOutcome;
using rapid::widgets::CollectiveRunBox;
using rapid::widgets::CollectiveRunner;

namespace {

constexpr int kRunTimeoutMs = 120000;

// The test's own hardware (the GPU figures only matter to the workspace's step, not to a collective), so nothing
// here depends on the presets in configs/gpus.
const char* const kGpu = R"(  gpu:
    name: Test GPU
    sm_count: 132
    clock_GHz: 1.83
    tensor_TFLOPs: {fp32: 66.9, tf32: 494.7, bf16: 989.4, fp16: 989.4, fp8: 1978.9, int8: 1978.9}
    vector_fp32_TFLOPs: 66.9
    hbm: {capacity_GiB: 80, bandwidth_GBps: 3350}
    l2: {size_MiB: 50, bandwidth_GBps: 9370}
    shared_memory_per_sm_KiB: 228
    registers_per_sm: 65536
    max_threads_per_sm: 2048
    kernel_launch_us: 4
    power: {tdp_W: 700, idle_W: 70}
)";

/// A workspace on one network dimension (@p network: its flow mapping), serving Llama-3.1-8B with @p tp x @p dp.
QString workspaceText(const QString& hardwareName, const QString& network, int gpus, int tp, int dp)
{
    return QStringLiteral("name: Collective what-if test\n"
                          "model: llama-3.1-8b\n"
                          "hardware:\n"
                          "  name: %1\n")
               .arg(hardwareName)
        + QString::fromUtf8(kGpu)
        + QStringLiteral("  cluster:\n"
                         "    gpus_per_node: %1\n"
                         "    network:\n"
                         "      - %2\n"
                         "run:\n"
                         "  name: Llama-3.1-8B decode\n"
                         "  mode: inference\n"
                         "  inference: {batch: %3, prompt_length: 512, decode_length: 64}\n"
                         "  flash_attention: true\n"
                         "  precision: {compute: bf16, weights: bf16, activations: bf16, kv_cache: bf16}\n"
                         "  parallelism: {tp: %4, sp: false, pp: 1, dp: %5, cp: 1}\n")
              .arg(gpus)
              .arg(network)
              .arg(dp)
              .arg(tp)
              .arg(dp);
}

// The ring of the closed-form checks: p = 8 GPUs, B = 100 GB/s per direction, alpha = 1 us per hop.
constexpr int kRingGpus = 8;
constexpr double kRingBandwidth = 100e9;
constexpr double kHopSeconds = 1e-6;

/// Ring all-reduce by hand: reduce-scatter then all-gather, each p-1 steps of S/p bytes over one hop, plus one launch.
double ringAllReduceSeconds(double bytes)
{
    const double p = kRingGpus;
    return 2 * (p - 1) / p * bytes / kRingBandwidth + 2 * (p - 1) * kHopSeconds + network::kCollectiveLaunchSeconds;
}

QString formatSeconds(double seconds)
{
    return QString::fromStdString(config::formatQuantity(seconds, config::Dimension::Seconds));
}

bool anyLinkColoured(widgets::TopologyScene& scene)
{
    for (const widgets::LinkItem* link : scene.linkItems()) {
        if (link->utilisation()) {
            return true;
        }
    }
    return false;
}

/// Picks @p text in a closed combo box with the keyboard, as a user tabbing through the form would.
bool choose(QComboBox* combo, const QString& text)
{
    combo->setFocus();
    QTest::keyClick(combo, Qt::Key_Home);
    for (int i = 0; i < combo->count() && combo->currentText() != text; ++i) {
        QTest::keyClick(combo, Qt::Key_Down);
    }
    return combo->currentText() == text;
}

/// Select all, type: what a user does to replace a line edit's text.
void typeInto(QLineEdit* edit, const QString& text)
{
    edit->setFocus();
    QTest::keyClick(edit, Qt::Key_A, Qt::ControlModifier);
    if (text.isEmpty()) {
        QTest::keyClick(edit, Qt::Key_Delete);
    } else {
        QTest::keyClicks(edit, text);
    }
}

} // namespace

class TestCollectiveRun : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        const QString ring
            = QStringLiteral("{name: ring, kind: ring, size: 8, link_bandwidth_GBps: 100, latency_ns: 1000}");
        const QString fatTree = QStringLiteral("{name: ib, kind: fat-tree, size: 32, link_bandwidth_GBps: 50, "
                                               "latency_ns: 675, tiers: 2, switch_radix: 16, oversubscription: 1}");
        QVERIFY(write(QStringLiteral("ring.rapid.yaml"), workspaceText(QStringLiteral("Ring of 8"), ring, 8, 8, 1)));
        QVERIFY(write(
            QStringLiteral("fattree.rapid.yaml"), workspaceText(QStringLiteral("Fat tree of 32"), fatTree, 32, 1, 32)));
    }

    void analyticalRingAllReduceIsTheClosedForm()
    {
        auto window = openRing();
        QVERIFY(window);
        CollectiveRunBox* box = collectiveBox(*window);
        QCOMPARE(box->groupCombo()->count(), 2); // every GPU, the ring dimension
        QVERIFY(choose(box->groupCombo(), QStringLiteral("ring (8 GPUs)")));
        QVERIFY(choose(box->operationCombo(), QStringLiteral("all-reduce")));
        QVERIFY(choose(box->backendCombo(), QStringLiteral("analytical")));
        QVERIFY(!box->packetSizeEdit()->isVisible());
        typeInto(box->sizeEdit(), QStringLiteral("64 MiB"));
        const CollectiveOutcome outcome = runToCompletion(box);

        const double bytes = 64.0 * 1024 * 1024;
        const double expected = ringAllReduceSeconds(bytes); // 1.17440512 ms + 14 us + 6.6 us
        QCOMPARE(outcome.time.algorithm, network::CollectiveAlgorithm::Ring);
        QVERIFY2(std::abs(outcome.time.seconds - expected) <= 1e-12, qPrintable(QString::number(outcome.time.seconds)));
        QCOMPARE(box->timeLabel()->text(), formatSeconds(expected));
        QCOMPARE(box->algorithmLabel()->text(), QStringLiteral("ring"));
        // Bus bandwidth: NCCL's 2(p-1)/p times the algorithm bandwidth S/t.
        const QString busBandwidth = QString::fromStdString(
            config::formatQuantity(bytes / expected * 2 * 7 / 8, config::Dimension::BytesPerSecond));
        QVERIFY2(box->bandwidthLabel()->text().contains(busBandwidth + QStringLiteral(" bus")),
            qPrintable(box->bandwidthLabel()->text()));
        // The closed form colours nothing and lists no links.
        QVERIFY(outcome.linkUtilisation.empty());
        QVERIFY(!box->linksLabel()->isVisible());
        QVERIFY(!anyLinkColoured(*window->topologyPanel()->scene()));
    }

    void oneGpuMovesNothingAndShowsNoRate()
    {
        // A GPU preset as the hardware: one GPU, no links. Its all-reduce took 0 ns and showed "0 B/s" as its rate.
        QVERIFY(write(QStringLiteral("one.rapid.yaml"),
            QStringLiteral("name: One GPU\nmodel: llama-3.1-8b\nhardware: a100-sxm4-80gb\n"
                           "run: llama-3.1-8b-decode-1gpu\n")));
        auto window = rapid::test::openWindow(m_dir.filePath(QStringLiteral("one.rapid.yaml")));
        QVERIFY(window);
        CollectiveRunBox* box = collectiveBox(*window);
        QVERIFY(choose(box->operationCombo(), QStringLiteral("all-reduce")));
        typeInto(box->sizeEdit(), QStringLiteral("64 MiB"));
        const CollectiveOutcome outcome = runToCompletion(box);
        QCOMPARE(outcome.time.seconds, 0.0);
        QCOMPARE(box->timeLabel()->text(), formatSeconds(0));
        QCOMPARE(box->bandwidthLabel()->text(), QStringLiteral("— (nothing crosses a link)"));
    }

    void congestionOnTheIdleRingMatchesWithinAMicrosecond()
    {
        auto window = openRing();
        QVERIFY(window);
        CollectiveRunBox* box = collectiveBox(*window);
        QVERIFY(choose(box->groupCombo(), QStringLiteral("every GPU (8)")));
        QVERIFY(choose(box->backendCombo(), QStringLiteral("congestion")));
        QSignalSpy coloured(box, &CollectiveRunBox::utilisationAvailable);
        const CollectiveOutcome outcome = runToCompletion(box);
        const double expected = ringAllReduceSeconds(64.0 * 1024 * 1024);
        QVERIFY2(std::abs(outcome.time.seconds - expected) <= 1e-6,
            qPrintable(QStringLiteral("%1 s against %2 s").arg(outcome.time.seconds).arg(expected)));
        QCOMPARE(outcome.time.algorithm, network::CollectiveAlgorithm::Ring);
        // One direction of every ring link carries 2(p-1)/p * S in the makespan minus the launch and the latencies.
        QCOMPARE(coloured.count(), 1);
        QVERIFY(anyLinkColoured(*window->topologyPanel()->scene()));
        QCOMPARE(static_cast<int>(outcome.busiestLinks.size()), CollectiveOutcome::kBusiestLinks);
        const QStringList lines = box->linksLabel()->text().split(QLatin1Char('\n'));
        QCOMPARE(lines.size(), CollectiveOutcome::kBusiestLinks);
        for (int i = 0; i < lines.size(); ++i) {
            const widgets::LinkLoad& load = outcome.busiestLinks[static_cast<size_t>(i)];
            QVERIFY(load.id.startsWith(QStringLiteral("ring:")));
            QVERIFY2(lines[i].contains(load.id), qPrintable(lines[i]));
            QCOMPARE(load.bytes, 2.0 * 7 / 8 * 64 * 1024 * 1024);
            QVERIFY(std::abs(load.utilisation - load.bytes / (kRingBandwidth * outcome.time.seconds)) < 1e-9);
        }
        QVERIFY(box->statusLabel()->text().contains(QStringLiteral("links coloured")));
    }

    void packetLevelRingOfWholePacketsIsTheClosedForm()
    {
        auto window = openRing();
        QVERIFY(window);
        CollectiveRunBox* box = collectiveBox(*window);
        QVERIFY(choose(box->backendCombo(), QStringLiteral("packet")));
        QVERIFY(box->packetSizeEdit()->isVisible());
        QCOMPARE(box->packetSizeEdit()->text(), QStringLiteral("4 KiB"));
        // 64 MB over 8 GPUs: ring steps of 8 MB = 8,000 packets of 1,000 bytes, 10 ns each at 100 GB/s. A step over
        // one hop ends when its last packet arrives, 8,000 x 10 ns + 1 us after it started: the whole chunk, then
        // the latency, exactly the closed form's step (store-and-forward adds nothing over a single hop).
        typeInto(box->sizeEdit(), QStringLiteral("64 MB"));
        typeInto(box->packetSizeEdit(), QStringLiteral("1000 B"));
        const CollectiveOutcome outcome = runToCompletion(box);
        const double expected = ringAllReduceSeconds(64e6); // 1.12 ms + 14 us + 6.6 us
        QVERIFY2(std::abs(outcome.time.seconds - expected) <= 1e-9,
            qPrintable(QStringLiteral("%1 s against %2 s").arg(outcome.time.seconds, 0, 'g', 12).arg(expected)));
        QCOMPARE(box->timeLabel()->text(), formatSeconds(expected));
        QCOMPARE(outcome.packets, std::uint64_t(8 * 14 * 8000)); // 8 ranks x 14 steps x 8,000 packets
        QVERIFY(anyLinkColoured(*window->topologyPanel()->scene()));
    }

    void invalidSizeDisablesRunAndSaysWhy()
    {
        auto window = openRing();
        QVERIFY(window);
        CollectiveRunBox* box = collectiveBox(*window);
        QVERIFY(box->runButton()->isEnabled());
        QVERIFY(!box->sizeProblemLabel()->isVisible());
        typeInto(box->sizeEdit(), QStringLiteral("64 parsecs"));
        QVERIFY(!box->runButton()->isEnabled());
        QVERIFY(box->sizeProblemLabel()->isVisible());
        std::string why;
        QVERIFY(!config::parseQuantity("64 parsecs", config::Dimension::Bytes, &why));
        QCOMPARE(box->sizeProblemLabel()->text(), QString::fromStdString(why));
        // Shown in red (the problem colour of light palettes).
        QCOMPARE(box->sizeProblemLabel()->palette().color(QPalette::WindowText), QColor(200, 30, 30));
        // Enter does not run it either; a valid size enables Run again and hides the reason.
        QTest::keyClick(box->sizeEdit(), Qt::Key_Return);
        QVERIFY(!box->runner()->isRunning());
        typeInto(box->sizeEdit(), QStringLiteral("-1 MiB"));
        QVERIFY(!box->runButton()->isEnabled());
        QVERIFY(box->sizeProblemLabel()->text().contains(QStringLiteral("negative")));
        typeInto(box->sizeEdit(), QStringLiteral("1 GiB"));
        QVERIFY(box->runButton()->isEnabled());
        QVERIFY(!box->sizeProblemLabel()->isVisible());
        // The packet size is checked the same way, only while the packet backend is chosen.
        QVERIFY(choose(box->backendCombo(), QStringLiteral("packet")));
        typeInto(box->packetSizeEdit(), QStringLiteral("0 B"));
        QVERIFY(!box->runButton()->isEnabled());
        QVERIFY(choose(box->backendCombo(), QStringLiteral("congestion")));
        QVERIFY(box->runButton()->isEnabled());
    }

    void cancelOfALongPacketRunAppliesNothing()
    {
        auto window = rapid::test::openWindow(m_dir.filePath(QStringLiteral("fattree.rapid.yaml")));
        QVERIFY(window);
        CollectiveRunBox* box = collectiveBox(*window);
        QVERIFY(choose(box->operationCombo(), QStringLiteral("all-to-all")));
        QVERIFY(choose(box->backendCombo(), QStringLiteral("packet")));
        // A quarter million 4 KiB packets from each of 32 GPUs: seconds of simulation, within the packet-hop budget.
        typeInto(box->sizeEdit(), QStringLiteral("1 GiB"));
        QSignalSpy finished(box->runner(), &CollectiveRunner::finished);
        QSignalSpy cancelled(box->runner(), &CollectiveRunner::cancelled);
        QTest::mouseClick(box->runButton(), Qt::LeftButton);
        QVERIFY(box->progressBar()->isVisible());
        QVERIFY(box->cancelButton()->isVisible());
        QVERIFY(!box->runButton()->isEnabled());
        QTest::qWait(200); // well into the simulation
        QTest::mouseClick(box->cancelButton(), Qt::LeftButton);
        QCOMPARE(cancelled.count(), 1);
        QVERIFY(box->runButton()->isEnabled());
        QVERIFY(!box->progressBar()->isVisible());
        QVERIFY(!box->cancelButton()->isVisible());
        QVERIFY2(
            box->statusLabel()->text().contains(QStringLiteral("cancelled")), qPrintable(box->statusLabel()->text()));
        QVERIFY(!box->lastOutcome().has_value());
        QVERIFY(box->timeLabel()->text().isEmpty());
        QVERIFY(!anyLinkColoured(*window->topologyPanel()->scene()));
        // The runner has one worker: a quick analytical run behind the cancelled one finishes only once the packet
        // simulation has seen its stop flag (it would take many minutes to the end).
        QVERIFY(choose(box->backendCombo(), QStringLiteral("analytical")));
        QTest::mouseClick(box->runButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 20000);
        QCOMPARE(box->lastOutcome()->backend, widgets::CollectiveBackend::Analytical);
    }

    void editingTheWorkspaceForgetsTheResult()
    {
        auto window = openRing();
        QVERIFY(window);
        window->resize(1400, 1100); // tall enough for the whole side column in the screenshot
        CollectiveRunBox* box = collectiveBox(*window);
        QVERIFY(choose(box->backendCombo(), QStringLiteral("congestion")));
        const CollectiveOutcome healthy = runToCompletion(box);
        QVERIFY(anyLinkColoured(*window->topologyPanel()->scene()));

        // Degrading one link (the Topology tab's own edit) forgets the result and its colours.
        QSignalSpy cleared(box, &CollectiveRunBox::utilisationCleared);
        QString error;
        QVERIFY2(
            window->topologyPanel()->setLinkHealth({ QStringLiteral("ring:1-2") }, 0.5, &error), qPrintable(error));
        QCOMPARE(cleared.count(), 1);
        QVERIFY(!box->lastOutcome().has_value());
        QVERIFY(box->timeLabel()->text().isEmpty());
        QVERIFY(!box->timeLabel()->isVisible());
        QVERIFY(!anyLinkColoured(*window->topologyPanel()->scene()));
        QVERIFY(box->statusLabel()->text().contains(QStringLiteral("changed")));

        // Running again shows the what-if: the ring waits for its half-speed link, which is now the busiest.
        const CollectiveOutcome degraded = runToCompletion(box);
        QVERIFY2(degraded.time.seconds > 1.5 * healthy.time.seconds,
            qPrintable(QStringLiteral("%1 s against %2 s").arg(degraded.time.seconds).arg(healthy.time.seconds)));
        QCOMPARE(degraded.busiestLinks.front().id, QStringLiteral("ring:1-2"));
        QVERIFY2(box->linksLabel()->text().section(QLatin1Char('\n'), 0, 0).contains(QStringLiteral("ring:1-2")),
            qPrintable(box->linksLabel()->text()));
        QCoreApplication::processEvents();
        QVERIFY(
            rapid::test::saveScreenshot(window->topologyPanel()->grab(), QStringLiteral("topology-collective.png")));

        // Undo is an edit too.
        window->document()->undoStack()->undo();
        QVERIFY(!box->lastOutcome().has_value());
        QVERIFY(!anyLinkColoured(*window->topologyPanel()->scene()));
    }

    void failedLinksThatCutTheRingAreReportedInline()
    {
        auto window = openRing();
        QVERIFY(window);
        CollectiveRunBox* box = collectiveBox(*window);
        QString error;
        QVERIFY2(window->topologyPanel()->setLinkHealth(
                     { QStringLiteral("ring:0-1"), QStringLiteral("ring:4-5") }, 0.0, &error),
            qPrintable(error));
        QVERIFY(window->document()->scenario().has_value());
        QSignalSpy failed(box->runner(), &CollectiveRunner::failed);
        for (const QString& backend : { QStringLiteral("analytical"), QStringLiteral("congestion") }) {
            QVERIFY(choose(box->backendCombo(), backend));
            QTest::mouseClick(box->runButton(), Qt::LeftButton);
            QTRY_VERIFY_WITH_TIMEOUT(!box->runner()->isRunning(), kRunTimeoutMs);
            QVERIFY(box->statusLabel()->isVisible());
            QVERIFY2(box->statusLabel()->text().contains(QStringLiteral("no surviving path")),
                qPrintable(backend + QStringLiteral(": ") + box->statusLabel()->text()));
            QCOMPARE(box->statusLabel()->palette().color(QPalette::WindowText), QColor(200, 30, 30));
            QVERIFY(!box->lastOutcome().has_value());
            QVERIFY(box->runButton()->isEnabled());
        }
        QCOMPARE(failed.count(), 2);
    }

    void wheelOverTheSidePanelScrollsItAndKeepsTheBackend()
    {
        // Issue #18, defect 7: scrolling down the side column with the wheel turned "analytical" into "packet" as
        // the backend combo passed under the pointer (a QComboBox takes focus by wheel, then the notch).
        auto window = openRing();
        QVERIFY(window);
        window->resize(1400, 500);
        CollectiveRunBox* box = collectiveBox(*window);
        auto* backend = window->findChild<QComboBox*>(QStringLiteral("collectiveBackend"));
        auto* side = window->findChild<QScrollArea*>(QStringLiteral("topologySideScroll"));
        QVERIFY(backend && side);
        // Short enough that the side column scrolls: the window's least height fits the column since the legend moved
        // over the drawing, so the column is cut to half its content as on a short screen. The combo is near the
        // column's end now: shown with a small margin, so that there is still room to scroll below it.
        side->setMaximumHeight(side->widget()->sizeHint().height() / 2);
        QVERIFY(choose(backend, QStringLiteral("analytical")));
        window->topologyPanel()->view()->setFocus(); // the user was last in the drawing, not the combo
        QCoreApplication::processEvents();
        side->ensureWidgetVisible(backend, 0, 10);
        QScrollBar* bar = side->verticalScrollBar();
        QVERIFY2(bar->maximum() > 0, "the side column must scroll for this test");
        bar->setValue(bar->minimum() + (bar->maximum() - bar->minimum()) / 2);
        side->ensureWidgetVisible(backend, 0, 10);
        const int scrolled = bar->value();
        QVERIFY(scrolled < bar->maximum());

        QSignalSpy changed(backend, &QComboBox::currentIndexChanged);
        QWidget* taker = rapid::test::wheel(backend, -1);
        QCOMPARE(backend->currentText(), QStringLiteral("analytical"));
        QCOMPARE(changed.count(), 0);
        QVERIFY(!backend->hasFocus());
        QVERIFY2(bar->value() > scrolled, qPrintable(QStringLiteral("%1 -> %2").arg(scrolled).arg(bar->value())));
        QVERIFY(taker != backend);

        // With the keyboard focus (tabbed to, or clicked) the wheel still steps through the choices.
        backend->setFocus(Qt::TabFocusReason);
        side->ensureWidgetVisible(backend, 0, 10);
        QVERIFY(rapid::test::wheel(backend, -1) == backend);
        QCOMPARE(changed.count(), 1);
        QVERIFY(backend->currentText() != QStringLiteral("analytical"));
        QVERIFY(box->runButton()->isEnabled());
    }

private:
    bool write(const QString& name, const QString& text)
    {
        QFile file(m_dir.filePath(name));
        return file.open(QIODevice::WriteOnly) && file.write(text.toUtf8()) > 0;
    }

    std::unique_ptr<widgets::MainWindow> openRing()
    {
        return rapid::test::openWindow(m_dir.filePath(QStringLiteral("ring.rapid.yaml")));
    }

    static CollectiveRunBox* collectiveBox(widgets::MainWindow& window)
    {
        window.mainTabs()->setCurrentWidget(window.topologyPanel());
        return window.topologyPanel()->collectiveRun();
    }

    /// Clicks Run and waits for the result (an empty outcome on failure, with the status in the test log).
    static CollectiveOutcome runToCompletion(CollectiveRunBox* box)
    {
        QSignalSpy finished(box->runner(), &CollectiveRunner::finished);
        QTest::mouseClick(box->runButton(), Qt::LeftButton);
        if (!QTest::qWaitFor([&] { return !box->runner()->isRunning(); }, kRunTimeoutMs) || finished.isEmpty()) {
            qWarning() << "no result:" << box->statusLabel()->text();
            return {};
        }
        return *box->lastOutcome();
    }

    QTemporaryDir m_dir;
};

QTEST_MAIN(TestCollectiveRun)
#include "tst_collectiverun.moc"
