// SPDX-License-Identifier: GPL-3.0-or-later
#include "results/resultspanel.h"

#include "common/figureformat.h"
#include "editors/runsession.h"
#include "results/comparisonpanel.h"
#include "results/inferencechart.h"
#include "results/memorychart.h"
#include "results/operatortablemodel.h"
#include "results/parameterchart.h"
#include "results/stepbreakdownchart.h"
#include "results/summaryfigures.h"
#include "timeline/timelineview.h"
#include "tracegraph/graphview.h"

#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QVBoxLayout>

#include <array>

namespace rapid::widgets {

namespace {

QString joinInts(const std::vector<int>& values)
{
    QStringList parts;
    for (int value : values) {
        parts.append(QString::number(value));
    }
    return parts.join(QStringLiteral(", "));
}

QLabel* boldLabel(const QString& text, QWidget* parent)
{
    auto* label = new QLabel(text, parent);
    QFont bold = label->font();
    bold.setBold(true);
    label->setFont(bold);
    return label;
}

} // namespace

ResultsPanel::ResultsPanel(QWidget* parent)
    : QWidget(parent)
    , m_note(new QLabel(tr("No time prediction for this configuration."), this))
    , m_stale(new QLabel(this))
    , m_baselineLabel(new QLabel(this))
    , m_figures(new SummaryFigures(this))
    , m_tabs(new QTabWidget(this))
{
    setObjectName(QStringLiteral("resultsPanel"));
    m_note->setObjectName(QStringLiteral("predictionNote"));
    m_note->setWordWrap(true);
    QFont italic = m_note->font();
    italic.setItalic(true);
    m_note->setFont(italic);
    m_stale->setWordWrap(true);
    m_stale->setText(tr("The configuration has problems (see Diagnostics); these are the results of the last valid "
                        "one."));
    m_stale->hide();
    m_baselineLabel->setObjectName(QStringLiteral("baselineLabel"));
    m_baselineLabel->setWordWrap(true);
    m_baselineLabel->hide();
    m_tabs->setObjectName(QStringLiteral("resultsTabs"));
    // Every tab stays in sight in a narrow results column (names elided) rather than behind scroll arrows.
    m_tabs->setUsesScrollButtons(false);
    m_tabs->setElideMode(Qt::ElideRight);
    m_tabs->addTab(createDashboardPage(), tr("Dashboard"));
    m_tabs->addTab(createStructurePage(), tr("Placement"));
    m_tabs->addTab(createOperatorsPage(), tr("Operators"));
    m_timeline = new TimelineView(m_tabs);
    m_tabs->addTab(m_timeline, tr("Timeline"));
    m_graphView = new GraphView(m_tabs);
    m_tabs->addTab(m_graphView, tr("Graph"));
    m_comparison = new ComparisonPanel(m_tabs);
    m_tabs->addTab(m_comparison, tr("Compare"));

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_note);
    layout->addWidget(m_stale);
    layout->addWidget(m_baselineLabel);
    layout->addWidget(m_figures);
    layout->addWidget(m_tabs, 1);
}

QWidget* ResultsPanel::createDashboardPage()
{
    auto* page = new QWidget(m_tabs);
    m_memory = new MemoryChart(page);
    m_step = new StepBreakdownChart(page);
    m_inference = new InferenceChart(page);
    m_inference->hide(); // shown instead of the step chart for inference runs
    auto* layout = new QVBoxLayout(page);
    layout->setContentsMargins(0, 4, 0, 0);
    layout->addWidget(m_memory, 3);
    layout->addWidget(m_step, 2);
    layout->addWidget(m_inference, 2);
    return page;
}

QWidget* ResultsPanel::createStructurePage()
{
    auto* page = new QWidget(m_tabs);
    m_summary = new QLabel(page);
    m_summary->setObjectName(QStringLiteral("resultsSummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextFormat(Qt::RichText);
    m_chart = new ParameterChart(page);
    m_placement = new QTableWidget(page);
    m_placement->setObjectName(QStringLiteral("placementTable"));
    m_placement->setColumnCount(5);
    m_placement->setHorizontalHeaderLabels(
        { tr("Axis"), tr("Degree"), tr("Stride"), tr("Network"), tr("Group of rank 0") });
    for (int column = 0; column < 4; ++column) {
        m_placement->horizontalHeader()->setSectionResizeMode(column, QHeaderView::ResizeToContents);
    }
    m_placement->horizontalHeader()->setSectionResizeMode(4, QHeaderView::Stretch);
    m_placement->verticalHeader()->hide();
    m_placement->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_placement->setSelectionMode(QAbstractItemView::NoSelection);
    auto* layout = new QVBoxLayout(page);
    layout->setContentsMargins(0, 4, 0, 0);
    layout->addWidget(m_summary);
    layout->addWidget(m_chart, 3);
    layout->addWidget(boldLabel(tr("Rank placement (innermost axis first)"), page));
    layout->addWidget(m_placement, 2);
    return page;
}

QWidget* ResultsPanel::createOperatorsPage()
{
    auto* page = new QWidget(m_tabs);
    page->setObjectName(QStringLiteral("operatorsPage"));
    m_operatorModel = new OperatorTableModel(page);
    m_operatorProxy = new QSortFilterProxyModel(page);
    m_operatorProxy->setSourceModel(m_operatorModel);
    m_operatorProxy->setSortRole(OperatorTableModel::SortRole);
    m_operatorTable = new QTableView(page);
    m_operatorTable->setObjectName(QStringLiteral("operatorTable"));
    m_operatorTable->setModel(m_operatorProxy);
    m_operatorTable->setSortingEnabled(true);
    m_operatorTable->sortByColumn(OperatorTableModel::Time, Qt::DescendingOrder);
    m_operatorTable->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_operatorTable->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_operatorTable->verticalHeader()->hide();
    m_operatorTable->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_operatorTable->horizontalHeader()->setStretchLastSection(true);
    m_operatorTotals = new QLabel(page);
    m_operatorTotals->setObjectName(QStringLiteral("operatorTotals"));
    m_operatorTotals->setWordWrap(true);
    auto* layout = new QVBoxLayout(page);
    layout->setContentsMargins(0, 4, 0, 0);
    layout->addWidget(boldLabel(tr("Operators of one transformer layer on one GPU"), page));
    layout->addWidget(m_operatorTable, 1);
    layout->addWidget(m_operatorTotals);
    return page;
}

QList<ChartWidget*> ResultsPanel::charts() const
{
    return { m_memory, m_step, m_inference, m_chart, m_comparison->stepChart(), m_comparison->memoryChart() };
}

void ResultsPanel::showEvaluation(const Evaluation& evaluation)
{
    m_evaluation = evaluation;
    m_note->setVisible(evaluation.inferenceMode ? !evaluation.inference : !evaluation.training);
    m_note->setText(evaluation.timeProblem.empty()
            ? tr("No time prediction for this configuration.")
            : tr("No time prediction: %1").arg(QString::fromStdString(evaluation.timeProblem)));
    m_step->setVisible(!evaluation.inferenceMode);
    m_inference->setVisible(evaluation.inferenceMode);
    m_memory->setEstimate(evaluation.memory, QString::fromStdString(evaluation.memoryProblem));
    m_step->setResult(evaluation.training);
    m_inference->setResult(evaluation.inference);
    showSteps();
    m_figures->setEvaluation(evaluation, m_baseline ? &*m_baseline : nullptr, m_congestion ? &*m_congestion : nullptr);
    showSummary(evaluation);
    showPlacement(evaluation);
    showOperators(evaluation);
    if (evaluation.training) {
        m_timeline->setTimeline(*evaluation.training, QString::fromStdString(evaluation.label));
    } else {
        m_timeline->clear(evaluation.inferenceMode ? tr("Inference runs have no training-step timeline.")
                                                   : QString::fromStdString(evaluation.timeProblem));
    }
    m_comparison->setRuns(m_pinnedRuns, m_pinnedBaseline, m_evaluation);
    Q_EMIT evaluationShown(evaluation);
}

void ResultsPanel::setPinnedRuns(const QList<NamedRun>& runs, int baseline)
{
    m_pinnedRuns = runs;
    m_pinnedBaseline = baseline;
    m_comparison->setRuns(m_pinnedRuns, m_pinnedBaseline, m_evaluation);
}

void ResultsPanel::showOperators(const Evaluation& evaluation)
{
    m_operatorModel->setRows(evaluation.operators);
    if (!evaluation.operatorProblem.empty()) {
        m_operatorTotals->setText(tr("No operator times: %1").arg(QString::fromStdString(evaluation.operatorProblem)));
        return;
    }
    constexpr std::array phases
        = { model::Phase::Forward, model::Phase::Recompute, model::Phase::Backward, model::Phase::Optimizer };
    std::array<double, phases.size()> seconds {};
    std::array<bool, phases.size()> present {};
    double total = 0;
    for (const OperatorRow& row : evaluation.operators) {
        for (size_t index = 0; index < phases.size(); ++index) {
            if (row.phase == phases[index]) {
                seconds[index] += row.seconds;
                present[index] = true;
            }
        }
        total += row.seconds;
    }
    QStringList parts;
    for (size_t index = 0; index < phases.size(); ++index) {
        if (present[index]) {
            parts.append(
                tr("%1 %2").arg(QString::fromLatin1(model::toString(phases[index])), formatSeconds(seconds[index])));
        }
    }
    parts.append(tr("layer total %1").arg(formatSeconds(total)));
    m_operatorTotals->setText(tr("Per phase: %1").arg(parts.join(QStringLiteral(" · "))));
}

void ResultsPanel::setBaseline(const NamedRun* baseline)
{
    if (baseline && baseline->evaluation) { // a run still being evaluated compares once its result is in
        m_baseline = baseline->evaluation;
        m_baselineName = baseline->name;
    } else {
        m_baseline.reset();
        m_baselineName.clear();
    }
    updateComparison();
}

void ResultsPanel::updateComparison()
{
    m_baselineLabel->setVisible(m_baseline.has_value());
    if (m_baseline) {
        m_baselineLabel->setText(
            tr("<b>Comparing with baseline</b> “%1” (%2)")
                .arg(m_baselineName.toHtmlEscaped(), QString::fromStdString(m_baseline->label).toHtmlEscaped()));
    }
    const auto memory = m_baseline ? m_baseline->memory : std::nullopt;
    m_memory->setBaseline(memory, m_baselineName);
    m_step->setBaseline(m_baseline ? m_baseline->training : std::nullopt);
    m_inference->setBaseline(m_baseline ? m_baseline->inference : std::nullopt);
    showSteps();
    if (m_evaluation) {
        m_figures->setEvaluation(
            *m_evaluation, m_baseline ? &*m_baseline : nullptr, m_congestion ? &*m_congestion : nullptr);
    }
}

void ResultsPanel::setCongestionStep(const std::optional<report::TrainingResult>& congestion)
{
    m_congestion = congestion;
    updateComparison();
}

void ResultsPanel::showSteps()
{
    if (!m_congestion || !m_evaluation || !m_evaluation->training) {
        m_step->setRows({}, -1);
        return;
    }
    // Each bar says which network model produced it; deltas against the baseline, else against the analytical step.
    QList<StepBreakdownChart::Row> rows;
    if (m_baseline && m_baseline->training) {
        rows.append({ tr("Baseline"), *m_baseline->training });
    }
    rows.append({ tr("Analytical"), *m_evaluation->training });
    rows.append({ tr("Congestion"), *m_congestion });
    m_step->setRows(rows, 0);
}

void ResultsPanel::showSummary(const Evaluation& evaluation)
{
    const model::ParameterCounts& counts = evaluation.parameters;
    QString gpus = tr("<b>GPUs:</b> %1 in the hardware, %2 used by the run (tp·pp·dp·cp)")
                       .arg(evaluation.hardwareGpus)
                       .arg(evaluation.runGpus);
    QString parameters = tr("<b>Parameters:</b> %1 total, %2 touched per token")
                             .arg(formatCount(static_cast<double>(counts.total())),
                                 formatCount(static_cast<double>(counts.activePerToken())));
    QString text = gpus + QStringLiteral("<br>") + parameters;
    for (const config::Diagnostic& problem : evaluation.placementProblems) {
        text += QStringLiteral("<br>")
            + tr("Placement: %1").arg(QString::fromStdString(problem.toString()).toHtmlEscaped());
    }
    m_summary->setText(text);
    m_chart->setCounts(counts);
}

void ResultsPanel::showPlacement(const Evaluation& evaluation)
{
    m_placement->setRowCount(static_cast<int>(evaluation.placement.axes.size()));
    int row = 0;
    for (const parallel::AxisPlacement& axis : evaluation.placement.axes) {
        QStringList networks;
        for (int dimension : axis.dimensions) {
            const bool named = dimension >= 0 && static_cast<size_t>(dimension) < evaluation.dimensionNames.size();
            networks.append(named ? QString::fromStdString(evaluation.dimensionNames[static_cast<size_t>(dimension)])
                                  : QString::number(dimension));
        }
        const QStringList cells = { QString::fromLatin1(parallel::toString(axis.axis)), QString::number(axis.degree),
            QString::number(axis.stride), networks.join(QStringLiteral(" + ")), joinInts(axis.firstGroup) };
        for (int column = 0; column < cells.size(); ++column) {
            m_placement->setItem(row, column, new QTableWidgetItem(cells[column]));
        }
        ++row;
    }
}

bool ResultsPanel::isStale() const
{
    return !m_stale->isHidden();
}

void ResultsPanel::setStale(bool stale)
{
    m_stale->setVisible(stale);
}

} // namespace rapid::widgets
