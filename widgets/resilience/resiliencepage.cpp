// SPDX-License-Identifier: GPL-3.0-or-later
#include "resilience/resiliencepage.h"

#include "common/inputscolumnlayout.h"

#include "editors/workspacedocument.h"
#include "resilience/jobcontrols.h"
#include "resilience/resiliencerunner.h"

#include <QFormLayout>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QVBoxLayout>

#include <algorithm>

namespace rapid::widgets {

namespace {

/// The narrowest figure (a CDF, a goodput curve, a criticality map) that still reads well beside the inputs column; a
/// narrower page puts the inputs above the results.
constexpr int kFigureWidth = 320;

/// The texts a study depends on (pinned runs, the sweep set-up and the figure style do not change its result).
bool sameInputs(const config::WorkspaceDocuments& a, const config::WorkspaceDocuments& b)
{
    return a.model.text == b.model.text && a.hardware.text == b.hardware.text && a.run.text == b.run.text
        && a.overrides == b.overrides;
}

config::ResultDocuments resultDocumentsOf(const config::WorkspaceDocuments& documents)
{
    return { documents.model, documents.hardware, documents.run, documents.overrides };
}

} // namespace

ResiliencePage::ResiliencePage(
    WorkspaceDocument* document, const QString& runText, const QString& objectPrefix, QWidget* parent)
    : QWidget(parent)
    , m_document(document)
    , m_runner(new ResilienceRunner(this))
    , m_controls(new JobControls(runText, objectPrefix, this))
    , m_column(new QWidget(this))
    , m_form(new QFormLayout)
    , m_view(QStringLiteral("resilience.") + objectPrefix)
{
    // Inputs in a scroll area: at 1280 x 720 the tab is short, and the form must never force the window taller.
    auto* formHolder = new QWidget;
    auto* formColumn = new QVBoxLayout(formHolder);
    formColumn->setContentsMargins(0, 0, 4, 0);
    formColumn->addLayout(m_form);
    formColumn->addStretch(1); // the rows keep their heights; the space left goes under them
    m_form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    m_form->setRowWrapPolicy(QFormLayout::WrapLongRows);
    auto* scroll = new QScrollArea(m_column);
    scroll->setWidget(formHolder);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    auto* column = new QVBoxLayout(m_column);
    column->setContentsMargins(0, 0, 0, 0);
    column->addWidget(scroll, 1);
    column->addWidget(m_controls);

    connect(m_controls->runButton(), &QPushButton::clicked, this, [this] { run(); });
    connect(m_controls->cancelButton(), &QPushButton::clicked, m_runner, &ResilienceRunner::cancel);
    connect(m_runner, &ResilienceRunner::progressChanged, m_controls, &JobControls::setProgress);
    connect(m_runner, &ResilienceRunner::failed, this, [this](const QString& message) {
        m_controls->setRunning(false);
        m_note = tr("Failed: %1").arg(message);
        m_noteIsProblem = true;
        updateStatus();
        updateRunEnabled();
    });
    connect(m_runner, &ResilienceRunner::cancelled, this, [this] {
        m_controls->setRunning(false);
        m_note = tr("Cancelled; the shown result (if any) is unchanged.");
        m_noteIsProblem = false;
        updateStatus();
        updateRunEnabled();
    });
    connect(m_document, &WorkspaceDocument::documentChanged, this, &ResiliencePage::updateStatus);
    connect(m_document, &WorkspaceDocument::diagnosticsChanged, this, [this] {
        if (!m_document->scenario()) {
            updateStatus();
        }
        updateRunEnabled();
    });
    connect(m_document, &WorkspaceDocument::scenarioChanged, this, [this](const config::Scenario& scenario) {
        scenarioUpdated(scenario);
        updateRunEnabled();
    });
    connect(m_document, &WorkspaceDocument::workspaceLoaded, this, [this] {
        m_runner->cancel();
        m_hasResult = false;
        m_note.clear();
        clearResult();
        restoreSaved();
        updateStatus();
    });
    connect(m_document, &WorkspaceDocument::savedResultsReplaced, this, [this] {
        restoreSaved();
        updateStatus();
    });
}

void ResiliencePage::keepResult()
{
    config::SavedResult saved;
    saved.view = m_view.toStdString();
    saved.documents = resultDocumentsOf(m_resultDocuments);
    saved.fingerprint = WorkspaceDocument::fingerprintOf(*saved.documents);
    saved.data = QJsonDocument(resultJson()).toJson(QJsonDocument::Compact).toStdString();
    m_document->keepResult(std::move(saved));
}

void ResiliencePage::restoreSaved()
{
    const std::vector<config::SavedResult>& results = m_document->savedResults();
    const auto saved = std::find_if(results.begin(), results.end(),
        [this](const config::SavedResult& result) { return result.view == m_view.toStdString(); });
    if (saved == results.end()) {
        return;
    }
    const QJsonDocument json = QJsonDocument::fromJson(QByteArray::fromStdString(saved->data));
    // Shown as if it had just been computed from its documents; the workspace's own when they are not known, the
    // result then marked stale, since all that is known is that they differ from these.
    m_sourceUnknown = !saved->documents;
    config::WorkspaceDocuments from = m_document->documents();
    if (saved->documents) {
        from.model = saved->documents->model;
        from.hardware = saved->documents->hardware;
        from.run = saved->documents->run;
        from.overrides = saved->documents->overrides;
    }
    m_runDocuments = from;
    m_restoring = true;
    const bool shown = json.isObject() && restoreResult(json.object(), saved->documents);
    m_restoring = false;
    if (!shown) {
        m_sourceUnknown = false;
        m_hasResult = false;
        clearResult();
        m_note = tr("The result kept with the workspace could not be read; run again.");
    }
}

bool ResiliencePage::isStale() const
{
    return m_hasResult && (m_sourceUnknown || !sameInputs(m_resultDocuments, m_document->documents()));
}

std::optional<config::Scenario> ResiliencePage::trainingScenario()
{
    const std::optional<config::Scenario>& scenario = m_document->scenario();
    m_noteIsProblem = true;
    if (!scenario) {
        m_note = tr("Fix the configuration first (see Diagnostics): a study starts from a valid workspace.");
    } else if (scenario->run.mode != config::RunMode::Training) {
        m_note = tr("run.mode is inference: these studies time a training step; give a training run.");
    } else if (!m_inputsValid) {
        m_note = tr("Fix the inputs marked in red first.");
    } else {
        m_note.clear();
        m_noteIsProblem = false;
        updateStatus();
        return scenario;
    }
    updateStatus();
    return std::nullopt;
}

void ResiliencePage::started(const QString& what)
{
    m_runDocuments = m_document->documents();
    m_note = what;
    m_noteIsProblem = false;
    m_controls->setRunning(true);
    updateStatus();
}

void ResiliencePage::showResult(const QString& summary)
{
    m_controls->setRunning(false);
    m_hasResult = true;
    m_resultDocuments = m_runDocuments;
    m_summary = summary;
    m_note.clear();
    if (!m_restoring) {
        m_sourceUnknown = false;
        keepResult();
    }
    updateStatus();
    updateRunEnabled();
}

void ResiliencePage::setInputsValid(bool valid)
{
    m_inputsValid = valid;
    updateRunEnabled();
}

void ResiliencePage::updateRunEnabled()
{
    m_controls->runButton()->setEnabled(!m_runner->isRunning() && m_inputsValid && m_document->scenario());
}

void ResiliencePage::updateStatus()
{
    QStringList lines;
    if (!m_note.isEmpty()) {
        lines.append(m_note);
    }
    if (m_hasResult) {
        lines.append(m_summary);
        if (isStale()) {
            lines.append(tr("Stale: computed from the workspace before its last edits; run again to update."));
        }
    }
    m_controls->setStatus(lines.join(QLatin1Char('\n')), m_noteIsProblem || isStale());
}

void ResiliencePage::layOutWithResults(QWidget* figure, QWidget* table)
{
    auto* results = new QSplitter(Qt::Vertical, this);
    results->addWidget(figure);
    results->addWidget(table);
    results->setStretchFactor(0, 3);
    results->setStretchFactor(1, 1);
    // The figure first: at 1280 x 720 the tab is ~430 px high, and the table scrolls where the figure cannot.
    results->setSizes({ 300, 110 });
    // Beside the results while the page holds the column and a figure of kFigureWidth; above them in a narrower page.
    auto* content = new QWidget;
    m_layout = new InputsColumnLayout(content, inputsColumn(), results, [] { return kFigureWidth; });
    // Above the results, the inputs, a figure, its caption and a table need more height than a 1,024 x 700 window
    // leaves the tab: the page scrolls then, instead of squeezing the figure or holding the window taller than the
    // screen. While everything fits the scroll area is invisible (the content takes its whole viewport).
    auto* scroll = new QScrollArea(this);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidgetResizable(true);
    scroll->setWidget(content);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(scroll);
}

bool ResiliencePage::inputsBesideResults() const
{
    return m_layout && m_layout->inputsBeside();
}

} // namespace rapid::widgets
