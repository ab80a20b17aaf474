// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/configloader.h"
#include "config/workspacefile.h"

#include <QWidget>

#include <optional>

class QFormLayout;
class QJsonObject;
class QScrollArea;

namespace rapid::widgets {

class InputsColumnLayout;
class JobControls;
class ResilienceRunner;
class WorkspaceDocument;

/// What the four pages of the Resilience tab share: the inputs column (a form in a scroll area, Run / Cancel with
/// progress under it), a runner of their own, and the bookkeeping of a shown result: which workspace texts it was
/// computed from, so that an edit marks it stale ("run again") and opening another workspace clears it. A run
/// studies the workspace as it was at Run; edits meanwhile do not stop it. A shown result is kept with the workspace
/// (WorkspaceDocument::keepResult, saved as `results:` under "resilience.<objectPrefix>") with the documents it came
/// from, and shown again, stale or not, when the workspace is opened.
class ResiliencePage : public QWidget {
    Q_OBJECT
public:
    ResiliencePage(
        WorkspaceDocument* document, const QString& runText, const QString& objectPrefix, QWidget* parent = nullptr);

    JobControls* controls() const { return m_controls; }
    ResilienceRunner* runner() const { return m_runner; }
    /// Whether a result is shown, and whether it was computed from other texts than the workspace's now.
    bool hasResult() const { return m_hasResult; }
    bool isStale() const;
    /// Whether the inputs column stands beside the results (a wide page) or above them (a narrow one).
    bool inputsBesideResults() const;
    /// Starts the page's computation on the current workspace; false (the status line says why) when the workspace
    /// or an input is not valid.
    virtual bool run() = 0;

protected:
    /// The workspace's scenario when it is a valid training run; otherwise nullopt, the reason on the status line.
    std::optional<config::Scenario> trainingScenario();
    /// A run started: progress and Cancel shown, the texts it studies remembered.
    void started(const QString& what);
    /// A result is shown; @p summary goes on the status line.
    void showResult(const QString& summary);
    /// Forget the shown result (another workspace was opened).
    virtual void clearResult() = 0;
    /// The shown result as JSON, for the workspace file.
    virtual QJsonObject resultJson() const = 0;
    /// Shows the result @p json (of resultJson()) computed from @p from (the workspace's documents at the time,
    /// when known); false when it cannot be read (written by another version). Called with showResult() muted.
    virtual bool restoreResult(const QJsonObject& json, const std::optional<config::ResultDocuments>& from) = 0;
    /// The workspace's scenario changed (a valid one): e.g. the link classes of its network.
    virtual void scenarioUpdated(const config::Scenario& /*scenario*/) { }
    /// Inputs changed: Run is enabled only when every input is valid.
    void setInputsValid(bool valid);
    QFormLayout* form() const { return m_form; }
    /// The inputs column: the form, then Run / Cancel and the status line.
    QWidget* inputsColumn() const { return m_column; }
    /// Lays the page out: @p figure above @p table (a splitter), the inputs column on their left or, in a narrow page,
    /// above them.
    void layOutWithResults(QWidget* figure, QWidget* table);
    WorkspaceDocument* document() const { return m_document; }

private:
    void updateStatus();
    void updateRunEnabled();
    /// Puts the shown result into the workspace.
    void keepResult();
    /// Shows the workspace's saved result of this page, if it has one.
    void restoreSaved();

    WorkspaceDocument* m_document;
    ResilienceRunner* m_runner;
    JobControls* m_controls;
    QWidget* m_column;
    QFormLayout* m_form;
    InputsColumnLayout* m_layout = nullptr;
    bool m_inputsValid = true;
    bool m_hasResult = false;
    QString m_view; ///< the key of this page's saved result
    bool m_restoring = false; ///< showing a saved result: showResult() must not keep it again
    bool m_sourceUnknown = false; ///< a saved result whose documents are not known (the file was edited by hand)
    QString m_summary; ///< of the shown result
    QString m_note; ///< why the last run did not give one (failed, cancelled, could not start)
    bool m_noteIsProblem = false;
    config::WorkspaceDocuments m_runDocuments; ///< the texts of the running or last started run
    config::WorkspaceDocuments m_resultDocuments; ///< the texts of the shown result
};

} // namespace rapid::widgets
