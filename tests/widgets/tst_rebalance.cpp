// SPDX-License-Identifier: GPL-3.0-or-later
// Presets in the workbench (#18). File > New from Presets builds an untitled workspace from a model, hardware and run
// preset (or a Hugging Face config.json); changing tp or pp offers to rebalance dp so the GPU count holds (#18
// presets): typed into the Forms tab, tp 4 on the default workspace (tp 8 pp 4 dp 2 on 64 GPUs) asks for 4 x 4 x 2 = 32
// GPUs; the bar offers dp = 64 / (4 x 4) = 4 with the default mapping (the workspace's explicit one was written for tp
// 8); one click makes the workspace valid again and one Ctrl+Z takes the whole rebalancing back.
#include "editors/newfrompresetsdialog.h"
#include "editors/rebalancebar.h"
#include "editors/workspacedocument.h"
#include "mainwindow.h"
#include "widgettestutils.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

using namespace rapid;

class TstRebalance : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("RAPID-LLM-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_rebalance"));
    }

    void tpChangeOffersTheDpThatKeepsTheGpuCount()
    {
        auto window = test::openWindow();
        QVERIFY(window);
        widgets::WorkspaceDocument* document = window->document();
        auto* bar = window->findChild<widgets::RebalanceBar*>();
        QVERIFY(bar);
        QVERIFY(!bar->isVisible()); // the workspace is valid: nothing to offer

        test::typeIntoSpinBox(test::spinBox(*window, QStringLiteral("run.parallelism.tp")), QStringLiteral("4"));
        QTRY_VERIFY(!document->scenario());
        QTRY_VERIFY(bar->isVisible());
        QVERIFY2(bar->textLabel()->text().contains(QStringLiteral("= 32 of the hardware's 64 GPUs")),
            qPrintable(bar->textLabel()->text()));
        QVERIFY2(bar->applyButton()->text().startsWith(QStringLiteral("Set dp to 4")),
            qPrintable(bar->applyButton()->text()));

        QTest::mouseClick(bar->applyButton(), Qt::LeftButton);
        QTRY_VERIFY2(document->scenario().has_value(),
            qPrintable(document->diagnostics().empty()
                    ? QString()
                    : QString::fromStdString(document->diagnostics().front().toString()) + QStringLiteral("\n")
                        + document->text(widgets::DocumentKind::Run)));
        QCOMPARE(document->scenario()->run.parallelism.tp, 4);
        QCOMPARE(document->scenario()->run.parallelism.dp, 4);
        QCOMPARE(document->scenario()->hardware.cluster.totalGpus(), 4 * 4 * 4);
        QVERIFY(!bar->isVisible());

        // One undo step takes the rebalancing back (tp stays as typed).
        document->undoStack()->undo();
        QTRY_VERIFY(!document->scenario());
        QCOMPARE(document->valueAt(QStringLiteral("run.parallelism.dp")), std::optional<QString>(QStringLiteral("2")));
        QCOMPARE(document->valueAt(QStringLiteral("run.parallelism.tp")), std::optional<QString>(QStringLiteral("4")));
    }

    void newFromPresetsMakesAnUntitledWorkspace()
    {
        auto window = test::openWindow();
        QVERIFY(window);
        // The Llama 3.1 8B config.json's fields (tst_hfimport's fixture) as a model, on 4 A100 of an HGX node with
        // the 4-GPU FSDP run.
        QTemporaryDir dir;
        QFile json(dir.filePath(QStringLiteral("config.json")));
        QVERIFY(json.open(QIODevice::WriteOnly));
        json.write(R"({"architectures": ["LlamaForCausalLM"], "hidden_act": "silu", "hidden_size": 4096,
            "intermediate_size": 14336, "max_position_embeddings": 131072, "model_type": "llama",
            "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8, "rms_norm_eps": 1e-05,
            "tie_word_embeddings": false, "vocab_size": 128256})");
        json.close();
        bool driven = false;
        QTimer::singleShot(100, window.get(), [&] {
            auto* dialog = qobject_cast<widgets::NewFromPresetsDialog*>(QApplication::activeModalWidget());
            if (!dialog) {
                return;
            }
            QVERIFY(dialog->importHuggingFace(json.fileName()));
            dialog->hardwareCombo()->setCurrentText(QStringLiteral("hgx-a100-8gpu"));
            dialog->runCombo()->setCurrentText(QStringLiteral("llama-2-7b-train-4xa100"));
            dialog->nameEdit()->setText(QStringLiteral("8B on A100"));
            driven = true;
            dialog->findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok)->click();
        });
        window->findChild<QAction*>(QStringLiteral("newFromPresetsAction"))->trigger();
        QVERIFY(driven);
        widgets::WorkspaceDocument* document = window->document();
        QCOMPARE(document->name(), QStringLiteral("8B on A100"));
        QVERIFY(document->filePath().isEmpty()); // untitled: Save asks where
        QVERIFY(document->text(widgets::DocumentKind::Model).contains(QStringLiteral("hidden_size: 4096")));
        QVERIFY(document->text(widgets::DocumentKind::Hardware).contains(QStringLiteral("A100")));
        // The run preset is for 4 GPUs, the HGX node has 8: the rebalancing offer makes it dp = 8 / (1 x 1 x 1) = 8.
        QVERIFY(!document->scenario().has_value());
        auto* bar = window->findChild<widgets::RebalanceBar*>();
        QTRY_VERIFY(bar->isVisible());
        QVERIFY2(bar->applyButton()->text().startsWith(QStringLiteral("Set dp to 8")),
            qPrintable(bar->applyButton()->text()));
        QTest::mouseClick(bar->applyButton(), Qt::LeftButton);
        QTRY_VERIFY(document->scenario().has_value());
        QCOMPARE(document->scenario()->model.numLayers, 32);
        QCOMPARE(document->scenario()->run.parallelism.dp, 8);
    }

    void pipelineChangeToMoreGpusLowersDp()
    {
        auto window = test::openWindow();
        QVERIFY(window);
        auto* bar = window->findChild<widgets::RebalanceBar*>();
        test::typeIntoSpinBox(test::spinBox(*window, QStringLiteral("run.parallelism.pp")), QStringLiteral("8"));
        // 8 x 8 x 2 = 128 GPUs asked of 64: dp = 64 / (8 x 8) = 1.
        QTRY_VERIFY(bar->isVisible());
        QVERIFY2(bar->applyButton()->text().startsWith(QStringLiteral("Set dp to 1")),
            qPrintable(bar->applyButton()->text()));
        QTest::mouseClick(bar->applyButton(), Qt::LeftButton);
        QTRY_VERIFY(window->document()->scenario().has_value());
        QCOMPARE(window->document()->scenario()->run.parallelism.dp, 1);
    }
};

QTEST_MAIN(TstRebalance)
#include "tst_rebalance.moc"
