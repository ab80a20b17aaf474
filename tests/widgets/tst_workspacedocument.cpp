// SPDX-License-Identifier: GPL-3.0-or-later
// WorkspaceDocument without windows: edits through the undo stack, GPU preset inlining, save and reload, and the
// evaluation runner dropping stale results.
#include "evaluationrunner.h"
#include "gpupresetinliner.h"
#include "scenarioevaluator.h"
#include "workspacedocument.h"

#include "config/yamledit.h"

#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

using namespace rapid;
using rapid::widgets::DocumentKind;
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

QString diagnosticsText(const WorkspaceDocument& document)
{
    QStringList lines;
    for (const config::Diagnostic& diagnostic : document.diagnostics()) {
        lines.append(QString::fromStdString(diagnostic.toString()));
    }
    return lines.join(QLatin1Char('\n'));
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
    void saveAndReloadGiveTheSameScenario();
    void staleEvaluationsAreDropped();
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

QTEST_GUILESS_MAIN(TstWorkspaceDocument)
#include "tst_workspacedocument.moc"
