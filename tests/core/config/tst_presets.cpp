// SPDX-License-Identifier: GPL-3.0-or-later
// Every preset in configs/ loads without error and names its source.
#include "testutils.h"

#include <QFile>
#include <QTest>

using namespace rapid;

class TstPresets : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void presetLoads_data();
    void presetLoads();
    void requiredPresetsExist_data();
    void requiredPresetsExist();
    void defaultWorkspaceIsLlama70bOn64H100();
};

void TstPresets::presetLoads_data()
{
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("name");
    const config::PresetLibrary library = test::projectPresets();
    for (config::PresetKind kind : { config::PresetKind::Model, config::PresetKind::Gpu, config::PresetKind::Hardware,
             config::PresetKind::Run, config::PresetKind::Workspace }) {
        for (const std::string& name : library.names(kind)) {
            QTest::addRow("%s/%s", config::folderOf(kind), name.c_str()) << int(kind) << QString::fromStdString(name);
        }
    }
}

void TstPresets::presetLoads()
{
    QFETCH(int, kind);
    QFETCH(QString, name);
    const config::ConfigLoader loader = test::projectLoader();
    const std::string preset = name.toStdString();
    try {
        switch (config::PresetKind(kind)) {
        case config::PresetKind::Model:
            QVERIFY(loader.loadModel(preset).numLayers > 0);
            break;
        case config::PresetKind::Gpu:
        case config::PresetKind::Hardware:
            QVERIFY(loader.loadHardware(preset).gpu.smCount > 0);
            break;
        case config::PresetKind::Run:
            QVERIFY(loader.loadRun(preset).parallelism.gpuCount() > 0);
            break;
        case config::PresetKind::Workspace:
            QVERIFY(loader.loadWorkspace(preset).hardware.cluster.totalGpus() > 0);
            break;
        }
    } catch (const config::ConfigError& error) {
        QFAIL(error.what());
    }
    // Presets name their source in a comment at the top.
    const auto path = loader.library().resolve(config::PresetKind(kind), preset);
    QVERIFY(path);
    QFile file(QString::fromStdString(*path));
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray text = file.readAll();
    QVERIFY2(text.startsWith("# SPDX-License-Identifier: GPL-3.0-or-later"), path->c_str());
    QVERIFY2(text.contains("# Source:"), path->c_str());
}

void TstPresets::requiredPresetsExist_data()
{
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("name");
    // The presets the foundation issue names, by real product or paper.
    for (const char* gpu :
        { "A100-SXM4-40GB", "A100-SXM4-80GB", "A100-PCIe-80GB", "H100-SXM5-80GB", "H200-SXM-141GB", "B200" }) {
        QTest::addRow("gpu_%s", gpu) << int(config::PresetKind::Gpu) << QString::fromLatin1(gpu);
    }
    for (const char* cluster : { "dgx-a100", "dgx-h100-superpod", "torus2d-4x4" }) {
        QTest::addRow("cluster_%s", cluster) << int(config::PresetKind::Hardware) << QString::fromLatin1(cluster);
    }
    for (const char* model :
        { "llama-2-7b", "llama-2-13b", "llama-2-70b", "llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b",
            "llama-3.3-70b", "gpt-3-175b", "megatron-gpt-22b", "megatron-gpt-175b", "megatron-gpt-310b",
            "megatron-gpt-530b", "megatron-gpt-1t", "opt-13b", "opt-30b", "opt-66b", "mixtral-8x7b", "deepseek-v3" }) {
        QTest::addRow("model_%s", model) << int(config::PresetKind::Model) << QString::fromLatin1(model);
    }
}

void TstPresets::requiredPresetsExist()
{
    QFETCH(int, kind);
    QFETCH(QString, name);
    QVERIFY2(
        test::projectPresets().resolve(config::PresetKind(kind), name.toStdString()).has_value(), qPrintable(name));
}

void TstPresets::defaultWorkspaceIsLlama70bOn64H100()
{
    const config::Scenario scenario = test::projectLoader().loadWorkspace("llama-3.1-70b-64xh100");
    QCOMPARE(QString::fromStdString(scenario.model.name), QStringLiteral("Llama-3.1-70B"));
    QCOMPARE(scenario.hardware.cluster.totalGpus(), 64);
    QCOMPARE(QString::fromStdString(scenario.hardware.gpu.name), QStringLiteral("H100-SXM5-80GB"));
    QCOMPARE(scenario.run.mode, config::RunMode::Training);
    // The Megatron GPT series of Narayanan et al. SC'21: layers, hidden, heads as published.
    const config::ModelSpec gpt1t = test::projectLoader().loadModel("megatron-gpt-1t");
    QCOMPARE(gpt1t.numLayers, 128);
    QCOMPARE(gpt1t.hiddenSize, std::int64_t(25600));
    QCOMPARE(gpt1t.numHeads, 160);
    QCOMPARE(gpt1t.vocabSize, std::int64_t(51200));
}

QTEST_GUILESS_MAIN(TstPresets)
#include "tst_presets.moc"
