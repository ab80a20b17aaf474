// SPDX-License-Identifier: GPL-3.0-or-later
//
// Shown as the "Graph" tab of ResultsPanel. Traces come from files (File > Open Chakra Traces…, or the view's own
// button) or from memory (setTraces, for the workbench's own exported step).
#pragma once

#include "common/jobtracker.h"

#include "tracegraph/graphselection.h"

#include "graph/chakradot.h"
#include "graph/chakrainspect.h"
#include "graph/chakratrace.h"

#include <QString>
#include <QWidget>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <vector>

class QAction;
class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSplitter;
class QTabWidget;
class QTimer;
class QToolButton;
class QTreeWidget;

namespace rapid::widgets {

class GraphCanvas;
class GraphDefectList;
class GraphPager;
class GraphPopOut;
struct GraphLayout;

/// The Chakra graph view: one rank's execution graph drawn by Graphviz. A rank chooser, a filter (name or node type
/// substring, and an id range) that decides what is laid out, a search that outlines matching nodes without a new
/// layout, and a side panel with every field and attribute of the clicked node and the trace set's defects (as
/// `rapid chakra inspect` finds them, checked on a worker thread). Layouts run on a worker thread with a busy bar and
/// Cancel; a result that arrives after a newer request (another rank or filter, Cancel) is dropped. A selection
/// too large for one layout (GraphSelectionSize::fitsLayout) is drawn a window of ids at a time (graphWindows), with a
/// notice that says which part is shown and Previous/Next to step through the rest. The contents can move to a
/// window of their own (popOut()) when the results panel is too narrow for a graph.
class GraphView : public QWidget {
    Q_OBJECT
public:
    explicit GraphView(QWidget* parent = nullptr);
    ~GraphView() override;

    /// Reads a trace set (a directory of `<prefix>.<rank>.et` files, one `.et` file or an ASTRA-sim prefix, see
    /// graph::readChakraDirectory) on the calling thread (milliseconds; ~0.1 s for the 3,664-node PyTorch sample),
    /// lays out its first rank and checks the set for defects (with the `comm_groups.json` beside it, if any). On
    /// failure the reader's message is shown in the view, returned in @p error, and the traces shown before stay.
    bool openTraces(const QString& path, QString* error = nullptr);
    /// Shows traces built in memory (e.g. the workbench's own step exported per rank), sorted as given. A new set
    /// clears the id range (ids are local to a file) and a name filter that selects nothing of its first rank, so that
    /// the filter of the previous set never leaves it blank.
    void setTraces(std::vector<graph::ChakraTrace> traces, const QString& source = {});
    /// Asks for an `.et` file and opens it with the other ranks of its set (`<prefix>.<rank>.et` beside it).
    void openWithDialog();

    std::size_t rankCount() const { return m_traces.size(); }
    /// The trace of the chosen rank, or null.
    const graph::ChakraTrace* currentTrace() const;
    /// The node of the chosen rank shown in the side panel, or nullopt.
    std::optional<std::uint64_t> shownNode() const { return m_shownNode; }
    /// A layout is running for the current request.
    bool isBusy() const { return m_busy; }
    /// Lays out the chosen rank with the current filter now (the filter fields also do it on Enter or after a pause
    /// in typing).
    void relayout();
    /// Drops the running layout's result; the view says so until the next request.
    void cancelLayout();
    /// With a partial drawing: draws the window of selected ids just below (above) the drawn ones.
    void showPreviousWindow();
    void showNextWindow();
    /// The drawn window of ids, or nullopt while the whole selection is drawn (or nothing is).
    std::optional<GraphWindow> drawnWindow() const { return m_window; }
    /// How many windows the selection is cut into (1 when it is drawn whole, 0 without a selection).
    std::size_t windowCount() const { return m_windowCount; }
    /// Selects and scrolls to node @p id of rank @p rank (switching rank and window of ids when needed) and shows it in
    /// the side panel; a node the filter leaves out is shown in the panel only, with a note why it is not drawn.
    void goToNode(int rank, std::uint64_t id);
    /// Defects found in the open set, or nullopt while they are being checked (or could not be).
    std::optional<std::size_t> defectCount() const { return m_defectCount; }

    QAction* openAction() const { return m_openAction; }
    QComboBox* rankChooser() const { return m_rank; }
    QLineEdit* filterEdit() const { return m_filter; }
    QLineEdit* idRangeEdit() const { return m_idRange; }
    QLineEdit* searchEdit() const { return m_search; }
    QPushButton* cancelButton() const { return m_cancel; }
    QLabel* messageLabel() const { return m_message; }
    QLabel* summaryLabel() const { return m_summary; }
    GraphCanvas* canvas() const { return m_canvas; }
    QTreeWidget* detailsPanel() const { return m_details; }
    GraphDefectList* defectList() const { return m_defects; }
    QToolButton* defectsButton() const { return m_defectsButton; }
    QTabWidget* sidePanel() const { return m_side; }
    GraphPager* pager() const { return m_pager; }
    /// Moves the contents to a window of their own and back.
    GraphPopOut* popOut() const { return m_popOut; }

Q_SIGNALS:
    /// A layout has been shown (@p nodes drawn nodes).
    void graphShown(int nodes);
    /// The current request ended without a drawing (too big, no match, bad filter, Graphviz error); see
    /// messageLabel().
    void graphRefused(const QString& message);
    /// The open set has been checked: @p count defects are listed.
    void defectsFound(int count);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    QWidget* createToolRows();
    QWidget* createSidePanel();
    void loadTraces(std::vector<graph::ChakraTrace> traces, const QString& source,
        const std::optional<std::filesystem::path>& commGroups);
    void rebuildRankChooser();
    void resetFiltersForNewSet();
    void inspectTraces(const std::optional<std::filesystem::path>& commGroups);
    void finishInspection(const JobOutcome<graph::ChakraInspection>& outcome);
    void showDefects();
    /// The splitter's width shared out anew (shareGraphWidth) unless the user has dragged its handle.
    void shareWidth();
    /// Lays out the chosen rank's selection, or its window m_windowIndex (the pending node's) when it is too large.
    void layoutSelection();
    void showWindowNotice(const graph::ChakraTrace& trace, const GraphSelectionSize& selection, std::size_t index);
    void startLayout(const graph::ChakraDotFilter& filter);
    void refreshSummary();
    void showMessage(const QString& text, bool problem);
    void setBusy(bool busy);
    void finishLayout(const GraphLayout& layout);
    void refuse(const QString& message);
    void selectDrawnNode(std::uint64_t id);
    void explainNotDrawn(std::uint64_t id);
    /// Drawn nodes of the chosen rank whose name or type contains the search text or whose id is it, in trace
    /// order.
    std::vector<std::uint64_t> searchMatches() const;
    void updateSearch();
    void showNextMatch();
    void showNode(std::optional<std::uint64_t> id);

    std::vector<std::shared_ptr<const graph::ChakraTrace>> m_traces;
    QString m_source;
    /// Layouts, latest wins: a superseded job still queued skips Graphviz (its stop flag), a running one finishes in
    /// the background (Graphviz cannot be interrupted) and its result is dropped. On the global pool, so closing the
    /// view never waits for Graphviz.
    JobTracker m_layouts { QThreadPool::globalInstance() };
    /// Defect checks, latest wins: opening another set drops the check of the previous one.
    JobTracker m_inspections;
    bool m_busy = false;
    std::optional<std::uint64_t> m_shownNode;
    std::size_t m_windowIndex = 0; ///< the requested window of a selection too large for one layout
    std::size_t m_windowCount = 0;
    std::optional<GraphWindow> m_window;
    std::optional<std::uint64_t> m_pendingNode; ///< goToNode's node, selected when its layout arrives
    std::optional<std::size_t> m_defectCount;
    QString m_summaryBase; ///< what is drawn; refreshSummary() adds the layout time and the defects
    std::optional<double> m_layoutSeconds;

    QAction* m_openAction;
    QComboBox* m_rank = nullptr;
    QLineEdit* m_filter = nullptr;
    QLineEdit* m_idRange = nullptr;
    QLineEdit* m_search = nullptr;
    QLabel* m_searchCount = nullptr;
    QLabel* m_summary = nullptr;
    QLabel* m_message;
    QProgressBar* m_progress;
    QPushButton* m_cancel;
    QWidget* m_busyRow;
    QTimer* m_filterDelay;
    GraphCanvas* m_canvas;
    QTreeWidget* m_details;
    GraphDefectList* m_defects;
    QToolButton* m_defectsButton = nullptr;
    QToolButton* m_popOutButton = nullptr;
    QTabWidget* m_side = nullptr;
    QSplitter* m_splitter = nullptr;
    bool m_splitterDragged = false; ///< the user has shared out the width: keep their shares
    GraphPager* m_pager;
    GraphPopOut* m_popOut = nullptr;
};

} // namespace rapid::widgets
