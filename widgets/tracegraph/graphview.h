// SPDX-License-Identifier: GPL-3.0-or-later
//
// Shown as the "Graph" tab of ResultsPanel. Traces come from files (File > Open Chakra Traces…, or the view's own
// button) or from memory (setTraces, for the workbench's own exported step).
#pragma once

#include "common/jobtracker.h"

#include "graph/chakradot.h"
#include "graph/chakratrace.h"

#include <QString>
#include <QWidget>

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

class QAction;
class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QTimer;
class QTreeWidget;

namespace rapid::widgets {

class GraphCanvas;
struct GraphLayout;

/// The Chakra graph view: one rank's execution graph drawn by Graphviz. A rank chooser, a filter (name or node type
/// substring, and an id range) that decides what is laid out, a search that outlines matching nodes without a new
/// layout, and a side panel with every field and attribute of the clicked node. Layouts run on a worker thread
/// with a busy bar and Cancel; a result that arrives after a newer request (another rank or filter, Cancel) is
/// dropped. Selections above kMaxLaidOutNodes nodes or kMaxLaidOutEdges edges are not laid out: the view asks
/// for a narrower filter instead of keeping Graphviz busy for minutes.
class GraphView : public QWidget {
    Q_OBJECT
public:
    explicit GraphView(QWidget* parent = nullptr);
    ~GraphView() override;

    /// Reads a trace set (a directory of `<prefix>.<rank>.et` files, one `.et` file or an ASTRA-sim prefix, see
    /// graph::readChakraDirectory) on the calling thread (milliseconds; ~0.1 s for the 3,664-node PyTorch sample)
    /// and lays out its first rank. On failure the reader's message is shown in the view, returned in @p error,
    /// and the traces shown before stay.
    bool openTraces(const QString& path, QString* error = nullptr);
    /// Shows traces built in memory (e.g. the workbench's own step exported per rank), sorted as given.
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

Q_SIGNALS:
    /// A layout has been shown (@p nodes drawn nodes).
    void graphShown(int nodes);
    /// The current request ended without a drawing (too big, no match, bad filter, Graphviz error); see
    /// messageLabel().
    void graphRefused(const QString& message);

private:
    QWidget* createToolRows();
    void rebuildRankChooser();
    void showMessage(const QString& text, bool problem);
    void setBusy(bool busy);
    void finishLayout(const GraphLayout& layout);
    void refuse(const QString& message);
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
    bool m_busy = false;
    std::optional<std::uint64_t> m_shownNode;
    QString m_drawnSummary;

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
};

} // namespace rapid::widgets
