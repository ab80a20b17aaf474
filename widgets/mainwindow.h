// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "editors/documentkind.h"
#include "editors/recentfiles.h"

#include "config/presetlibrary.h"
#include "config/workspacefile.h"
#include "sim/stepchakraexport.h"

#include <QMainWindow>

#include <array>
#include <optional>

class QAction;
class QLabel;
class QMenu;
class QProgressDialog;
class QTabWidget;

namespace rapid::widgets {

/// How long a status-bar message stays (the window's actions share it).
constexpr int kStatusMessageMs = 4000;

class AutosaveController;
class ChartWidget;
class ConfigForm;
class DiagnosticsPanel;
class EvaluationRunner;
class RestoreBanner;
class ResiliencePanel;
class ServingPanel;
class ResultsPanel;
class RunsPanel;
class SweepPanel;
class ChakraExportJob;
class TopologyPanel;
class WorkspaceDocument;
class YamlEditor;

/// The workbench window: forms and YAML tabs over one WorkspaceDocument, results on the right, diagnostics below,
/// file handling with recent files and autosave. Wiring only; each part is its own widget.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(config::PresetLibrary library, QWidget* parent = nullptr);
    ~MainWindow() override;

    /// Opens a workspace file or workspace preset name; offers its autosave if one differs from the file, else any
    /// autosave a crashed session left.
    bool openWorkspace(const QString& reference);
    bool saveWorkspace(const QString& filePath);

    /// Milliseconds between the last edit and the autosave (2 s by default; tests shorten it).
    void setAutosaveDelay(int milliseconds);
    /// Whether closing with unsaved changes asks first. Off on the offscreen platform (tests, CI).
    void setConfirmOnClose(bool confirm) { m_confirmOnClose = confirm; }
    AutosaveController* autosave() const { return m_autosave; }

    WorkspaceDocument* document() const { return m_document; }
    /// Every action with a shortcut, as the rows of an HTML table (Help > Keyboard Shortcuts).
    QString shortcutList() const;
    ConfigForm* form(DocumentKind kind) const { return m_forms[static_cast<size_t>(kind)]; }
    YamlEditor* yamlEditor() const { return m_yamlEditor; }
    DiagnosticsPanel* diagnosticsPanel() const { return m_diagnostics; }
    ResultsPanel* resultsPanel() const { return m_results; }
    RestoreBanner* restoreBanner() const { return m_banner; }
    EvaluationRunner* evaluationRunner() const { return m_runner; }
    RunsPanel* runsPanel() const { return m_runs; }
    TopologyPanel* topologyPanel() const { return m_topology; }
    SweepPanel* sweepPanel() const { return m_sweep; }
    ResiliencePanel* resiliencePanel() const { return m_resilience; }
    ServingPanel* servingPanel() const { return m_serving; }
    /// "Pin as baseline": keeps the shown result as a named run and compares every chart against it.
    QAction* pinAction() const { return m_pinAction; }
    /// Pins the shown result under @p name (a generated one when empty); false when nothing is shown yet.
    bool pinBaseline(const QString& name = {});
    /// Pins the shown result as a run to compare (the baseline when @p asBaseline) under @p name, or under what it
    /// changes against the baseline ("tp4 dp4") when @p name is empty; false when nothing is shown yet.
    bool pinRun(bool asBaseline, const QString& name = {});
    QTabWidget* mainTabs() const { return m_tabs; }
    /// Writes the workspace's step (or request) as Chakra traces into @p directory in the background, with a
    /// progress dialog whose Cancel stops it (File > Export Step as Chakra Traces…); false when there is no valid
    /// scenario to export.
    bool exportChakraTraces(const QString& directory, sim::ChakraDetail detail);
    ChakraExportJob* chakraExportJob() const { return m_chakraExport; }
    /// The export's progress dialog while one runs (null otherwise).
    QProgressDialog* chakraExportProgress() const { return m_chakraProgress; }

protected:
    void changeEvent(QEvent* event) override;
    void showEvent(QShowEvent* event) override;
    void closeEvent(QCloseEvent* event) override;

private:
    /// Fits the window into its screen's free area once the events in the queue are handled (see screenfit.h).
    void fitIntoScreenLater();
    void createActions();
    QWidget* createFormsPage();
    void open();
    /// File > New from Presets: a model, hardware and run preset as a new untitled workspace.
    void newFromPresets();
    bool save();
    bool saveAs();
    void showAbout();
    void showShortcuts();
    /// Help > First Steps: the workbench's main tasks in seven lines.
    void showFirstSteps();
    void rebuildRecentMenu();
    /// Asks whether to save unsaved changes; false when the user cancels.
    bool confirmDiscardingChanges();
    void updateTitle();
    void updateStatus();
    void showLocation(DocumentKind kind, int line, int column);
    /// The export dialog for @p chart (null: the Resilience tab's current figure when that tab is shown, else the
    /// first chart), then the export itself.
    void exportChart(QWidget* chart);

    WorkspaceDocument* m_document;
    EvaluationRunner* m_runner;
    QTabWidget* m_tabs = nullptr;
    std::array<ConfigForm*, 3> m_forms {};
    YamlEditor* m_yamlEditor = nullptr;
    TopologyPanel* m_topology = nullptr;
    SweepPanel* m_sweep = nullptr;
    ResiliencePanel* m_resilience = nullptr;
    ServingPanel* m_serving = nullptr;
    ChakraExportJob* m_chakraExport = nullptr;
    QProgressDialog* m_chakraProgress = nullptr;
    DiagnosticsPanel* m_diagnostics = nullptr;
    ResultsPanel* m_results = nullptr;
    RunsPanel* m_runs = nullptr;
    QAction* m_pinAction = nullptr;
    RestoreBanner* m_banner = nullptr;
    QLabel* m_validity = nullptr;
    QMenu* m_recentMenu = nullptr;
    RecentFiles m_recentFiles;
    AutosaveController* m_autosave = nullptr;
    bool m_confirmOnClose;
    std::optional<QSize> m_restoredSize; ///< the size restored at construction, until the first show fits its frame
    config::WorkspaceDocuments m_requestedSource; ///< the texts of the latest evaluation request
    config::WorkspaceDocuments m_shownSource; ///< the texts of the result the results panel shows
};

} // namespace rapid::widgets
