// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "editors/runsession.h"
#include "evaluation/evaluation.h"

#include <QList>
#include <QStringList>
#include <QWidget>

#include <optional>

class QLabel;
class QSplitter;
class QTabWidget;
class QTableWidget;

namespace rapid::widgets {

class MemoryChart;
class StepBreakdownChart;

/// The "Compare" tab: every pinned run and the current result side by side. A table with one column per run (its
/// name in the header, shortened to the column and whole in the tooltip) and one row per figure: what the run
/// changes against the baseline (the first run when none is chosen), the network model its figures come from, and
/// each headline figure with its change against the baseline ("72.04 s" over "+12.3%"); under it, on two pages, the
/// step-time breakdowns and the memory peaks as one bar per run, exportable as paper figures like every chart. Runs as
/// columns keep four pinned runs and the current result within a 1280x720 window's results dock.
class ComparisonPanel : public QWidget {
    Q_OBJECT
public:
    explicit ComparisonPanel(QWidget* parent = nullptr);

    /// @p runs in list order, then @p current (when there is one); @p baseline indexes @p runs (-1: none). Runs
    /// still being evaluated, or no longer evaluating, are listed with why and left out of the charts.
    void setRuns(const QList<NamedRun>& runs, int baseline, const std::optional<Evaluation>& current);

    QTableWidget* table() const { return m_table; }
    StepBreakdownChart* stepChart() const { return m_step; }
    MemoryChart* memoryChart() const { return m_memory; }
    QLabel* hintLabel() const { return m_hint; }
    /// The step-time and memory charts, one page each under the table.
    QTabWidget* chartTabs() const { return m_charts; }
    /// The columns' run names, whole ("Current" last when there is a current result).
    const QStringList& runNames() const { return m_names; }

    /// Table rows; each run is a column.
    enum Row { ChangesRow, BackendRow, TimeRow, ThroughputRow, MfuRow, MemoryRow, FitsRow, RowCount };
    /// Item data of a figure: the value alone ("72.04 s") and its change against the baseline ("+12.3%"; empty for
    /// the baseline itself or a missing figure), drawn one over the other; the item's text is "72.04 s (+12.3%)".
    static constexpr int ValueRole = Qt::UserRole;
    static constexpr int DeltaRole = Qt::UserRole + 1;
    static constexpr int DeltaColorRole = Qt::UserRole + 2; ///< QColor when the change is better or worse

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    struct Compared {
        QString name;
        const Evaluation* evaluation = nullptr; ///< null: see problem
        QString problem;
    };
    void fillTable(const QList<Compared>& compared, int reference);
    void fillColumn(int column, const Compared& entry, const Evaluation* base, bool isReference);
    void fillCharts(const QList<Compared>& compared, int reference);
    /// Header texts shortened to the columns' widths, keeping what tells the runs apart.
    void relabelColumns();

    QLabel* m_hint;
    QTableWidget* m_table;
    QSplitter* m_split;
    QTabWidget* m_charts;
    StepBreakdownChart* m_step;
    MemoryChart* m_memory;
    QStringList m_names;
    int m_baselineColumn = -1;
    bool m_relabelQueued = false;
};

} // namespace rapid::widgets
