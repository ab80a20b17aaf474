// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "editors/documentkind.h"
#include "editors/runsession.h"

#include "config/configloader.h"
#include "config/diagnostic.h"
#include "config/presetlibrary.h"
#include "config/workspacefile.h"

#include <QHash>
#include <QObject>
#include <QString>
#include <QUndoStack>

#include <array>
#include <optional>
#include <vector>

namespace rapid::widgets {

/// The open workspace: three YAML texts, the file they came from, the undo stack every edit goes through, and the
/// result of checking them (diagnostics, or the loaded Scenario). The texts are the truth; forms and YAML tabs are
/// views of them. Checking runs on every change on the calling thread, because the loader takes well under 1 ms.
class WorkspaceDocument : public QObject {
    Q_OBJECT
public:
    explicit WorkspaceDocument(config::PresetLibrary library, QObject* parent = nullptr);

    /// Replaces everything (a newly opened file): clears the undo history and marks the workspace clean. The file's
    /// pinned runs are evaluated again in the background; runs pinned before are kept ahead of them as one undoable
    /// edit (so the workspace then shows as modified).
    void load(const config::WorkspaceDocuments& documents, const QString& filePath);
    /// Loads recovered edits that have no file to go back to (an autosave of an untitled workspace, or of a file
    /// that is gone): untitled and modified, so closing asks to save them.
    void loadRecovered(const config::WorkspaceDocuments& documents);
    /// Opens a workspace file or a workspace preset name. A preset opens untitled, so saving asks for a path instead
    /// of overwriting the shipped preset.
    bool open(const QString& reference, QString* error = nullptr);
    /// Writes the composed workspace (all three documents inline, comments kept, then the pinned runs) and marks it
    /// clean.
    bool save(const QString& filePath, QString* error = nullptr);

    QString filePath() const { return m_filePath; }
    QString name() const { return QString::fromStdString(m_documents.name); }
    /// Edits not saved, or a result kept since the last save.
    bool isDirty() const { return !m_undoStack.isClean() || m_resultsModified; }
    /// The three texts, name, overrides and sweep set-up; runs stays empty (the session holds them).
    const config::WorkspaceDocuments& documents() const { return m_documents; }
    /// The workspace file's text, with the session's runs.
    QString composedText() const;
    QString text(DocumentKind kind) const;
    /// Whether @p kind's text is well-formed YAML. Views keep showing the last values while it is not (half-typed).
    bool parses(DocumentKind kind) const { return m_parses[static_cast<size_t>(kind)]; }
    const config::PresetLibrary& library() const { return m_loader.library(); }
    QUndoStack* undoStack() { return &m_undoStack; }

    /// The scalar at @p keyPath as written, looking through a GPU given by preset name ("hardware.gpu.sm_count").
    std::optional<QString> valueAt(const QString& keyPath) const;
    /// How the workspace's overrides set one key: `assignment` is the override line that does (the key's own, or a
    /// mapping's above it, which the loader replaces whole), `value` what the key takes from it: its text, or none
    /// when the replacing mapping does not list the key (it falls back to its default).
    struct FieldOverride {
        QString assignment;
        std::optional<QString> value;
    };
    /// The last of the workspace's overrides that sets @p keyPath (run.parallelism.tp=8, or run.parallelism={tp: 8}),
    /// or none.
    std::optional<FieldOverride> overrideAt(const QString& keyPath) const;
    /// Where the value at @p keyPath comes from, as the comments of the text holding it say: the comment above it in
    /// its document, or, for a GPU given by preset name, the preset's (its header's source as the fallback).
    /// config::presetValueSource; empty when nothing says.
    QString valueSource(const QString& keyPath) const;
    /// A form edit, undoable. A GPU field of a GPU given by preset name first copies the preset into the
    /// hardware document, so the edit changes this workspace and not the shared preset.
    bool setValue(const QString& keyPath, const QString& valueYaml, QString* error = nullptr);
    /// Several form edits as one undo step named @p description (a rebalancing of the parallel degrees); false when
    /// one of them could not be written.
    bool setValues(const QList<std::pair<QString, QString>>& values, const QString& description);
    /// The scenario the documents give with @p overrides added ("run.parallelism.dp=4"), if it loads and its ranks
    /// can be placed; the documents are not changed. For offers that must be right before they are made.
    std::optional<config::Scenario> loadWith(const std::vector<std::string>& overrides) const;
    /// The last scenario that loaded (the current one, or the one before the edits that broke it).
    const std::optional<config::Scenario>& lastLoadedScenario() const { return m_lastLoaded; }
    /// An edit of a whole text computed elsewhere (a fault list written back), one undo step named @p description.
    void replaceText(DocumentKind kind, const QString& text, const QString& description);
    /// A YAML tab edit; consecutive calls for one document merge into one undo step.
    void setText(DocumentKind kind, const QString& text);
    /// Replaces all three texts and the pinned runs in one undo step (restoring an autosave).
    void replaceTexts(const config::WorkspaceDocuments& documents, const QString& description);

    /// The Sweep tab's set-up, saved with the workspace (none until the tab is edited or a file brings one).
    const std::optional<config::SweepSettings>& sweepSettings() const { return m_documents.sweep; }
    /// An edit of the sweep set-up, undoable (a burst of edits merges into one step).
    void setSweepSettings(const config::SweepSettings& settings);
    /// For the undo command only: sets the sweep set-up and tells the views.
    void applySweepSettings(const std::optional<config::SweepSettings>& settings);

    /// The Serving tab's set-up, saved with the workspace (none until the tab is edited or a file brings one).
    const std::optional<config::ServingSettings>& servingSettings() const { return m_documents.serving; }
    /// An edit of the serving set-up, undoable (a burst of edits merges into one step).
    void setServingSettings(const config::ServingSettings& settings);
    /// For the undo command only: sets the serving set-up and tells the views.
    void applyServingSettings(const std::optional<config::ServingSettings>& settings);

    /// The figure style the export dialog keeps with the workspace (`figure_style:`), or none.
    const std::optional<config::FigureStyle>& figureStyle() const { return m_documents.figureStyle; }
    /// Keeps @p style with the workspace, one undo step ("Keep figure style").
    void setFigureStyle(const config::FigureStyle& style);

    /// The views' last results, saved with the workspace (`results:`). Those read from a file without their
    /// documents (they were current when saved) carry the workspace's own when their fingerprint still matches them,
    /// and none otherwise (the file was edited by hand since).
    const std::vector<config::SavedResult>& savedResults() const { return m_documents.results; }
    /// Keeps @p result as its view's last one (replacing the view's earlier one). Not an undo step: a result is not
    /// an edit of the workspace, and undoing a text edit must not first take a study away. The workspace shows as
    /// modified until it is saved, so closing asks, and the autosave keeps it.
    void keepResult(config::SavedResult result);
    /// The texts a result of the current workspace is computed from.
    config::ResultDocuments resultDocuments() const;
    /// A digest of @p documents' texts and overrides (SHA-256, hex): a result's fingerprint.
    static std::string fingerprintOf(const config::ResultDocuments& documents);
    /// The scenario of @p documents (placement problems allowed: the drawing needs the network only), or none.
    std::optional<config::Scenario> scenarioOf(const config::ResultDocuments& documents) const;

    /// Named runs pinned for comparison, saved with the workspace; their edits are undo steps of this document.
    RunSession* session() const { return m_session; }

    /// Every problem: the loader's (then there is no scenario) and the rank placement's (a mapping the layout
    /// cannot honour; the scenario is then still there, so its placement and parameters can be shown).
    const std::vector<config::Diagnostic>& diagnostics() const { return m_diagnostics; }
    /// The loaded scenario, or none while the loader finds problems.
    const std::optional<config::Scenario>& scenario() const { return m_scenario; }

    /// For the undo commands only: sets one text and re-checks.
    void applyText(DocumentKind kind, const QString& text);

Q_SIGNALS:
    void documentChanged(rapid::widgets::DocumentKind kind);
    void diagnosticsChanged();
    void scenarioChanged(const rapid::config::Scenario& scenario);
    void dirtyChanged(bool dirty);
    void filePathChanged(const QString& filePath);
    /// A different workspace was loaded (not an edit): views reset their state.
    void workspaceLoaded();
    /// The sweep set-up changed (an edit, its undo, or a loaded workspace that has one).
    void sweepSettingsChanged();
    /// The serving set-up changed (an edit, its undo, or a loaded workspace, with one or without).
    void servingSettingsChanged();
    /// A view kept a result (keepResult).
    void resultKept();
    /// The saved results were replaced by others (restored unsaved edits): views show them again. A loaded workspace
    /// says workspaceLoaded instead.
    void savedResultsReplaced();

private:
    config::DocumentText& documentText(DocumentKind kind);
    const config::DocumentText& documentText(DocumentKind kind) const;
    std::optional<std::string> gpuPresetText() const;
    /// The text of the GPU preset @p reference names (cached by resolved path), or nothing.
    std::optional<std::string> gpuPresetFileText(const std::string& reference) const;
    /// Whether the hardware text is a GPU document (`gpu:` root: one GPU, no network), as when the workspace names a
    /// GPU preset as its hardware.
    bool hardwareIsOneGpu() const;
    /// The GPU preset a one-GPU hardware text is an unedited copy of, or nothing (edited: "custom").
    std::optional<QString> oneGpuPresetName() const;
    /// Where @p keyPath lives in its document's text (a one-GPU hardware document's gpu.* for hardware.gpu.*).
    std::string textPath(const QString& keyPath) const;
    void revalidate();
    void keepRunsPinnedBefore(const RunSession::State& before);
    void updateParses(DocumentKind kind);
    void adoptResults(std::vector<config::SavedResult> results);
    void setResultsModified(bool modified);

    config::ConfigLoader m_loader;
    config::WorkspaceDocuments m_documents;
    QString m_filePath;
    QUndoStack m_undoStack;
    RunSession* m_session; ///< child object
    std::vector<config::Diagnostic> m_diagnostics;
    std::optional<config::Scenario> m_scenario;
    std::optional<config::Scenario> m_lastLoaded;
    std::array<bool, 3> m_parses { true, true, true };
    bool m_resultsModified = false; ///< a result kept since the last save or load
    mutable QHash<QString, std::string> m_presetTextCache; ///< GPU preset texts by resolved path
};

} // namespace rapid::widgets
