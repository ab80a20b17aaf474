// SPDX-License-Identifier: GPL-3.0-or-later
#include "sweeps/sweeppanel.h"

#include "sweep/sweepoutput.h"

#include "common/flowlayout.h"
#include "editors/documentkind.h"
#include "editors/workspacedocument.h"
#include "sweeps/sweepaxeseditor.h"
#include "sweeps/sweepchart.h"
#include "sweeps/sweepjob.h"
#include "sweeps/sweeptablemodel.h"

#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QUndoStack>
#include <QVBoxLayout>

#include <algorithm>
#include <map>
#include <sstream>

namespace rapid::widgets {

namespace {

/// Sorts on SweepTableModel::SortRole, figures a point does not have always last, whichever the order.
class SweepSortProxy : public QSortFilterProxyModel {
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;

protected:
    bool lessThan(const QModelIndex& left, const QModelIndex& right) const override
    {
        const QVariant a = left.data(SweepTableModel::SortRole);
        const QVariant b = right.data(SweepTableModel::SortRole);
        if (!a.isValid() || !b.isValid()) {
            if (a.isValid() == b.isValid()) {
                return false; // the proxy sorts stably: the missing keep their index order
            }
            // Descending order puts the greater first, so there the missing one must be the lesser.
            return sortOrder() == Qt::AscendingOrder ? a.isValid() : !a.isValid();
        }
        return QVariant::compare(a, b) == QPartialOrdering::Less;
    }
};

/// The document as the editors' checks load it: named by its root key, so messages point into the editor's text.
config::DocumentText named(const config::DocumentText& document, DocumentKind kind)
{
    config::DocumentText copy = document;
    copy.sourceName = rootKeyOf(kind).toStdString();
    return copy;
}

QString counts(const sweep::SweepResult& result)
{
    const QLocale locale;
    return SweepPanel::tr("%1 points: %2 ok, %3 do not fit, %4 invalid, %5 failed in %6 s")
        .arg(locale.toString(static_cast<qlonglong>(result.rows.size())),
            locale.toString(static_cast<qlonglong>(result.count(sweep::PointStatus::Ok))),
            locale.toString(static_cast<qlonglong>(result.count(sweep::PointStatus::DoesNotFit))),
            locale.toString(static_cast<qlonglong>(result.count(sweep::PointStatus::Invalid))),
            locale.toString(static_cast<qlonglong>(result.count(sweep::PointStatus::Failed))),
            QString::number(result.seconds, 'f', result.seconds < 10 ? 2 : 1));
}

bool inferenceOf(const sweep::SweepResult& result, bool fallback)
{
    for (const sweep::SweepRow& row : result.rows) {
        if (row.status == sweep::PointStatus::Ok || row.status == sweep::PointStatus::DoesNotFit) {
            return row.inference;
        }
    }
    return fallback;
}

} // namespace

SweepPanel::SweepPanel(WorkspaceDocument* document, QWidget* parent)
    : QWidget(parent)
    , m_document(document)
    , m_job(new SweepJob(this))
    , m_axes(new SweepAxesEditor(this))
    , m_pointCount(new QLabel(this))
    , m_run(new QPushButton(tr("Run sweep"), this))
    , m_cancel(new QPushButton(tr("Cancel"), this))
    , m_progress(new QProgressBar(this))
    , m_status(new QLabel(this))
    , m_model(new SweepTableModel(this))
    , m_proxy(new SweepSortProxy(this))
    , m_table(new QTableView(this))
    , m_chart(new SweepChart(this))
    , m_copy(new QPushButton(tr("Copy overrides"), this))
    , m_apply(new QPushButton(tr("Apply to workspace"), this))
    , m_exportCsv(new QPushButton(tr("Export CSV…"), this))
    , m_showNotFitting(new QCheckBox(tr("Show configurations that do not fit"), this))
    , m_copied(new QLabel(this))
{
    describeFields();
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(SweepTableModel::SortRole);
    m_table->setObjectName(QStringLiteral("sweepTable"));
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setAlternatingRowColors(true);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(true);

    // A group box is at least as wide as its title: the values' syntax goes in the tooltip and the lines' placeholder.
    auto* axesBox = new QGroupBox(tr("Axes (KEY=VALUES, one per line)"), this);
    axesBox->setToolTip(tr("VALUES: a list (1,2,4), a range (1..8) or a geometric range (1..64:x2)"));
    auto* axesLayout = new QVBoxLayout(axesBox);
    axesLayout->addWidget(m_axes);

    auto* runRow = new QHBoxLayout;
    runRow->addWidget(m_pointCount);
    runRow->addStretch();
    runRow->addWidget(m_progress, 1);
    runRow->addWidget(m_cancel);
    runRow->addWidget(m_run);

    auto* tableColumn = new QWidget(this);
    auto* tableLayout = new QVBoxLayout(tableColumn);
    tableLayout->setContentsMargins(0, 0, 0, 0);
    tableLayout->addWidget(m_table, 1);
    auto* tableButtons = new FlowLayout;
    tableButtons->setContentsMargins(0, 0, 0, 0);
    tableButtons->addWidget(m_copy);
    tableButtons->addWidget(m_apply);
    tableButtons->addWidget(m_exportCsv);
    m_copied->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    tableButtons->addWidget(m_copied);
    tableLayout->addLayout(tableButtons);

    auto* chartColumn = new QWidget(this);
    auto* chartLayout = new QVBoxLayout(chartColumn);
    chartLayout->setContentsMargins(0, 0, 0, 0);
    chartLayout->addWidget(m_chart, 1);
    chartLayout->addWidget(m_showNotFitting);

    auto* splitter = new QSplitter(Qt::Horizontal, this);
    splitter->addWidget(tableColumn);
    splitter->addWidget(chartColumn);
    // The table needs most of the width for its columns; the plot reads well narrower.
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    splitter->setSizes({ 650, 350 });

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(axesBox);
    layout->addLayout(runRow);
    layout->addWidget(m_status);
    layout->addWidget(splitter, 1);

    connectSignals();

    showRunning(false);
    m_chart->setResult(nullptr, false);
    updateHardware();
    updatePointCount();
}

/// Object names, tooltips and first states of the panel's buttons and labels.
void SweepPanel::describeFields()
{
    setObjectName(QStringLiteral("sweepPanel"));
    m_pointCount->setObjectName(QStringLiteral("sweepPointCount"));
    m_run->setObjectName(QStringLiteral("sweepRunButton"));
    m_run->setToolTip(tr("Evaluate every combination of the axes on the workspace as it is now, in the background "
                         "(analytical backend, every core)"));
    m_cancel->setObjectName(QStringLiteral("sweepCancelButton"));
    m_progress->setObjectName(QStringLiteral("sweepProgress"));
    m_progress->setRange(0, 1000);
    m_progress->setMaximumWidth(260);
    m_status->setObjectName(QStringLiteral("sweepStatus"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_copy->setObjectName(QStringLiteral("sweepCopyButton"));
    m_copy->setToolTip(tr("Copy the selected point's overrides as --set arguments (for rapid run or rapid sweep)"));
    m_exportCsv->setObjectName(QStringLiteral("sweepExportCsvButton"));
    m_exportCsv->setToolTip(tr("Write every point with the columns of `rapid sweep --csv`"));
    m_showNotFitting->setObjectName(QStringLiteral("sweepShowNotFitting"));
    m_showNotFitting->setChecked(m_chart->showsNotFitting());
    m_copied->setObjectName(QStringLiteral("sweepCopied"));
    m_copy->setEnabled(false);
    m_apply->setObjectName(QStringLiteral("sweepApplyButton"));
    m_apply->setToolTip(tr("Set the selected point's values in the workspace (one undoable edit)"));
    m_apply->setEnabled(false);
    m_exportCsv->setEnabled(false);
}

/// The axes' edits, the buttons, the table's selection, the job's progress and outcome, and the document's changes.
void SweepPanel::connectSignals()
{
    connect(m_axes, &SweepAxesEditor::axesChanged, this, &SweepPanel::updatePointCount);
    // The axes are part of the workspace: the user's edits are undoable edits of it, saved and autosaved with it.
    connect(m_axes, &SweepAxesEditor::edited, this, [this] { m_document->setSweepSettings(m_axes->settings()); });
    connect(m_document, &WorkspaceDocument::sweepSettingsChanged, this, &SweepPanel::showSweepSettings);
    connect(m_document, &WorkspaceDocument::workspaceLoaded, this, &SweepPanel::showSweepSettings);
    connect(m_run, &QPushButton::clicked, this, &SweepPanel::run);
    connect(m_cancel, &QPushButton::clicked, m_job, &SweepJob::cancel);
    connect(m_copy, &QPushButton::clicked, this, &SweepPanel::copyOverrides);
    connect(m_apply, &QPushButton::clicked, this, &SweepPanel::applyPoint);
    connect(m_exportCsv, &QPushButton::clicked, this, &SweepPanel::exportCsvWithDialog);
    connect(m_showNotFitting, &QCheckBox::toggled, m_chart, &SweepChart::setShowNotFitting);
    connect(m_chart, &SweepChart::pointClicked, this, [this](qint64 rowIndex) { selectPoint(rowIndex); });
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        m_copy->setEnabled(selectedRowIndex() >= 0);
        m_apply->setEnabled(selectedRowIndex() >= 0);
        m_chart->setHighlightedPoint(selectedRowIndex());
        m_copied->clear();
    });
    connect(m_job, &SweepJob::progressChanged, this, [this](qint64 done, qint64 total) {
        m_progress->setValue(total > 0 ? static_cast<int>(1000 * done / total) : 0);
    });
    connect(m_job, &SweepJob::finished, this, [this](const sweep::SweepResult& result) {
        showRunning(false);
        m_note.clear();
        showResult(result);
    });
    connect(m_job, &SweepJob::failed, this, [this](const QString& message) {
        showRunning(false);
        m_note = tr("The sweep failed: %1").arg(message);
        updateStatus();
    });
    connect(m_job, &SweepJob::cancelled, this, [this] {
        showRunning(false);
        m_note = tr("Sweep cancelled; nothing was applied.");
        updateStatus();
    });
    // Edits neither cancel a running sweep nor touch a shown result; the status line says when they differ.
    connect(m_document, &WorkspaceDocument::documentChanged, this, &SweepPanel::updateStatus);
    connect(m_document, &WorkspaceDocument::diagnosticsChanged, this, &SweepPanel::updateHardware);
    connect(m_document, &WorkspaceDocument::scenarioChanged, this, &SweepPanel::updateHardware);
}

void SweepPanel::showSweepSettings()
{
    // The document echoes the user's own edits back: those are shown already and must not reset the editor.
    const config::SweepSettings wanted = m_document->sweepSettings().value_or(config::SweepSettings {});
    if (m_axes->settings() != wanted) {
        m_axes->setSettings(wanted);
    }
}

void SweepPanel::updateHardware()
{
    const std::optional<config::Scenario>& scenario = m_document->scenario();
    if (scenario) {
        m_axes->setBase(&*scenario);
        m_axes->setHardware(scenario->hardware.cluster.totalGpus(), scenario->hardware.cluster.gpusPerNode);
    } else {
        m_axes->setBase(nullptr);
        m_axes->setHardware(std::nullopt, 0);
    }
    updateRunEnabled();
    updateStatus();
}

void SweepPanel::updatePointCount()
{
    m_pointCount64 = -1;
    QString problem;
    if (m_axes->isValid()) {
        try {
            m_pointCount64 = sweep::SweepSpace(m_axes->axes()).size();
        } catch (const std::invalid_argument& error) {
            problem = QString::fromUtf8(error.what());
        }
    }
    const QLocale locale;
    if (m_pointCount64 < 0) {
        m_pointCount->setText(problem.isEmpty() ? tr("Fix the axes marked in red to count the points") : problem);
    } else if (m_pointCount64 > kMaxPoints) {
        m_pointCount->setText(tr("%1 points: more than the workbench lists (%2); narrow an axis, or use rapid sweep")
                                  .arg(locale.toString(static_cast<qlonglong>(m_pointCount64)),
                                      locale.toString(static_cast<qlonglong>(kMaxPoints))));
    } else if (m_pointCount64 == 1 && m_axes->axes().empty()) {
        m_pointCount->setText(tr("1 point (the workspace alone: add an axis)"));
    } else {
        m_pointCount->setText(m_pointCount64 == 1
                ? tr("1 point")
                : tr("%1 points").arg(locale.toString(static_cast<qlonglong>(m_pointCount64))));
    }
    updateRunEnabled();
}

void SweepPanel::updateRunEnabled()
{
    m_run->setEnabled(!m_job->isRunning() && m_pointCount64 >= 1 && m_pointCount64 <= kMaxPoints
        && m_document->scenario().has_value());
}

bool SweepPanel::run()
{
    const std::optional<config::Scenario>& scenario = m_document->scenario();
    if (!scenario) {
        m_note = tr("Fix the configuration first: a sweep starts from a valid workspace.");
        updateStatus();
        return false;
    }
    if (m_job->isRunning() || m_pointCount64 < 1 || m_pointCount64 > kMaxPoints) {
        return false;
    }
    sweep::SweepSpace space;
    try {
        space = sweep::SweepSpace(m_axes->axes());
    } catch (const std::invalid_argument& error) {
        m_note = QString::fromUtf8(error.what());
        updateStatus();
        return false;
    }
    // The template holds copies of the texts: the worker keeps sweeping them whatever the editors do meanwhile.
    const config::WorkspaceDocuments& documents = m_document->documents();
    auto scenarioTemplate
        = std::make_shared<const config::ScenarioTemplate>(config::ConfigLoader(m_document->library()),
            named(documents.model, DocumentKind::Model), named(documents.hardware, DocumentKind::Hardware),
            named(documents.run, DocumentKind::Run), documents.overrides);
    m_runningDocuments = documents;
    m_runningInference = scenario->run.mode == config::RunMode::Inference;
    m_runningPoints = space.size();
    m_note.clear();
    m_progress->setValue(0);
    m_job->start(std::move(scenarioTemplate), std::move(space));
    showRunning(true);
    return true;
}

void SweepPanel::showRunning(bool running)
{
    m_cancel->setEnabled(running);
    m_cancel->setVisible(running);
    m_progress->setVisible(running);
    m_axes->setEnabled(!running);
    updateRunEnabled();
    updateStatus();
}

void SweepPanel::showResult(const sweep::SweepResult& result)
{
    auto shown = std::make_shared<const sweep::SweepResult>(result);
    const bool inference = inferenceOf(result, m_runningInference);
    m_result = shown;
    m_resultDocuments = m_runningDocuments;
    m_model->setResult(shown, inference);
    m_chart->setResult(shown, inference);
    // Ranked as `rapid sweep` prints them: the most tokens/s per GPU first, points without figures last.
    m_table->sortByColumn(m_model->column(SweepTableModel::Figure::TokensPerGpu), Qt::DescendingOrder);
    m_copy->setEnabled(false);
    m_exportCsv->setEnabled(true);
    m_copied->clear();
    // Why points were rejected, so a sweep of mostly invalid points explains itself: the most frequent kind of reason
    // in the status line (messages that differ only in their numbers are one kind; the location is left out), the
    // first three distinct messages in its tooltip.
    static const QRegularExpression kLocation(QStringLiteral("^.*?:\\d+:\\d+: "));
    static const QRegularExpression kNumber(QStringLiteral("\\d+"));
    std::map<QString, std::pair<std::int64_t, QString>> kinds; // kind -> points, first message
    QStringList firstReasons;
    for (const sweep::SweepRow& row : result.rows) {
        if (row.message.empty()) {
            continue;
        }
        QString message = QString::fromStdString(row.message);
        if (firstReasons.size() < 3 && !firstReasons.contains(message)) {
            firstReasons.append(SweepTableModel::statusText(row.status) + QStringLiteral(": ") + message);
        }
        message.remove(kLocation);
        auto& kind = kinds[QString(message).replace(kNumber, QStringLiteral("#"))];
        if (kind.first++ == 0) {
            kind.second = message;
        }
    }
    m_reason.clear();
    if (!kinds.empty()) {
        const auto most = std::max_element(
            kinds.begin(), kinds.end(), [](const auto& a, const auto& b) { return a.second.first < b.second.first; });
        m_reason = tr("%1 rejected like this: %2")
                       .arg(most->second.first == 1
                               ? tr("1 point")
                               : tr("%1 points").arg(QLocale().toString(static_cast<qlonglong>(most->second.first))),
                           most->second.second);
    }
    m_status->setToolTip(firstReasons.join(QLatin1Char('\n')));
    updateStatus();
    Q_EMIT resultShown();
}

void SweepPanel::updateStatus()
{
    QStringList parts;
    if (m_job->isRunning()) {
        parts.append(tr("Sweeping %1 points of the workspace as it was at Run…")
                         .arg(QLocale().toString(static_cast<qlonglong>(m_runningPoints))));
        if (!(m_runningDocuments == m_document->documents())) {
            parts.append(tr("The workspace was edited since: this sweep keeps the documents it started from."));
        }
    } else if (!m_note.isEmpty()) {
        parts.append(m_note);
        if (m_result) {
            parts.append(tr("Shown: the previous sweep (%1).").arg(counts(*m_result)));
        }
    } else if (m_result) {
        parts.append(counts(*m_result) + QLatin1Char('.'));
        if (!m_reason.isEmpty()) {
            parts.append(m_reason);
        }
    } else {
        parts.append(m_document->scenario()
                ? tr("No sweep yet: set the axes and click Run sweep.")
                : tr("Fix the configuration first: a sweep starts from a valid workspace."));
    }
    if (!m_job->isRunning() && m_result && !(m_resultDocuments == m_document->documents())) {
        parts.append(tr("The result is from the documents at its start; the workspace has been edited since."));
    }
    m_status->setText(parts.join(QLatin1Char(' ')));
}

std::int64_t SweepPanel::selectedRowIndex() const
{
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    if (rows.isEmpty() || !m_result) {
        return -1;
    }
    return rows.front().data(SweepTableModel::RowIndexRole).toLongLong();
}

void SweepPanel::selectPoint(std::int64_t rowIndex)
{
    if (!m_result || rowIndex < 0 || rowIndex >= m_model->rowCount()) {
        return;
    }
    // The model lists the points in index order, so the point's index is its source row.
    const QModelIndex index = m_proxy->mapFromSource(m_model->index(static_cast<int>(rowIndex), 0));
    m_table->selectRow(index.row());
    m_table->scrollTo(index);
}

QString SweepPanel::overrideArguments(std::int64_t rowIndex) const
{
    if (!m_result || rowIndex < 0 || rowIndex >= m_result->space.size()) {
        return {};
    }
    static const QRegularExpression kPlain(QStringLiteral("^[A-Za-z0-9_.,:=+/@%-]+$"));
    QStringList arguments;
    for (const std::string& assignment : m_result->space.overrides(rowIndex)) {
        QString text = QString::fromStdString(assignment);
        if (!kPlain.match(text).hasMatch()) {
            text = QLatin1Char('\'') + text.replace(QStringLiteral("'"), QStringLiteral("'\\''")) + QLatin1Char('\'');
        }
        arguments.append(QStringLiteral("--set ") + text);
    }
    return arguments.join(QLatin1Char(' '));
}

void SweepPanel::copyOverrides()
{
    const QString text = overrideArguments(selectedRowIndex());
    if (text.isEmpty()) {
        return;
    }
    QApplication::clipboard()->setText(text);
    m_copied->setText(tr("Copied the point's overrides"));
    m_copied->setToolTip(text);
}

void SweepPanel::applyPoint()
{
    const std::int64_t row = selectedRowIndex();
    if (!m_result || row < 0 || row >= m_result->space.size()) {
        return;
    }
    // Every override of the point as one undo step; a value the YAML edit cannot write takes back the others.
    QUndoStack* stack = m_document->undoStack();
    QStringList parts;
    const std::vector<int> coordinates = m_result->space.coordinates(row);
    for (std::size_t axis = 0; axis < coordinates.size(); ++axis) {
        const sweep::SweepAxis& sweepAxis = m_result->space.axes()[axis];
        parts.append(QString::fromStdString(sweepAxis.values[static_cast<std::size_t>(coordinates[axis])].label));
    }
    const QString label = parts.join(QLatin1Char(' '));
    stack->beginMacro(tr("Apply sweep point %1").arg(label));
    QString error;
    bool applied = true;
    for (const std::string& assignment : m_result->space.overrides(row)) {
        const auto equals = assignment.find('=');
        if (equals == std::string::npos
            || !m_document->setValue(QString::fromStdString(assignment.substr(0, equals)),
                QString::fromStdString(assignment.substr(equals + 1)), &error)) {
            error = QString::fromStdString(assignment) + QStringLiteral(": ") + error;
            applied = false;
            break;
        }
    }
    stack->endMacro();
    if (!applied) {
        stack->undo();
        m_copied->setText(tr("Cannot apply: %1").arg(error));
        return;
    }
    m_copied->setText(tr("Applied %1 to the workspace").arg(label));
}

std::string SweepPanel::csv(const sweep::SweepResult& result)
{
    // The format of `rapid sweep --csv`, written by the same core function, so the files are interchangeable.
    std::ostringstream out;
    sweep::writeSweepCsv(out, result);
    return out.str();
}

bool SweepPanel::exportCsv(const QString& filePath, QString* error) const
{
    if (!m_result) {
        if (error) {
            *error = tr("no sweep result to export");
        }
        return false;
    }
    QFile file(filePath);
    const std::string text = csv(*m_result);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate)
        || file.write(text.data(), static_cast<qint64>(text.size())) != static_cast<qint64>(text.size())) {
        if (error) {
            *error = file.errorString();
        }
        return false;
    }
    return true;
}

void SweepPanel::exportCsvWithDialog()
{
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export Sweep as CSV"), QDir::home().filePath(QStringLiteral("sweep.csv")), tr("CSV files (*.csv)"));
    if (path.isEmpty()) {
        return;
    }
    QString error;
    m_copied->setText(exportCsv(path, &error) ? tr("Exported %1").arg(QDir::toNativeSeparators(path))
                                              : tr("Cannot write %1: %2").arg(QDir::toNativeSeparators(path), error));
}

} // namespace rapid::widgets
