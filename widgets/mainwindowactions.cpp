// SPDX-License-Identifier: GPL-3.0-or-later
// MainWindow's comparison, figure export and help actions (mainwindow.cpp builds the window and its documents).
#include "mainwindow.h"

#include "common/chartexporter.h"
#include "common/chartwidget.h"
#include "common/figuredialog.h"
#include "common/figurestylepresets.h"
#include "editors/newfrompresetsdialog.h"
#include "editors/runsession.h"
#include "editors/workspacedocument.h"
#include "evaluation/evaluationdiff.h"
#include "resilience/resiliencepanel.h"
#include "results/resultspanel.h"
#include "results/summaryfigures.h"
#include "serving/servingpanel.h"
#include "sweeps/sweepchart.h"
#include "sweeps/sweeppanel.h"

#include <QAction>
#include <QCheckBox>
#include <QDir>
#include <QKeySequence>
#include <QMenuBar>
#include <QMessageBox>
#include <QStatusBar>

namespace rapid::widgets {

bool MainWindow::pinBaseline(const QString& name)
{
    return pinRun(true, name);
}

namespace {

/// @p wanted, or when a pinned run has that name already, @p wanted and what @p pinned changes against that run
/// ("Llama-3.1-70B · tp8 pp4 dp2 cp1 · mb1 · seq 4096"): two baselines of one model and split otherwise got the
/// same label and a "(2)" that charts cut off. Unchanged (RunSession numbers it) when nothing tells them apart.
QString distinguishedName(QString wanted, const Evaluation& pinned, const QList<NamedRun>& runs)
{
    for (bool renamed = true; renamed;) {
        renamed = false;
        for (const NamedRun& run : runs) {
            if (run.name != wanted || !run.evaluation) {
                continue;
            }
            const std::string words = differenceWords(*run.evaluation, pinned);
            if (!words.empty()) {
                wanted += QStringLiteral(" · ") + QString::fromStdString(words);
                renamed = true;
            }
            break;
        }
    }
    return wanted;
}

} // namespace

bool MainWindow::pinRun(bool asBaseline, const QString& name)
{
    const std::optional<Evaluation>& shown = m_results->evaluation();
    if (!shown) {
        statusBar()->showMessage(tr("Nothing to pin yet: the configuration has no result"), kStatusMessageMs);
        return false;
    }
    // The dashboard's congestion step (the Topology tab's "Simulate congestion") is what the user looks at: pinned
    // as the run's figures, and said to come from that network model.
    Evaluation pinned = *shown;
    if (const std::optional<report::TrainingResult>& congestion = m_results->congestionStep();
        congestion && pinned.training) {
        pinned.training = *congestion;
        pinned.backend = sim::NetworkBackend::Congestion;
    }
    RunSession* session = m_document->session();
    // A generated name says what was run, so a list of pinned runs reads without opening each one: against a
    // baseline, what this run changes ("tp4 dp4", "seq 4096"); without one, the run itself.
    QString wanted = name;
    const NamedRun* baseline = session->baseline();
    if (wanted.isEmpty() && !asBaseline && baseline && baseline->evaluation) {
        const std::string words = differenceWords(*baseline->evaluation, pinned);
        wanted = words.empty() ? tr("same as the baseline") : QString::fromStdString(words);
    }
    if (wanted.isEmpty()) {
        wanted = QString::fromStdString(pinned.label);
        if (pinned.backend != sim::NetworkBackend::Analytical) {
            wanted += QStringLiteral(" · ") + QString::fromLatin1(sim::toString(pinned.backend));
        }
    }
    if (name.isEmpty()) {
        wanted = distinguishedName(wanted, pinned, session->runs());
    }
    const int index = session->add(wanted, pinned, m_shownSource, asBaseline);
    statusBar()->showMessage((asBaseline ? tr("Pinned “%1” as the baseline") : tr("Pinned “%1”; see the Compare tab"))
                                 .arg(session->runs()[index].name),
        kStatusMessageMs);
    return true;
}

void MainWindow::exportChart(QWidget* chart)
{
    QList<FigureDialog::Target> targets;
    int selected = 0;
    for (ChartWidget* candidate : m_results->charts()) {
        if (candidate == chart) {
            selected = static_cast<int>(targets.size());
        }
        targets.append({ candidate->title(), candidate });
    }
    targets.append({ tr("Summary figures"), m_results->summaryFigures() });
    if (chart == m_sweep->chart()) {
        selected = static_cast<int>(targets.size());
    }
    targets.append({ m_sweep->chart()->title(), m_sweep->chart() });
    // File > Export Figure on the Resilience tab starts on the figure of the page shown.
    QWidget* wanted
        = chart ? chart : (m_tabs->currentWidget() == m_resilience ? m_resilience->currentFigure() : nullptr);
    if (!chart && m_tabs->currentWidget() == m_serving) {
        wanted = m_serving->currentFigure();
    }
    for (const FigureDialog::Target& target : m_resilience->figures() + m_serving->figures()) {
        if (wanted && target.widget == wanted) {
            selected = static_cast<int>(targets.size());
        }
        targets.append(target);
    }
    // The workspace's own style first: the figure a colleague regenerates with `rapid plot` from the same file.
    config::FigureStyle style = m_document->figureStyle().value_or(
        FigureStylePresets::preset(FigureStylePresets::defaultName()).value_or(config::FigureStyle()));
    FigureDialog dialog(targets, selected, style, this);
    dialog.keepCheck()->setChecked(m_document->figureStyle().has_value());
    if (dialog.exec() != QDialog::Accepted) {
        return;
    }
    QString error;
    QString created;
    if (!dialog.makeFolder(&created, &error)
        || !ChartExporter::exportWidget(dialog.selectedWidget(), dialog.filePath(), dialog.options(), &error)) {
        QMessageBox::warning(this, tr("Export failed"), error);
        return;
    }
    dialog.rememberChoices();
    if (dialog.keepWithWorkspace()) {
        m_document->setFigureStyle(dialog.options().figure);
    }
    const QString exported = tr("Exported %1").arg(QDir::toNativeSeparators(dialog.filePath()));
    statusBar()->showMessage(created.isEmpty()
            ? exported
            : tr("%1 (created the folder %2)").arg(exported, QDir::toNativeSeparators(created)),
        kStatusMessageMs);
}

QString MainWindow::shortcutList() const
{
    QStringList rows;
    for (const QAction* action : findChildren<QAction*>()) {
        if (!action->shortcut().isEmpty()) {
            QString name = action->text();
            name.remove(QLatin1Char('&'));
            rows.append(
                QStringLiteral("<tr><td>%1</td><td>%2</td></tr>")
                    .arg(action->shortcut().toString(QKeySequence::NativeText).toHtmlEscaped(), name.toHtmlEscaped()));
        }
    }
    rows.sort();
    rows.removeDuplicates();
    return QStringLiteral("<table cellspacing=\"6\">%1</table>").arg(rows.join(QString()));
}

void MainWindow::showShortcuts()
{
    QMessageBox box(QMessageBox::NoIcon, tr("Keyboard Shortcuts"), shortcutList(), QMessageBox::Close, this);
    box.setTextFormat(Qt::RichText);
    box.exec();
}

void MainWindow::showAbout()
{
    QMessageBox::about(this, tr("About RAPID-LLM Workbench"),
        tr("<h3>RAPID-LLM Workbench %1</h3>"
           "<p>Predicts how large language models train and serve on GPU clusters.</p>"
           "<p>Licensed under the GNU GPL, version 3 or later. Uses Qt %2, QCustomPlot and "
           "Graphviz.</p>")
            .arg(QStringLiteral(RAPID_VERSION), QString::fromLatin1(qVersion())));
}

void MainWindow::newFromPresets()
{
    if (!confirmDiscardingChanges()) {
        return;
    }
    NewFromPresetsDialog dialog(m_document->library(), this);
    if (dialog.exec() != QDialog::Accepted) {
        return;
    }
    QString error;
    const std::optional<config::WorkspaceDocuments> documents = dialog.documents(&error);
    if (!documents) {
        QMessageBox::warning(this, tr("New workspace"), error);
        return;
    }
    m_document->load(*documents, QString());
    statusBar()->showMessage(tr("New workspace “%1”").arg(m_document->name()), kStatusMessageMs);
}

void MainWindow::showFirstSteps()
{
    QMessageBox box(QMessageBox::NoIcon, tr("First Steps"),
        tr("<h3>First steps</h3>"
           "<ol>"
           "<li><b>Open a scenario</b>: File &gt; Open a workspace (or start from the default Llama-3.1-70B on 64 "
           "H100). A workspace holds a model, a hardware and a run document.</li>"
           "<li><b>Edit</b> in the Forms tab (hover a field for its unit, range and default) or the YAML tab. Every "
           "edit re-evaluates at once; problems show beside the field and in Diagnostics; Ctrl+Z undoes.</li>"
           "<li><b>Read the results</b> on the right: step time, throughput, MFU, energy and memory per GPU; the "
           "Timeline, Operators and Placement tabs say where the time goes.</li>"
           "<li><b>Compare</b>: Ctrl+B pins the current result as the baseline, Ctrl+Shift+B pins it as a run named "
           "by what it changes; the Compare tab lists them with their deltas.</li>"
           "<li><b>What-ifs on the network</b>: the Topology tab degrades or fails links and runs the congestion "
           "backend; its results appear on the dashboard beside the analytical ones.</li>"
           "<li><b>Sweep</b> parallel splits or any key in the Sweep tab; apply a point back to the workspace.</li>"
           "<li><b>Figures for a paper</b>: File &gt; Export Figure (Ctrl+Shift+E) with a preview; keep the style "
           "with the workspace and regenerate the figure with <tt>rapid plot</tt>.</li>"
           "</ol>"
           "<p>The keys, units and defaults of every document: configs/README.md; paper figures: docs/figures.md.</p>"),
        QMessageBox::Close, this);
    box.setObjectName(QStringLiteral("firstStepsDialog"));
    box.setTextFormat(Qt::RichText);
    box.exec();
}

} // namespace rapid::widgets
