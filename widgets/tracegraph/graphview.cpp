// SPDX-License-Identifier: GPL-3.0-or-later
#include "tracegraph/graphview.h"

#include "tracegraph/graphcanvas.h"
#include "tracegraph/graphcontrols.h"
#include "tracegraph/graphdefectlist.h"
#include "tracegraph/graphinspectjob.h"
#include "tracegraph/graphlayoutjob.h"
#include "tracegraph/graphnodedetails.h"
#include "tracegraph/graphpager.h"
#include "tracegraph/graphpopout.h"
#include "tracegraph/graphsearch.h"

#include "graph/chakrareader.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSplitter>
#include <QTabWidget>
#include <QTimer>
#include <QToolButton>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <exception>
#include <filesystem>
#include <set>
#include <utility>
#include <variant>

namespace rapid::widgets {

namespace {

constexpr int kFilterDelayMs = 600; ///< typing pause before the filter lays out again (Enter does it at once)

QString number(std::size_t value)
{
    return QLocale().toString(static_cast<qulonglong>(value));
}

} // namespace

GraphView::GraphView(QWidget* parent)
    : QWidget(parent)
    , m_openAction(new QAction(tr("Open Traces…"), this))
    , m_message(new QLabel(this))
    , m_progress(new QProgressBar(this))
    , m_cancel(new QPushButton(tr("Cancel"), this))
    , m_busyRow(new QWidget(this))
    , m_filterDelay(new QTimer(this))
    , m_canvas(new GraphCanvas(this))
    , m_details(new QTreeWidget(this))
    , m_defects(new GraphDefectList(this))
    , m_pager(new GraphPager(this))
{
    setObjectName(QStringLiteral("graphView"));
    m_openAction->setObjectName(QStringLiteral("openTracesAction"));
    m_openAction->setToolTip(tr("Open a directory of Chakra traces (<prefix>.<rank>.et) or one .et file"));
    connect(m_openAction, &QAction::triggered, this, &GraphView::openWithDialog);

    m_message->setObjectName(QStringLiteral("graphMessage"));
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // Long paths and reader errors must wrap, not widen the results panel.
    m_message->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    connect(m_pager, &GraphPager::previousRequested, this, &GraphView::showPreviousWindow);
    connect(m_pager, &GraphPager::nextRequested, this, &GraphView::showNextWindow);

    m_progress->setRange(0, 0); // busy indicator: Graphviz reports no progress
    m_progress->setTextVisible(false);
    m_progress->setMaximumHeight(m_cancel->sizeHint().height());
    m_cancel->setObjectName(QStringLiteral("cancelLayoutButton"));
    connect(m_cancel, &QPushButton::clicked, this, &GraphView::cancelLayout);
    auto* busyLayout = new QHBoxLayout(m_busyRow);
    busyLayout->setContentsMargins(0, 0, 0, 0);
    busyLayout->addWidget(new QLabel(tr("Laying out…"), m_busyRow));
    busyLayout->addWidget(m_progress, 1);
    busyLayout->addWidget(m_cancel);
    m_busyRow->hide();

    m_filterDelay->setSingleShot(true);
    m_filterDelay->setInterval(kFilterDelayMs);
    connect(m_filterDelay, &QTimer::timeout, this, &GraphView::relayout);

    connect(m_canvas, &GraphCanvas::nodeClicked, this, [this](quint64 id) { showNode(id); });
    connect(m_canvas, &GraphCanvas::selectionCleared, this, [this] { showNode(std::nullopt); });

    m_splitter = new QSplitter(Qt::Horizontal, this);
    m_splitter->addWidget(m_canvas);
    m_splitter->addWidget(createSidePanel());
    // Shared out two to one until the user drags the handle. Without it the splitter follows the size hints (the
    // trees, sized to their contents, would squeeze the drawing) and keeps the shares of the view's first, tiny size
    // when it grows (the tab is built hidden, and moves to a window of its own and back).
    m_splitter->setSizes({ 2, 1 });
    m_splitter->installEventFilter(this);
    connect(m_splitter, &QSplitter::splitterMoved, this, [this] { m_splitterDragged = true; });
    // The side panel may be dragged shut to give a narrow results panel's width to the drawing; the drawing may not.
    m_splitter->setCollapsible(0, false);
    m_splitter->setCollapsible(1, true);

    auto* content = new QWidget(this);
    auto* layout = new QVBoxLayout(content);
    layout->setContentsMargins(0, 4, 0, 0);
    layout->addWidget(createToolRows());
    layout->addWidget(m_message);
    layout->addWidget(m_pager);
    layout->addWidget(m_busyRow);
    layout->addWidget(m_splitter, 1);
    auto* home = new QVBoxLayout(this);
    home->setContentsMargins(0, 0, 0, 0);
    home->addWidget(content, 1);
    m_popOut = new GraphPopOut(content, this, home);
    m_popOut->setTitle(tr("Graph"));
    m_popOutButton->setDefaultAction(m_popOut->action());

    refreshSummary();
    showMessage(tr("Open a Chakra trace set (File > Open Chakra Traces…) to draw a rank's execution graph."), false);
}

// A running layout holds only shared copies of its inputs; the tracker stops a queued one and the result of a running
// one is dropped with its watcher.
GraphView::~GraphView() = default;

QWidget* GraphView::createToolRows()
{
    auto* controls = new GraphControls(m_openAction, this);
    m_rank = controls->rankChooser();
    m_defectsButton = controls->defectsButton();
    m_popOutButton = controls->popOutButton();
    m_filter = controls->filterEdit();
    m_idRange = controls->idRangeEdit();
    m_search = controls->searchEdit();
    m_searchCount = controls->searchCount();
    m_summary = controls->summary();
    connect(m_rank, &QComboBox::currentIndexChanged, this, [this] { relayout(); });
    connect(controls->fitButton(), &QToolButton::clicked, m_canvas, &GraphCanvas::fitToView);
    connect(m_defectsButton, &QToolButton::clicked, this, &GraphView::showDefects);
    for (QLineEdit* edit : { m_filter, m_idRange }) {
        connect(edit, &QLineEdit::textEdited, m_filterDelay, qOverload<>(&QTimer::start));
        connect(edit, &QLineEdit::returnPressed, this, &GraphView::relayout);
    }
    connect(m_search, &QLineEdit::textChanged, this, &GraphView::updateSearch);
    connect(m_search, &QLineEdit::returnPressed, this, &GraphView::showNextMatch);
    return controls;
}

QWidget* GraphView::createSidePanel()
{
    setUpNodeDetails(m_details);
    showNodeDetails(m_details, nullptr);
    m_defects->showPlaceholder(tr("Open a trace set to check it for defects."));
    connect(m_defects, &GraphDefectList::nodeActivated, this,
        [this](int rank, quint64 id) { goToNode(rank, static_cast<std::uint64_t>(id)); });
    m_side = new QTabWidget(this);
    m_side->setObjectName(QStringLiteral("graphSidePanel"));
    m_side->addTab(m_details, tr("Node"));
    m_side->addTab(m_defects, tr("Defects"));
    connect(m_side, &QTabWidget::currentChanged, this, &GraphView::shareWidth);
    return m_side;
}

bool GraphView::openTraces(const QString& path, QString* error)
{
    const std::filesystem::path location(QFile::encodeName(path).toStdString());
    std::vector<graph::ChakraTrace> traces;
    try {
        QApplication::setOverrideCursor(Qt::WaitCursor);
        traces = graph::readChakraDirectory(location);
        QApplication::restoreOverrideCursor();
    } catch (const std::exception& problem) {
        QApplication::restoreOverrideCursor();
        const QString message
            = tr("Cannot open %1: %2").arg(QDir::toNativeSeparators(path), QString::fromUtf8(problem.what()));
        showMessage(message, true);
        if (error) {
            *error = message;
        }
        return false;
    }
    loadTraces(std::move(traces), QFileInfo(path).fileName(), commGroupsBeside(location));
    return true;
}

void GraphView::setTraces(std::vector<graph::ChakraTrace> traces, const QString& source)
{
    loadTraces(std::move(traces), source, std::nullopt);
}

void GraphView::loadTraces(std::vector<graph::ChakraTrace> traces, const QString& source,
    const std::optional<std::filesystem::path>& commGroups)
{
    m_traces.clear();
    m_traces.reserve(traces.size());
    for (graph::ChakraTrace& trace : traces) {
        m_traces.push_back(std::make_shared<const graph::ChakraTrace>(std::move(trace)));
    }
    m_source = source;
    m_popOut->setTitle(source.isEmpty() ? tr("Graph") : tr("Graph — %1").arg(source));
    rebuildRankChooser();
    resetFiltersForNewSet();
    inspectTraces(commGroups);
    relayout();
}

void GraphView::resetFiltersForNewSet()
{
    // Ids are local to a file: a range typed for one set selects unrelated nodes of another, or none.
    m_idRange->clear();
    // A name ("conv2d", "backward") may mean the same in another set, so it stays while it selects something.
    const graph::ChakraTrace* trace = currentTrace();
    const std::optional<graph::ChakraDotFilter> filter = makeGraphFilter(m_filter->text(), QString(), nullptr);
    if (!trace || !filter || std::none_of(trace->nodes.begin(), trace->nodes.end(), [&](const auto& node) {
            return filter->accepts(node);
        })) {
        m_filter->clear();
    }
}

void GraphView::openWithDialog()
{
    const QString file = QFileDialog::getOpenFileName(
        this, tr("Open Chakra Traces"), QString(), tr("Chakra execution traces (*.et);;All files (*)"));
    if (file.isEmpty()) {
        return;
    }
    // Choosing any file of a `<prefix>.<rank>.et` set opens every rank of it (the reader's prefix form): users
    // pick a file, not a prefix, and a lone file such as `chakra.0.et` still opens alone.
    const QFileInfo info(file);
    if (graph::chakraRankFromFileName(QFile::encodeName(info.fileName()).toStdString())) {
        openTraces(info.dir().filePath(info.fileName().section(u'.', 0, -3)));
    } else {
        openTraces(file);
    }
}

const graph::ChakraTrace* GraphView::currentTrace() const
{
    const int index = m_rank->currentIndex();
    return index >= 0 && static_cast<std::size_t>(index) < m_traces.size()
        ? m_traces[static_cast<std::size_t>(index)].get()
        : nullptr;
}

void GraphView::rebuildRankChooser()
{
    const QSignalBlocker blocker(m_rank); // setTraces lays out once, after the chooser is complete
    m_rank->clear();
    for (const auto& trace : m_traces) {
        m_rank->addItem(tr("Rank %1").arg(trace->rank));
    }
    m_rank->setEnabled(!m_traces.empty());
}

void GraphView::inspectTraces(const std::optional<std::filesystem::path>& commGroups)
{
    m_defectCount.reset();
    m_defects->showPlaceholder(tr("Checking the traces for defects…"));
    m_defectsButton->setText(tr("Defects…"));
    m_defectsButton->setEnabled(false);
    m_side->setTabText(m_side->indexOf(m_defects), tr("Defects"));
    const quint64 generation = m_inspections.begin();
    m_inspections.run<graph::ChakraInspection>(
        this, generation,
        [traces = m_traces, commGroups](const std::atomic<bool>*) { return inspectTraceSet(traces, commGroups); },
        [this](const JobOutcome<graph::ChakraInspection>& outcome) { finishInspection(outcome); });
}

void GraphView::finishInspection(const JobOutcome<graph::ChakraInspection>& outcome)
{
    if (const auto* inspection = std::get_if<graph::ChakraInspection>(&outcome)) {
        m_defects->setDefects(inspection->defects);
        m_defectCount = inspection->defects.size();
        const QString count = number(*m_defectCount);
        m_defectsButton->setText(tr("Defects (%1)").arg(count));
        m_side->setTabText(m_side->indexOf(m_defects), tr("Defects (%1)").arg(count));
        m_defectsButton->setEnabled(true);
        shareWidth(); // the list may want other room
        refreshSummary();
        Q_EMIT defectsFound(static_cast<int>(*m_defectCount));
    } else if (const auto* failure = std::get_if<QString>(&outcome)) {
        m_defects->showPlaceholder(tr("The traces could not be checked: %1").arg(*failure));
        m_defectsButton->setText(tr("Defects: not checked"));
        m_defectsButton->setEnabled(true);
        refreshSummary();
    }
}

void GraphView::showDefects()
{
    m_side->setCurrentWidget(m_defects);
    // The side panel may have been dragged shut for room; the user asked to see the list.
    if (m_splitter->sizes().value(1) == 0) {
        m_splitterDragged = false;
        shareWidth();
    }
}

void GraphView::relayout()
{
    m_windowIndex = 0;
    m_pendingNode.reset();
    layoutSelection();
}

// Too large a selection is drawn a window of consecutive ids at a time rather than refused. Ids, because the Chakra
// converters number nodes in issue order: a window is a stretch of the program, most of its edges stay inside, and
// it speaks the Ids field's language, so the notice can say exactly what is drawn and Previous/Next step through the
// rest in order. The nodes around the critical path would be a scattered sample with no "next".
void GraphView::layoutSelection()
{
    m_layouts.cancel();
    m_filterDelay->stop();
    showNode(std::nullopt);
    m_canvas->clearGraph();
    m_searchCount->clear();
    m_pager->hide();
    m_window.reset();
    m_windowCount = 0;
    m_layoutSeconds.reset();
    m_summaryBase.clear();
    const graph::ChakraTrace* trace = currentTrace();
    if (!trace) {
        setBusy(false);
        refreshSummary();
        return;
    }
    const QString rank = QString::number(trace->rank);
    const QString source = m_source.isEmpty() ? tr("in memory") : m_source;
    m_summaryBase = m_traces.size() == 1 ? tr("%1 · 1 rank").arg(source)
                                         : tr("%1 · %2 ranks").arg(source, number(m_traces.size()));
    refreshSummary();
    QString problem;
    const std::optional<graph::ChakraDotFilter> filter = makeGraphFilter(m_filter->text(), m_idRange->text(), &problem);
    if (!filter) {
        refuse(problem);
        return;
    }
    const GraphSelectionSize size = measureSelection(*trace, *filter);
    if (size.nodes == 0) {
        refuse(tr("No node of rank %1 matches the filter.").arg(rank));
        return;
    }
    showMessage({}, false);
    if (size.fitsLayout()) {
        m_windowCount = 1;
        m_summaryBase = tr("%1 · rank %2: %3 of %4 nodes, %5 edges")
                            .arg(source, rank, number(size.nodes), number(trace->nodes.size()), number(size.edges));
        refreshSummary();
        startLayout(*filter);
        return;
    }
    const std::vector<GraphWindow> windows = graphWindows(*trace, *filter);
    m_windowCount = windows.size();
    if (m_pendingNode) { // the window the node lies in, or would if the filter let it through
        const auto holding = std::find_if(windows.begin(), windows.end(),
            [this](const GraphWindow& window) { return window.lastId >= *m_pendingNode; });
        m_windowIndex
            = holding == windows.end() ? windows.size() - 1 : static_cast<std::size_t>(holding - windows.begin());
    }
    m_windowIndex = std::min(m_windowIndex, windows.size() - 1);
    m_window = windows[m_windowIndex];
    const QString ids = QStringLiteral("%1–%2").arg(m_window->firstId).arg(m_window->lastId);
    m_summaryBase = tr("%1 · rank %2: %3 of %4 nodes (ids %5), %6 edges")
                        .arg(source, rank, number(m_window->size.nodes), number(trace->nodes.size()), ids,
                            number(m_window->size.edges));
    refreshSummary();
    showWindowNotice(*trace, size, m_windowIndex);
    startLayout(m_window->narrow(*filter));
}

void GraphView::showWindowNotice(
    const graph::ChakraTrace& trace, const GraphSelectionSize& selection, std::size_t index)
{
    const GraphWindow& window = *m_window;
    m_pager->showWindow(tr("Part %1 of %2: ids %3–%4, %5 of the %6 nodes of rank %7 that match (%8 of %9 edges); "
                           "Graphviz would take minutes over all of them. Previous and Next show the neighbouring "
                           "ids; a narrower filter or id range shows other nodes together.")
                            .arg(number(index + 1), number(m_windowCount), QString::number(window.firstId),
                                QString::number(window.lastId), number(window.size.nodes), number(selection.nodes),
                                QString::number(trace.rank), number(window.size.edges), number(selection.edges)),
        index > 0, index + 1 < m_windowCount);
}

void GraphView::startLayout(const graph::ChakraDotFilter& filter)
{
    setBusy(true);
    const quint64 generation = m_layouts.begin();
    // The job gets its own reference to the trace: the user may open other traces while Graphviz works.
    m_layouts.run<GraphLayout>(
        this, generation,
        [trace = m_traces[static_cast<std::size_t>(m_rank->currentIndex())], filter](const std::atomic<bool>* stop) {
            if (stop->load()) {
                return GraphLayout {}; // superseded while queued: skip Graphviz
            }
            return layoutChakraGraph(*trace, filter);
        },
        [this](const JobOutcome<GraphLayout>& outcome) {
            if (const auto* layout = std::get_if<GraphLayout>(&outcome)) {
                finishLayout(*layout);
            } else if (const auto* failure = std::get_if<QString>(&outcome)) {
                refuse(tr("Graphviz could not draw this graph: %1").arg(*failure));
            }
        });
}

void GraphView::showPreviousWindow()
{
    if (m_window && m_windowIndex > 0) {
        --m_windowIndex;
        layoutSelection();
    }
}

void GraphView::showNextWindow()
{
    if (m_window && m_windowIndex + 1 < m_windowCount) {
        ++m_windowIndex;
        layoutSelection();
    }
}

void GraphView::goToNode(int rank, std::uint64_t id)
{
    const auto found
        = std::find_if(m_traces.begin(), m_traces.end(), [rank](const auto& trace) { return trace->rank == rank; });
    if (found == m_traces.end()) {
        return;
    }
    const int index = static_cast<int>(found - m_traces.begin());
    if (index == m_rank->currentIndex() && !m_busy && m_canvas->nodeBounds(id)) {
        selectDrawnNode(id);
        return;
    }
    {
        const QSignalBlocker blocker(m_rank); // one layout, of the node's window, instead of the rank's first
        m_rank->setCurrentIndex(index);
    }
    m_pendingNode = id;
    layoutSelection();
}

void GraphView::selectDrawnNode(std::uint64_t id)
{
    m_canvas->setSelected(id);
    m_canvas->showNode(id);
    showNode(id);
}

void GraphView::explainNotDrawn(std::uint64_t id)
{
    showNode(id);
    showMessage(tr("Node %1 is not drawn: the filter leaves it out. Its fields are in the Node tab; clear Filter and "
                   "Ids to draw it.")
                    .arg(id),
        false);
}

bool GraphView::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_splitter && event->type() == QEvent::Resize) {
        shareWidth();
    }
    return QWidget::eventFilter(watched, event);
}

void GraphView::shareWidth()
{
    if (!m_splitterDragged) {
        shareGraphWidth(m_splitter, m_splitter->width(), m_side, m_defects);
    }
}

void GraphView::refreshSummary()
{
    QString text = m_summaryBase;
    if (m_layoutSeconds) {
        text += tr(" · laid out in %1 s").arg(*m_layoutSeconds, 0, 'f', 2);
    }
    if (!text.isEmpty() && m_defectCount) {
        text += *m_defectCount == 0 ? tr(" · no defects")
            : *m_defectCount == 1   ? tr(" · 1 defect")
                                    : tr(" · %1 defects").arg(number(*m_defectCount));
    }
    m_summary->setText(text);
    m_summary->setToolTip(text);
    m_summary->setVisible(!text.isEmpty()); // no blank line above the drawing before a set is open
}

void GraphView::finishLayout(const GraphLayout& layout)
{
    setBusy(false);
    if (!layout.ok()) {
        refuse(tr("Graphviz could not draw this graph: %1").arg(layout.error));
        return;
    }
    m_canvas->setGraph(layout.svg, layout.index);
    m_layoutSeconds = layout.seconds;
    refreshSummary();
    updateSearch();
    if (const std::optional<std::uint64_t> pending = std::exchange(m_pendingNode, std::nullopt)) {
        if (m_canvas->nodeBounds(*pending)) {
            selectDrawnNode(*pending);
        } else {
            explainNotDrawn(*pending);
        }
    }
    Q_EMIT graphShown(static_cast<int>(m_canvas->nodeCount()));
}

void GraphView::cancelLayout()
{
    if (!m_busy) {
        return;
    }
    // Graphviz cannot be interrupted: the job finishes in the background and its result is dropped.
    m_layouts.cancel();
    setBusy(false);
    showMessage(tr("Layout cancelled. Choose a rank or change the filter to lay out again."), false);
}

void GraphView::refuse(const QString& message)
{
    setBusy(false);
    m_pendingNode.reset();
    m_canvas->clearGraph();
    showMessage(message, true);
    Q_EMIT graphRefused(message);
}

void GraphView::showMessage(const QString& text, bool problem)
{
    m_message->setText(text);
    QPalette palette = m_message->palette();
    palette.setColor(
        QPalette::WindowText, problem ? QColor(0xc0, 0x1c, 0x28) : QApplication::palette().color(QPalette::WindowText));
    m_message->setPalette(palette);
    m_message->setVisible(!text.isEmpty());
}

void GraphView::setBusy(bool busy)
{
    m_busy = busy;
    m_busyRow->setVisible(busy);
}

std::vector<std::uint64_t> GraphView::searchMatches() const
{
    const graph::ChakraTrace* trace = currentTrace();
    return trace ? drawnSearchMatches(*trace, *m_canvas, m_search->text()) : std::vector<std::uint64_t> {};
}

void GraphView::updateSearch()
{
    const std::vector<std::uint64_t> matches = searchMatches();
    m_canvas->setHighlighted(std::set<std::uint64_t>(matches.begin(), matches.end()));
    m_searchCount->setText(m_search->text().trimmed().isEmpty() ? QString()
            : m_canvas->highlightedCount() == 1                 ? tr("1 match")
                                                : tr("%1 matches").arg(number(m_canvas->highlightedCount())));
}

void GraphView::showNextMatch()
{
    // Steps through the matches in trace order, wrapping around, from the node shown in the panel.
    const std::vector<std::uint64_t> matches = searchMatches();
    if (!matches.empty()) {
        selectDrawnNode(nextSearchMatch(matches, m_shownNode));
    }
}

void GraphView::showNode(std::optional<std::uint64_t> id)
{
    m_shownNode.reset();
    const graph::ChakraTrace* trace = currentTrace();
    const graph::ChakraNode* shown = nullptr;
    if (id && trace) {
        const auto found = std::find_if(
            trace->nodes.begin(), trace->nodes.end(), [&](const graph::ChakraNode& node) { return node.id == *id; });
        if (found != trace->nodes.end()) {
            shown = &*found;
            m_shownNode = id;
        }
    }
    showNodeDetails(m_details, shown);
}

} // namespace rapid::widgets
