// SPDX-License-Identifier: GPL-3.0-or-later
#include "results/comparisonpanel.h"

#include "common/figureformat.h"
#include "common/plotstyle.h"
#include "results/memorychart.h"
#include "results/stepbreakdownchart.h"

#include "analysis/scenariodiff.h"

#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>
#include <limits>

namespace rapid::widgets {

namespace {

/// The time a run is judged by: a training step, or one request end to end.
std::optional<double> timeOf(const Evaluation& evaluation)
{
    if (evaluation.training) {
        return evaluation.training->stepTimeSeconds;
    }
    if (evaluation.inference) {
        return evaluation.inference->e2eSeconds;
    }
    return std::nullopt;
}

std::optional<double> throughputOf(const Evaluation& evaluation)
{
    if (evaluation.training) {
        return evaluation.training->tokensPerSecond;
    }
    if (evaluation.inference) {
        return evaluation.inference->tokensPerSecond;
    }
    return std::nullopt;
}

QTableWidgetItem* cell(const QString& text, Qt::Alignment alignment = Qt::AlignRight | Qt::AlignVCenter)
{
    auto* item = new QTableWidgetItem(text);
    item->setFlags(item->flags() & ~Qt::ItemIsEditable);
    item->setTextAlignment(alignment);
    return item;
}

constexpr double kNone = std::numeric_limits<double>::quiet_NaN();

double valueOr(std::optional<double> value)
{
    return value.value_or(kNone);
}

/// "+12.3%" coloured by whether the change is better (@p lowerIsBetter for times and memory); empty when either
/// value is missing (NaN).
QTableWidgetItem* deltaCell(double value, double reference, bool lowerIsBetter)
{
    if (std::isnan(value) || std::isnan(reference)) {
        return cell(QString());
    }
    const std::optional<double> change = relativeChange(value, reference);
    if (!change) {
        return cell(QString());
    }
    QTableWidgetItem* item = cell(formatDelta(*change));
    const bool better = lowerIsBetter ? *change < -0.05 : *change > 0.05;
    const bool worse = lowerIsBetter ? *change > 0.05 : *change < -0.05;
    if (better || worse) {
        item->setForeground(better ? PlotStyle::standard().goodColor() : PlotStyle::standard().badColor());
    }
    return item;
}

} // namespace

ComparisonPanel::ComparisonPanel(QWidget* parent)
    : QWidget(parent)
    , m_hint(new QLabel(this))
    , m_table(new QTableWidget(0, ColumnCount, this))
    , m_step(new StepBreakdownChart(this))
    , m_memory(new MemoryChart(this))
{
    setObjectName(QStringLiteral("comparisonPanel"));
    m_step->setObjectName(QStringLiteral("comparisonStepChart"));
    m_memory->setObjectName(QStringLiteral("comparisonMemoryChart"));
    m_hint->setWordWrap(true);
    m_hint->setText(tr("Pin runs (Compare > Pin Run, Ctrl+Shift+B) to compare them with the current result. Each "
                       "row says what it changes against the baseline."));
    m_table->setObjectName(QStringLiteral("comparisonTable"));
    m_table->setHorizontalHeaderLabels({ tr("Run"), tr("Changes"), tr("Step / request"), tr("Δ"), tr("Tokens/s"),
        tr("Δ"), tr("MFU"), tr("Peak memory / GPU"), tr("Δ"), tr("Fits") });
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(DiffersColumn, QHeaderView::Stretch);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    auto* charts = new QSplitter(Qt::Vertical, this);
    charts->addWidget(m_step);
    charts->addWidget(m_memory);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_table);
    split->addWidget(charts);
    split->setStretchFactor(1, 3);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 4, 0, 0);
    layout->addWidget(m_hint);
    layout->addWidget(split, 1);
}

void ComparisonPanel::setRuns(const QList<NamedRun>& runs, int baseline, const std::optional<Evaluation>& current)
{
    QList<Compared> compared;
    for (const NamedRun& run : runs) {
        const QString problem = run.isEvaluating() ? tr("being evaluated…") : run.problem;
        compared.append({ run.name, run.evaluation ? &*run.evaluation : nullptr, problem });
    }
    if (current) {
        compared.append({ tr("Current"), &*current, QString() });
    }
    // Deltas refer to the baseline, or to the first run that has a result.
    int reference = baseline >= 0 && baseline < compared.size() && compared[baseline].evaluation ? baseline : -1;
    for (int index = 0; reference < 0 && index < compared.size(); ++index) {
        reference = compared[index].evaluation ? index : -1;
    }
    m_hint->setVisible(runs.isEmpty());
    m_baselineRow = baseline >= 0 && baseline < compared.size() ? baseline : -1;
    fillTable(compared, reference);
    fillCharts(compared, reference);
}

void ComparisonPanel::fillTable(const QList<Compared>& compared, int reference)
{
    const Evaluation* base = reference >= 0 ? compared[reference].evaluation : nullptr;
    m_table->setRowCount(static_cast<int>(compared.size()));
    for (int row = 0; row < compared.size(); ++row) {
        const Compared& entry = compared[row];
        // The baseline says so; without one the first run is what the changes refer to.
        const QString name = row == m_baselineRow     ? tr("%1 (baseline)").arg(entry.name)
            : row == reference && compared.size() > 1 ? tr("%1 (reference)").arg(entry.name)
                                                      : entry.name;
        m_table->setItem(row, RunColumn, cell(name, Qt::AlignLeft | Qt::AlignVCenter));
        const Evaluation* evaluation = entry.evaluation;
        if (!evaluation) {
            m_table->setItem(row, DiffersColumn, cell(entry.problem, Qt::AlignLeft | Qt::AlignVCenter));
            for (int column = TimeColumn; column < ColumnCount; ++column) {
                m_table->setItem(row, column, cell(QString()));
            }
            continue;
        }
        QString differs;
        if (base && row != reference && base->scenario && evaluation->scenario) {
            differs = QString::fromStdString(analysis::differenceLabel(*base->scenario, *evaluation->scenario));
        }
        m_table->setItem(row, DiffersColumn, cell(differs, Qt::AlignLeft | Qt::AlignVCenter));
        const std::optional<double> time = timeOf(*evaluation);
        const std::optional<double> throughput = throughputOf(*evaluation);
        const double peak = evaluation->memory ? evaluation->memory->peakBytes : kNone;
        // Deltas for the rows other than the reference, against the reference.
        const bool other = base && row != reference;
        const double baseTime = other ? valueOr(timeOf(*base)) : kNone;
        const double baseThroughput = other ? valueOr(throughputOf(*base)) : kNone;
        const double basePeak = other && base->memory ? base->memory->peakBytes : kNone;
        m_table->setItem(row, TimeColumn, cell(time ? formatSeconds(*time) : tr("—")));
        m_table->setItem(row, TimeDelta, deltaCell(valueOr(time), baseTime, true));
        m_table->setItem(row, ThroughputColumn, cell(throughput ? formatTokensPerSecond(*throughput) : tr("—")));
        m_table->setItem(row, ThroughputDelta, deltaCell(valueOr(throughput), baseThroughput, false));
        m_table->setItem(
            row, MfuColumn, cell(evaluation->training ? formatPercent(evaluation->training->mfu) : tr("—")));
        m_table->setItem(row, MemoryColumn, cell(std::isnan(peak) ? tr("—") : formatGiB(peak)));
        m_table->setItem(row, MemoryDelta, deltaCell(peak, basePeak, true));
        m_table->setItem(row, FitsColumn,
            cell(evaluation->memory ? (evaluation->memory->fits ? tr("yes") : tr("no")) : tr("—"), Qt::AlignCenter));
    }
}

void ComparisonPanel::fillCharts(const QList<Compared>& compared, int reference)
{
    QList<StepBreakdownChart::Row> steps;
    QList<MemoryChart::Row> peaks;
    int stepReference = -1;
    int memoryReference = -1;
    for (int index = 0; index < compared.size(); ++index) {
        const Evaluation* evaluation = compared[index].evaluation;
        if (!evaluation) {
            continue;
        }
        if (evaluation->training) {
            stepReference = index == reference ? static_cast<int>(steps.size()) : stepReference;
            steps.append({ compared[index].name, *evaluation->training });
        }
        if (evaluation->memory) {
            memoryReference = index == reference ? static_cast<int>(peaks.size()) : memoryReference;
            peaks.append({ compared[index].name, *evaluation->memory });
        }
    }
    m_step->setRows(steps, stepReference);
    m_memory->setRows(peaks, memoryReference);
}

} // namespace rapid::widgets
