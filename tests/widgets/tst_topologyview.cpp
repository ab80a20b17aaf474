// SPDX-License-Identifier: GPL-3.0-or-later
// The Topology tab driven like a user would: the scene has one item per GPU, switch and physical link of the
// topology (counted by hand below), big clusters are drawn in part, links are selected with mouse clicks and
// Shift+clicks, the health editor writes faults into the hardware YAML as one undoable step and the evaluation
// follows, made-up utilisation colours the links, and screenshots of the result.
#include "common/inputscolumnlayout.h"
#include "editors/autosavestore.h"
#include "editors/workspacedocument.h"
#include "evaluation/evaluationrunner.h"
#include "mainwindow.h"
#include "results/resultspanel.h"
#include "topology/faultlist.h"
#include "topology/linkhealtheditor.h"
#include "topology/linkitem.h"
#include "topology/topologyitems.h"
#include "topology/topologylegend.h"
#include "topology/topologyminimap.h"
#include "topology/topologypanel.h"
#include "topology/topologyscene.h"
#include "topology/topologysearch.h"
#include "topology/topologyview.h"
#include "widgettestutils.h"

#include "network/topology.h"

#include <QApplication>
#include <QDebug>
#include <QDir>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QLabel>
#include <QLineEdit>
#include <QLineF>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollArea>
#include <QScrollBar>
#include <QSet>
#include <QSignalSpy>
#include <QSlider>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>
#include <QWheelEvent>

#include <algorithm>
#include <memory>

Q_DECLARE_METATYPE(std::shared_ptr<const rapid::network::Topology>)

using namespace rapid;
using rapid::test::openWindow;
using rapid::widgets::DocumentKind;
using rapid::widgets::LinkItem;
using rapid::widgets::MainWindow;
using rapid::widgets::TopologyPanel;
using rapid::widgets::TopologyScene;
using rapid::widgets::TopologyView;

namespace {

constexpr double kGBps = 1e9;
constexpr int kEvaluationTimeoutMs = 30000;

config::NetworkDimension dimension(
    const std::string& name, config::NetworkKind kind, int size, std::vector<int> shape = {})
{
    config::NetworkDimension result;
    result.name = name;
    result.kind = kind;
    result.size = size;
    result.shape = shape.empty() ? std::vector<int> { size } : std::move(shape);
    result.linkBandwidth = 100 * kGBps;
    result.latencySeconds = 500e-9;
    return result;
}

config::NetworkDimension fatTree(const std::string& name, int size, int tiers, int radix)
{
    config::NetworkDimension result = dimension(name, config::NetworkKind::FatTree, size);
    result.tiers = tiers;
    result.switchRadix = radix;
    return result;
}

std::shared_ptr<const network::Topology> topologyOf(std::vector<config::NetworkDimension> dimensions)
{
    config::ClusterSpec cluster;
    cluster.name = "test";
    cluster.gpusPerNode = dimensions.empty() ? 1 : dimensions.front().size;
    cluster.dimensions = std::move(dimensions);
    return std::make_shared<const network::Topology>(cluster, std::vector<config::LinkFault>());
}

struct ItemCounts {
    int gpus = 0;
    int switches = 0;
    int links = 0;
    int markers = 0;
    QSet<QString> linkIds;
};

/// Counts the scene's items by kind, straight from QGraphicsScene::items().
ItemCounts countItems(const QGraphicsScene& scene)
{
    ItemCounts counts;
    for (QGraphicsItem* item : scene.items()) {
        if (auto* node = qgraphicsitem_cast<widgets::NodeItem*>(item)) {
            ++(node->isSwitch() ? counts.switches : counts.gpus);
        } else if (auto* link = qgraphicsitem_cast<LinkItem*>(item)) {
            ++counts.links;
            counts.linkIds.insert(link->linkId());
        } else if (auto* label = qgraphicsitem_cast<widgets::LabelItem*>(item)) {
            counts.markers += label->isMarker() ? 1 : 0;
        }
    }
    return counts;
}

/// A point of @p link in @p view's viewport where a click selects exactly that link (not a node or a crossing link).
QPoint clickablePoint(TopologyView* view, LinkItem* link)
{
    for (double fraction : { 0.5, 0.35, 0.65, 0.25, 0.75, 0.15, 0.85 }) {
        const QPoint point = view->mapFromScene(link->pointAt(fraction));
        if (view->viewport()->rect().contains(point) && view->linkAt(point) == link) {
            return point;
        }
    }
    return QPoint(-1, -1);
}

/// Shows @p link at 100% zoom in the middle of the view and clicks it with @p modifiers.
bool clickLink(TopologyView* view, const QString& id, Qt::KeyboardModifiers modifiers = {})
{
    LinkItem* link = view->topologyScene()->linkItem(id);
    if (!link) {
        return false;
    }
    view->setZoom(1.0);
    view->centerOn(link->pointAt(0.5));
    const QPoint point = clickablePoint(view, link);
    if (point.x() < 0) {
        return false;
    }
    QTest::mouseClick(view->viewport(), Qt::LeftButton, modifiers, point);
    return true;
}

TopologyPanel* showTopologyTab(MainWindow& window)
{
    window.mainTabs()->setCurrentWidget(window.topologyPanel());
    QCoreApplication::processEvents();
    return window.topologyPanel();
}

/// Every requested evaluation has finished (superseded ones are dropped) and one was shown since @p shown was
/// cleared, so the panel shows the evaluation of the latest edit.
bool settled(MainWindow& window, const QSignalSpy& shown)
{
    return shown.count() > 0 && !window.evaluationRunner()->isBusy();
}

/// The window's first evaluation is on screen (it may have arrived before any spy was made).
bool evaluated(MainWindow& window)
{
    return window.resultsPanel()->evaluation().has_value() && !window.evaluationRunner()->isBusy();
}

/// The shown step time in seconds, or -1 when the evaluation carries no training prediction.
double stepTime(MainWindow& window)
{
    const auto& evaluation = window.resultsPanel()->evaluation();
    return evaluation && evaluation->training ? evaluation->training->stepTimeSeconds : -1.0;
}

/// A workspace of Llama-3.1-8B training on the 4x4 torus preset: tp 4 along x, dp 4 along y.
QString writeTorusWorkspace(const QTemporaryDir& directory)
{
    const QString path = directory.filePath(QStringLiteral("torus.rapid.yaml"));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        return {};
    }
    file.write("name: Llama-3.1-8B on a 4x4 torus\n"
               "model: llama-3.1-8b\n"
               "hardware: torus2d-4x4\n"
               "run:\n"
               "  name: torus training\n"
               "  mode: training\n"
               "  training: {global_batch: 64, micro_batch: 1, seq_length: 4096, recompute: selective}\n"
               "  precision: {compute: bf16, weights: bf16, activations: bf16, gradients: bf16, optimizer: fp32,\n"
               "              kv_cache: bf16, master_weights: true}\n"
               "  parallelism: {tp: 4, pp: 1, dp: 4, cp: 1, zero_stage: 1}\n");
    return path;
}

} // namespace

class TstTopologyView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void init();
    void sceneCountsMatchTopology_data();
    void sceneCountsMatchTopology();
    void largeClusterIsDrawnInPart();
    void nvl72RackIsOneSwitchOfSeventyTwo();
    void faultListEditsKeepComments();
    void clickAndShiftClickSelectLinks();
    void wheelZoomsAtTheCursor();
    void legendStaysInTheViewport();
    void theFittedDrawingKeepsClearOfTheKey();
    void aNarrowTabPutsTheControlsUnderTheDrawing();
    void labelsAreReadableAndDistinct();
    void searchFindsGpusAndLinks();
    void miniMapOutlinesAndRecentres();
    void largeTiersFoldIntoAGlyph();
    void tooltipsShowCoordinatesAndGroups();
    void faultOnMissingLinkIsReported();
    void failLinkWritesFaultAndChangesStepTime();
    void degradedHealthViaSlider();
    void typedHealthIsKeptAndApplied();
    void utilisationColoursLinks();
    void screenshots();
};

void TstTopologyView::initTestCase()
{
    // Settings and autosaves go to a throwaway test location, never the real home.
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("RAPID-LLM-tests"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_topologyview"));
}

void TstTopologyView::init()
{
    // An edited window of an earlier test may have left an autosave, which would put the restore banner up.
    QDir(widgets::AutosaveStore().directory()).removeRecursively();
}

void TstTopologyView::sceneCountsMatchTopology_data()
{
    QTest::addColumn<std::shared_ptr<const network::Topology>>("topology");
    QTest::addColumn<int>("gpus");
    QTest::addColumn<int>("switches");
    QTest::addColumn<int>("links");

    // One GPU without a network: just the GPU.
    QTest::newRow("single GPU") << topologyOf({}) << 1 << 0 << 0;
    // Ring of 8: link i joins i and i+1 mod 8, so 8 links and no switch.
    QTest::newRow("ring 8") << topologyOf({ dimension("ring", config::NetworkKind::Ring, 8) }) << 8 << 0 << 8;
    // 4x4 torus: every GPU links to its +x and +y neighbour (with wrap-around), 2 * 16 = 32 links.
    QTest::newRow("torus 4x4") << topologyOf({ dimension("torus", config::NetworkKind::Torus2d, 16, { 4, 4 }) }) << 16
                               << 0 << 32;
    // NVLink switch of 4 x fat tree of 4 nodes (2 tiers, radix 4, so k = 2 down and 2 up ports):
    //   nvlink: 4 nodes, each 1 switch and 4 GPU links -> 4 switches, 16 links;
    //   ib: one fat tree per rail (4 rails); 2 leaves of 2 endpoints + k^(tiers-1) = 2 spines = 4 switches, and
    //   4 endpoint links + 2 leaves * 2 uplinks = 8 links -> 16 switches, 32 links.
    //   16 GPUs, 20 switches, 48 links.
    QTest::newRow("nvlink switch x fat tree")
        << topologyOf({ dimension("nvlink", config::NetworkKind::Switch, 4), fatTree("ib", 4, 2, 4) }) << 16 << 20
        << 48;
}

void TstTopologyView::sceneCountsMatchTopology()
{
    QFETCH(std::shared_ptr<const network::Topology>, topology);
    QFETCH(int, gpus);
    QFETCH(int, switches);
    QFETCH(int, links);
    QCOMPARE(topology->gpuCount(), gpus);
    QCOMPARE(topology->nodeCount() - topology->gpuCount(), switches);
    QCOMPARE(topology->physicalLinkCount(), links);

    TopologyScene scene;
    scene.setTopology(topology);
    const ItemCounts counts = countItems(scene);
    QCOMPARE(counts.gpus, gpus);
    QCOMPARE(counts.switches, switches);
    QCOMPARE(counts.links, links);
    QCOMPARE(counts.linkIds.size(), links); // one item per physical link, each with its own id
    QCOMPARE(counts.markers, 0); // nothing left out
    for (int physical = 0; physical < topology->physicalLinkCount(); ++physical) {
        QVERIFY(counts.linkIds.contains(QString::fromStdString(topology->linkId(2 * physical))));
    }
    // No two nodes on top of each other.
    QSet<QPair<int, int>> places;
    for (const widgets::NodeItem* node : scene.nodeItems()) {
        places.insert({ qRound(node->pos().x()), qRound(node->pos().y()) });
    }
    QCOMPARE(places.size(), gpus + switches);
}

void TstTopologyView::largeClusterIsDrawnInPart()
{
    // 128 DGX nodes = 1,024 GPUs: nvlink switch of 8 x ib fat tree of 128 (2 tiers, radix 64: k = 32, 4 leaves and
    // 32 spines per rail, 8 rails).
    // Topology: switches 128 + 8 * (4 + 32) = 416; links 1,024 + 8 * (128 + 4 * 32) = 3,072.
    const auto topology
        = topologyOf({ dimension("nvlink", config::NetworkKind::Switch, 8), fatTree("ib", 128, 2, 64) });
    QCOMPARE(topology->gpuCount(), 1024);
    QCOMPARE(topology->nodeCount() - topology->gpuCount(), 416);
    QCOMPARE(topology->physicalLinkCount(), 3072);

    // Drawn with the default limits (256 GPUs, 16 groups along an outer dimension, 4 rails): 16 nodes of 8 GPUs, each
    // with its NVSwitch and 8 links: 128 GPUs, 16 switches, 128 links. Each of the first 4 rails: endpoints 0..15 all
    // sit below leaf 0 (k = 32), which links to all 32 spines: 33 switches, 16 + 32 = 48 links. Total: 128 GPUs,
    // 16 + 4 * 33 = 148 switches, 128 + 4 * 48 = 320 links. The 32 spines of a rail are more than
    // maxSwitchesUnfolded, so each rail's spine tier is one glyph: 16 + 4 * 1 = 20 switches and 128 + 4 * 16 = 192
    // links drawn, 4 glyphs.
    TopologyScene scene;
    QElapsedTimer timer;
    timer.start();
    scene.setTopology(topology);
    const qint64 elapsed = timer.elapsed();
    const ItemCounts counts = countItems(scene);
    QCOMPARE(counts.gpus, 128);
    QCOMPARE(counts.switches, 20);
    QCOMPARE(counts.links, 192);
    QCOMPARE(scene.glyphItems().size(), 4);
    scene.setTierUnfolded(1, 2, true);
    QCOMPARE(countItems(scene).switches, 148);
    QCOMPARE(countItems(scene).links, 320);
    QVERIFY(scene.glyphItems().isEmpty());
    QVERIFY(counts.markers > 0); // "+112 more groups along ib", "+3 more s1 switches", "+4 more instances of ib"
    bool saysMore = false;
    for (QGraphicsItem* item : scene.items()) {
        if (auto* label = qgraphicsitem_cast<widgets::LabelItem*>(item)) {
            saysMore = saysMore || label->text().contains(QLatin1String("+112 more groups along ib"));
        }
    }
    QVERIFY(saysMore);
    // Generous for a loaded CI machine; it takes a few milliseconds.
    QVERIFY2(elapsed < 3000, qPrintable(QString::number(elapsed)));
}

void TstTopologyView::nvl72RackIsOneSwitchOfSeventyTwo()
{
    // configs/hardware/gb200-nvl72.yaml: one NVLink domain of 72 GPUs behind one switch, a link from each GPU. The
    // status counts them in agreement with the numbers: "1 switch", not "1 switches".
    auto window = openWindow(QStringLiteral("llama-3.1-405b-gb200-nvl72"));
    QVERIFY(window);
    TopologyPanel* panel = showTopologyTab(*window);
    const ItemCounts counts = countItems(*panel->scene());
    QCOMPARE(counts.gpus, 72);
    QCOMPARE(counts.switches, 1);
    QCOMPARE(counts.links, 72);
    const QString status = panel->statusLabel()->text();
    QVERIFY2(status.startsWith(QStringLiteral("72 GPUs, 1 switch, 72 links\n1 network dimension")), qPrintable(status));

    // Too many for one row (a fan of 72 links running nearly flat): the GPUs stand on a circle around their switch.
    // Every GPU is as far from the switch as every other, the switch is at their centre, no two GPU boxes overlap,
    // and the drawing is about as tall as it is wide.
    QPointF hub;
    std::vector<QRectF> gpus;
    for (QGraphicsItem* item : panel->scene()->items()) {
        if (auto* node = qgraphicsitem_cast<widgets::NodeItem*>(item)) {
            if (node->isSwitch()) {
                hub = node->sceneBoundingRect().center();
            } else {
                gpus.push_back(node->sceneBoundingRect());
            }
        }
    }
    QCOMPARE(gpus.size(), size_t { 72 });
    QPointF mean;
    QRectF extent = gpus.front();
    double nearest = 1e300;
    double farthest = 0;
    for (const QRectF& gpu : gpus) {
        mean += gpu.center() / 72.0;
        extent = extent.united(gpu);
        const double distance = QLineF(hub, gpu.center()).length();
        nearest = std::min(nearest, distance);
        farthest = std::max(farthest, distance);
    }
    QVERIFY2(QLineF(hub, mean).length() < 1,
        qPrintable(QStringLiteral("hub %1,%2 mean %3,%4").arg(hub.x()).arg(hub.y()).arg(mean.x()).arg(mean.y())));
    QVERIFY2(farthest - nearest < 0.5, qPrintable(QStringLiteral("%1 to %2").arg(nearest).arg(farthest)));
    QVERIFY2(std::abs(extent.width() / extent.height() - 1) < 0.1, qPrintable(QString::number(extent.width())));
    for (size_t i = 0; i < gpus.size(); ++i) {
        for (size_t j = i + 1; j < gpus.size(); ++j) {
            QVERIFY(!gpus[i].intersects(gpus[j]));
        }
    }
}

void TstTopologyView::faultListEditsKeepComments()
{
    const std::string text = "# Source: a comment that must survive\n"
                             "hardware:\n"
                             "  name: test # trailing comment\n"
                             "  cluster:\n"
                             "    network:\n"
                             "      - {name: ring, kind: ring, size: 8, link_bandwidth_GBps: 100, latency_ns: 500}\n"
                             "# closing comment\n";
    // Adding the first fault appends the list to the hardware mapping, before the closing comment.
    const auto added = widgets::replaceFaults(text, { { "ring:0-1", 0.0 } });
    QVERIFY(added);
    QCOMPARE(QString::fromStdString(*added),
        QString::fromStdString(text).replace(
            QLatin1String("# closing"), QLatin1String("  faults:\n    - {link: \"ring:0-1\", health: 0}\n# closing")));
    // A second link is appended; naming the first one reversed updates it in place.
    auto faults = widgets::withLinkHealth(widgets::faultsInText(*added), { "ring:2-3" }, 0.5);
    faults = widgets::withLinkHealth(faults, { "ring:1-0" }, 0.25);
    QCOMPARE(faults.size(), size_t(2));
    QCOMPARE(faults[0].link, std::string("ring:0-1"));
    QCOMPARE(faults[0].health, 0.25);
    const auto two = widgets::replaceFaults(*added, faults);
    QVERIFY(two);
    QVERIFY(two->find("    - {link: \"ring:0-1\", health: 0.25}\n    - {link: \"ring:2-3\", health: 0.5}\n")
        != std::string::npos);
    QVERIFY(two->find("# Source: a comment that must survive") == 0);
    QVERIFY(two->find("name: test # trailing comment") != std::string::npos);
    // Restoring every link removes the key and gives back the original text.
    const auto restored
        = widgets::replaceFaults(*two, widgets::withLinkHealth(faults, { "ring:0-1", "ring:3-2" }, 1.0));
    QVERIFY(restored);
    QCOMPARE(*restored, text);
    QCOMPARE(widgets::formatHealth(0.456), std::string("0.46"));
    QCOMPARE(widgets::formatHealth(1), std::string("1"));
}

void TstTopologyView::clickAndShiftClickSelectLinks()
{
    auto window = openWindow();
    QVERIFY(window);
    TopologyPanel* panel = showTopologyTab(*window);
    TopologyView* view = panel->view();
    TopologyScene* scene = panel->scene();
    // The default workspace: 8 DGX H100 nodes (nvlink switch of 8) on an ib fat tree of 8.
    QCOMPARE(scene->topology()->gpuCount(), 64);
    // By default 4 of the 8 ib rails are drawn, each rail's 32 spines folded into a glyph: 64 NVLink links + 4 * 8
    // GPU links = 96; with the spines unfolded 64 + 4 * (8 GPU links + 32 spine links) = 224; with all 8 instances,
    // every one of the 64 + 8 * 40 = 384 links.
    QCOMPARE(countItems(*scene).links, 96);
    scene->setTierUnfolded(1, 2, true);
    QCOMPARE(countItems(*scene).links, 224);
    QVERIFY(panel->instancesSpinBox()->isVisible());
    panel->instancesSpinBox()->setValue(8);
    QCOMPARE(countItems(*scene).links, scene->topology()->physicalLinkCount());
    QCOMPARE(countItems(*scene).links, 384);

    const QString first = QStringLiteral("nvlink:0-s1.0");
    const QString second = QStringLiteral("nvlink:3-s1.0");
    QSignalSpy selection(scene, &TopologyScene::linkSelectionChanged);
    QVERIFY(clickLink(view, first));
    QCOMPARE(scene->selectedLinkIds(), QStringList { first });
    QCOMPARE(selection.count(), 1);
    QVERIFY(panel->editor()->selectionLabel()->text().contains(first));
    QVERIFY(panel->editor()->failButton()->isEnabled());

    // A plain click replaces the selection; Shift+click adds.
    QVERIFY(clickLink(view, second));
    QCOMPARE(scene->selectedLinkIds(), QStringList { second });
    QVERIFY(clickLink(view, first, Qt::ShiftModifier));
    QCOMPARE(scene->selectedLinkIds(), (QStringList { first, second }));
    QVERIFY(panel->editor()->selectionLabel()->text().contains(QLatin1String("2 links selected")));
    // Shift+click on a selected link takes it out again.
    QVERIFY(clickLink(view, second, Qt::ShiftModifier));
    QCOMPARE(scene->selectedLinkIds(), QStringList { first });

    // A click on a GPU selects nothing; Escape clears.
    const widgets::NodeItem* gpu = nullptr;
    for (const widgets::NodeItem* node : scene->nodeItems()) {
        gpu = !node->isSwitch() && node->nodeIndex() == 5 ? node : gpu;
    }
    QVERIFY(gpu);
    view->centerOn(gpu);
    QTest::mouseClick(view->viewport(), Qt::LeftButton, Qt::ShiftModifier, view->mapFromScene(gpu->pos()));
    QCOMPARE(scene->selectedLinkIds(), QStringList { first });
    view->setFocus();
    QTest::keyClick(view, Qt::Key_Escape);
    QVERIFY(scene->selectedLinkIds().isEmpty());

    // Dragging pans instead of selecting, and the view stops fitting.
    QVERIFY(clickLink(view, first));
    const int scrollBefore = view->horizontalScrollBar()->value();
    const QPoint start = view->viewport()->rect().center();
    QTest::mousePress(view->viewport(), Qt::LeftButton, {}, start);
    // Node 0 is at the left end of the network: dragging to the left scrolls towards the rest.
    QTest::mouseMove(view->viewport(), start - QPoint(60, 0));
    QTest::mouseRelease(view->viewport(), Qt::LeftButton, {}, start - QPoint(60, 0));
    QCOMPARE(view->horizontalScrollBar()->value(), scrollBefore + 60);
    QCOMPARE(scene->selectedLinkIds(), QStringList { first });
    QVERIFY(!view->isFitting());
    QTest::mouseClick(panel->fitButton(), Qt::LeftButton);
    QVERIFY(view->isFitting());

    // The wheel zooms in by a notch (Ctrl+wheel too, as before); Shift+wheel only scrolls.
    const double fitted = view->zoom();
    const QPoint centre = view->viewport()->rect().center();
    QWheelEvent zoomIn(centre, view->viewport()->mapToGlobal(centre), QPoint(), QPoint(0, 120), Qt::NoButton,
        Qt::ControlModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(view->viewport(), &zoomIn);
    QVERIFY2(view->zoom() > fitted * 1.1, qPrintable(QStringLiteral("%1 -> %2").arg(fitted).arg(view->zoom())));
    QVERIFY(!view->isFitting());
    const double zoomed = view->zoom();
    QWheelEvent scroll(centre, view->viewport()->mapToGlobal(centre), QPoint(), QPoint(0, -120), Qt::NoButton,
        Qt::ShiftModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(view->viewport(), &scroll);
    QCOMPARE(view->zoom(), zoomed);
}

void TstTopologyView::wheelZoomsAtTheCursor()
{
    auto window = openWindow();
    QVERIFY(window);
    TopologyView* view = showTopologyTab(*window)->view();
    // At 100% the default workspace's network is larger than the viewport both ways, so the view can scroll to keep
    // any point under the cursor.
    view->setZoom(1.0);
    view->centerOn(view->sceneRect().center());
    QVERIFY(view->horizontalScrollBar()->maximum() > 0 && view->verticalScrollBar()->maximum() > 0);
    const QPoint centre = view->viewport()->rect().center();
    auto wheel = [view](const QPoint& at, int angle, Qt::KeyboardModifiers modifiers = Qt::NoModifier) {
        QWheelEvent event(at, view->viewport()->mapToGlobal(at), QPoint(), QPoint(0, angle), Qt::NoButton, modifiers,
            Qt::NoScrollPhase, false);
        QApplication::sendEvent(view->viewport(), &event);
    };
    for (const QPoint& at : { centre + QPoint(150, -80), centre + QPoint(-200, 90), centre }) {
        for (int angle : { 120, -120, 240 }) {
            const double before = view->zoom();
            const QPointF under = view->mapToScene(at);
            wheel(at, angle);
            QVERIFY2(angle > 0 ? view->zoom() > before * 1.1 : view->zoom() < before / 1.1,
                qPrintable(QStringLiteral("%1 -> %2").arg(before).arg(view->zoom())));
            // The same scene point is under the cursor, to within a pixel of the new zoom.
            const QPointF drift = (view->mapToScene(at) - under) * view->zoom();
            QVERIFY2(std::abs(drift.x()) <= 1.0 && std::abs(drift.y()) <= 1.0,
                qPrintable(QStringLiteral("drift %1, %2 px").arg(drift.x()).arg(drift.y())));
        }
    }
    QVERIFY(!view->isFitting());
    // The zoom stops at its range, however far the wheel turns.
    wheel(centre, 120 * 200);
    QCOMPARE(view->zoom(), TopologyView::kMaxZoom);
    wheel(centre, -120 * 400);
    QCOMPARE(view->zoom(), TopologyView::kMinZoom);
    // Shift+wheel scrolls without zooming (the Topology tab has no outer scroll area needing the wheel).
    view->setZoom(1.0);
    const int scrolled = view->verticalScrollBar()->value();
    wheel(centre, -120, Qt::ShiftModifier);
    QCOMPARE(view->zoom(), 1.0);
    QVERIFY(view->verticalScrollBar()->value() > scrolled);
}

void TstTopologyView::legendStaysInTheViewport()
{
    auto window = openWindow();
    QVERIFY(window);
    TopologyPanel* panel = showTopologyTab(*window);
    TopologyView* view = panel->view();
    widgets::TopologyLegend* legend = panel->legend();
    auto inside = [&] {
        const QRect area = view->viewport()->geometry();
        return legend->isVisible() && legend->parentWidget() == view && area.contains(legend->geometry())
            && legend->height() >= legend->sizeHint().height();
    };
    QTest::mouseClick(panel->fitButton(), Qt::LeftButton);
    QVERIFY(inside());
    const QRect fitted = legend->geometry();
    auto corner = [&] { return legend->geometry().bottomLeft() - view->viewport()->geometry().bottomLeft(); };
    const QPoint fittedCorner = corner();
    // Zoomed in and scrolled to the far corner: still in the same corner (the viewport shrinks by the scroll bars).
    view->setZoom(3.0);
    view->centerOn(view->sceneRect().bottomRight());
    QCoreApplication::processEvents();
    QVERIFY(inside());
    QCOMPARE(corner(), fittedCorner);
    QCOMPARE(legend->size(), fitted.size());
    // Taller with the utilisation scale, and still wholly inside (and after a resize of the window too).
    std::vector<double> load(static_cast<size_t>(panel->scene()->topology()->linkCount()), 0.5);
    QVERIFY(panel->setLinkUtilisation(load));
    QCoreApplication::processEvents();
    QVERIFY(legend->showsUtilisation());
    QVERIFY(inside());
    QVERIFY(legend->height() > fitted.height());
    window->resize(window->width() - 100, window->height() - 60);
    QCoreApplication::processEvents();
    QVERIFY(inside());
}

void TstTopologyView::theFittedDrawingKeepsClearOfTheKey()
{
    // Found under Xvfb: the NVL72 rack's circle, fitted to the drawing, ran under the key in the bottom-left corner.
    // Fitted, the drawing (every item's bounding box, in viewport pixels) stays inside the viewport and off the key,
    // for a round drawing (beside the key), a wide one (above it), and after a resize; and it still fills the
    // direction that limits it: more than half of what the key leaves in width or height.
    for (const QString& workspace : { QStringLiteral("llama-3.1-405b-gb200-nvl72"), QString() }) {
        auto window = workspace.isEmpty() ? openWindow() : openWindow(workspace);
        QVERIFY(window);
        TopologyPanel* panel = showTopologyTab(*window);
        TopologyView* view = panel->view();
        const auto check = [&] {
            QCoreApplication::processEvents();
            const QRect drawn = view->mapFromScene(panel->scene()->itemsBoundingRect()).boundingRect();
            const QRect key = panel->legend()->geometry().translated(-view->viewport()->geometry().topLeft());
            const QRect area = view->viewport()->rect();
            QString what = workspace.isEmpty() ? QStringLiteral("default") : workspace;
            QDebug(&what) << "drawing" << drawn << "key" << key << "viewport" << area;
            QVERIFY2(area.adjusted(-2, -2, 2, 2).contains(drawn), qPrintable(what));
            QVERIFY2(!drawn.intersects(key), qPrintable(what));
            const bool fillsWidth = drawn.width() > (area.width() - key.width()) / 2;
            const bool fillsHeight = drawn.height() > (area.height() - key.height()) / 2;
            QVERIFY2(fillsWidth || fillsHeight, qPrintable(what));
        };
        QTest::mouseClick(panel->fitButton(), Qt::LeftButton);
        check();
        window->resize(window->width() - 200, window->height() - 120);
        check();
    }
}

void TstTopologyView::aNarrowTabPutsTheControlsUnderTheDrawing()
{
    // Found at 1,024 x 700 under Xvfb: the Results dock leaves the tab ~510 px, the 270-px side column left the drawing
    // ~210 px, and the key's "degraded (health shown)" was cut off at the drawing's edge.
    auto window = openWindow();
    QVERIFY(window);
    TopologyPanel* panel = showTopologyTab(*window);
    TopologyView* view = panel->view();
    widgets::TopologyLegend* legend = panel->legend();
    auto* side = panel->findChild<QScrollArea*>(QStringLiteral("topologySideScroll"));
    QVERIFY(side);
    window->resize(1024, 700);
    QTRY_VERIFY(!panel->controlsBesideView());
    // The side column's 270 px and the 320-px drawing do not fit the tab: the precondition of the case.
    QVERIFY2(panel->width() < 270 + 320, qPrintable(QString::number(panel->width())));
    QTRY_VERIFY(side->geometry().top() >= view->geometry().bottom());
    QVERIFY(view->width() >= panel->width() - 8); // the whole width, less the layout's margins
    QVERIFY(side->width() >= panel->width() - 8);
    QVERIFY(side->maximumHeight() <= panel->height() * 2 / 5 + 1);
    // The key is whole: as wide as its sample line, the gap and its longest text in the font it draws with, plus its
    // padding (36 + 10 px and 4 px on either side), and inside the drawing.
    const QFontMetrics metrics(legend->font());
    QVERIFY(legend->width() >= 36 + 10 + metrics.horizontalAdvance(QStringLiteral("degraded (health shown)")) + 8);
    QVERIFY(view->viewport()->geometry().contains(legend->geometry()));
    QCOMPARE(legend->size(), legend->sizeHint());

    // A wide window: the column goes back beside the drawing, on its right, at its fixed width.
    window->resize(1600, 900);
    QTRY_VERIFY(panel->controlsBesideView());
    QTRY_VERIFY(side->geometry().left() >= view->geometry().right());
    QCOMPARE(side->width(), widgets::InputsColumnLayout::kInputsWidth);
    QCOMPARE(side->maximumHeight(), QWIDGETSIZE_MAX);
    QCOMPARE(legend->size(), legend->sizeHint());

    // And back: the wide layout must not hold the window wide (the window's minimum stays below 1,024 px).
    window->resize(1024, 700);
    QTRY_VERIFY(!panel->controlsBesideView());
    QCOMPARE(window->width(), 1024);
    QVERIFY(window->minimumSizeHint().width() <= 1024);
}

/// The labels @p view draws in its viewport at its zoom: text and on-screen height (group titles, band names, markers,
/// GPU and switch names).
QList<std::pair<QString, double>> visibleLabels(TopologyView* view)
{
    QList<std::pair<QString, double>> shown;
    const double zoom = view->zoom();
    for (QGraphicsItem* item : view->items(view->viewport()->rect())) {
        if (auto* label = qgraphicsitem_cast<widgets::LabelItem*>(item)) {
            if (!label->shownText(zoom).isEmpty()) {
                shown.append({ label->shownText(zoom), label->textPixelHeight(zoom) });
            }
        } else if (auto* node = qgraphicsitem_cast<widgets::NodeItem*>(item)) {
            if (node->labelPixelHeight(zoom) > 0) {
                shown.append({ node->label(), node->labelPixelHeight(zoom) });
            }
        }
    }
    return shown;
}

void TstTopologyView::labelsAreReadableAndDistinct()
{
    auto window = openWindow();
    QVERIFY(window);
    // The window as a user at 1280 x 720 has it: node boxes about 55 pixels wide at Fit to View, where the titles
    // once read "nod…" (their room was measured in scene units against a text that keeps its screen size).
    window->resize(1280, 720);
    TopologyPanel* panel = showTopologyTab(*window);
    TopologyView* view = panel->view();
    QCoreApplication::processEvents();
    QTest::mouseClick(panel->fitButton(), Qt::LeftButton);
    QCoreApplication::processEvents();
    // At Fit to View the network is named: every label drawn is at least kMinTextPixels high, no two read the same,
    // and the 8 node boxes' titles and the 4 drawn rails' band names are among them.
    const auto fitted = visibleLabels(view);
    QSet<QString> texts;
    int nodeTitles = 0;
    int rails = 0;
    for (const auto& [text, height] : fitted) {
        QVERIFY2(height >= widgets::kMinTextPixels, qPrintable(QStringLiteral("%1: %2 px").arg(text).arg(height)));
        QVERIFY2(!texts.contains(text), qPrintable(QStringLiteral("\"%1\" twice").arg(text)));
        texts.insert(text);
        // A node's title names it whole ("node 3", its GPU range when there is room), never elided.
        static const QRegularExpression wholeNodeTitle(QStringLiteral("^node \\d+( · GPUs \\d+–\\d+)?$"));
        nodeTitles += wholeNodeTitle.match(text).hasMatch() ? 1 : 0;
        rails += text.startsWith(QLatin1String("ib instance ")) ? 1 : 0;
    }
    QCOMPARE(nodeTitles, panel->scene()->topology()->gpuCount() / 8);
    QCOMPARE(rails, panel->scene()->limits().maxInstanceBands);

    // Zoomed in on the network's first node: the GPUs' ranks and the node's switch are readable, and the switch
    // reads as the node's NVLink switch, not as "s1.0" like every other node's.
    view->setZoom(1.0);
    view->centerOn(panel->scene()->groupItems().first()->boundingRect().center());
    QCoreApplication::processEvents();
    const auto zoomed = visibleLabels(view);
    QStringList names;
    for (const auto& [text, height] : zoomed) {
        QVERIFY(height >= widgets::kMinTextPixels);
        names.append(text);
    }
    QVERIFY2(names.contains(QStringLiteral("0")) && names.contains(QStringLiteral("nvlink 0")),
        qPrintable(names.join(QLatin1String(", "))));
    QVERIFY(!names.contains(QStringLiteral("s1.0")) || names.count(QStringLiteral("s1.0")) == 1);
}

void TstTopologyView::searchFindsGpusAndLinks()
{
    auto window = openWindow();
    QVERIFY(window);
    TopologyPanel* panel = showTopologyTab(*window);
    TopologyView* view = panel->view();
    TopologyScene* scene = panel->scene();
    QLineEdit* field = panel->search()->field();
    QLabel* message = panel->search()->messageLabel();
    auto search = [&](const QString& text) {
        field->clear();
        QTest::keyClicks(field, text);
        QTest::keyClick(field, Qt::Key_Return);
        QCoreApplication::processEvents();
    };
    auto shownInViewport = [view](const QPointF& scenePoint) {
        return view->viewport()->rect().contains(view->mapFromScene(scenePoint));
    };
    auto gpuItem = [scene](int gpu) -> const widgets::NodeItem* {
        for (const widgets::NodeItem* node : scene->nodeItems()) {
            if (!node->isSwitch() && node->nodeIndex() == gpu) {
                return node;
            }
        }
        return nullptr;
    };

    // A GPU by number, with or without "gpu": ringed and in sight at a readable zoom.
    search(QStringLiteral("gpu 12"));
    QVERIFY(message->isHidden());
    QCOMPARE(scene->highlightedNode(), 12);
    QVERIFY(gpuItem(12)->isHighlighted());
    QVERIFY(view->zoom() >= 1.0);
    QVERIFY(shownInViewport(gpuItem(12)->pos()));
    search(QStringLiteral("63"));
    QCOMPARE(scene->highlightedNode(), 63);
    QVERIFY(shownInViewport(gpuItem(63)->pos()));

    // A link id typed the other way round: selected (so the editor shows it) and in sight.
    search(QStringLiteral("nvlink@1:s1.0-1"));
    QVERIFY(message->isHidden());
    QCOMPARE(scene->highlightedNode(), -1);
    QCOMPARE(scene->selectedLinkIds(), QStringList { QStringLiteral("nvlink@1:1-s1.0") });
    QVERIFY(panel->editor()->selectionLabel()->text().contains(QLatin1String("nvlink@1:1-s1.0")));
    QVERIFY(shownInViewport(scene->linkItem(QStringLiteral("nvlink@1:1-s1.0"))->pointAt(0.5)));

    // What cannot be found is said inline, and the selection stays.
    const QStringList selected = scene->selectedLinkIds();
    const int gpus = scene->topology()->gpuCount();
    search(QStringLiteral("gpu %1").arg(gpus));
    QVERIFY(message->isVisible());
    QVERIFY(message->text().contains(QString::number(gpus)));
    search(QStringLiteral("no such thing"));
    QVERIFY(message->isVisible());
    // Rail 7 exists, but only the first 4 rails are drawn by default.
    QVERIFY(scene->topology()->findLink("ib@7:0-s1.0") >= 0);
    search(QStringLiteral("ib@7:0-s1.0"));
    QVERIFY(message->isVisible());
    QVERIFY(message->text().contains(QLatin1String("not drawn")));
    QCOMPARE(scene->selectedLinkIds(), selected);
    // Typing again takes the old message away.
    QTest::keyClick(field, Qt::Key_Backspace);
    QVERIFY(message->isHidden());
}

void TstTopologyView::miniMapOutlinesAndRecentres()
{
    auto window = openWindow();
    QVERIFY(window);
    TopologyPanel* panel = showTopologyTab(*window);
    TopologyView* view = panel->view();
    widgets::TopologyMiniMap* map = view->miniMap();
    // At Fit to View it would repeat the drawing: hidden.
    QTest::mouseClick(panel->fitButton(), Qt::LeftButton);
    QVERIFY(map->isHidden());
    // Zoomed in: shown over the viewport's top-right corner, apart from the legend, the whole scene inside it.
    view->setZoom(1.5);
    QCoreApplication::processEvents();
    QVERIFY(map->isVisible());
    const QRect area = view->viewport()->geometry();
    QVERIFY(area.contains(map->geometry()));
    QVERIFY(!map->geometry().intersects(panel->legend()->geometry()));
    QVERIFY(map->geometry().right() > area.center().x() && map->geometry().top() < area.center().y());
    const QRectF whole = map->mapToScene(map->viewport()->rect()).boundingRect();
    QVERIFY(whole.adjusted(-1, -1, 1, 1).contains(panel->scene()->sceneRect()));
    // The outline is what the view shows.
    QCOMPARE(map->shownSceneRect(), view->mapToScene(view->viewport()->rect()).boundingRect());
    // A click in the overview centres the view there (the scene's middle: far from the scroll limits).
    const QPointF target = panel->scene()->sceneRect().center();
    QTest::mouseClick(map->viewport(), Qt::LeftButton, {}, map->mapFromScene(target));
    const QPointF centre = view->mapToScene(view->viewport()->rect().center());
    const double tolerance = 2.0 / map->transform().m11(); // a pixel of the overview either way
    QVERIFY2(std::abs(centre.x() - target.x()) <= tolerance && std::abs(centre.y() - target.y()) <= tolerance,
        qPrintable(
            QStringLiteral("(%1, %2) for (%3, %4)").arg(centre.x()).arg(centre.y()).arg(target.x()).arg(target.y())));
    QCOMPARE(view->zoom(), 1.5);
    // The wheel over the overview zooms the view, not the overview.
    const QTransform overview = map->transform();
    const QPoint onMap = map->viewport()->rect().center();
    QWheelEvent wheel(onMap, map->viewport()->mapToGlobal(onMap), QPoint(), QPoint(0, 120), Qt::NoButton,
        Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(map->viewport(), &wheel);
    QVERIFY(view->zoom() > 1.5 * 1.1);
    QCOMPARE(map->transform(), overview);
    // Fit to View hides it again.
    QTest::mouseClick(panel->fitButton(), Qt::LeftButton);
    QVERIFY(map->isHidden());
}

void TstTopologyView::largeTiersFoldIntoAGlyph()
{
    auto window = openWindow();
    QVERIFY(window);
    TopologyPanel* panel = showTopologyTab(*window);
    TopologyView* view = panel->view();
    TopologyScene* scene = panel->scene();
    // The default workspace's InfiniBand rails (dimension 1) are 2-tier fat trees; their spine count comes from the
    // preset through the topology, and is more than the view draws one by one.
    const network::Topology& topology = *scene->topology();
    QCOMPARE(topology.layout(1).switchesPerTier.size(), size_t(2));
    const int spines = topology.layout(1).switchesPerTier[1];
    QVERIFY(spines > scene->limits().maxSwitchesUnfolded);
    const int rails = scene->limits().maxInstanceBands;
    const int itemsFolded = static_cast<int>(scene->items().size());
    const int switchesFolded = countItems(*scene).switches;
    // One glyph per drawn rail, saying how many spines it stands for.
    QCOMPARE(scene->glyphItems().size(), rails);
    for (const widgets::GlyphItem* glyph : scene->glyphItems()) {
        QVERIFY2(glyph->text().contains(QStringLiteral("%1 spine").arg(spines)), qPrintable(glyph->text()));
        QCOMPARE(glyph->tier(), 2);
    }
    // A double-click on a glyph draws every rail's spines.
    auto doubleClick = [view](QGraphicsItem* item) {
        view->setZoom(1.0);
        view->centerOn(item);
        QTest::mouseDClick(view->viewport(), Qt::LeftButton, {}, view->mapFromScene(item->scenePos()));
        QCoreApplication::processEvents();
    };
    doubleClick(scene->glyphItems().first());
    QVERIFY(scene->glyphItems().isEmpty());
    QCOMPARE(countItems(*scene).switches, switchesFolded + rails * spines); // a glyph is not a switch item
    QVERIFY(static_cast<int>(scene->items().size()) > itemsFolded);
    // A double-click on one of the spines folds them back.
    const widgets::NodeItem* spine = nullptr;
    for (const widgets::NodeItem* node : scene->nodeItems()) {
        const network::Node& info = topology.node(node->nodeIndex());
        spine = node->isSwitch() && info.dimension == 1 && info.tier == 2 ? node : spine;
    }
    QVERIFY(spine);
    doubleClick(const_cast<widgets::NodeItem*>(spine));
    QCOMPARE(scene->glyphItems().size(), rails);
    QCOMPARE(countItems(*scene).switches, switchesFolded);
}

void TstTopologyView::tooltipsShowCoordinatesAndGroups()
{
    auto window = openWindow();
    QVERIFY(window);
    TopologyScene* scene = showTopologyTab(*window)->scene();
    // Default placement (mapping tp: nvlink, dp: ib, pp: ib) lays the axes out tp, dp, pp, cp with strides 1, 8, 16,
    // 64. GPU 12 = rank 12: nvlink endpoint 12 % 8 = 4 of node 1, ib endpoint 1 of rail 4; tp index 4 (group 12 / 8
    // = 1), dp index 12 / 8 % 2 = 1 (group 12 % 8 + 12 / 16 * 8 = 4), pp index 12 / 16 % 4 = 0 (group 12).
    QString tooltip;
    for (const widgets::NodeItem* node : scene->nodeItems()) {
        tooltip = !node->isSwitch() && node->nodeIndex() == 12 ? node->toolTip() : tooltip;
    }
    QVERIFY2(tooltip.startsWith(QLatin1String("GPU 12 (rank 12)")), qPrintable(tooltip));
    QVERIFY2(tooltip.contains(QLatin1String("nvlink: endpoint 4 of nvlink@1")), qPrintable(tooltip));
    QVERIFY2(tooltip.contains(QLatin1String("ib: endpoint 1 of ib@4")), qPrintable(tooltip));
    QVERIFY2(tooltip.contains(QLatin1String("tp 4 of 8, group 1")), qPrintable(tooltip));
    QVERIFY2(tooltip.contains(QLatin1String("dp 1 of 2, group 4")), qPrintable(tooltip));
    QVERIFY2(tooltip.contains(QLatin1String("pp 0 of 4, group 12")), qPrintable(tooltip));
    // Node 1 (GPUs 8-15) holds one tensor-parallel group: dp 1 and pp 0 are the same for all of it.
    QStringList titles;
    for (const widgets::GroupItem* group : scene->groupItems()) {
        titles.append(group->title());
    }
    QVERIFY2(titles.contains(QStringLiteral("node 1 · GPUs 8–15 · dp 1 · pp 0")), qPrintable(titles.join(u'|')));
    // A link of another rail (InfiniBand instance 3) is editable too: its fault is written with the "@3" form the
    // hardware loader accepts.
    LinkItem* otherRail = scene->linkItem(QStringLiteral("ib@3:1-s1.0"));
    QVERIFY(otherRail);
    QVERIFY(otherRail->isWritable());
    TopologyPanel* panel = window->topologyPanel();
    scene->selectLinks({ otherRail->linkId() });
    QVERIFY(panel->editor()->failButton()->isEnabled());
    QTest::mouseClick(panel->editor()->failButton(), Qt::LeftButton);
    QTRY_VERIFY(window->document()->text(widgets::DocumentKind::Hardware).contains(QLatin1String("ib@3:1-s1.0")));
}

void TstTopologyView::faultOnMissingLinkIsReported()
{
    // "ib:s1.5-s2.0" names a leaf the fat tree of 8 nodes does not have (one leaf, k = 32): the loader accepts the id
    // (it checks names, not existence), the topology refuses the fault. The view draws the network without faults and
    // says why; the step model reports the same problem instead of a time.
    auto window = openWindow();
    QVERIFY(window);
    TopologyPanel* panel = showTopologyTab(*window);
    QVERIFY(panel->setLinkHealth({ QStringLiteral("ib:s1.5-s2.0") }, 0.0));
    QVERIFY(window->document()->scenario());
    QLabel* problem = panel->findChild<QLabel*>(QStringLiteral("topologyProblem"));
    QVERIFY(problem);
    QVERIFY(!problem->isHidden());
    QVERIFY2(problem->text().contains(QLatin1String("no such link")), qPrintable(problem->text()));
    for (const LinkItem* link : panel->scene()->linkItems()) {
        QCOMPARE(link->health(), 1.0);
    }
    window->document()->undoStack()->undo();
    QVERIFY(problem->isHidden());
}

void TstTopologyView::failLinkWritesFaultAndChangesStepTime()
{
    auto window = openWindow();
    QVERIFY(window);
    widgets::WorkspaceDocument* document = window->document();
    QSignalSpy shown(window->resultsPanel(), &widgets::ResultsPanel::evaluationShown);
    QTRY_VERIFY_WITH_TIMEOUT(evaluated(*window), kEvaluationTimeoutMs);
    const double healthyStep = stepTime(*window);
    QVERIFY(healthyStep > 0);
    const QString originalText = document->text(DocumentKind::Hardware);
    QVERIFY(!originalText.contains(QLatin1String("faults")));

    // GPU 0's NVLink: every tensor-parallel collective of node 0 crosses it.
    TopologyPanel* panel = showTopologyTab(*window);
    const QString id = QStringLiteral("nvlink:0-s1.0");
    QVERIFY(clickLink(panel->view(), id));
    shown.clear();
    QTest::mouseClick(panel->editor()->failButton(), Qt::LeftButton);

    const QString failedText = document->text(DocumentKind::Hardware);
    QVERIFY2(failedText.contains(QLatin1String("\n  faults:\n    - {link: \"nvlink:0-s1.0\", health: 0}\n")),
        qPrintable(failedText));
    QVERIFY(failedText.startsWith(originalText.section(QLatin1Char('\n'), 0, 8))); // the preset's comments stay
    QVERIFY(document->scenario());
    QCOMPARE(document->scenario()->hardware.faults.size(), size_t(1));
    QCOMPARE(document->scenario()->hardware.faults[0].linkId, id.toStdString());
    QCOMPARE(document->scenario()->hardware.faults[0].health, 0.0);
    QCOMPARE(document->undoStack()->count(), 1);
    // The view is redrawn from the new hardware: the link is failed and still selected.
    QCOMPARE(panel->scene()->linkItem(id)->health(), 0.0);
    QCOMPARE(panel->scene()->selectedLinkIds(), QStringList { id });
    QVERIFY(panel->editor()->restoreButton()->isEnabled());

    // The evaluation re-ran: GPU 0 is cut off from its tensor-parallel group, so either the step time rose or the
    // evaluation names the unreachable pair instead of a time.
    QTRY_VERIFY_WITH_TIMEOUT(settled(*window, shown), kEvaluationTimeoutMs);
    const auto& failed = window->resultsPanel()->evaluation();
    QVERIFY(failed);
    if (failed->training) {
        QVERIFY2(failed->training->stepTimeSeconds > healthyStep, qPrintable(QString::number(stepTime(*window))));
    } else {
        // "GPU 0 and GPU 1 have no surviving path in network dimension "nvlink" ...": the pair is named.
        QVERIFY2(
            QString::fromStdString(failed->timeProblem).contains(QLatin1String("GPU 0")), failed->timeProblem.c_str());
        QVERIFY(window->resultsPanel()->noteLabel()->isVisible());
    }

    // Ctrl+Z takes the fault back, and the step time returns.
    shown.clear();
    window->activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(window.get()));
    QTest::keyClick(window.get(), Qt::Key_Z, Qt::ControlModifier);
    QCOMPARE(document->text(DocumentKind::Hardware), originalText);
    QVERIFY(document->scenario()->hardware.faults.empty());
    QCOMPARE(panel->scene()->linkItem(id)->health(), 1.0);
    QTRY_VERIFY_WITH_TIMEOUT(settled(*window, shown), kEvaluationTimeoutMs);
    QCOMPARE(stepTime(*window), healthyStep);
}

void TstTopologyView::degradedHealthViaSlider()
{
    auto window = openWindow();
    QVERIFY(window);
    widgets::WorkspaceDocument* document = window->document();
    QSignalSpy shown(window->resultsPanel(), &widgets::ResultsPanel::evaluationShown);
    QTRY_VERIFY_WITH_TIMEOUT(evaluated(*window), kEvaluationTimeoutMs);
    const double healthyStep = stepTime(*window);
    QVERIFY(healthyStep > 0);

    TopologyPanel* panel = showTopologyTab(*window);
    widgets::LinkHealthEditor* editor = panel->editor();
    const QString id = QStringLiteral("nvlink:0-s1.0");
    QVERIFY(clickLink(panel->view(), id));
    QCOMPARE(editor->slider()->value(), 100);
    // Five Page Downs of 0.10 on the slider: 1.00 -> 0.50, and the spin box follows.
    editor->slider()->setFocus();
    for (int step = 0; step < 5; ++step) {
        QTest::keyClick(editor->slider(), Qt::Key_PageDown);
    }
    QCOMPARE(editor->slider()->value(), 50);
    QCOMPARE(editor->spinBox()->value(), 0.5);
    shown.clear();
    QTest::mouseClick(editor->applyButton(), Qt::LeftButton);
    QVERIFY2(document->text(DocumentKind::Hardware).contains(QLatin1String("- {link: \"nvlink:0-s1.0\", health: 0.5}")),
        qPrintable(document->text(DocumentKind::Hardware)));
    QCOMPARE(panel->scene()->linkItem(id)->health(), 0.5);
    QVERIFY(editor->selectionLabel()->text().contains(QLatin1String("health 0.50")));

    // Half of GPU 0's NVLink bandwidth slows node 0's tensor-parallel collectives, so the step gets longer.
    QTRY_VERIFY_WITH_TIMEOUT(settled(*window, shown), kEvaluationTimeoutMs);
    QVERIFY2(stepTime(*window) > healthyStep,
        qPrintable(QStringLiteral("%1 vs %2; %3")
                       .arg(stepTime(*window))
                       .arg(healthyStep)
                       .arg(QString::fromStdString(window->resultsPanel()->evaluation()->timeProblem))));

    // The spin box drives the slider; Restore removes the fault again (a second undo step).
    editor->spinBox()->setValue(0.25);
    QCOMPARE(editor->slider()->value(), 25);
    QTest::mouseClick(editor->restoreButton(), Qt::LeftButton);
    QVERIFY(!document->text(DocumentKind::Hardware).contains(QLatin1String("faults")));
    QCOMPARE(document->undoStack()->count(), 2);
    QCOMPARE(panel->scene()->linkItem(id)->health(), 1.0);
}

void TstTopologyView::typedHealthIsKeptAndApplied()
{
    // Issue #18, defect 1: typing 0.5 into the health box turned into 0.00 as it was typed (the slider's echo
    // rewrote the text after the "0"), and Apply then failed the link.
    auto window = openWindow();
    QVERIFY(window);
    TopologyPanel* panel = showTopologyTab(*window);
    widgets::LinkHealthEditor* editor = panel->editor();
    const QString id = QStringLiteral("nvlink:0-s1.0");
    QVERIFY(clickLink(panel->view(), id));
    QDoubleSpinBox* spin = editor->spinBox();
    QSignalSpy requested(editor, &widgets::LinkHealthEditor::healthRequested);
    for (const QString& typed : { QStringLiteral("0.5"), QStringLiteral("0.8") }) {
        requested.clear();
        spin->setFocus();
        QTest::keyClick(spin, Qt::Key_A, Qt::ControlModifier);
        QString shown;
        for (const QChar key : typed) {
            QTest::keyClicks(spin, QString(key));
            shown += key;
            QCOMPARE(spin->text(), shown); // never rewritten under the user's fingers
        }
        QCOMPARE(editor->slider()->value(), qRound(typed.toDouble() * 100)); // the slider follows
        QTest::mouseClick(editor->applyButton(), Qt::LeftButton);
        QCOMPARE(requested.count(), 1);
        QCOMPARE(requested.at(0).at(0).toDouble(), typed.toDouble());
        const QString written = QStringLiteral("- {link: \"nvlink:0-s1.0\", health: %1}").arg(typed);
        QVERIFY2(window->document()->text(DocumentKind::Hardware).contains(written),
            qPrintable(window->document()->text(DocumentKind::Hardware)));
        QCOMPARE(panel->scene()->linkItem(id)->health(), typed.toDouble());
    }
}

void TstTopologyView::utilisationColoursLinks()
{
    // Made-up utilisation on a ring of 8 (16 directed links; the congestion-aware backend will fill these).
    TopologyScene scene;
    scene.setTopology(topologyOf({ dimension("ring", config::NetworkKind::Ring, 8) }));
    QVERIFY(!scene.hasUtilisation());
    std::vector<double> load(16, 0.0);
    load[0] = 0.2; // ring:0-1, a -> b
    load[1] = 0.9; // ring:0-1, b -> a: the busier direction colours the link
    load[6] = 0.5; // ring:3-4
    QVERIFY(scene.setLinkUtilisation(load));
    QVERIFY(scene.hasUtilisation());
    QCOMPARE(*scene.linkItem(QStringLiteral("ring:0-1"))->utilisation(), 0.9);
    QCOMPARE(*scene.linkItem(QStringLiteral("ring:3-4"))->utilisation(), 0.5);
    QCOMPARE(*scene.linkItem(QStringLiteral("ring:1-2"))->utilisation(), 0.0);
    QVERIFY(scene.linkItem(QStringLiteral("ring:0-1"))->toolTip().contains(QLatin1String("utilisation 90%")));
    QVERIFY(!scene.setLinkUtilisation(std::vector<double>(15, 0.5))); // not one value per directed link
    QCOMPARE(*scene.linkItem(QStringLiteral("ring:0-1"))->utilisation(), 0.9);
    QVERIFY(scene.setLinkUtilisation({}));
    QVERIFY(!scene.hasUtilisation());
    QVERIFY(!scene.linkItem(QStringLiteral("ring:0-1"))->utilisation());
}

void TstTopologyView::screenshots()
{
    // The default workspace with one failed and one degraded link, the failed one selected.
    auto window = openWindow();
    QVERIFY(window);
    TopologyPanel* panel = showTopologyTab(*window);
    QVERIFY(panel->setLinkHealth({ QStringLiteral("nvlink:2-s1.0") }, 0.0));
    QVERIFY(panel->setLinkHealth({ QStringLiteral("ib:0-s1.0") }, 0.4));
    panel->scene()->selectLinks({ QStringLiteral("nvlink:2-s1.0") });
    panel->view()->fitToView();
    QCoreApplication::processEvents();
    QVERIFY(test::saveScreenshot(window->grab(), QStringLiteral("topology-dgx-h100.png")));
    // Zoomed in on node 0 (with the failed link) and the degraded link of the fabric above it.
    TopologyView* view = panel->view();
    const QPointF degraded = panel->scene()->linkItem(QStringLiteral("ib:0-s1.0"))->pointAt(0.5);
    const QRectF frame = panel->scene()->groupItems().first()->boundingRect().united(
        QRectF(degraded - QPointF(80, 60), QSizeF(160, 120)));
    view->setZoom(
        std::min({ 1.0, view->viewport()->width() / frame.width(), view->viewport()->height() / frame.height() }));
    view->centerOn(frame.center());
    QCoreApplication::processEvents();
    QVERIFY(test::saveScreenshot(window->grab(), QStringLiteral("topology-dgx-h100-zoomed.png")));

    // The same under a dark palette, to check by eye (build directory only).
    const QPalette original = QApplication::palette();
    QApplication::setPalette(test::darkPalette());
    QCoreApplication::processEvents();
    QVERIFY(window->grab().save(QStringLiteral(RAPID_SCREENSHOT_DIR "/topology-dgx-h100-zoomed-dark.png")));
    QApplication::setPalette(original);

    // A 4x4 torus with made-up utilisation (the congestion-aware backend will provide real values).
    QTemporaryDir directory;
    QVERIFY(directory.isValid());
    auto torus = openWindow(writeTorusWorkspace(directory));
    QVERIFY(torus);
    TopologyPanel* torusPanel = showTopologyTab(*torus);
    const network::Topology* topology = torusPanel->scene()->topology();
    QCOMPARE(topology->gpuCount(), 16);
    std::vector<double> load(static_cast<size_t>(topology->linkCount()));
    for (size_t link = 0; link < load.size(); ++link) {
        load[link] = static_cast<double>((link * 37) % 100) / 100.0;
    }
    QVERIFY(torusPanel->setLinkUtilisation(load));
    QVERIFY(torusPanel->legend()->showsUtilisation());
    QVERIFY(torusPanel->setLinkHealth({ QStringLiteral("torus:0-3") }, 0.0)); // a wrap-around link
    QCoreApplication::processEvents();
    QVERIFY(torusPanel->setLinkUtilisation(load)); // the redraw after the fault cleared it
    QCoreApplication::processEvents();
    QVERIFY(test::saveScreenshot(torus->grab(), QStringLiteral("topology-torus-utilisation.png")));
    QApplication::setPalette(test::darkPalette());
    QCoreApplication::processEvents();
    QVERIFY(torus->grab().save(QStringLiteral(RAPID_SCREENSHOT_DIR "/topology-torus-utilisation-dark.png")));
    QApplication::setPalette(original);

    // 1,024 GPUs drawn in part, with the "+K more" markers.
    TopologyScene big;
    big.setTopology(topologyOf({ dimension("nvlink", config::NetworkKind::Switch, 8), fatTree("ib", 128, 2, 64) }));
    TopologyView bigView(&big);
    bigView.resize(1100, 700);
    bigView.show();
    QVERIFY(QTest::qWaitForWindowExposed(&bigView));
    bigView.fitToView();
    QCoreApplication::processEvents();
    QVERIFY(test::saveScreenshot(bigView.grab(), QStringLiteral("topology-1024-gpus.png")));
    bigView.setZoom(0.8);
    bigView.centerOn(big.sceneRect().bottomRight() - QPointF(500, 300));
    QCoreApplication::processEvents();
    QVERIFY(bigView.grab().save(QStringLiteral(RAPID_SCREENSHOT_DIR "/topology-1024-gpus-corner.png")));

    // More kinds, to check by eye (build directory only).
    const std::vector<std::pair<QString, std::shared_ptr<const network::Topology>>> gallery = {
        { QStringLiteral("ring-8"), topologyOf({ dimension("ring", config::NetworkKind::Ring, 8) }) },
        { QStringLiteral("mesh-3x3"), topologyOf({ dimension("mesh", config::NetworkKind::Mesh2d, 9, { 3, 3 }) }) },
        { QStringLiteral("torus-4x3x3"),
            topologyOf({ dimension("torus", config::NetworkKind::Torus3d, 36, { 4, 3, 3 }) }) },
        { QStringLiteral("fully-connected-6"),
            topologyOf({ dimension("fc", config::NetworkKind::FullyConnected, 6) }) },
        { QStringLiteral("switch-4-x-ring-6"),
            topologyOf({ dimension("nvlink", config::NetworkKind::Switch, 4),
                dimension("ring", config::NetworkKind::Ring, 6) }) },
        { QStringLiteral("fat-tree-16-3-tiers"), topologyOf({ fatTree("ib", 16, 3, 4) }) },
        { QStringLiteral("switch-4-x-fat-tree-4"),
            topologyOf({ dimension("nvlink", config::NetworkKind::Switch, 4), fatTree("ib", 4, 2, 4) }) },
    };
    for (const auto& [name, network] : gallery) {
        TopologyScene scene;
        scene.setTopology(network);
        TopologyView shot(&scene);
        shot.resize(900, 650);
        shot.show();
        QVERIFY(QTest::qWaitForWindowExposed(&shot));
        shot.fitToView();
        QCoreApplication::processEvents();
        QVERIFY(shot.grab().save(
            QStringLiteral(RAPID_SCREENSHOT_DIR "/topology-gallery-") + name + QStringLiteral(".png")));
    }
}

QTEST_MAIN(TstTopologyView)
#include "tst_topologyview.moc"
