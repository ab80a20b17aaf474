// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "editors/runsession.h"
#include "evaluation/evaluation.h"

#include <QList>
#include <QWidget>

#include <optional>

class QLabel;
class QSortFilterProxyModel;
class QTabWidget;
class QTableView;
class QTableWidget;

namespace rapid::widgets {

class ChartWidget;
class ComparisonPanel;
class GraphView;
class InferenceChart;
class MemoryChart;
class OperatorTableModel;
class ParameterChart;
class StepBreakdownChart;
class SummaryFigures;
class TimelineView;

/// The dashboard: headline figures, memory against capacity and the step-time breakdown (or inference latencies) on
/// one tab; parameter counts and the rank placement on another. Time figures appear only when the evaluation carries
/// a prediction; until then the panel says "No time prediction yet" rather than showing a made-up number. With a
/// baseline run every chart and figure shows it beside the current result, with the change. A third tab lists one
/// layer's operators, sortable by any column (time descending by default), with the total time of each phase.
class ResultsPanel : public QWidget {
    Q_OBJECT
public:
    explicit ResultsPanel(QWidget* parent = nullptr);

    void showEvaluation(const Evaluation& evaluation);
    /// Null clears the baseline. The run is copied: the session may drop it later.
    void setBaseline(const NamedRun* baseline);
    /// The congestion backend's step for the shown configuration (the Topology tab's "Simulate congestion"), shown
    /// beside the analytical one on the cards and the breakdown; nullopt when there is none or it is stale.
    void setCongestionStep(const std::optional<report::TrainingResult>& congestion);
    const std::optional<report::TrainingResult>& congestionStep() const { return m_congestion; }
    /// Every pinned run (a copy), for the Compare tab; @p baseline indexes @p runs (-1: none).
    void setPinnedRuns(const QList<NamedRun>& runs, int baseline);
    /// The configuration has problems: the results shown are those of the last valid one.
    void setStale(bool stale);
    /// Whether the panel says its results are those of an earlier, valid configuration.
    bool isStale() const;

    const std::optional<Evaluation>& evaluation() const { return m_evaluation; }
    /// Every chart that can be exported, in display order.
    QList<ChartWidget*> charts() const;

    QLabel* summaryLabel() const { return m_summary; }
    QLabel* noteLabel() const { return m_note; }
    QTableWidget* placementTable() const { return m_placement; }
    ParameterChart* chart() const { return m_chart; }
    MemoryChart* memoryChart() const { return m_memory; }
    StepBreakdownChart* stepChart() const { return m_step; }
    InferenceChart* inferenceChart() const { return m_inference; }
    SummaryFigures* summaryFigures() const { return m_figures; }
    QTabWidget* tabs() const { return m_tabs; }
    QTableView* operatorTable() const { return m_operatorTable; }
    OperatorTableModel* operatorModel() const { return m_operatorModel; }
    QSortFilterProxyModel* operatorProxy() const { return m_operatorProxy; }
    QLabel* operatorTotalsLabel() const { return m_operatorTotals; }
    TimelineView* timeline() const { return m_timeline; }
    GraphView* graphView() const { return m_graphView; }
    ComparisonPanel* comparison() const { return m_comparison; }

Q_SIGNALS:
    /// showEvaluation() has applied @p evaluation to every view (emitted at its end; painting follows later).
    void evaluationShown(const rapid::widgets::Evaluation& evaluation);

private:
    QWidget* createDashboardPage();
    QWidget* createStructurePage();
    QWidget* createOperatorsPage();
    void showOperators(const Evaluation& evaluation);
    void showSummary(const Evaluation& evaluation);
    void showPlacement(const Evaluation& evaluation);
    void updateComparison();
    /// The step chart: the current step alone or beside the baseline, with the congestion step as its own bar.
    void showSteps();

    std::optional<Evaluation> m_evaluation;
    std::optional<Evaluation> m_baseline;
    QString m_baselineName;
    QLabel* m_note;
    QLabel* m_stale;
    QLabel* m_baselineLabel;
    SummaryFigures* m_figures;
    QTabWidget* m_tabs;
    MemoryChart* m_memory = nullptr;
    StepBreakdownChart* m_step = nullptr;
    InferenceChart* m_inference = nullptr;
    QLabel* m_summary = nullptr;
    ParameterChart* m_chart = nullptr;
    QTableWidget* m_placement = nullptr;
    OperatorTableModel* m_operatorModel = nullptr;
    QSortFilterProxyModel* m_operatorProxy = nullptr;
    QTableView* m_operatorTable = nullptr;
    QLabel* m_operatorTotals = nullptr;
    TimelineView* m_timeline = nullptr;
    GraphView* m_graphView = nullptr;
    ComparisonPanel* m_comparison = nullptr;
    QList<NamedRun> m_pinnedRuns;
    std::optional<report::TrainingResult> m_congestion;
    int m_pinnedBaseline = -1;
};

} // namespace rapid::widgets
