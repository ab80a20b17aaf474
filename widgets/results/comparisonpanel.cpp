// SPDX-License-Identifier: GPL-3.0-or-later
#include "results/comparisonpanel.h"

#include "common/distinctlabels.h"
#include "common/figureformat.h"
#include "common/plotstyle.h"
#include "evaluation/evaluationdiff.h"
#include "results/memorychart.h"
#include "results/stepbreakdownchart.h"

#include <QApplication>
#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QScrollBar>
#include <QSplitter>
#include <QStyledItemDelegate>
#include <QTabWidget>
#include <QTableWidget>
#include <QTimer>
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
    item->setToolTip(text);
    return item;
}

constexpr double kNone = std::numeric_limits<double>::quiet_NaN();

double valueOr(std::optional<double> value)
{
    return value.value_or(kNone);
}

/// A figure and its change against @p reference ("+12.3%", coloured by whether the change is better: @p
/// lowerIsBetter for times and memory); no change when either value is missing (NaN) or @p reference is zero.
QTableWidgetItem* figureCell(const QString& text, double value, double reference, bool lowerIsBetter)
{
    const std::optional<double> change
        = std::isnan(value) || std::isnan(reference) ? std::nullopt : relativeChange(value, reference);
    const QString delta = change ? formatDelta(*change) : QString();
    QTableWidgetItem* item = cell(delta.isEmpty() ? text : QStringLiteral("%1 (%2)").arg(text, delta));
    item->setData(ComparisonPanel::ValueRole, text);
    item->setData(ComparisonPanel::DeltaRole, delta);
    if (change) {
        const bool better = lowerIsBetter ? *change < -0.05 : *change > 0.05;
        const bool worse = lowerIsBetter ? *change > 0.05 : *change < -0.05;
        if (better || worse) {
            const PlotStyle& style = PlotStyle::standard();
            item->setData(ComparisonPanel::DeltaColorRole, better ? style.goodColor() : style.badColor());
        }
    }
    return item;
}

/// Draws a figure's value with its change under it, so that a column is as wide as its longest value rather than
/// value and change side by side (five runs share a 1280x720 window's results dock).
class FigureDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override
    {
        const QVariant value = index.data(ComparisonPanel::ValueRole);
        if (!value.isValid()) {
            QStyledItemDelegate::paint(painter, option, index);
            return;
        }
        QStyleOptionViewItem item = option;
        initStyleOption(&item, index);
        item.text.clear();
        const QWidget* widget = option.widget;
        QStyle* style = widget ? widget->style() : QApplication::style();
        style->drawControl(QStyle::CE_ItemViewItem, &item, painter, widget);
        const QRect area = style->subElementRect(QStyle::SE_ItemViewItemText, &item, widget);
        const QString delta = index.data(ComparisonPanel::DeltaRole).toString();
        const int line = item.fontMetrics.height();
        const int lines = delta.isEmpty() ? 1 : 2;
        QRect first(area.left(), area.top() + (area.height() - lines * line) / 2, area.width(), line);
        const QColor text
            = item.palette.color(item.state & QStyle::State_Selected ? QPalette::HighlightedText : QPalette::Text);
        painter->save();
        painter->setFont(item.font);
        painter->setPen(text);
        const auto alignment = Qt::AlignRight | Qt::AlignVCenter;
        painter->drawText(
            first, alignment, item.fontMetrics.elidedText(value.toString(), Qt::ElideRight, area.width()));
        if (!delta.isEmpty()) {
            const QVariant colour = index.data(ComparisonPanel::DeltaColorRole);
            const bool selected = item.state & QStyle::State_Selected;
            painter->setPen(colour.isValid() && !selected ? colour.value<QColor>() : text);
            painter->drawText(first.translated(0, line), alignment, delta);
        }
        painter->restore();
    }

    QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override
    {
        const QVariant value = index.data(ComparisonPanel::ValueRole);
        if (!value.isValid()) {
            return QStyledItemDelegate::sizeHint(option, index);
        }
        // As wide as the longer of the two lines drawn, and as tall as they are: the table keeps its rows in sight
        // above the charts at 1280x720.
        QStyleOptionViewItem item = option;
        initStyleOption(&item, index);
        const QString delta = index.data(ComparisonPanel::DeltaRole).toString();
        const QWidget* widget = option.widget;
        const QStyle* style = widget ? widget->style() : QApplication::style();
        const int margin = style->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, widget) + 3;
        const QFontMetrics& metrics = item.fontMetrics;
        const QSize size(
            std::max(metrics.horizontalAdvance(value.toString()), metrics.horizontalAdvance(delta)) + 2 * margin,
            (delta.isEmpty() ? 1 : 2) * metrics.height() + 6);
        return size;
    }
};

} // namespace

ComparisonPanel::ComparisonPanel(QWidget* parent)
    : QWidget(parent)
    , m_hint(new QLabel(this))
    , m_table(new QTableWidget(RowCount, 0, this))
    , m_split(new QSplitter(Qt::Vertical, this))
    , m_charts(new QTabWidget(this))
    , m_step(new StepBreakdownChart(this))
    , m_memory(new MemoryChart(this))
{
    setObjectName(QStringLiteral("comparisonPanel"));
    m_step->setObjectName(QStringLiteral("comparisonStepChart"));
    m_memory->setObjectName(QStringLiteral("comparisonMemoryChart"));
    m_hint->setWordWrap(true);
    m_hint->setText(tr("Pin runs (Compare > Pin Run, Ctrl+Shift+B) to compare them with the current result. Each "
                       "column says what its run changes against the baseline."));
    m_table->setObjectName(QStringLiteral("comparisonTable"));
    m_table->setVerticalHeaderLabels({ tr("Changes"), tr("Network"), tr("Step / request"), tr("Tokens/s"), tr("MFU"),
        tr("Memory / GPU"), tr("Fits") });
    m_table->setItemDelegate(new FigureDelegate(m_table));
    // Columns share the width; none narrower than its widest value, so a figure is never cut (more runs than fit
    // scroll instead).
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->setWordWrap(true); // "Changes" of several words wraps within its column
    m_table->setSelectionBehavior(QAbstractItemView::SelectColumns);
    // Stretched sections follow the viewport's width without announcing it: the headers are shortened again then.
    m_table->viewport()->installEventFilter(this);
    // The table no taller than its rows; the charts take turns below it, since at 1280x720 two of them under the
    // table left each bar a few pixels.
    m_charts->setObjectName(QStringLiteral("comparisonCharts"));
    m_charts->setDocumentMode(true);
    m_charts->addTab(m_step, tr("Step time"));
    m_charts->addTab(m_memory, tr("Memory"));
    m_charts->setMinimumHeight(140); // a bar per run and the legend; the table's rows come first
    m_split->addWidget(m_table);
    m_split->addWidget(m_charts);
    m_split->setStretchFactor(1, 1);
    m_split->setChildrenCollapsible(false);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 4, 0, 0);
    layout->addWidget(m_hint);
    layout->addWidget(m_split, 1);
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
    m_baselineColumn = baseline >= 0 && baseline < compared.size() ? baseline : -1;
    fillTable(compared, reference);
    fillCharts(compared, reference);
}

void ComparisonPanel::fillTable(const QList<Compared>& compared, int reference)
{
    const Evaluation* base = reference >= 0 ? compared[reference].evaluation : nullptr;
    m_names.clear();
    m_table->setColumnCount(static_cast<int>(compared.size()));
    for (int column = 0; column < compared.size(); ++column) {
        const Compared& entry = compared[column];
        m_names.append(entry.name);
        // The baseline says so; without one the first run is what the changes refer to.
        const QString role = column == m_baselineColumn  ? tr("(baseline)")
            : column == reference && compared.size() > 1 ? tr("(reference)")
                                                         : QString();
        auto* header = new QTableWidgetItem(entry.name);
        header->setToolTip(role.isEmpty() ? entry.name : QStringLiteral("%1 %2").arg(entry.name, role));
        m_table->setHorizontalHeaderItem(column, header);
        fillColumn(column, entry, base, column == reference);
        if (!role.isEmpty() && entry.evaluation) {
            m_table->setItem(ChangesRow, column, cell(role, Qt::AlignLeft | Qt::AlignVCenter));
        }
    }
    // No column narrower than its widest figure (the changes wrap instead).
    QStyleOptionViewItem option;
    option.initFrom(m_table);
    option.font = m_table->font();
    option.fontMetrics = m_table->fontMetrics();
    int widest = m_table->fontMetrics().horizontalAdvance(QStringLiteral("0000"));
    for (int column = 0; column < m_table->columnCount(); ++column) {
        for (int row = BackendRow; row < RowCount; ++row) {
            const QModelIndex index = m_table->model()->index(row, column);
            widest = std::max(widest, m_table->itemDelegate()->sizeHint(option, index).width());
        }
    }
    m_table->horizontalHeader()->setMinimumSectionSize(widest);
    relabelColumns();
}

void ComparisonPanel::fillColumn(int column, const Compared& entry, const Evaluation* base, bool isReference)
{
    const Evaluation* evaluation = entry.evaluation;
    if (!evaluation) {
        m_table->setItem(ChangesRow, column, cell(entry.problem, Qt::AlignLeft | Qt::AlignVCenter));
        for (int row = BackendRow; row < RowCount; ++row) {
            m_table->setItem(row, column, cell(QString()));
        }
        return;
    }
    QString differs;
    if (base && !isReference) {
        differs = QString::fromStdString(differenceWords(*base, *evaluation));
        differs = differs.isEmpty() ? tr("same as the baseline") : differs;
    }
    m_table->setItem(ChangesRow, column, cell(differs, Qt::AlignLeft | Qt::AlignVCenter));
    m_table->setItem(BackendRow, column, cell(QString::fromLatin1(sim::toString(evaluation->backend))));
    const std::optional<double> time = timeOf(*evaluation);
    const std::optional<double> throughput = throughputOf(*evaluation);
    const double peak = evaluation->memory ? evaluation->memory->peakBytes : kNone;
    // Changes for the columns other than the reference, against the reference.
    const bool other = base && !isReference;
    const double baseTime = other ? valueOr(timeOf(*base)) : kNone;
    const double baseThroughput = other ? valueOr(throughputOf(*base)) : kNone;
    const double basePeak = other && base->memory ? base->memory->peakBytes : kNone;
    m_table->setItem(TimeRow, column, figureCell(time ? formatSeconds(*time) : tr("—"), valueOr(time), baseTime, true));
    m_table->setItem(ThroughputRow, column,
        figureCell(
            throughput ? formatTokensPerSecond(*throughput) : tr("—"), valueOr(throughput), baseThroughput, false));
    m_table->setItem(MfuRow, column, cell(evaluation->training ? formatPercent(evaluation->training->mfu) : tr("—")));
    m_table->setItem(MemoryRow, column, figureCell(std::isnan(peak) ? tr("—") : formatGiB(peak), peak, basePeak, true));
    m_table->setItem(
        FitsRow, column, cell(evaluation->memory ? (evaluation->memory->fits ? tr("yes") : tr("no")) : tr("—")));
}

bool ComparisonPanel::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_table->viewport() && event->type() == QEvent::Resize && !m_relabelQueued) {
        m_relabelQueued = true;
        QTimer::singleShot(0, this, [this] {
            m_relabelQueued = false;
            relabelColumns();
        });
    }
    return QWidget::eventFilter(watched, event);
}

void ComparisonPanel::relabelColumns()
{
    QHeaderView* header = m_table->horizontalHeader();
    const QFontMetrics metrics = header->fontMetrics();
    const int margin = 2 * header->style()->pixelMetric(QStyle::PM_HeaderMargin, nullptr, header) + 2;
    for (int column = 0; column < m_names.size(); ++column) {
        const int room = header->sectionSize(column) - margin;
        const QStringList shown
            = elideDistinctly(m_names, [&](const QString& text) { return metrics.horizontalAdvance(text) <= room; });
        if (QTableWidgetItem* item = m_table->horizontalHeaderItem(column); item && item->text() != shown[column]) {
            item->setText(shown[column]);
        }
    }
    m_table->resizeRowsToContents();
    // Every row in sight where the window has the room (a small one scrolls the table instead of hiding it).
    const bool scrolls = m_table->horizontalScrollBar()->maximum() > 0;
    const int rows = m_table->horizontalHeader()->height() + m_table->verticalHeader()->length()
        + 2 * m_table->frameWidth() + (scrolls ? m_table->horizontalScrollBar()->sizeHint().height() : 0);
    if (m_table->maximumHeight() != rows) {
        m_table->setMaximumHeight(rows);
        m_split->setSizes({ rows, std::max(m_split->height() - rows, 1) });
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
