// SPDX-License-Identifier: GPL-3.0-or-later
// The Graph view on Chakra traces written by other tools (../shared/chakra-samples): Graphviz rendering and its
// errors, the rank chooser, filters counted against the trace, search outlines, a click on a node showing its
// attributes, the 3,664-node PyTorch trace drawn a window of ids at a time and its defects listed, filters of one
// trace set not blanking the next, Cancel and stale layouts, the reader's errors, the main window's Graph tab and
// File action, the graph in a window of its own, and the screenshot.
#include "results/resultspanel.h"
#include "tracegraph/graphcanvas.h"
#include "tracegraph/graphdefectlist.h"
#include "tracegraph/graphpager.h"
#include "tracegraph/graphpopout.h"
#include "tracegraph/graphselection.h"
#include "tracegraph/graphview.h"
#include "tracegraph/graphvizrenderer.h"
#include "tracegraph/svgnodeindex.h"
#include "widgettestutils.h"

#include "graph/chakrainspect.h"
#include "graph/chakrareader.h"

#include <QAction>
#include <QComboBox>
#include <QElapsedTimer>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScreen>
#include <QScrollBar>
#include <QSet>
#include <QSignalSpy>
#include <QStyle>
#include <QTabWidget>
#include <QTest>
#include <QToolButton>
#include <QTreeWidget>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <thread>

using namespace rapid;
using widgets::GraphCanvas;
using widgets::GraphView;

namespace {

constexpr int kLayoutTimeoutMs = 60000; // two busy cores under CI; the layouts here take well under a second alone

QString samplePath(const char* relative)
{
    return QStringLiteral(RAPID_SHARED_DIR "/chakra-samples/") + QString::fromUtf8(relative);
}

std::vector<graph::ChakraTrace> readSample(const char* relative)
{
    return graph::readChakraDirectory(std::filesystem::path(samplePath(relative).toStdString()));
}

std::set<std::uint64_t> idsOf(const graph::ChakraTrace& trace)
{
    std::set<std::uint64_t> ids;
    for (const graph::ChakraNode& node : trace.nodes) {
        ids.insert(node.id);
    }
    return ids;
}

std::set<std::uint64_t> drawnIds(const GraphCanvas& canvas)
{
    const std::vector<std::uint64_t> ids = canvas.nodeIds();
    return { ids.begin(), ids.end() };
}

std::string lower(std::string text)
{
    std::transform(
        text.begin(), text.end(), text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return text;
}

/// Nodes whose name or type name contains @p text, ignoring case: the filter's documented rule, counted here
/// independently of its implementation.
std::size_t countMatching(const graph::ChakraTrace& trace, const std::string& text)
{
    const std::string needle = lower(text);
    return static_cast<std::size_t>(std::count_if(trace.nodes.begin(), trace.nodes.end(), [&](const auto& node) {
        return lower(node.name).find(needle) != std::string::npos
            || lower(graph::toString(node.type)).find(needle) != std::string::npos;
    }));
}

/// The ids of @p trace from @p first to @p last, all of them: what a window of consecutive ids must draw.
std::set<std::uint64_t> idsBetween(const graph::ChakraTrace& trace, std::uint64_t first, std::uint64_t last)
{
    std::set<std::uint64_t> ids;
    for (const graph::ChakraNode& node : trace.nodes) {
        if (node.id >= first && node.id <= last) {
            ids.insert(node.id);
        }
    }
    return ids;
}

/// Data and control dependencies between two nodes of @p ids, one edge per entry (writeChakraDot's rule).
std::size_t edgesAmong(const graph::ChakraTrace& trace, const std::set<std::uint64_t>& ids)
{
    std::size_t edges = 0;
    for (const graph::ChakraNode& node : trace.nodes) {
        if (ids.count(node.id)) {
            for (const auto* deps : { &node.dataDeps, &node.ctrlDeps }) {
                edges += static_cast<std::size_t>(
                    std::count_if(deps->begin(), deps->end(), [&](std::uint64_t parent) { return ids.count(parent); }));
            }
        }
    }
    return edges;
}

/// Clicks @p item of @p tree as a user would, after scrolling it into view.
void clickItem(QTreeWidget* tree, QTreeWidgetItem* item)
{
    tree->scrollToItem(item);
    QCoreApplication::processEvents();
    const QRect rect = tree->visualItemRect(item);
    QVERIFY(tree->viewport()->rect().contains(rect.center()));
    QTest::mouseClick(tree->viewport(), Qt::LeftButton, Qt::NoModifier, rect.center());
}

/// Types @p text into @p edit and presses Enter, as a user applies a filter.
void typeAndEnter(QLineEdit* edit, const QString& text)
{
    edit->setFocus();
    edit->selectAll();
    QTest::keyClicks(edit, text);
    QTest::keyClick(edit, Qt::Key_Return);
}

const graph::ChakraNode* firstOfType(const graph::ChakraTrace& trace, graph::ChakraNodeType type)
{
    const auto found
        = std::find_if(trace.nodes.begin(), trace.nodes.end(), [type](const auto& node) { return node.type == type; });
    return found == trace.nodes.end() ? nullptr : &*found;
}

QTreeWidgetItem* detailItem(QTreeWidget* tree, const QString& field)
{
    const QList<QTreeWidgetItem*> items = tree->findItems(field, Qt::MatchExactly | Qt::MatchRecursive, 0);
    return items.isEmpty() ? nullptr : items.front();
}

/// Clicks the centre of node @p id as a user would, after scrolling it into view.
void clickNode(GraphCanvas* canvas, std::uint64_t id)
{
    const std::optional<QRectF> bounds = canvas->nodeBounds(id);
    QVERIFY(bounds);
    canvas->showNode(id);
    QCoreApplication::processEvents();
    const QPoint pos = canvas->mapFromScene(bounds->center());
    QVERIFY2(canvas->viewport()->rect().contains(pos),
        qPrintable(QStringLiteral("node at %1,%2 not scrolled into view %3x%4, zoom %5, scene %6x%7, bounds %8,%9")
                       .arg(pos.x())
                       .arg(pos.y())
                       .arg(canvas->viewport()->width())
                       .arg(canvas->viewport()->height())
                       .arg(canvas->zoom())
                       .arg(canvas->sceneRect().width())
                       .arg(canvas->sceneRect().height())
                       .arg(bounds->center().x())
                       .arg(bounds->center().y())));
    QCOMPARE(canvas->nodeAt(pos), std::optional<std::uint64_t>(id));
    QTest::mouseClick(canvas->viewport(), Qt::LeftButton, Qt::NoModifier, pos);
}

/// Sizes @p window to 1280x720 and brings its results panel's Graph tab to the front.
GraphView* showGraphTabAt1280x720(rapid::widgets::MainWindow& window)
{
    window.resize(1280, 720);
    GraphView* view = window.resultsPanel()->graphView();
    window.resultsPanel()->tabs()->setCurrentWidget(view);
    return view;
}

} // namespace

class TstGraphView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init();
    void cleanup();
    void renderDotGivesSvgWithNodeTitles();
    void badDotGivesAnErrorWithoutCrashing();
    void concurrentRendersAreSerialised();
    void openingRingTracesShowsTheirNodes();
    void choosingARankRelayouts();
    void filtersReduceTheNodesToThoseOfTheTrace();
    void clickingANodeShowsItsAttributes();
    void searchOutlinesMatchesAndSteps();
    void rankSpanCountsTheRanksEdgesCross();
    void windowsCoverTheSelectionInIdOrder();
    void hugeTraceDrawsAWindowAndSteps();
    void defectsAreCountedListedAndFound();
    void newTraceSetClearsFiltersThatBlankIt();
    void cancelDropsTheLayout();
    void staleLayoutsAreDropped();
    void missingPathShowsTheReadersError();
    void setTracesShowsInMemoryTraces();
    void mainWindowHasAGraphTabAndAction();
    void popOutGivesTheGraphRoom();
    void defectColumnsAreReadableAt1280x720();
    void screenshot();

private:
    /// Opens @p relative and waits for its first rank's drawing.
    bool openAndWait(const char* relative);
    bool waitForGraph(QSignalSpy& shown, int count);

    std::unique_ptr<GraphView> m_view;
};

void TstGraphView::init()
{
    m_view = std::make_unique<GraphView>();
    m_view->resize(1200, 760);
    m_view->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_view.get()));
}

void TstGraphView::cleanup()
{
    m_view.reset();
}

bool TstGraphView::waitForGraph(QSignalSpy& shown, int count)
{
    QElapsedTimer timer;
    timer.start();
    while (shown.count() < count && timer.elapsed() < kLayoutTimeoutMs) {
        QTest::qWait(20);
    }
    return shown.count() == count && !m_view->isBusy();
}

bool TstGraphView::openAndWait(const char* relative)
{
    QSignalSpy shown(m_view.get(), &GraphView::graphShown);
    QString error;
    if (!m_view->openTraces(samplePath(relative), &error)) {
        qWarning("%s", qPrintable(error));
        return false;
    }
    return waitForGraph(shown, 1);
}

void TstGraphView::renderDotGivesSvgWithNodeTitles()
{
    QString error;
    const QByteArray svg
        = widgets::renderDotToSvg("digraph g { n7 [label=\"first\"]; n42 [label=\"second\"]; n7 -> n42; }", &error);
    QVERIFY2(!svg.isEmpty(), qPrintable(error));
    QVERIFY(svg.contains("<svg"));
    QVERIFY(svg.contains("<title>n7</title>"));
    QVERIFY(svg.contains("<title>n42</title>"));

    const widgets::SvgNodeIndex index = widgets::indexSvgNodes(svg);
    QCOMPARE(index.nodes.size(), size_t(2));
    QCOMPARE(index.nodes[0].id, std::uint64_t(7));
    QCOMPARE(index.nodes[1].id, std::uint64_t(42));
    const QRectF all(QPointF(0, 0), index.size);
    for (const widgets::SvgNodeBox& node : index.nodes) {
        QVERIFY(!node.bounds.isEmpty());
        QVERIFY(all.contains(node.bounds));
    }
    // "dot" ranks top-down: the parent lies above its child.
    QVERIFY(index.nodes[0].bounds.bottom() < index.nodes[1].bounds.top());
}

void TstGraphView::badDotGivesAnErrorWithoutCrashing()
{
    QString error;
    QVERIFY(widgets::renderDotToSvg("digraph { a -> ; }", &error).isEmpty());
    QVERIFY2(error.contains(QStringLiteral("syntax error")), qPrintable(error));
    error.clear();
    QVERIFY(widgets::renderDotToSvg("", &error).isEmpty());
    QVERIFY(!error.isEmpty());
    QVERIFY(widgets::renderDotToSvg("not a graph at all {{{", nullptr).isEmpty()); // no error pointer: no crash
    // The parser recovers: the next good graph renders.
    error.clear();
    QVERIFY(widgets::renderDotToSvg("digraph { a -> b; }", &error).contains("<title>a</title>"));
    QVERIFY(error.isEmpty());
}

void TstGraphView::concurrentRendersAreSerialised()
{
    // Graphviz is not thread-safe; the renderer's lock must make parallel callers safe.
    std::vector<QByteArray> results(8);
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < results.size(); ++i) {
        threads.emplace_back([i, &results] {
            const std::string dot = "digraph { n" + std::to_string(i) + " -> n" + std::to_string(i + 100) + "; }";
            results[i] = widgets::renderDotToSvg(dot, nullptr);
        });
    }
    for (std::thread& thread : threads) {
        thread.join();
    }
    for (std::size_t i = 0; i < results.size(); ++i) {
        const QByteArray from = "<title>n" + QByteArray::number(static_cast<int>(i)) + "</title>";
        const QByteArray to = "<title>n" + QByteArray::number(static_cast<int>(i) + 100) + "</title>";
        QVERIFY(results[i].contains(from));
        QVERIFY(results[i].contains(to));
    }
}

void TstGraphView::openingRingTracesShowsTheirNodes()
{
    const std::vector<graph::ChakraTrace> traces = readSample("custom-ring-allreduce-8npus");
    QVERIFY(openAndWait("custom-ring-allreduce-8npus"));
    QCOMPARE(m_view->rankCount(), size_t(8));
    QCOMPARE(m_view->rankChooser()->count(), 8);
    QCOMPARE(m_view->rankChooser()->itemText(7), QStringLiteral("Rank 7"));
    QCOMPARE(m_view->currentTrace()->rank, 0);
    QCOMPARE(traces[0].nodes.size(), size_t(35));
    QCOMPARE(m_view->canvas()->nodeCount(), size_t(35));
    QCOMPARE(drawnIds(*m_view->canvas()), idsOf(traces[0]));
    QVERIFY(m_view->summaryLabel()->text().contains(QStringLiteral("35 of 35 nodes")));
    QVERIFY(!m_view->messageLabel()->isVisible());
}

void TstGraphView::choosingARankRelayouts()
{
    const std::vector<graph::ChakraTrace> traces = readSample("custom-ring-allreduce-8npus");
    QVERIFY(openAndWait("custom-ring-allreduce-8npus"));
    QSignalSpy shown(m_view.get(), &GraphView::graphShown);
    m_view->rankChooser()->setCurrentIndex(3);
    QVERIFY(m_view->isBusy() || shown.count() == 1);
    QVERIFY(waitForGraph(shown, 1));
    QCOMPARE(m_view->currentTrace()->rank, 3);
    QCOMPARE(drawnIds(*m_view->canvas()), idsOf(traces[3]));
    QVERIFY(m_view->summaryLabel()->text().contains(QStringLiteral("rank 3")));

    // The side panel reads rank 3's trace: its first SEND goes to rank 3's ring neighbour, not rank 0's.
    const graph::ChakraNode* send = firstOfType(traces[3], graph::ChakraNodeType::Send);
    QVERIFY(send);
    clickNode(m_view->canvas(), send->id);
    QCOMPARE(m_view->shownNode(), std::optional<std::uint64_t>(send->id));
    QTreeWidgetItem* dst = detailItem(m_view->detailsPanel(), QStringLiteral("comm_dst"));
    QVERIFY(dst);
    QCOMPARE(dst->text(2), QString::fromStdString(send->attribute("comm_dst")->valueText()));
}

void TstGraphView::filtersReduceTheNodesToThoseOfTheTrace()
{
    const std::vector<graph::ChakraTrace> traces = readSample("custom-ring-allreduce-8npus");
    QVERIFY(openAndWait("custom-ring-allreduce-8npus"));
    const graph::ChakraTrace& rank0 = traces[0];

    QSignalSpy shown(m_view.get(), &GraphView::graphShown);
    typeAndEnter(m_view->filterEdit(), QStringLiteral("COMP"));
    QVERIFY(waitForGraph(shown, 1));
    const std::size_t compute = countMatching(rank0, "COMP");
    QVERIFY(compute > 0 && compute < rank0.nodes.size());
    QCOMPARE(m_view->canvas()->nodeCount(), compute);
    for (const std::uint64_t id : m_view->canvas()->nodeIds()) {
        const auto node = std::find_if(rank0.nodes.begin(), rank0.nodes.end(), [id](auto& n) { return n.id == id; });
        QCOMPARE(node->type, graph::ChakraNodeType::Compute);
    }

    // A name substring, any case.
    typeAndEnter(m_view->filterEdit(), QStringLiteral("Tb0_Step1"));
    QVERIFY(waitForGraph(shown, 2));
    const std::size_t named = countMatching(rank0, "tb0_step1");
    QVERIFY(named > 0 && named < compute + 10);
    QCOMPARE(m_view->canvas()->nodeCount(), named);

    // An id range on top of an empty name filter.
    m_view->filterEdit()->clear();
    typeAndEnter(m_view->idRangeEdit(), QStringLiteral("10-19"));
    QVERIFY(waitForGraph(shown, 3));
    QCOMPARE(drawnIds(*m_view->canvas()), (std::set<std::uint64_t> { 10, 11, 12, 13, 14, 15, 16, 17, 18, 19 }));

    // Nothing matches, and a range that cannot be read: said in the view, nothing drawn.
    QSignalSpy refused(m_view.get(), &GraphView::graphRefused);
    typeAndEnter(m_view->idRangeEdit(), QStringLiteral("5000-6000"));
    QCOMPARE(refused.count(), 1);
    QVERIFY(m_view->messageLabel()->text().contains(QStringLiteral("No node")));
    typeAndEnter(m_view->idRangeEdit(), QStringLiteral("ten-twenty"));
    QCOMPARE(refused.count(), 2);
    QVERIFY(m_view->messageLabel()->text().contains(QStringLiteral("FIRST-LAST")));
    QVERIFY(!m_view->canvas()->hasGraph());
}

void TstGraphView::clickingANodeShowsItsAttributes()
{
    const std::vector<graph::ChakraTrace> traces = readSample("custom-ring-allreduce-8npus");
    QVERIFY(openAndWait("custom-ring-allreduce-8npus"));
    const graph::ChakraNode* recv = firstOfType(traces[0], graph::ChakraNodeType::Recv);
    QVERIFY(recv);
    QVERIFY(recv->attribute("comm_src"));
    clickNode(m_view->canvas(), recv->id);
    QCOMPARE(m_view->shownNode(), std::optional<std::uint64_t>(recv->id));
    QCOMPARE(m_view->canvas()->selected(), std::optional<std::uint64_t>(recv->id));

    QTreeWidget* details = m_view->detailsPanel();
    QCOMPARE(detailItem(details, QStringLiteral("id"))->text(2), QString::number(recv->id));
    QCOMPARE(detailItem(details, QStringLiteral("name"))->text(2), QString::fromStdString(recv->name));
    QCOMPARE(detailItem(details, QStringLiteral("type"))->text(2), QStringLiteral("COMM_RECV_NODE"));
    QVERIFY(detailItem(details, QStringLiteral("duration")));
    QVERIFY(detailItem(details, QStringLiteral("data deps")));
    QVERIFY(detailItem(details, QStringLiteral("ctrl deps")));
    // Every attribute, with its value text and wire member type.
    for (const graph::ChakraAttribute& attribute : recv->attributes) {
        QTreeWidgetItem* item = detailItem(details, QString::fromStdString(attribute.name));
        QVERIFY2(item, attribute.name.c_str());
        QCOMPARE(item->text(2), QString::fromStdString(attribute.valueText()));
        QCOMPARE(item->text(1), QString::fromUtf8(graph::toString(attribute.type)));
    }

    // A click on empty space clears the panel.
    const QRectF bounds = *m_view->canvas()->nodeBounds(recv->id);
    const QPoint beside = m_view->canvas()->mapFromScene(QPointF(bounds.right() + 200, bounds.center().y()));
    if (!m_view->canvas()->nodeAt(beside) && m_view->canvas()->viewport()->rect().contains(beside)) {
        QTest::mouseClick(m_view->canvas()->viewport(), Qt::LeftButton, Qt::NoModifier, beside);
        QVERIFY(!m_view->shownNode());
        QVERIFY(!detailItem(details, QStringLiteral("id")));
    }
}

void TstGraphView::searchOutlinesMatchesAndSteps()
{
    const std::vector<graph::ChakraTrace> traces = readSample("custom-ring-allreduce-8npus");
    QVERIFY(openAndWait("custom-ring-allreduce-8npus"));
    const std::size_t receives = countMatching(traces[0], "RECV");
    QVERIFY(receives > 1);
    QTest::keyClicks(m_view->searchEdit(), QStringLiteral("recv"));
    QCOMPARE(m_view->canvas()->highlightedCount(), receives);
    QTest::keyClick(m_view->searchEdit(), Qt::Key_Return);
    const graph::ChakraNode* first = firstOfType(traces[0], graph::ChakraNodeType::Recv);
    QCOMPARE(m_view->shownNode(), std::optional<std::uint64_t>(first->id));
    QTest::keyClick(m_view->searchEdit(), Qt::Key_Return);
    QVERIFY(m_view->shownNode() && *m_view->shownNode() != first->id);
    // An id matches exactly, names and types by substring.
    m_view->searchEdit()->setText(QStringLiteral("12"));
    const auto idOrName = std::count_if(traces[0].nodes.begin(), traces[0].nodes.end(),
        [](const auto& node) { return node.id == 12 || node.name.find("12") != std::string::npos; });
    QVERIFY(idOrName >= 1);
    QCOMPARE(m_view->canvas()->highlightedCount(), static_cast<size_t>(idOrName));
    m_view->searchEdit()->clear();
    QCOMPARE(m_view->canvas()->highlightedCount(), size_t(0));
}

void TstGraphView::rankSpanCountsTheRanksEdgesCross()
{
    // 0 -> 1, 0 -> 2, 2 -> 2 (a self-dependency), 1 -> 3, 2 -> 3, 0 -> 3: ranks 0, 1, 1, 2. Every edge crosses one
    // rank, the self-loop counts one, and 0 -> 3 crosses two: 7.
    graph::ChakraTrace trace;
    const std::map<std::uint64_t, std::vector<std::uint64_t>> parents { { 0, {} }, { 1, { 0 } }, { 2, { 0, 2 } },
        { 3, { 1, 2, 0 } } };
    for (const auto& [id, deps] : parents) {
        graph::ChakraNode node;
        node.id = id;
        node.dataDeps = deps;
        trace.nodes.push_back(node);
    }
    const widgets::GraphSelectionSize size = widgets::measureSelection(trace, {});
    QCOMPARE(size.nodes, size_t(4));
    QCOMPARE(size.edges, size_t(6));
    QCOMPARE(size.rankSpan, size_t(7));
    QVERIFY(size.fitsLayout());
    QCOMPARE(widgets::graphWindows(trace, {}).size(), size_t(1));
}

void TstGraphView::windowsCoverTheSelectionInIdOrder()
{
    const std::vector<graph::ChakraTrace> traces = readSample("pytorch-kineto-trace/chakra.0.et");
    const graph::ChakraTrace& trace = traces.front();
    const graph::ChakraDotFilter all;
    QVERIFY(!widgets::measureSelection(trace, all).fitsLayout());
    const std::vector<widgets::GraphWindow> windows = widgets::graphWindows(trace, all);
    QVERIFY(windows.size() > 1);
    std::set<std::uint64_t> covered;
    for (std::size_t i = 0; i < windows.size(); ++i) {
        const widgets::GraphWindow& window = windows[i];
        const std::set<std::uint64_t> inWindow = idsBetween(trace, window.firstId, window.lastId);
        QCOMPARE(window.size.nodes, inWindow.size());
        QCOMPARE(window.size.edges, edgesAmong(trace, inWindow));
        QVERIFY(window.size.fitsLayout());
        QVERIFY(i == 0 || window.firstId > windows[i - 1].lastId);
        covered.insert(inWindow.begin(), inWindow.end());
        // As long as it may be: the next id would break a limit.
        if (i + 1 < windows.size()) {
            graph::ChakraDotFilter longer;
            longer.firstId = window.firstId;
            longer.lastId = windows[i + 1].firstId;
            QVERIFY(!widgets::measureSelection(trace, longer).fitsLayout());
        }
    }
    QCOMPARE(covered, idsOf(trace)); // every node, in exactly one window (they are disjoint and ordered)
}

void TstGraphView::hugeTraceDrawsAWindowAndSteps()
{
    const std::vector<graph::ChakraTrace> traces = readSample("pytorch-kineto-trace/chakra.0.et");
    const graph::ChakraTrace& trace = traces.front();
    QCOMPARE(trace.nodes.size(), size_t(3664));
    const std::set<std::uint64_t> allIds = idsOf(trace);
    QSignalSpy refused(m_view.get(), &GraphView::graphRefused);
    QSignalSpy shown(m_view.get(), &GraphView::graphShown);
    QVERIFY(m_view->openTraces(samplePath("pytorch-kineto-trace/chakra.0.et")));
    // The GUI thread reads and counts only; the window is laid out on a worker, with Cancel offered.
    QVERIFY(m_view->isBusy());
    QVERIFY(m_view->cancelButton()->isVisible());
    QVERIFY(waitForGraph(shown, 1));
    QCOMPARE(refused.count(), 0);

    // The first window: the lowest ids, consecutive, within the limits, and enough to read a stretch of the step.
    const std::set<std::uint64_t> first = drawnIds(*m_view->canvas());
    QCOMPARE(*first.begin(), *allIds.begin());
    QCOMPARE(first, idsBetween(trace, *first.begin(), *first.rbegin()));
    QVERIFY2(first.size() > 100 && first.size() < allIds.size(), qPrintable(QString::number(first.size())));
    QVERIFY(first.size() <= widgets::kMaxLaidOutNodes);
    QVERIFY(edgesAmong(trace, first) <= widgets::kMaxLaidOutEdges);
    // Said plainly: which ids of how many, and how to see the rest.
    widgets::GraphPager* pager = m_view->pager();
    QVERIFY(pager->isVisible());
    const QString notice = pager->label()->text();
    QVERIFY2(notice.contains(QStringLiteral("%1–%2").arg(*first.begin()).arg(*first.rbegin())), qPrintable(notice));
    QVERIFY(notice.contains(QLocale().toString(3664)));
    QVERIFY(notice.contains(QStringLiteral("Next")));
    QVERIFY(!pager->previousButton()->isEnabled());
    QVERIFY(pager->nextButton()->isEnabled());
    QVERIFY(!m_view->messageLabel()->isVisible());
    QVERIFY(m_view->summaryLabel()->text().contains(
        QStringLiteral("%1 of %2 nodes").arg(QLocale().toString(first.size()), QLocale().toString(3664))));

    // Next draws the ids that follow, Previous the first window again.
    QTest::mouseClick(pager->nextButton(), Qt::LeftButton);
    QVERIFY(waitForGraph(shown, 2));
    const std::set<std::uint64_t> second = drawnIds(*m_view->canvas());
    QCOMPARE(*second.begin(), *allIds.upper_bound(*first.rbegin()));
    QCOMPARE(second, idsBetween(trace, *second.begin(), *second.rbegin()));
    QVERIFY(pager->previousButton()->isEnabled());
    QTest::mouseClick(pager->previousButton(), Qt::LeftButton);
    QVERIFY(waitForGraph(shown, 3));
    QCOMPARE(drawnIds(*m_view->canvas()), first);

    // A filter that fits is drawn whole, without the notice.
    typeAndEnter(m_view->filterEdit(), QStringLiteral("conv2d"));
    QVERIFY(waitForGraph(shown, 4));
    const std::size_t convolutions = countMatching(trace, "conv2d");
    QVERIFY(convolutions > 50 && convolutions <= widgets::kMaxLaidOutNodes);
    QCOMPARE(m_view->canvas()->nodeCount(), convolutions);
    QVERIFY(!pager->isVisible());

    // One whose nodes fit but whose 19k edges would keep Graphviz busy for minutes is drawn a window at a time too.
    typeAndEnter(m_view->filterEdit(), QStringLiteral("aten::mul"));
    QVERIFY(waitForGraph(shown, 5));
    QCOMPARE(refused.count(), 0);
    QVERIFY(pager->isVisible());
    QVERIFY(m_view->canvas()->nodeCount() < countMatching(trace, "aten::mul"));
    for (const std::uint64_t id : m_view->canvas()->nodeIds()) {
        const auto node = std::find_if(trace.nodes.begin(), trace.nodes.end(), [id](auto& n) { return n.id == id; });
        QVERIFY(lower(node->name).find("aten::mul") != std::string::npos);
    }
}

void TstGraphView::defectsAreCountedListedAndFound()
{
    const std::vector<graph::ChakraTrace> traces = readSample("pytorch-kineto-trace");
    const graph::ChakraInspection inspection = graph::inspectChakra(traces);
    // What `rapid chakra inspect` reports for the sample: 1,277 missing dependencies, 452 cycles, 2 missing attributes
    // and a CPU collective.
    QCOMPARE(inspection.defects.size(), size_t(1732));
    QSignalSpy found(m_view.get(), &GraphView::defectsFound);
    QVERIFY(openAndWait("pytorch-kineto-trace"));
    QTRY_COMPARE_WITH_TIMEOUT(found.count(), 1, kLayoutTimeoutMs);
    QCOMPARE(found.at(0).at(0).toInt(), 1732);
    const QString count = QLocale().toString(1732);
    QVERIFY2(m_view->summaryLabel()->text().contains(count + QStringLiteral(" defects")),
        qPrintable(m_view->summaryLabel()->text()));
    QVERIFY(m_view->defectsButton()->text().contains(count));

    // The button opens the list: every defect, in the inspection's order, with its rank and message.
    QTest::mouseClick(m_view->defectsButton(), Qt::LeftButton);
    widgets::GraphDefectList* list = m_view->defectList();
    QCOMPARE(m_view->sidePanel()->currentWidget(), list);
    QVERIFY(list->isVisible());
    QCOMPARE(list->topLevelItemCount(), 1732);
    for (int i = 0; i < list->topLevelItemCount(); ++i) {
        const graph::ChakraDefect& defect = inspection.defects[static_cast<std::size_t>(i)];
        QCOMPARE(list->topLevelItem(i)->text(0), QString::fromUtf8(graph::toString(defect.kind)));
        QCOMPARE(list->topLevelItem(i)->text(1), QString::number(defect.rank));
        QCOMPARE(list->topLevelItem(i)->text(2), QString::fromStdString(defect.message));
    }

    // Clicking a defect of a drawn node selects it and scrolls it into view.
    const std::optional<widgets::GraphWindow> window = m_view->drawnWindow();
    QVERIFY(window);
    const auto drawnDefect = std::find_if(inspection.defects.begin(), inspection.defects.end(),
        [&](const auto& defect) { return !defect.nodeIds.empty() && m_view->canvas()->nodeBounds(defect.nodeIds[0]); });
    QVERIFY(drawnDefect != inspection.defects.end());
    const std::uint64_t drawnNode = drawnDefect->nodeIds[0];
    clickItem(list, list->topLevelItem(static_cast<int>(drawnDefect - inspection.defects.begin())));
    QCOMPARE(m_view->canvas()->selected(), std::optional<std::uint64_t>(drawnNode));
    QCOMPARE(m_view->shownNode(), std::optional<std::uint64_t>(drawnNode));
    const QPoint at = m_view->canvas()->mapFromScene(m_view->canvas()->nodeBounds(drawnNode)->center());
    QVERIFY(m_view->canvas()->viewport()->rect().contains(at));

    // One beyond the drawn window: the view draws the window that holds it, then selects it.
    const std::set<std::uint64_t> inFile = idsOf(traces.front());
    const auto farDefect
        = std::find_if(inspection.defects.rbegin(), inspection.defects.rend(), [&](const auto& defect) {
              return !defect.nodeIds.empty() && defect.nodeIds[0] > window->lastId && inFile.count(defect.nodeIds[0]);
          });
    QVERIFY(farDefect != inspection.defects.rend());
    const std::uint64_t farNode = farDefect->nodeIds[0];
    QSignalSpy shown(m_view.get(), &GraphView::graphShown);
    clickItem(list, list->topLevelItem(static_cast<int>(std::prev(farDefect.base()) - inspection.defects.begin())));
    QVERIFY(waitForGraph(shown, 1));
    QVERIFY(m_view->drawnWindow()->firstId <= farNode && farNode <= m_view->drawnWindow()->lastId);
    QCOMPARE(m_view->canvas()->selected(), std::optional<std::uint64_t>(farNode));
    QCOMPARE(m_view->shownNode(), std::optional<std::uint64_t>(farNode));

    // A set without defects says so.
    QVERIFY(openAndWait("custom-ring-allreduce-8npus"));
    QTRY_COMPARE_WITH_TIMEOUT(found.count(), 2, kLayoutTimeoutMs);
    QCOMPARE(found.at(1).at(0).toInt(), 0);
    QVERIFY(m_view->summaryLabel()->text().contains(QStringLiteral("no defects")));
}

void TstGraphView::newTraceSetClearsFiltersThatBlankIt()
{
    // An id range typed for one set: the next set's ids lie elsewhere (the PyTorch sample starts at 216).
    QVERIFY(openAndWait("custom-ring-allreduce-8npus"));
    QSignalSpy shown(m_view.get(), &GraphView::graphShown);
    QSignalSpy refused(m_view.get(), &GraphView::graphRefused);
    typeAndEnter(m_view->idRangeEdit(), QStringLiteral("10-19"));
    QVERIFY(waitForGraph(shown, 1));
    QCOMPARE(m_view->canvas()->nodeCount(), size_t(10));
    QVERIFY(m_view->openTraces(samplePath("pytorch-kineto-trace")));
    QVERIFY(waitForGraph(shown, 2));
    QCOMPARE(refused.count(), 0);
    QVERIFY(m_view->idRangeEdit()->text().isEmpty());
    QVERIFY(m_view->canvas()->nodeCount() > 10);

    // A name that means something in the next set stays; one that selects nothing there goes.
    typeAndEnter(m_view->filterEdit(), QStringLiteral("COMP"));
    QVERIFY(waitForGraph(shown, 3));
    const std::vector<graph::ChakraTrace> llm = readSample("llm-graph-16ranks");
    QVERIFY(m_view->openTraces(samplePath("llm-graph-16ranks")));
    QVERIFY(waitForGraph(shown, 4));
    QCOMPARE(m_view->filterEdit()->text(), QStringLiteral("COMP"));
    QCOMPARE(m_view->canvas()->nodeCount(), countMatching(llm[0], "COMP"));
    typeAndEnter(m_view->filterEdit(), QStringLiteral("conv2d"));
    QCOMPARE(refused.count(), 1); // no convolution in an LLM step
    QVERIFY(m_view->openTraces(samplePath("custom-ring-allreduce-8npus")));
    QVERIFY(waitForGraph(shown, 5));
    QCOMPARE(refused.count(), 1);
    QVERIFY(m_view->filterEdit()->text().isEmpty());
    QCOMPARE(m_view->canvas()->nodeCount(), size_t(35));
}

void TstGraphView::cancelDropsTheLayout()
{
    QSignalSpy shown(m_view.get(), &GraphView::graphShown);
    QVERIFY(m_view->openTraces(samplePath("llm-graph-16ranks")));
    QVERIFY(m_view->isBusy());
    QVERIFY(m_view->cancelButton()->isVisible());
    QTest::mouseClick(m_view->cancelButton(), Qt::LeftButton);
    QVERIFY(!m_view->isBusy());
    QVERIFY(!m_view->cancelButton()->isVisible());
    QVERIFY(m_view->messageLabel()->text().contains(QStringLiteral("cancelled")));
    QTest::qWait(1500); // the abandoned layout finishes meanwhile; its result must not appear
    QCOMPARE(shown.count(), 0);
    QVERIFY(!m_view->canvas()->hasGraph());

    // The next request lays out again.
    m_view->relayout();
    QVERIFY(waitForGraph(shown, 1));
    QCOMPARE(m_view->canvas()->nodeCount(), m_view->currentTrace()->nodes.size());
}

void TstGraphView::staleLayoutsAreDropped()
{
    const std::vector<graph::ChakraTrace> traces = readSample("llm-graph-16ranks");
    QSignalSpy shown(m_view.get(), &GraphView::graphShown);
    QVERIFY(m_view->openTraces(samplePath("llm-graph-16ranks")));
    m_view->rankChooser()->setCurrentIndex(5);
    m_view->rankChooser()->setCurrentIndex(9);
    QVERIFY(waitForGraph(shown, 1));
    QTest::qWait(500); // any superseded result would arrive by now
    QCOMPARE(shown.count(), 1);
    QCOMPARE(m_view->currentTrace()->rank, 9);
    QCOMPARE(drawnIds(*m_view->canvas()), idsOf(traces[9]));
}

void TstGraphView::missingPathShowsTheReadersError()
{
    const QString missing = samplePath("no-such-traces");
    QString expected;
    try {
        graph::readChakraDirectory(std::filesystem::path(missing.toStdString()));
        QFAIL("the reader accepted a missing path");
    } catch (const graph::ChakraError& error) {
        expected = QString::fromUtf8(error.what());
    }
    QString error;
    QVERIFY(!m_view->openTraces(missing, &error));
    QVERIFY2(error.contains(expected), qPrintable(error));
    QVERIFY(m_view->messageLabel()->isVisible());
    QVERIFY(m_view->messageLabel()->text().contains(expected));
    QCOMPARE(m_view->rankCount(), size_t(0));
}

void TstGraphView::setTracesShowsInMemoryTraces()
{
    graph::ChakraTrace trace;
    trace.rank = 2;
    for (std::uint64_t id = 0; id < 3; ++id) {
        graph::ChakraNode node;
        node.id = id;
        node.name = "step_node_" + std::to_string(id);
        node.type = graph::ChakraNodeType::Compute;
        node.durationMicros = 10 * (id + 1);
        if (id > 0) {
            node.dataDeps.push_back(id - 1);
        }
        node.attributes.push_back(graph::ChakraAttribute::boolean("is_cpu_op", false));
        trace.nodes.push_back(node);
    }
    QSignalSpy shown(m_view.get(), &GraphView::graphShown);
    m_view->setTraces({ trace }, QStringLiteral("current step"));
    QVERIFY(waitForGraph(shown, 1));
    QCOMPARE(m_view->rankChooser()->itemText(0), QStringLiteral("Rank 2"));
    QCOMPARE(drawnIds(*m_view->canvas()), (std::set<std::uint64_t> { 0, 1, 2 }));
    QVERIFY(m_view->summaryLabel()->text().contains(QStringLiteral("current step")));
    clickNode(m_view->canvas(), 1);
    QTreeWidgetItem* attribute = detailItem(m_view->detailsPanel(), QStringLiteral("is_cpu_op"));
    QVERIFY(attribute);
    QCOMPARE(attribute->text(2), QStringLiteral("false"));
}

void TstGraphView::mainWindowHasAGraphTabAndAction()
{
    m_view.reset();
    auto window = test::openWindow();
    QVERIFY(window);
    widgets::GraphView* view = window->resultsPanel()->graphView();
    QVERIFY(view);
    QTabWidget* tabs = window->resultsPanel()->tabs();
    const int index = tabs->indexOf(view);
    QVERIFY(index >= 0);
    QCOMPARE(tabs->tabText(index), QStringLiteral("Graph"));
    QCOMPARE(tabs->tabText(index - 1), QStringLiteral("Timeline"));
    QVERIFY(window->findChild<QAction*>(QStringLiteral("openChakraTracesAction")));

    QSignalSpy shown(view, &GraphView::graphShown);
    tabs->setCurrentWidget(view);
    QVERIFY(view->openTraces(samplePath("custom-ring-allreduce-8npus")));
    QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, kLayoutTimeoutMs);
    QCOMPARE(view->canvas()->nodeCount(), size_t(35));
    // The workspace's own step (Llama-3.1-70B, PP 4): one trace per stage, from memory.
    QAction* showStep = window->findChild<QAction*>(QStringLiteral("showWorkspaceStepGraphAction"));
    QVERIFY(showStep);
    shown.clear();
    showStep->trigger();
    QCOMPARE(view->rankCount(), size_t(4));
    QCOMPARE(tabs->currentWidget(), view);
    // Its graph is too large to lay out whole (every micro-batch of the step): the view draws its first window of
    // ids, and "micro-batch 0 " draws exactly that micro-batch's nodes of rank 0.
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() == 1, kLayoutTimeoutMs);
    QVERIFY(view->pager()->isVisible());
    QVERIFY(view->drawnWindow());
    const graph::ChakraTrace* stage0 = view->currentTrace();
    QVERIFY(stage0);
    size_t firstMicroBatch = 0;
    for (const graph::ChakraNode& node : stage0->nodes) {
        // What the filter selects: its text trimmed ("micro-batch 0"), anywhere in the name.
        firstMicroBatch += node.name.find("micro-batch 0") != std::string::npos ? 1 : 0;
    }
    QVERIFY(firstMicroBatch > 0);
    view->filterEdit()->setText(QStringLiteral("micro-batch 0 "));
    QTest::keyClick(view->filterEdit(), Qt::Key_Return);
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() >= 1 && view->canvas()->nodeCount() == firstMicroBatch, kLayoutTimeoutMs);
    // The view must not widen the window (the dashboard test checks the whole layout at 1400x900).
    QVERIFY2(window->minimumSizeHint().width() <= 1400, qPrintable(QString::number(window->minimumSizeHint().width())));
}

void TstGraphView::popOutGivesTheGraphRoom()
{
    // A 1280x720 main window: the results panel shares the width with the editors and the graph with its side panel.
    m_view.reset();
    auto window = test::openWindow();
    QVERIFY(window);
    GraphView* view = showGraphTabAt1280x720(*window);
    QSignalSpy shown(view, &GraphView::graphShown);
    QVERIFY(view->openTraces(samplePath("custom-ring-allreduce-8npus")));
    QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, kLayoutTimeoutMs);
    GraphCanvas* canvas = view->canvas();
    const QSize docked = canvas->viewport()->size();
    QCOMPARE(canvas->window(), window.get());

    // "Open in Window": the whole view moves to a window of most of the screen; the tab says where it went.
    auto* button = view->findChild<QToolButton*>(QStringLiteral("graphPopOutButton"));
    QVERIFY(button && button->isVisible());
    QTest::mouseClick(button, Qt::LeftButton);
    QWidget* own = view->popOut()->window();
    QVERIFY(own);
    QVERIFY(QTest::qWaitForWindowExposed(own));
    QVERIFY(view->popOut()->isPoppedOut());
    QCOMPARE(canvas->window(), own);
    QVERIFY(view->findChild<QWidget*>(QStringLiteral("graphPopOutPlaceholder"))->isVisible());
    const QRect screen = window->screen()->availableGeometry();
    QCoreApplication::processEvents();
    QVERIFY2(canvas->viewport()->width() > docked.width() && canvas->viewport()->height() > docked.height(),
        qPrintable(QStringLiteral("%1x%2 docked, %3x%4 in its window")
                       .arg(docked.width())
                       .arg(docked.height())
                       .arg(canvas->viewport()->width())
                       .arg(canvas->viewport()->height())));
    QVERIFY(canvas->viewport()->width() >= screen.width() / 2);
    QVERIFY(canvas->viewport()->height() >= screen.height() / 2);
    QCOMPARE(canvas->nodeCount(), size_t(35)); // the drawing moved along, no new layout
    QCOMPARE(shown.count(), 1);

    // Closing the window brings the view back into the results panel.
    own->close();
    QVERIFY(!view->popOut()->isPoppedOut());
    QCOMPARE(canvas->window(), window.get());
    QVERIFY(canvas->isVisible());
    QVERIFY(!view->findChild<QWidget*>(QStringLiteral("graphPopOutPlaceholder"))->isVisible());
    QCOMPARE(canvas->nodeCount(), size_t(35));
}

/// The column of @p list whose header reads @p title, or -1.
int columnTitled(QTreeWidget* list, const QString& title)
{
    for (int column = 0; column < list->columnCount(); ++column) {
        if (list->headerItem()->text(column) == title) {
            return column;
        }
    }
    return -1;
}

void TstGraphView::defectColumnsAreReadableAt1280x720()
{
    // #18: in a 1280x720 main window the Graph tab's side panel is about 160 px wide. The defect list sized its
    // node-id and kind columns to their contents, so the kinds ran off the right edge ("m…") and the messages
    // further still. Now every kind shows whole inside the list, the node column takes the rest, and a cut message
    // is whole in its tooltip.
    m_view.reset();
    auto window = test::openWindow();
    QVERIFY(window);
    GraphView* view = showGraphTabAt1280x720(*window);
    QSignalSpy shown(view, &GraphView::graphShown);
    QSignalSpy found(view, &GraphView::defectsFound);
    QVERIFY(view->openTraces(samplePath("pytorch-kineto-trace")));
    QTRY_COMPARE_WITH_TIMEOUT(found.count(), 1, kLayoutTimeoutMs);
    QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, kLayoutTimeoutMs);
    QTest::mouseClick(view->defectsButton(), Qt::LeftButton);
    QCoreApplication::processEvents();

    widgets::GraphDefectList* list = view->defectList();
    QVERIFY(list->isVisible());
    QCOMPARE(list->defectCount(), 1732);
    QCOMPARE(list->topLevelItemCount(), 1732);
    QCOMPARE(view->sidePanel()->tabText(view->sidePanel()->indexOf(list)), QStringLiteral("Defects (1,732)"));
    QVERIFY(view->defectsButton()->text().contains(QStringLiteral("1,732")));

    const int kind = columnTitled(list, QStringLiteral("Defect"));
    QVERIFY(kind >= 0);
    // A text is drawn whole when it fits the column less the delegate's margins on both sides (QCommonStyle's
    // item view text margin: the focus frame's margin plus one).
    const int margin = 2 * (list->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, list) + 1);
    const QFontMetrics metrics(list->font());
    const int viewport = list->viewport()->width();
    const int kindLeft = list->header()->sectionViewportPosition(kind);
    QVERIFY2(kindLeft >= 0 && kindLeft + list->columnWidth(kind) <= viewport,
        qPrintable(QStringLiteral("kind column at %1 + %2 of a %3 px list")
                       .arg(kindLeft)
                       .arg(list->columnWidth(kind))
                       .arg(viewport)));
    QSet<QString> kinds;
    for (int i = 0; i < list->topLevelItemCount(); ++i) {
        kinds.insert(list->topLevelItem(i)->text(kind));
    }
    QVERIFY(kinds.size() >= 2); // missing-dependency and cycle at least
    for (const QString& text : std::as_const(kinds)) {
        QVERIFY2(metrics.horizontalAdvance(text) + margin <= list->columnWidth(kind),
            qPrintable(QStringLiteral("\"%1\" needs %2 px, its column is %3")
                           .arg(text)
                           .arg(metrics.horizontalAdvance(text) + margin)
                           .arg(list->columnWidth(kind))));
    }
    // The node column takes the rest of the width, with room for a readable start ("node 216 \"aten::fl…").
    const int node = columnTitled(list, QStringLiteral("Node"));
    QVERIFY(node >= 0);
    const int nodeLeft = list->header()->sectionViewportPosition(node);
    QVERIFY(nodeLeft >= kindLeft + list->columnWidth(kind));
    QCOMPARE(nodeLeft + list->columnWidth(node), viewport);
    QVERIFY2(list->columnWidth(node) >= 12 * metrics.averageCharWidth(), qPrintable(QString::number(viewport)));
    QCOMPARE(list->horizontalScrollBar()->maximum(), 0);
    // The drawing keeps most of the tab's width.
    QVERIFY(view->canvas()->width() >= view->width() * 2 / 5 - 10);

    // A message cut in its column is whole in its tooltip.
    int cut = 0;
    for (int i = 0; i < list->topLevelItemCount(); ++i) {
        QTreeWidgetItem* item = list->topLevelItem(i);
        if (metrics.horizontalAdvance(item->text(node)) + margin > list->columnWidth(node)) {
            QCOMPARE(item->toolTip(node), item->text(node));
            ++cut;
        }
    }
    QVERIFY(cut > 0);
}

void TstGraphView::screenshot()
{
    // One LLM training step's rank 0 as the view opens it (its top at a readable zoom), three nodes of layer 30
    // found by the search, and the first data-parallel all-reduce clicked.
    const std::vector<graph::ChakraTrace> traces = readSample("llm-graph-16ranks");
    m_view->resize(1400, 820);
    QVERIFY(openAndWait("llm-graph-16ranks"));
    QTest::keyClicks(m_view->searchEdit(), QStringLiteral("layer30"));
    QCOMPARE(m_view->canvas()->highlightedCount(), countMatching(traces[0], "layer30"));
    const graph::ChakraNode* allReduce = firstOfType(traces[0], graph::ChakraNodeType::Collective);
    QVERIFY(allReduce);
    clickNode(m_view->canvas(), allReduce->id);
    QVERIFY(detailItem(m_view->detailsPanel(), QStringLiteral("comm_type"))
                ->text(2)
                .contains(QStringLiteral("ALL_REDUCE")));
    QCoreApplication::processEvents();
    QVERIFY(test::saveScreenshot(m_view->grab(), QStringLiteral("graph-view.png")));

    // The PyTorch trace's first window with its notice and defects, and the dark palette, to check by eye (build
    // directory only).
    QSignalSpy found(m_view.get(), &GraphView::defectsFound);
    QVERIFY(openAndWait("pytorch-kineto-trace/chakra.0.et"));
    QTRY_COMPARE_WITH_TIMEOUT(found.count(), 1, kLayoutTimeoutMs);
    QTest::mouseClick(m_view->defectsButton(), Qt::LeftButton);
    QVERIFY(m_view->grab().save(QStringLiteral(RAPID_SCREENSHOT_DIR "/graph-view-window.png")));
    const QPalette original = QApplication::palette();
    QApplication::setPalette(test::darkPalette());
    QVERIFY(openAndWait("custom-ring-allreduce-8npus"));
    clickNode(m_view->canvas(), 0);
    QVERIFY(m_view->grab().save(QStringLiteral(RAPID_SCREENSHOT_DIR "/graph-view-ring-dark.png")));
    QApplication::setPalette(original);
}

QTEST_MAIN(TstGraphView)
#include "tst_graphview.moc"
