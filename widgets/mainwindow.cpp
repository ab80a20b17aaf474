// SPDX-License-Identifier: GPL-3.0-or-later
#include "mainwindow.h"

#include "topology/congestionrunbox.h"
#include "tracegraph/chakraexportjob.h"

#include "common/chartexporter.h"
#include "common/chartwidget.h"
#include "common/figuredialog.h"
#include "common/figurestylepresets.h"
#include "common/placeholderselector.h"
#include "common/screenfit.h"
#include "common/wheelguard.h"
#include "editors/autosavecontroller.h"
#include "editors/configform.h"
#include "editors/diagnosticspanel.h"
#include "editors/diagnosticwording.h"
#include "editors/rebalancebar.h"
#include "editors/restorebanner.h"
#include "editors/runsession.h"
#include "editors/workspacedocument.h"
#include "editors/yamleditor.h"
#include "evaluation/evaluationrunner.h"
#include "evaluation/structureevaluator.h"
#include "resilience/resiliencepanel.h"
#include "results/resultspanel.h"
#include "results/runspanel.h"
#include "results/summaryfigures.h"
#include "serving/servingpanel.h"
#include "sweeps/sweepchart.h"
#include "sweeps/sweeppanel.h"
#include "topology/topologypanel.h"
#include "tracegraph/graphview.h"
#include "tracegraph/workspacesteptraces.h"

#include "config/workspacefile.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontMetrics>
#include <QGuiApplication>
#include <QInputDialog>
#include <QLabel>
#include <QLocale>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressDialog>
#include <QScreen>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>
#include <QToolBar>
#include <QUndoStack>
#include <QVBoxLayout>

namespace rapid::widgets {

namespace {

const QString kGeometryKey = QStringLiteral("mainWindow/geometry");
const QString kStateKey = QStringLiteral("mainWindow/state");
const QString kFileFilter = QStringLiteral("RAPID workspaces (*.rapid.yaml);;YAML files (*.yaml *.yml)");

QString formTitle(DocumentKind kind)
{
    switch (kind) {
    case DocumentKind::Model:
        return MainWindow::tr("Model");
    case DocumentKind::Hardware:
        return MainWindow::tr("Hardware");
    case DocumentKind::Run:
        break;
    }
    return MainWindow::tr("Run");
}

} // namespace

MainWindow::MainWindow(config::PresetLibrary library, QWidget* parent)
    : QMainWindow(parent)
    , m_document(new WorkspaceDocument(std::move(library), this))
    , m_runner(new EvaluationRunner(std::make_shared<StructureEvaluator>(), this))
    , m_confirmOnClose(QGuiApplication::platformName() != QLatin1String("offscreen"))
{
    setObjectName(QStringLiteral("mainWindow"));
    auto* central = new QWidget(this);
    auto* centralLayout = new QVBoxLayout(central);
    centralLayout->setContentsMargins(4, 4, 4, 4);
    m_banner = new RestoreBanner(central);
    m_banner->hide();
    centralLayout->addWidget(m_banner);
    m_tabs = new QTabWidget(central);
    m_tabs->setObjectName(QStringLiteral("mainTabs"));
    m_tabs->addTab(createFormsPage(), tr("Forms"));
    m_yamlEditor = new YamlEditor(m_document, m_tabs);
    m_tabs->addTab(m_yamlEditor, tr("YAML"));
    // Beside the forms rather than in the results column: the network needs the width, and its link editor edits
    // the hardware like the forms do.
    m_topology = new TopologyPanel(m_document, m_tabs);
    m_tabs->addTab(m_topology, tr("Topology"));
    // Sweeps the workspace's documents as they are at Run; edits meanwhile do not stop it (the panel says so).
    m_sweep = new SweepPanel(m_document, m_tabs);
    m_tabs->addTab(m_sweep, tr("Sweep"));
    // Fault studies, criticality, stragglers and goodput of the workspace, each in the background.
    m_resilience = new ResiliencePanel(m_document, m_tabs);
    m_tabs->addTab(m_resilience, tr("Resilience"));
    m_serving = new ServingPanel(m_document, m_tabs);
    m_tabs->addTab(m_serving, tr("Serving"));
    centralLayout->addWidget(m_tabs);
    setCentralWidget(central);

    // The results column gets the full height (its charts need it); the bottom docks share the width of the forms.
    setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);
    m_results = new ResultsPanel(this);
    auto* resultsDock = new QDockWidget(tr("Results"), this);
    resultsDock->setObjectName(QStringLiteral("resultsDock"));
    resultsDock->setWidget(m_results);
    addDockWidget(Qt::RightDockWidgetArea, resultsDock);

    m_diagnostics = new DiagnosticsPanel(m_document, this);
    auto* diagnosticsDock = new QDockWidget(tr("Diagnostics"), this);
    diagnosticsDock->setObjectName(QStringLiteral("diagnosticsDock"));
    diagnosticsDock->setWidget(m_diagnostics);
    addDockWidget(Qt::BottomDockWidgetArea, diagnosticsDock);
    m_runs = new RunsPanel(m_document->session(), this);
    auto* runsDock = new QDockWidget(tr("Runs"), this);
    runsDock->setObjectName(QStringLiteral("runsDock"));
    runsDock->setWidget(m_runs);
    addDockWidget(Qt::BottomDockWidgetArea, runsDock);
    resizeDocks({ resultsDock }, { 500 }, Qt::Horizontal);
    resizeDocks({ diagnosticsDock }, { 100 }, Qt::Vertical);

    m_validity = new QLabel(this);
    statusBar()->addPermanentWidget(m_validity);
    createActions();

    // A pinned run keeps the texts its result came from. The runner drops all but the latest request's result, so
    // the shown result always belongs to the texts of the last request.
    connect(m_document, &WorkspaceDocument::scenarioChanged, this, [this](const config::Scenario& scenario) {
        m_requestedSource = m_document->documents();
        m_runner->request(scenario);
    });
    connect(m_runner, &EvaluationRunner::evaluationAvailable, this, [this] { m_shownSource = m_requestedSource; });
    connect(m_runner, &EvaluationRunner::evaluationAvailable, m_results, &ResultsPanel::showEvaluation);
    m_document->session()->setEvaluationRunner(m_runner);
    connect(m_document->session(), &RunSession::baselineChanged, this,
        [this] { m_results->setBaseline(m_document->session()->baseline()); });
    const auto showPinnedRuns
        = [this] { m_results->setPinnedRuns(m_document->session()->runs(), m_document->session()->baselineIndex()); };
    connect(m_document->session(), &RunSession::runsChanged, this, showPinnedRuns);
    // A congestion run of the Topology tab reaches the dashboard's cards and breakdown, beside the analytical step.
    connect(m_topology->congestionRun(), &CongestionRunBox::stepAvailable, m_results,
        [this](const report::TrainingResult& congestion) { m_results->setCongestionStep(congestion); });
    connect(m_topology->congestionRun(), &CongestionRunBox::stepCleared, m_results,
        [this] { m_results->setCongestionStep(std::nullopt); });
    connect(m_document->session(), &RunSession::baselineChanged, this, showPinnedRuns);
    for (ChartWidget* chart : m_results->charts()) {
        connect(chart, &ChartWidget::exportRequested, this, [this](ChartWidget* which) { exportChart(which); });
    }
    connect(m_sweep->chart(), &ChartWidget::exportRequested, this, [this](ChartWidget* which) { exportChart(which); });
    for (ChartWidget* chart : m_resilience->charts() + m_serving->charts()) {
        connect(chart, &ChartWidget::exportRequested, this, [this](ChartWidget* which) { exportChart(which); });
    }
    connect(m_runner, &EvaluationRunner::evaluationFailed, this,
        [this](const QString& message) { statusBar()->showMessage(tr("Evaluation failed: %1").arg(message)); });
    connect(m_document, &WorkspaceDocument::diagnosticsChanged, this, &MainWindow::updateStatus);
    connect(m_document, &WorkspaceDocument::dirtyChanged, this, &MainWindow::updateTitle);
    connect(m_document, &WorkspaceDocument::filePathChanged, this, &MainWindow::updateTitle);
    connect(m_document, &WorkspaceDocument::workspaceLoaded, this, &MainWindow::updateTitle);
    connect(m_document, &WorkspaceDocument::scenarioChanged, this, &MainWindow::updateStatus);
    connect(m_diagnostics, &DiagnosticsPanel::locationActivated, this, &MainWindow::showLocation);
    m_autosave = new AutosaveController(m_document, m_banner, this);
    m_autosave->setConfirmReplace([this] { return confirmDiscardingChanges(); });
    connect(m_autosave, &AutosaveController::statusMessage, this,
        [this](const QString& message) { statusBar()->showMessage(message, kStatusMessageMs); });
    connect(m_autosave, &AutosaveController::restoreFailed, this,
        [this](const QString& message) { QMessageBox::warning(this, tr("Cannot restore"), message); });
    // The wheel over a combo, spin box or slider the user is not in scrolls the page instead of changing it.
    WheelGuard::install(QCoreApplication::instance(), this);
    PlaceholderSelector::install(QCoreApplication::instance());

    const QSettings settings;
    restoreGeometry(settings.value(kGeometryKey).toByteArray());
    restoreState(settings.value(kStateKey).toByteArray());
    // The first start (or a geometry saved on a larger screen) fits the screen it opens on: 1400 x 900 where there
    // is room, else the screen's free area (a 1280 x 720 laptop showed the window's right and bottom cut off), and
    // so does the size Restore returns a maximised window to.
    if (!settings.contains(kGeometryKey)) {
        resize(1400, 900);
    }
    fitWindowIntoScreen(this);
    m_restoredSize = size();
    updateTitle();
    updateStatus();
}

MainWindow::~MainWindow()
{
    // QWidget deletes the children (the document among them) after this object's members are gone; the undo stack
    // then signals while clearing itself and must not reach the dead autosave timer.
    disconnect(m_document->undoStack(), nullptr, this, nullptr);
    disconnect(m_document, nullptr, this, nullptr);
}

QWidget* MainWindow::createFormsPage()
{
    auto* splitter = new QSplitter(Qt::Horizontal, m_tabs);
    splitter->setObjectName(QStringLiteral("formsPage"));
    for (DocumentKind kind : kAllDocumentKinds) {
        auto* column = new QWidget(splitter);
        auto* layout = new QVBoxLayout(column);
        layout->setContentsMargins(2, 2, 2, 2);
        auto* title = new QLabel(formTitle(kind), column);
        QFont font = title->font();
        font.setBold(true);
        font.setPointSizeF(font.pointSizeF() * 1.15);
        title->setFont(font);
        layout->addWidget(title);
        auto* form = new ConfigForm(m_document, kind, column);
        m_forms[static_cast<size_t>(kind)] = form;
        layout->addWidget(form);
        splitter->addWidget(column);
    }
    splitter->setSizes({ 1, 1, 1 }); // equal thirds: sizes are shared out proportionally
    // Above the three columns: the offer to restore the GPU count after tp, pp or cp changed.
    auto* page = new QWidget(m_tabs);
    auto* layout = new QVBoxLayout(page);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(new RebalanceBar(m_document, page));
    layout->addWidget(splitter, 1);
    return page;
}

void MainWindow::createActions()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* newAction = file->addAction(tr("&New from Presets…"), this, &MainWindow::newFromPresets);
    newAction->setObjectName(QStringLiteral("newFromPresetsAction"));
    newAction->setShortcut(QKeySequence::New);
    QAction* openAction = file->addAction(tr("&Open…"), this, &MainWindow::open);
    openAction->setShortcut(QKeySequence::Open);
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    connect(m_recentMenu, &QMenu::aboutToShow, this, &MainWindow::rebuildRecentMenu);
    QAction* saveAction = file->addAction(tr("&Save"), this, &MainWindow::save);
    saveAction->setShortcut(QKeySequence::Save);
    QAction* saveAsAction = file->addAction(tr("Save &As…"), this, &MainWindow::saveAs);
    saveAsAction->setShortcut(QKeySequence::SaveAs);
    QAction* openTraces = file->addAction(tr("Open &Chakra Traces…"), this, [this] {
        m_results->tabs()->setCurrentWidget(m_results->graphView());
        m_results->graphView()->openWithDialog();
    });
    openTraces->setObjectName(QStringLiteral("openChakraTracesAction"));
    QAction* showStep = file->addAction(tr("Show Workspace Step as Chakra &Graph"), this, [this] {
        // The same graph `rapid run --chakra-out` exports, one trace per pipeline stage, without a file.
        const std::optional<config::Scenario>& scenario = m_document->scenario();
        if (!scenario) {
            statusBar()->showMessage(tr("Fix the configuration first: there is no step to show."), 5000);
            return;
        }
        try {
            m_results->graphView()->setTraces(workspaceStepTraces(*scenario), tr("this workspace's step"));
            m_results->tabs()->setCurrentWidget(m_results->graphView());
        } catch (const std::exception& error) {
            statusBar()->showMessage(tr("No step graph: %1").arg(QString::fromUtf8(error.what())), 8000);
        }
    });
    showStep->setObjectName(QStringLiteral("showWorkspaceStepGraphAction"));
    QAction* exportTraces = file->addAction(tr("Export Step as Chakra &Traces…"), this, [this] {
        const QString directory = QFileDialog::getExistingDirectory(this, tr("Write the Chakra traces into"));
        if (directory.isEmpty()) {
            return;
        }
        const QStringList levels
            = { tr("one node per pipeline pass"), tr("one node per layer"), tr("one node per operator") };
        bool chosen = false;
        const QString level
            = QInputDialog::getItem(this, tr("Export Chakra Traces"), tr("Compute nodes:"), levels, 0, false, &chosen);
        if (!chosen) {
            return;
        }
        const int index = static_cast<int>(levels.indexOf(level));
        exportChakraTraces(directory,
            index == 0       ? sim::ChakraDetail::Chunk
                : index == 1 ? sim::ChakraDetail::Layer
                             : sim::ChakraDetail::Operator);
    });
    exportTraces->setObjectName(QStringLiteral("exportChakraTracesAction"));
    file->addSeparator();
    QAction* exportAction = file->addAction(tr("&Export Figure…"), this, [this] { exportChart(nullptr); });
    exportAction->setObjectName(QStringLiteral("exportChartAction"));
    exportAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
    file->addSeparator();
    QAction* quitAction = file->addAction(tr("&Quit"), this, &QWidget::close);
    quitAction->setShortcut(QKeySequence::Quit);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    QAction* undo = m_document->undoStack()->createUndoAction(this, tr("&Undo"));
    undo->setShortcut(QKeySequence::Undo);
    QAction* redo = m_document->undoStack()->createRedoAction(this, tr("&Redo"));
    redo->setShortcut(QKeySequence::Redo);
    edit->addAction(undo);
    edit->addAction(redo);

    QMenu* compare = menuBar()->addMenu(tr("&Compare"));
    QAction* pinRunAction = compare->addAction(tr("Pin &Run"), this, [this] { pinRun(false); });
    pinRunAction->setObjectName(QStringLiteral("pinRunAction"));
    pinRunAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_B));
    pinRunAction->setToolTip(tr("Keep the current result as a run named by what it changes against the baseline, "
                                "for the Compare tab (%1)")
                                 .arg(pinRunAction->shortcut().toString(QKeySequence::NativeText)));
    m_pinAction = compare->addAction(tr("&Pin as Baseline"), this, [this] { pinBaseline(); });
    m_pinAction->setObjectName(QStringLiteral("pinBaselineAction"));
    m_pinAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_B));
    m_pinAction->setToolTip(tr("Keep the current result as a named run and compare every chart against it (%1)")
                                .arg(m_pinAction->shortcut().toString(QKeySequence::NativeText)));
    QAction* clearBaseline
        = compare->addAction(tr("&Clear Baseline"), this, [this] { m_document->session()->setBaselineIndex(-1); });
    QToolBar* toolBar = addToolBar(tr("Compare"));
    toolBar->setObjectName(QStringLiteral("compareToolBar"));
    toolBar->addAction(m_pinAction);
    toolBar->addAction(clearBaseline);
    toolBar->addAction(exportAction);

    // A closed dock comes back from here (it was only in the docks' context menu, which nothing pointed to).
    QMenu* view = menuBar()->addMenu(tr("&View"));
    view->setObjectName(QStringLiteral("viewMenu"));
    for (QDockWidget* dock : findChildren<QDockWidget*>(QString(), Qt::FindDirectChildrenOnly)) {
        view->addAction(dock->toggleViewAction());
    }
    view->addAction(toolBar->toggleViewAction());

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    QAction* firstSteps = help->addAction(tr("&First Steps"), this, &MainWindow::showFirstSteps);
    firstSteps->setObjectName(QStringLiteral("firstStepsAction"));
    firstSteps->setShortcut(QKeySequence::HelpContents);
    help->addAction(tr("&Keyboard Shortcuts"), this, &MainWindow::showShortcuts);
    help->addAction(tr("&About RAPID-LLM Workbench"), this, &MainWindow::showAbout);
}

bool MainWindow::openWorkspace(const QString& reference)
{
    QString error;
    if (!m_document->open(reference, &error)) {
        statusBar()->showMessage(tr("Cannot open %1: %2").arg(reference, error));
        return false;
    }
    if (!m_document->filePath().isEmpty()) {
        m_recentFiles.add(m_document->filePath());
    }
    statusBar()->showMessage(tr("Opened %1").arg(m_document->name()), kStatusMessageMs);
    m_autosave->offer();
    return true;
}

bool MainWindow::saveWorkspace(const QString& filePath)
{
    QString error;
    if (!m_document->save(filePath, &error)) {
        QMessageBox::warning(this, tr("Save failed"), tr("Cannot save %1: %2").arg(filePath, error));
        return false;
    }
    m_autosave->workspaceSaved(m_document->filePath());
    m_recentFiles.add(m_document->filePath());
    statusBar()->showMessage(tr("Saved %1").arg(QDir::toNativeSeparators(m_document->filePath())), kStatusMessageMs);
    return true;
}

void MainWindow::open()
{
    if (!confirmDiscardingChanges()) {
        return;
    }
    const QString path = QFileDialog::getOpenFileName(this, tr("Open workspace"), {}, kFileFilter);
    if (!path.isEmpty()) {
        openWorkspace(path);
    }
}

bool MainWindow::save()
{
    return m_document->filePath().isEmpty() ? saveAs() : saveWorkspace(m_document->filePath());
}

bool MainWindow::saveAs()
{
    QString path = QFileDialog::getSaveFileName(this, tr("Save workspace as"), m_document->filePath(), kFileFilter);
    if (path.isEmpty()) {
        return false;
    }
    if (!path.endsWith(QLatin1String(".yaml")) && !path.endsWith(QLatin1String(".yml"))) {
        path += QStringLiteral(".rapid.yaml");
    }
    return saveWorkspace(path);
}

void MainWindow::rebuildRecentMenu()
{
    m_recentMenu->clear();
    const QStringList files = m_recentFiles.files();
    for (const QString& path : files) {
        m_recentMenu->addAction(QDir::toNativeSeparators(path), this, [this, path] {
            if (confirmDiscardingChanges() && !openWorkspace(path)) {
                m_recentFiles.remove(path);
            }
        });
    }
    if (files.isEmpty()) {
        m_recentMenu->addAction(tr("No recent files"))->setEnabled(false);
    } else {
        m_recentMenu->addSeparator();
        m_recentMenu->addAction(tr("Clear list"), this, [this] { m_recentFiles.clear(); });
    }
}

bool MainWindow::confirmDiscardingChanges()
{
    if (!m_document->isDirty() || !m_confirmOnClose) {
        return true;
    }
    const auto answer = QMessageBox::warning(this, tr("Unsaved changes"),
        tr("%1 has unsaved changes. Save them?").arg(m_document->name()),
        QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
    if (answer == QMessageBox::Save) {
        return save();
    }
    if (answer == QMessageBox::Discard) {
        m_autosave->editsDiscarded();
        return true;
    }
    return false;
}

void MainWindow::changeEvent(QEvent* event)
{
    QMainWindow::changeEvent(event);
    // A window manager restores the size the window had before it was maximised, which may have been saved on a
    // larger screen; fitted once the restored geometry has arrived.
    if (event->type() == QEvent::WindowStateChange) {
        const auto* change = static_cast<QWindowStateChangeEvent*>(event);
        const Qt::WindowStates enlarged = Qt::WindowMaximized | Qt::WindowFullScreen;
        if ((change->oldState() & enlarged) && !(windowState() & (enlarged | Qt::WindowMinimized))) {
            fitIntoScreenLater();
        }
    }
}

void MainWindow::fitIntoScreenLater()
{
    // Queued: the platform applies a restored geometry and a new frame after the event that announces them.
    QTimer::singleShot(0, this, [this] {
        if (!(windowState() & (Qt::WindowMaximized | Qt::WindowFullScreen | Qt::WindowMinimized))) {
            fitWindowIntoScreen(this);
        }
    });
}

void MainWindow::showEvent(QShowEvent* event)
{
    QMainWindow::showEvent(event);
    // The frame (title bar, borders) exists from the first show on: the restored geometry is fitted again so that
    // the frame is inside the screen too. A size the caller set after construction is left as it is.
    if (m_restoredSize && !event->spontaneous()) {
        if (size() == *m_restoredSize) {
            fitIntoScreenLater();
        }
        m_restoredSize.reset();
    }
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    if (!confirmDiscardingChanges()) {
        event->ignore();
        return;
    }
    QSettings settings;
    settings.setValue(kGeometryKey, saveGeometry());
    settings.setValue(kStateKey, saveState());
    event->accept();
}

void MainWindow::updateTitle()
{
    // The file and what the scenario holds, not the workspace's name: that is free text which edits do not touch
    // ("... on 64 H100" after the cluster grew to 1,024 GPUs, issue #18).
    QString title = m_document->filePath().isEmpty() ? tr("Untitled") : QFileInfo(m_document->filePath()).fileName();
    if (m_document->isDirty()) {
        title += QLatin1Char('*');
    }
    if (const auto& scenario = m_document->scenario()) {
        title += tr(" — %1 on %2 × %3")
                     .arg(QString::fromStdString(scenario->model.name),
                         QLocale().toString(scenario->hardware.cluster.totalGpus()),
                         QString::fromStdString(scenario->hardware.gpu.name));
    }
    setWindowTitle(title + QStringLiteral(" — RAPID-LLM Workbench"));
}

void MainWindow::updateStatus()
{
    // The first problem itself, not a count: the status bar is where one looks for why there is no step time.
    const auto& diagnostics = m_document->diagnostics();
    if (diagnostics.empty()) {
        m_validity->setText(tr("Valid configuration"));
        m_validity->setToolTip(QString());
    } else {
        const config::Diagnostic& first = diagnostics.front();
        QString reason
            = (first.keyPath.empty() ? QString() : QString::fromStdString(first.keyPath) + QStringLiteral(": "))
            + DiagnosticWording::message(first.message);
        const int more = static_cast<int>(diagnostics.size()) - 1;
        QString text = tr("Invalid configuration: %1")
                           .arg(QFontMetrics(m_validity->font()).elidedText(reason, Qt::ElideRight, 480));
        if (more > 0) {
            text += tr(" (%n more in Diagnostics)", nullptr, more);
        }
        m_validity->setText(text);
        m_validity->setToolTip(reason);
    }
    // A placement problem leaves the scenario, which is then evaluated as it is: only without one are the results
    // those of an earlier, valid configuration.
    m_results->setStale(!m_document->scenario());
    updateTitle();
}

void MainWindow::setAutosaveDelay(int milliseconds)
{
    m_autosave->setDelay(milliseconds);
}

void MainWindow::showLocation(DocumentKind kind, int line, int column)
{
    m_tabs->setCurrentWidget(m_yamlEditor);
    m_yamlEditor->showLocation(kind, line, column);
}

bool MainWindow::exportChakraTraces(const QString& directory, sim::ChakraDetail detail)
{
    const std::optional<config::Scenario>& scenario = m_document->scenario();
    if (!scenario) {
        statusBar()->showMessage(tr("Fix the configuration first: there is no step to export."), kStatusMessageMs);
        return false;
    }
    if (!m_chakraExport) {
        m_chakraExport = new ChakraExportJob(this);
        connect(m_chakraExport, &ChakraExportJob::progressChanged, this, [this](double fraction) {
            if (m_chakraProgress) {
                m_chakraProgress->setValue(static_cast<int>(fraction * 1000));
            }
        });
        const auto closeProgress = [this] {
            if (m_chakraProgress) {
                m_chakraProgress->deleteLater();
                m_chakraProgress = nullptr;
            }
        };
        connect(m_chakraExport, &ChakraExportJob::finished, this,
            [this, closeProgress](const sim::ChakraExportSummary& summary, const QString& where) {
                closeProgress();
                statusBar()->showMessage(tr("Wrote %1 Chakra trace file(s), %2 nodes, to %3")
                                             .arg(summary.files)
                                             .arg(static_cast<qulonglong>(summary.nodes))
                                             .arg(QDir::toNativeSeparators(where)),
                    kStatusMessageMs);
            });
        connect(m_chakraExport, &ChakraExportJob::failed, this, [this, closeProgress](const QString& message) {
            closeProgress();
            QMessageBox::warning(this, tr("Chakra export failed"), message);
        });
        connect(m_chakraExport, &ChakraExportJob::cancelled, this, [this, closeProgress] {
            closeProgress();
            statusBar()->showMessage(tr("Chakra export cancelled; its files were removed"), kStatusMessageMs);
        });
    }
    // Not modal: the window stays usable while the files are written; Cancel stops the export.
    if (!m_chakraProgress) {
        m_chakraProgress = new QProgressDialog(tr("Writing one Chakra trace per rank…"), tr("Cancel"), 0, 1000, this);
        m_chakraProgress->setObjectName(QStringLiteral("chakraExportProgress"));
        m_chakraProgress->setWindowModality(Qt::NonModal);
        m_chakraProgress->setAutoClose(false);
        m_chakraProgress->setAutoReset(false);
        m_chakraProgress->setMinimumDuration(0);
        connect(m_chakraProgress, &QProgressDialog::canceled, m_chakraExport, &ChakraExportJob::cancel);
    }
    m_chakraProgress->setValue(0);
    m_chakraProgress->show();
    m_chakraExport->start(*scenario, directory, detail);
    return true;
}

} // namespace rapid::widgets
