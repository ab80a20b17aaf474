// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "editors/runsession.h"
#include "evaluation/evaluation.h"

#include <QList>
#include <QWidget>

#include <optional>

class QLabel;
class QTableWidget;

namespace rapid::widgets {

class MemoryChart;
class StepBreakdownChart;

/// The "Compare" tab: every pinned run and the current result side by side. A table of the headline figures with
/// their change against the baseline (the first run when none is chosen) and a column saying what each run changes
/// ("tp4 dp4", "seq 4096", "1 link fault"); under it the step-time breakdowns and the memory peaks as one bar per
/// run, exportable as paper figures like every chart.
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

    /// Table columns.
    enum Column {
        RunColumn,
        DiffersColumn,
        TimeColumn,
        TimeDelta,
        ThroughputColumn,
        ThroughputDelta,
        MfuColumn,
        MemoryColumn,
        MemoryDelta,
        FitsColumn,
        ColumnCount
    };

private:
    struct Compared {
        QString name;
        const Evaluation* evaluation = nullptr; ///< null: see problem
        QString problem;
    };
    void fillTable(const QList<Compared>& compared, int reference);
    void fillCharts(const QList<Compared>& compared, int reference);

    QLabel* m_hint;
    QTableWidget* m_table;
    StepBreakdownChart* m_step;
    MemoryChart* m_memory;
    int m_baselineRow = -1;
};

} // namespace rapid::widgets
