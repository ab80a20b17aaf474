// SPDX-License-Identifier: GPL-3.0-or-later
// A workspace read into three texts, composed into one self-contained file and read back, gives the same scenario.
#include "config/workspacefile.h"
#include "testutils.h"

#include <QTest>

using namespace rapid;

class TstWorkspaceFile : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void roundTripsThroughOneFile();
    void keepsCommentsOfInlineDocuments();
};

void TstWorkspaceFile::roundTripsThroughOneFile()
{
    const config::PresetLibrary library = test::projectPresets();
    const config::ConfigLoader loader(library);
    const config::WorkspaceDocuments documents = config::readWorkspaceDocuments("llama-3.1-70b-64xh100", library);
    QVERIFY(documents.model.text.find("model:") != std::string::npos);
    QVERIFY(documents.hardware.text.find("hardware:") != std::string::npos);

    QTemporaryDir dir;
    const std::string path = test::writeFile(dir, "saved.rapid.yaml", config::composeWorkspace(documents));
    const config::Scenario fromPreset = loader.loadWorkspace("llama-3.1-70b-64xh100");
    const config::Scenario fromSaved = loader.loadWorkspace(path);
    QVERIFY(fromSaved.model == fromPreset.model);
    QVERIFY(fromSaved.hardware == fromPreset.hardware);
    QVERIFY(fromSaved.run == fromPreset.run);
    QCOMPARE(fromSaved.name, fromPreset.name);
    const config::Scenario fromTexts = loader.loadTexts(documents.model, documents.hardware, documents.run);
    QVERIFY(fromTexts.run == fromPreset.run);

    // Reading the saved file gives back exactly the texts that were written.
    const config::WorkspaceDocuments reread = config::readWorkspaceDocuments(path, library);
    QCOMPARE(QString::fromStdString(reread.model.text), QString::fromStdString(documents.model.text));
    QCOMPARE(QString::fromStdString(reread.hardware.text), QString::fromStdString(documents.hardware.text));
    QCOMPARE(QString::fromStdString(reread.run.text), QString::fromStdString(documents.run.text));
    QCOMPARE(config::composeWorkspace(reread), config::composeWorkspace(documents));
}

void TstWorkspaceFile::keepsCommentsOfInlineDocuments()
{
    QTemporaryDir dir;
    const std::string path = test::writeFile(dir, "w.rapid.yaml",
        "name: inline\n"
        "model: llama-2-7b\n"
        "hardware: hgx-a100-8gpu\n"
        "# how we split it\n"
        "run:\n"
        "  mode: inference  # serve\n"
        "  inference: {batch: 1, prompt_length: 200, decode_length: 200}\n"
        "  parallelism: {tp: 8}\n"
        "overrides:\n"
        "  - run.inference.batch=4\n");
    const config::WorkspaceDocuments documents = config::readWorkspaceDocuments(path, test::projectPresets());
    QCOMPARE(QString::fromStdString(documents.run.text),
        QStringLiteral("# how we split it\nrun:\n  mode: inference  # serve\n"
                       "  inference: {batch: 1, prompt_length: 200, decode_length: 200}\n"
                       "  parallelism: {tp: 8}\n"));
    QCOMPARE(documents.overrides, std::vector<std::string> { "run.inference.batch=4" });
    QCOMPARE(test::projectLoader().loadWorkspace(path).run.batch, 4);
}

QTEST_GUILESS_MAIN(TstWorkspaceFile)
#include "tst_workspacefile.moc"
