// SPDX-License-Identifier: GPL-3.0-or-later
#include "tracegraph/graphview.h"

#include "tracegraph/graphcanvas.h"
#include "tracegraph/graphlayoutjob.h"
#include "tracegraph/graphnodedetails.h"
#include "tracegraph/graphselection.h"

#include "graph/chakrareader.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QTimer>
#include <QToolButton>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <exception>
#include <filesystem>
#include <set>

namespace rapid::widgets {

namespace {

constexpr int kFilterDelayMs = 600; ///< typing pause before the filter lays out again (Enter does it at once)

QString number(std::size_t value)
{
    return QLocale().toString(static_cast<qulonglong>(value));
}

std::string lowerAscii(const QString& text)
{
    return text.toLower().toStdString();
}

bool contains(const std::string& haystack, const std::string& lowerNeedle)
{
    std::string lower = haystack;
    std::transform(
        lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return lower.find(lowerNeedle) != std::string::npos;
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

    m_details->setObjectName(QStringLiteral("graphNodeDetails"));
    m_details->setColumnCount(3);
    m_details->setHeaderLabels({ tr("Field"), tr("Type"), tr("Value") });
    m_details->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_details->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    m_details->header()->setStretchLastSection(true);
    m_details->setRootIsDecorated(true);
    m_details->setAlternatingRowColors(true);
    m_details->setTextElideMode(Qt::ElideMiddle);
    showNodeDetails(m_details, nullptr);

    connect(m_canvas, &GraphCanvas::nodeClicked, this, [this](quint64 id) { showNode(id); });
    connect(m_canvas, &GraphCanvas::selectionCleared, this, [this] { showNode(std::nullopt); });

    auto* splitter = new QSplitter(Qt::Horizontal, this);
    splitter->addWidget(m_canvas);
    splitter->addWidget(m_details);
    splitter->setStretchFactor(0, 2);
    splitter->setStretchFactor(1, 1);
    // Shared out proportionally; without it the splitter follows the size hints and the tree, sized to its
    // contents, would squeeze the drawing.
    splitter->setSizes({ 2, 1 });
    splitter->setChildrenCollapsible(false);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 4, 0, 0);
    layout->addWidget(createToolRows());
    layout->addWidget(m_message);
    layout->addWidget(m_busyRow);
    layout->addWidget(splitter, 1);

    showMessage(tr("Open a Chakra trace set (File > Open Chakra Traces…) to draw a rank's execution graph."), false);
}

// A running layout holds only shared copies of its inputs; the tracker stops a queued one and the result of a running
// one is dropped with its watcher.
GraphView::~GraphView() = default;

QWidget* GraphView::createToolRows()
{
    auto* rows = new QWidget(this);
    auto* openButton = new QToolButton(rows);
    openButton->setDefaultAction(m_openAction);
    openButton->setToolButtonStyle(Qt::ToolButtonTextOnly);
    m_rank = new QComboBox(rows);
    m_rank->setObjectName(QStringLiteral("rankChooser"));
    m_rank->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_rank->setEnabled(false);
    connect(m_rank, &QComboBox::currentIndexChanged, this, [this] { relayout(); });
    auto* fit = new QToolButton(rows);
    fit->setText(tr("Fit"));
    fit->setToolTip(tr("Show the whole graph (Ctrl+0); Ctrl+wheel zooms, dragging pans"));
    connect(fit, &QToolButton::clicked, m_canvas, &GraphCanvas::fitToView);
    m_summary = new QLabel(rows);
    m_summary->setObjectName(QStringLiteral("graphSummary"));
    m_summary->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred); // may be long; never widens the panel

    m_filter = new QLineEdit(rows);
    m_filter->setObjectName(QStringLiteral("graphFilter"));
    m_filter->setPlaceholderText(tr("layer, micro-batch, backward, operator, COMP…"));
    m_filter->setToolTip(tr("Lay out only nodes whose name or type contains this text (any case)"));
    m_filter->setClearButtonEnabled(true);
    m_idRange = new QLineEdit(rows);
    m_idRange->setObjectName(QStringLiteral("graphIdRange"));
    m_idRange->setPlaceholderText(tr("first-last"));
    m_idRange->setToolTip(tr("Lay out only nodes with ids in this range: 100-250, 100-, -250 or one id"));
    m_search = new QLineEdit(rows);
    m_search->setObjectName(QStringLiteral("graphSearch"));
    m_search->setPlaceholderText(tr("name or id"));
    m_search->setToolTip(tr("Outline drawn nodes whose name, type or id matches; Enter shows the next one"));
    m_search->setClearButtonEnabled(true);
    m_searchCount = new QLabel(rows);
    m_searchCount->setObjectName(QStringLiteral("graphSearchCount"));
    for (QLineEdit* edit : { m_filter, m_idRange }) {
        connect(edit, &QLineEdit::textEdited, m_filterDelay, qOverload<>(&QTimer::start));
        connect(edit, &QLineEdit::returnPressed, this, &GraphView::relayout);
    }
    connect(m_search, &QLineEdit::textChanged, this, &GraphView::updateSearch);
    connect(m_search, &QLineEdit::returnPressed, this, &GraphView::showNextMatch);

    auto* first = new QHBoxLayout;
    first->addWidget(openButton);
    first->addWidget(new QLabel(tr("Rank"), rows));
    first->addWidget(m_rank);
    first->addWidget(fit);
    first->addWidget(m_summary, 1);
    auto* second = new QHBoxLayout;
    second->addWidget(new QLabel(tr("Filter"), rows));
    second->addWidget(m_filter, 3);
    second->addWidget(new QLabel(tr("Ids"), rows));
    second->addWidget(m_idRange, 1);
    second->addWidget(new QLabel(tr("Search"), rows));
    second->addWidget(m_search, 2);
    second->addWidget(m_searchCount);
    auto* layout = new QVBoxLayout(rows);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(first);
    layout->addLayout(second);
    return rows;
}

bool GraphView::openTraces(const QString& path, QString* error)
{
    std::vector<graph::ChakraTrace> traces;
    try {
        QApplication::setOverrideCursor(Qt::WaitCursor);
        traces = graph::readChakraDirectory(std::filesystem::path(QFile::encodeName(path).toStdString()));
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
    setTraces(std::move(traces), QFileInfo(path).fileName());
    return true;
}

void GraphView::setTraces(std::vector<graph::ChakraTrace> traces, const QString& source)
{
    m_traces.clear();
    m_traces.reserve(traces.size());
    for (graph::ChakraTrace& trace : traces) {
        m_traces.push_back(std::make_shared<const graph::ChakraTrace>(std::move(trace)));
    }
    m_source = source;
    rebuildRankChooser();
    relayout();
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

void GraphView::relayout()
{
    m_layouts.cancel();
    m_filterDelay->stop();
    showNode(std::nullopt);
    m_canvas->clearGraph();
    m_searchCount->clear();
    const graph::ChakraTrace* trace = currentTrace();
    if (!trace) {
        setBusy(false);
        m_summary->clear();
        return;
    }
    const QString rank = QString::number(trace->rank);
    const QString source = m_source.isEmpty() ? tr("in memory") : m_source;
    m_summary->setText(m_traces.size() == 1 ? tr("%1 · 1 rank").arg(source)
                                            : tr("%1 · %2 ranks").arg(source, number(m_traces.size())));
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
    if (!size.fitsLayout()) {
        refuse(
            tr("Too many nodes to lay out: %1 nodes and %2 edges of rank %3 match, more than the %4 nodes or %5 "
               "edges drawn at once (Graphviz would take minutes). Filter by name, type or id range to draw "
               "fewer.")
                .arg(number(size.nodes), number(size.edges), rank, number(kMaxLaidOutNodes), number(kMaxLaidOutEdges)));
        return;
    }
    m_drawnSummary = tr("%1 · rank %2: %3 of %4 nodes, %5 edges")
                         .arg(source, rank, number(size.nodes), number(trace->nodes.size()), number(size.edges));
    m_summary->setText(m_drawnSummary);
    showMessage({}, false);
    setBusy(true);
    const quint64 generation = m_layouts.begin();
    // The job gets its own reference to the trace: the user may open other traces while Graphviz works.
    m_layouts.run<GraphLayout>(
        this, generation,
        [trace = m_traces[static_cast<std::size_t>(m_rank->currentIndex())], selection = *filter](
            const std::atomic<bool>* stop) {
            if (stop->load()) {
                return GraphLayout {}; // superseded while queued: skip Graphviz
            }
            return layoutChakraGraph(*trace, selection);
        },
        [this](const JobOutcome<GraphLayout>& outcome) {
            if (const auto* layout = std::get_if<GraphLayout>(&outcome)) {
                finishLayout(*layout);
            } else if (const auto* failure = std::get_if<QString>(&outcome)) {
                refuse(tr("Graphviz could not draw this graph: %1").arg(*failure));
            }
        });
}

void GraphView::finishLayout(const GraphLayout& layout)
{
    setBusy(false);
    if (!layout.ok()) {
        refuse(tr("Graphviz could not draw this graph: %1").arg(layout.error));
        return;
    }
    m_canvas->setGraph(layout.svg, layout.index);
    m_summary->setText(m_drawnSummary + tr(" · laid out in %1 s").arg(layout.seconds, 0, 'f', 2));
    m_summary->setToolTip(m_summary->text());
    updateSearch();
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
    std::vector<std::uint64_t> matches;
    const std::string needle = lowerAscii(m_search->text().trimmed());
    const graph::ChakraTrace* trace = currentTrace();
    if (!trace || needle.empty()) {
        return matches;
    }
    for (const graph::ChakraNode& node : trace->nodes) {
        if (m_canvas->nodeBounds(node.id)
            && (contains(node.name, needle) || contains(graph::toString(node.type), needle)
                || std::to_string(node.id) == needle)) {
            matches.push_back(node.id);
        }
    }
    return matches;
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
    if (matches.empty()) {
        return;
    }
    auto next = matches.begin();
    if (m_shownNode) {
        const auto shown = std::find(matches.begin(), matches.end(), *m_shownNode);
        if (shown != matches.end() && std::next(shown) != matches.end()) {
            next = std::next(shown);
        }
    }
    m_canvas->setSelected(*next);
    m_canvas->showNode(*next);
    showNode(*next);
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
