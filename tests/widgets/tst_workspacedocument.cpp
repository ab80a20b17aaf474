// SPDX-License-Identifier: GPL-3.0-or-later
// WorkspaceDocument without the main window: edits through the undo stack, GPU preset inlining, save and reload, the
// evaluation runner dropping stale results, and pinned runs saved with the workspace and evaluated again on opening.
#include "editors/gpupresetinliner.h"
#include "editors/runsession.h"
#include "editors/workspacedocument.h"
#include "evaluation/evaluationrunner.h"
#include "evaluation/scenarioevaluator.h"
#include "evaluation/structureevaluator.h"
#include "results/runspanel.h"

#include "config/workspacefile.h"
#include "config/yamledit.h"

#include <QFile>
#include <QListWidget>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

using namespace rapid;
using rapid::widgets::DocumentKind;
using rapid::widgets::RunSession;
using rapid::widgets::WorkspaceDocument;

namespace {

const QString kWorkspacePreset = QStringLiteral("llama-3.1-70b-64xh100");

/// Sleeps, then reports the run's tp as the GPU count: lets a test tell which request a result belongs to.
class SlowEvaluator : public widgets::ScenarioEvaluator {
public:
    widgets::Evaluation evaluate(const config::Scenario& scenario) const override
    {
        QThread::msleep(100);
        widgets::Evaluation evaluation;
        evaluation.runGpus = scenario.run.parallelism.tp;
        return evaluation;
    }
};

/// Re-evaluating the preset's runs takes a few seconds on a busy machine; generous, as nothing here measures time.
constexpr int kEvaluationTimeoutMs = 60000;

/// What the results panel would show for the document now (the evaluator the window uses, on this thread).
widgets::Evaluation evaluateNow(const WorkspaceDocument& document)
{
    return widgets::StructureEvaluator().evaluate(*document.scenario());
}

/// A fresh evaluation of a run's texts, loaded the way a user's document would be.
double freshStepSeconds(const config::WorkspaceDocuments& source)
{
    const config::ConfigLoader loader(config::PresetLibrary::standard());
    const config::Scenario scenario = loader.loadTexts(source.model, source.hardware, source.run, source.overrides);
    const widgets::Evaluation evaluation = widgets::StructureEvaluator().evaluate(scenario);
    return evaluation.training ? evaluation.training->stepTimeSeconds : -1.0;
}

/// Pins the document's current result as the window's "Pin as Baseline" does.
int pin(WorkspaceDocument& document, const QString& name, bool asBaseline = false)
{
    return document.session()->add(name, evaluateNow(document), document.documents(), asBaseline);
}

QString diagnosticsText(const WorkspaceDocument& document)
{
    QStringList lines;
    for (const config::Diagnostic& diagnostic : document.diagnostics()) {
        lines.append(QString::fromStdString(diagnostic.toString()));
    }
    return lines.join(QLatin1Char('\n'));
}

/// A workspace in @p directory naming the H100 GPU preset as its hardware (one GPU, no network); its path, or "".
QString writeOneGpuWorkspace(const QTemporaryDir& directory)
{
    const QString path = directory.filePath(QStringLiteral("one-gpu.rapid.yaml"));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        return {};
    }
    file.write("name: One GPU\nmodel: llama-3.1-8b\nhardware: h100-sxm5-80gb\nrun: llama-3.1-8b-decode-1gpu\n");
    return path;
}

} // namespace

class TstWorkspaceDocument : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void opensTheDefaultWorkspaceValid();
    void setValueKeepsCommentsAndUndoes();
    void typingMergesIntoOneUndoStep();
    void gpuFieldEditCopiesThePresetIn();
    void oneGpuHardwareShowsAndEditsItsGpuFields();
    void oneGpuHardwareNamesItsPresetAndTakesAnother();
    void saveAndReloadGiveTheSameScenario();
    void staleEvaluationsAreDropped();
    void pinnedRunsAreSavedAndEvaluatedAgainOnOpening();
    void runEditsAreUndoableAndMarkTheWorkspaceModified();
    void runThatNoLongerEvaluatesShowsItsProblem();
    void openingAnotherWorkspaceKeepsRunsAheadOfItsOwn();
    void restoringAnAutosaveRestoresItsRuns();
};

void TstWorkspaceDocument::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("RAPID-LLM-tests"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_workspacedocument"));
}

void TstWorkspaceDocument::opensTheDefaultWorkspaceValid()
{
    WorkspaceDocument document(config::PresetLibrary::standard());
    QString error;
    QVERIFY2(document.open(kWorkspacePreset, &error), qPrintable(error));
    QVERIFY(document.filePath().isEmpty()); // a preset opens untitled
    QVERIFY(!document.isDirty());
    QVERIFY(document.diagnostics().empty());
    QVERIFY(document.scenario().has_value());
    QCOMPARE(document.scenario()->run.parallelism.tp, 8);
}

void TstWorkspaceDocument::setValueKeepsCommentsAndUndoes()
{
    WorkspaceDocument document(config::PresetLibrary::standard());
    QVERIFY(document.open(kWorkspacePreset));
    QSignalSpy changed(&document, &WorkspaceDocument::documentChanged);
    QSignalSpy dirty(&document, &WorkspaceDocument::dirtyChanged);
    const QString before = document.text(DocumentKind::Run);

    QVERIFY(document.setValue(QStringLiteral("run.parallelism.pp"), QStringLiteral("2")));
    const QString after = document.text(DocumentKind::Run);
    QVERIFY(after.contains(QLatin1String("\n    pp: 2\n")));
    QVERIFY(after.contains(QLatin1String("# Source: illustrative example")));
    QCOMPARE(after.count(QLatin1Char('\n')), before.count(QLatin1Char('\n')));
    QCOMPARE(changed.count(), 1);
    QCOMPARE(changed.first().first().value<DocumentKind>(), DocumentKind::Run);
    QVERIFY(document.isDirty());
    QCOMPARE(dirty.count(), 1);
    // 8*2*2 = 32 GPUs of 64: the cross-document check reports it.
    QVERIFY(!document.diagnostics().empty());

    document.undoStack()->undo();
    QCOMPARE(document.text(DocumentKind::Run), before);
    QVERIFY(!document.isDirty());
    QVERIFY(document.diagnostics().empty());
}

void TstWorkspaceDocument::typingMergesIntoOneUndoStep()
{
    WorkspaceDocument document(config::PresetLibrary::standard());
    QVERIFY(document.open(kWorkspacePreset));
    const QString original = document.text(DocumentKind::Model);
    QString text = original;
    const qsizetype at = text.indexOf(QLatin1String("num_layers: 80")) + 12;
    // "80" -> "8" -> "" -> "4" -> "40", as keystrokes would produce.
    for (const QString& step : { QStringLiteral("8"), QString(), QStringLiteral("4"), QStringLiteral("40") }) {
        text = original.left(at) + step + original.mid(at + 2);
        document.setText(DocumentKind::Model, text);
    }
    QCOMPARE(document.undoStack()->count(), 1);
    QVERIFY(document.scenario().has_value());
    QCOMPARE(document.scenario()->model.numLayers, 40);
    document.undoStack()->undo();
    QCOMPARE(document.text(DocumentKind::Model), original);
}

void TstWorkspaceDocument::gpuFieldEditCopiesThePresetIn()
{
    WorkspaceDocument document(config::PresetLibrary::standard());
    QVERIFY(document.open(kWorkspacePreset));
    QCOMPARE(document.valueAt(QStringLiteral("hardware.gpu")), QStringLiteral("H100-SXM5-80GB"));
    QCOMPARE(document.valueAt(QStringLiteral("hardware.gpu.sm_count")), QStringLiteral("132"));

    QVERIFY(document.setValue(QStringLiteral("hardware.gpu.hbm.bandwidth_GBps"), QStringLiteral("4000")));
    const QString text = document.text(DocumentKind::Hardware);
    QVERIFY2(text.contains(QLatin1String("      bandwidth_GBps: 4000\n")), qPrintable(text));
    QVERIFY(text.contains(QLatin1String("# Source: \"NVIDIA H100 Tensor Core GPU Architecture\""))); // its comments
    QVERIFY(text.contains(QLatin1String("# Source: \"NVIDIA DGX SuperPOD"))); // the hardware's own comments
    QVERIFY2(document.diagnostics().empty(), qPrintable(diagnosticsText(document)));
    QCOMPARE(document.scenario()->hardware.gpu.hbmBandwidth, 4000e9);
    QCOMPARE(document.scenario()->hardware.gpu.smCount, 132);
    QCOMPARE(document.undoStack()->count(), 1); // inlining and the edit are one step
    document.undoStack()->undo();
    QCOMPARE(document.valueAt(QStringLiteral("hardware.gpu")), QStringLiteral("H100-SXM5-80GB"));
}

void TstWorkspaceDocument::oneGpuHardwareShowsAndEditsItsGpuFields()
{
    // A GPU preset named as the hardware keeps the preset's own `gpu:` document as the hardware text; the forms' GPU
    // fields (hardware.gpu.*) read and write its gpu.* keys. They once showed blank fields beside results of the
    // H100 (found under Xvfb).
    QTemporaryDir directory;
    QVERIFY(directory.isValid());
    const QString path = writeOneGpuWorkspace(directory);
    QVERIFY(!path.isEmpty());
    WorkspaceDocument document(config::PresetLibrary::standard());
    QString error;
    QVERIFY2(document.open(path, &error), qPrintable(error));
    QCOMPARE(document.valueAt(QStringLiteral("hardware.gpu.sm_count")), QStringLiteral("132"));
    QCOMPARE(document.valueAt(QStringLiteral("hardware.gpu.name")), QStringLiteral("H100-SXM5-80GB"));
    QVERIFY(document.setValue(QStringLiteral("hardware.gpu.sm_count"), QStringLiteral("100")));
    const QString text = document.text(DocumentKind::Hardware);
    QVERIFY2(
        text.startsWith(QLatin1String("#")) && text.contains(QLatin1String("\n  sm_count: 100\n")), qPrintable(text));
    QVERIFY2(document.diagnostics().empty(), qPrintable(diagnosticsText(document)));
    QCOMPARE(document.scenario()->hardware.gpu.smCount, 100);
    QCOMPARE(document.scenario()->hardware.cluster.totalGpus(), 1);
    document.undoStack()->undo();
    QCOMPARE(document.valueAt(QStringLiteral("hardware.gpu.sm_count")), QStringLiteral("132"));
}

void TstWorkspaceDocument::oneGpuHardwareNamesItsPresetAndTakesAnother()
{
    // The GPU preset picker of a one-GPU hardware once showed "custom" for an unedited preset, and choosing another
    // appended a second root (`hardware: {gpu: ...}`) to the `gpu:` document: the forms kept showing the first GPU's
    // specs while the results were the second's (found under Xvfb).
    QTemporaryDir directory;
    QVERIFY(directory.isValid());
    const QString path = writeOneGpuWorkspace(directory);
    QVERIFY(!path.isEmpty());
    WorkspaceDocument document(config::PresetLibrary::standard());
    QString error;
    QVERIFY2(document.open(path, &error), qPrintable(error));
    const QString gpu = QStringLiteral("hardware.gpu");
    QCOMPARE(document.valueAt(gpu), QStringLiteral("h100-sxm5-80gb"));
    QVERIFY(document.setValue(QStringLiteral("hardware.gpu.sm_count"), QStringLiteral("100")));
    QCOMPARE(document.valueAt(gpu), std::nullopt); // edited: the specs are the workspace's ("custom")
    document.undoStack()->undo();
    QCOMPARE(document.valueAt(gpu), QStringLiteral("h100-sxm5-80gb"));

    QVERIFY(document.setValue(gpu, QStringLiteral("a100-sxm4-80gb")));
    const QString text = document.text(DocumentKind::Hardware);
    QVERIFY2(text.contains(QLatin1String("\n  name: A100-SXM4-80GB\n")) && !text.contains(QLatin1String("hardware:")),
        qPrintable(text));
    QVERIFY2(document.diagnostics().empty(), qPrintable(diagnosticsText(document)));
    QCOMPARE(document.valueAt(gpu), QStringLiteral("a100-sxm4-80gb"));
    QCOMPARE(document.valueAt(QStringLiteral("hardware.gpu.sm_count")), QStringLiteral("108"));
    QCOMPARE(document.scenario()->hardware.gpu.smCount, 108); // the A100's 108 SMs, in the forms and the results
    QCOMPARE(document.scenario()->hardware.cluster.totalGpus(), 1);
    QCOMPARE(document.undoStack()->count(), 1);
    document.undoStack()->undo();
    QCOMPARE(document.scenario()->hardware.gpu.smCount, 132);

    QVERIFY(!document.setValue(gpu, QStringLiteral("no-such-gpu"), &error));
    QVERIFY2(error.contains(QLatin1String("no-such-gpu")), qPrintable(error));
}

void TstWorkspaceDocument::saveAndReloadGiveTheSameScenario()
{
    QTemporaryDir directory;
    QVERIFY(directory.isValid());
    const QString path = directory.filePath(QStringLiteral("llama.rapid.yaml"));
    WorkspaceDocument first(config::PresetLibrary::standard());
    QVERIFY(first.open(kWorkspacePreset));
    QVERIFY(first.setValue(QStringLiteral("run.training.global_batch"), QStringLiteral("1024")));
    QString error;
    QVERIFY2(first.save(path, &error), qPrintable(error));
    QVERIFY(!first.isDirty());
    QCOMPARE(first.filePath(), path);

    WorkspaceDocument second(config::PresetLibrary::standard());
    QVERIFY2(second.open(path, &error), qPrintable(error));
    QCOMPARE(second.filePath(), path);
    for (DocumentKind kind : widgets::kAllDocumentKinds) {
        QCOMPARE(second.text(kind), first.text(kind));
    }
    QCOMPARE(second.name(), first.name());
    QVERIFY(second.scenario().has_value());
    QVERIFY(second.scenario()->model == first.scenario()->model);
    QVERIFY(second.scenario()->hardware == first.scenario()->hardware);
    QVERIFY(second.scenario()->run == first.scenario()->run);
    QCOMPARE(second.scenario()->run.globalBatch, 1024);
}

void TstWorkspaceDocument::staleEvaluationsAreDropped()
{
    WorkspaceDocument document(config::PresetLibrary::standard());
    QVERIFY(document.open(kWorkspacePreset));
    widgets::EvaluationRunner runner(std::make_shared<SlowEvaluator>());
    QSignalSpy results(&runner, &widgets::EvaluationRunner::evaluationAvailable);
    config::Scenario scenario = *document.scenario();
    runner.request(scenario);
    scenario.run.parallelism.tp = 4;
    runner.request(scenario); // supersedes the first while it still runs
    QTRY_VERIFY_WITH_TIMEOUT(!runner.isBusy(), 5000);
    QCOMPARE(results.count(), 1);
    QCOMPARE(results.first().first().value<widgets::Evaluation>().runGpus, 4);
}

void TstWorkspaceDocument::pinnedRunsAreSavedAndEvaluatedAgainOnOpening()
{
    QTemporaryDir directory;
    QVERIFY(directory.isValid());
    const QString path = directory.filePath(QStringLiteral("runs.rapid.yaml"));
    WorkspaceDocument first(config::PresetLibrary::standard());
    QVERIFY(first.open(kWorkspacePreset));
    // Pin the preset as it is, change the micro-batch, pin again, then compare against the first run.
    pin(first, QStringLiteral("micro-batch 1"));
    QVERIFY(first.setValue(QStringLiteral("run.training.micro_batch"), QStringLiteral("2")));
    pin(first, QStringLiteral("micro-batch 2"));
    first.session()->setBaselineIndex(0);
    QVERIFY(first.isDirty());
    QString error;
    QVERIFY2(first.save(path, &error), qPrintable(error));
    QVERIFY(!first.isDirty());
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QString saved = QString::fromUtf8(file.readAll());
    QVERIFY(saved.contains(QLatin1String("\nruns:\n  - name: \"micro-batch 1\"\n")));
    QCOMPARE(saved.count(QLatin1String("baseline: true")), 1);
    QVERIFY(saved.contains(QLatin1String("      # Source: illustrative example"))); // comments kept in the runs

    WorkspaceDocument second(config::PresetLibrary::standard());
    widgets::EvaluationRunner runner(std::make_shared<widgets::StructureEvaluator>());
    second.session()->setEvaluationRunner(&runner);
    QVERIFY2(second.open(path, &error), qPrintable(error));
    RunSession* session = second.session();
    QCOMPARE(session->count(), 2);
    // Nothing is evaluated on the GUI thread: both wait for the runner until the event loop delivers.
    QCOMPARE(session->evaluatingCount(), 2);
    QVERIFY(!session->runs()[0].evaluation);
    QCOMPARE(session->runs()[0].name, QStringLiteral("micro-batch 1"));
    QCOMPARE(session->runs()[1].name, QStringLiteral("micro-batch 2"));
    QCOMPARE(session->baselineIndex(), 0);
    QVERIFY(session->baseline() && !session->baseline()->evaluation);
    QCOMPARE(session->runs()[1].pinnedAt, first.session()->runs()[1].pinnedAt);
    QVERIFY(!second.isDirty());

    QSignalSpy baselineChanged(session, &RunSession::baselineChanged);
    QTRY_COMPARE_WITH_TIMEOUT(session->evaluatingCount(), 0, kEvaluationTimeoutMs);
    QVERIFY(baselineChanged.count() >= 1); // the charts learn that the baseline's numbers arrived
    for (int index = 0; index < 2; ++index) {
        const widgets::NamedRun& restored = session->runs()[index];
        const widgets::NamedRun& pinned = first.session()->runs()[index];
        QVERIFY2(restored.problem.isEmpty(), qPrintable(restored.problem));
        QVERIFY(restored.evaluation && restored.evaluation->training);
        QCOMPARE(restored.source.run.text, pinned.source.run.text);
        const double stepSeconds = restored.evaluation->training->stepTimeSeconds;
        QCOMPARE(stepSeconds, freshStepSeconds(pinned.source));
        QCOMPARE(stepSeconds, pinned.evaluation->training->stepTimeSeconds);
        QCOMPARE(restored.evaluation->label, pinned.evaluation->label);
    }
    QVERIFY(session->runs()[0].evaluation->training->stepTimeSeconds
        != session->runs()[1].evaluation->training->stepTimeSeconds);
    // Still unmodified, and it would save the very same file.
    QVERIFY(!second.isDirty());
    QCOMPARE(second.composedText(), saved);
}

void TstWorkspaceDocument::runEditsAreUndoableAndMarkTheWorkspaceModified()
{
    QTemporaryDir directory;
    const QString path = directory.filePath(QStringLiteral("edits.rapid.yaml"));
    WorkspaceDocument document(config::PresetLibrary::standard());
    QVERIFY(document.open(kWorkspacePreset));
    RunSession* session = document.session();
    QSignalSpy dirty(&document, &WorkspaceDocument::dirtyChanged);

    pin(document, QStringLiteral("first"), true);
    QVERIFY(document.isDirty());
    QCOMPARE(dirty.count(), 1);
    QCOMPARE(document.undoStack()->undoText(), QStringLiteral("Pin “first” as baseline"));
    document.undoStack()->undo();
    QCOMPARE(session->count(), 0);
    QCOMPARE(session->baselineIndex(), -1);
    QVERIFY(!document.isDirty());
    document.undoStack()->redo();
    QCOMPARE(session->count(), 1);
    QCOMPARE(session->baselineIndex(), 0);
    QVERIFY(session->runs()[0].evaluation); // undo and redo keep the result, nothing is evaluated again

    QVERIFY(document.save(path));
    session->rename(0, QStringLiteral("renamed"));
    QVERIFY(document.isDirty());
    document.undoStack()->undo();
    QCOMPARE(session->runs()[0].name, QStringLiteral("first"));
    QVERIFY(!document.isDirty());

    session->setBaselineIndex(-1);
    QVERIFY(document.isDirty());
    QCOMPARE(document.undoStack()->undoText(), QStringLiteral("Clear baseline"));
    document.undoStack()->undo();
    QCOMPARE(session->baselineIndex(), 0);
    session->remove(0);
    QVERIFY(document.isDirty());
    QCOMPARE(session->count(), 0);
    document.undoStack()->undo();
    QCOMPARE(session->count(), 1);
    QCOMPARE(session->baselineIndex(), 0);
    QVERIFY(!document.isDirty());
}

void TstWorkspaceDocument::runThatNoLongerEvaluatesShowsItsProblem()
{
    // A run pinned when the hardware used a GPU preset that has since gone away.
    WorkspaceDocument first(config::PresetLibrary::standard());
    QVERIFY(first.open(kWorkspacePreset));
    pin(first, QStringLiteral("still fine"));
    config::WorkspaceDocuments gone = first.documents();
    const auto at = gone.hardware.text.find("gpu: H100-SXM5-80GB");
    QVERIFY(at != std::string::npos);
    gone.hardware.text.replace(at, 19, "gpu: H999-RETIRED");
    first.session()->add(QStringLiteral("old GPU"), evaluateNow(first), gone);
    QTemporaryDir directory;
    const QString path = directory.filePath(QStringLiteral("broken.rapid.yaml"));
    QVERIFY(first.save(path));

    WorkspaceDocument second(config::PresetLibrary::standard());
    widgets::EvaluationRunner runner(std::make_shared<widgets::StructureEvaluator>());
    second.session()->setEvaluationRunner(&runner);
    widgets::RunsPanel panel(second.session());
    QString error;
    QVERIFY2(second.open(path, &error), qPrintable(error)); // the broken run does not stop the workspace
    QListWidget* list = panel.list();
    QCOMPARE(list->count(), 2);
    QCOMPARE(list->item(0)->text(), QStringLiteral("still fine — evaluating…"));
    QTRY_COMPARE_WITH_TIMEOUT(second.session()->evaluatingCount(), 0, kEvaluationTimeoutMs);
    QCOMPARE(list->item(0)->text(), QStringLiteral("still fine"));
    const widgets::NamedRun& broken = second.session()->runs()[1];
    QVERIFY(!broken.evaluation);
    QVERIFY2(broken.problem.contains(QLatin1String("hardware.gpu"))
            && broken.problem.contains(QLatin1String("H999-RETIRED")),
        qPrintable(broken.problem));
    QVERIFY2(list->item(1)->text().startsWith(QStringLiteral("old GPU — cannot evaluate: hardware.gpu")),
        qPrintable(list->item(1)->text()));
    // It stays in the list and in the file, and can still be the baseline (nothing to compare against yet).
    second.session()->setBaselineIndex(1);
    QCOMPARE(second.session()->baseline()->name, QStringLiteral("old GPU"));
    QVERIFY(second.composedText().contains(QLatin1String("gpu: H999-RETIRED")));
}

void TstWorkspaceDocument::openingAnotherWorkspaceKeepsRunsAheadOfItsOwn()
{
    QTemporaryDir directory;
    const QString path = directory.filePath(QStringLiteral("other.rapid.yaml"));
    {
        WorkspaceDocument other(config::PresetLibrary::standard());
        QVERIFY(other.open(kWorkspacePreset));
        QVERIFY(other.setValue(QStringLiteral("run.training.micro_batch"), QStringLiteral("2")));
        pin(other, QStringLiteral("from the file"), true);
        QVERIFY(other.save(path));
    }
    WorkspaceDocument document(config::PresetLibrary::standard());
    widgets::EvaluationRunner runner(std::make_shared<widgets::StructureEvaluator>());
    document.session()->setEvaluationRunner(&runner);
    QVERIFY(document.open(kWorkspacePreset));
    pin(document, QStringLiteral("pinned before"), true);
    QVERIFY(document.save(directory.filePath(QStringLiteral("first.rapid.yaml"))));

    QVERIFY(document.open(path));
    RunSession* session = document.session();
    QCOMPARE(session->count(), 2);
    QCOMPARE(session->runs()[0].name, QStringLiteral("pinned before"));
    QCOMPARE(session->runs()[1].name, QStringLiteral("from the file"));
    QVERIFY(session->runs()[0].evaluation); // kept with its result
    QCOMPARE(session->baselineIndex(), 0); // still comparing against what it compared against
    // The list differs from the file now, so the workspace is modified; Undo gives back the file as saved.
    QVERIFY(document.isDirty());
    QCOMPARE(document.undoStack()->undoText(),
        QStringLiteral("Keep 1 run(s) pinned before opening Llama-3.1-70B training on 64 H100"));
    document.undoStack()->undo();
    QCOMPARE(session->count(), 1);
    QCOMPARE(session->runs()[0].name, QStringLiteral("from the file"));
    QCOMPARE(session->baselineIndex(), 0); // the file's baseline
    QVERIFY(!document.isDirty());
    document.undoStack()->redo();
    QCOMPARE(session->count(), 2);

    // Opening the same file again brings its runs back once, not twice.
    QVERIFY(document.open(path));
    QCOMPARE(session->count(), 2);
    QCOMPARE(session->runs()[1].name, QStringLiteral("from the file"));
    QTRY_COMPARE_WITH_TIMEOUT(session->evaluatingCount(), 0, kEvaluationTimeoutMs);
}

void TstWorkspaceDocument::restoringAnAutosaveRestoresItsRuns()
{
    QTemporaryDir directory;
    WorkspaceDocument edited(config::PresetLibrary::standard());
    QVERIFY(edited.open(kWorkspacePreset));
    pin(edited, QStringLiteral("kept in the autosave"), true);
    // The autosave is the composed text, runs included.
    QFile autosave(directory.filePath(QStringLiteral("autosave.rapid.yaml")));
    QVERIFY(autosave.open(QIODevice::WriteOnly));
    autosave.write(edited.composedText().toUtf8());
    autosave.close();

    WorkspaceDocument document(config::PresetLibrary::standard());
    QVERIFY(document.open(kWorkspacePreset));
    QCOMPARE(document.session()->count(), 0);
    const config::WorkspaceDocuments documents
        = config::readWorkspaceDocuments(autosave.fileName().toStdString(), document.library());
    document.replaceTexts(documents, QStringLiteral("Restore unsaved edits"));
    QCOMPARE(document.session()->count(), 1);
    QCOMPARE(document.session()->runs()[0].name, QStringLiteral("kept in the autosave"));
    QCOMPARE(document.session()->baselineIndex(), 0);
    QVERIFY(document.isDirty());
    QCOMPARE(document.composedText(), edited.composedText());
    document.undoStack()->undo(); // one step, texts and runs together
    QCOMPARE(document.session()->count(), 0);
    QVERIFY(!document.isDirty());
}

QTEST_MAIN(TstWorkspaceDocument)
#include "tst_workspacedocument.moc"
