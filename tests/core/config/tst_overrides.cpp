// SPDX-License-Identifier: GPL-3.0-or-later
// --set KEY=VALUE overrides: scalars, list items by index and by name, expanded GPU presets, and errors that point
// at the override itself.
#include "testutils.h"

#include <QTest>

using namespace rapid;

class TstOverrides : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void overridesScalarsAndListItems();
    void overridesKeysOfAReferencedGpu();
    void aGpuPresetByNameReplacesTheGpu();
    void badOverridesNameTheOverride_data();
    void badOverridesNameTheOverride();
    void anErrorNamesTheLastOverrideOfItsKey();
};

void TstOverrides::overridesScalarsAndListItems()
{
    const config::ConfigLoader loader = test::projectLoader();
    // 64 GPUs: tp 8 x pp 4 x dp 2. Halving tp and doubling dp keeps the GPU count.
    const config::Scenario scenario = loader.loadWorkspace("llama-3.1-70b-64xh100",
        { "run.parallelism.tp=4", "run.parallelism.dp=4", "hardware.cluster.network[1].latency_ns=1000",
            "hardware.cluster.network[nvlink].link_bandwidth=\"0.9 TB/s\"" });
    QCOMPARE(scenario.run.parallelism.tp, 4);
    QCOMPARE(scenario.run.parallelism.dp, 4);
    QCOMPARE(scenario.hardware.cluster.dimensions[1].latencySeconds, 1e-6);
    QCOMPARE(scenario.hardware.cluster.dimensions[0].linkBandwidth, 9e11);
}

void TstOverrides::overridesKeysOfAReferencedGpu()
{
    // The preset says gpu: H100-SXM5-80GB; the override reaches into the expanded preset.
    const config::HardwareSpec hardware
        = test::projectLoader().loadHardware("dgx-h100-superpod", { "hardware.gpu.hbm.bandwidth_GBps=1500" });
    QCOMPARE(hardware.gpu.hbmBandwidth, 1.5e12);
    QCOMPARE(hardware.gpu.smCount, 132); // untouched keys keep the preset's values
}

void TstOverrides::aGpuPresetByNameReplacesTheGpu()
{
    // hardware.gpu=<preset> swaps the whole GPU, as `gpu: <preset>` in the hardware document does (H200: 141 GiB of
    // HBM3e at 4.8 TB/s, the H100's 132 SMs), and a later key overrides the swapped preset; a name that is no preset
    // is an error at the override.
    const config::HardwareSpec hardware = test::projectLoader().loadHardware(
        "hgx-h100-8gpu", { "hardware.gpu=h200-sxm-141gb", "hardware.gpu.hbm.bandwidth_GBps=4000" });
    QCOMPARE(QString::fromStdString(hardware.gpu.name), QStringLiteral("H200-SXM-141GB"));
    QCOMPARE(hardware.gpu.hbmCapacityBytes, 141.0 * 1024 * 1024 * 1024);
    QCOMPARE(hardware.gpu.hbmBandwidth, 4e12);
    QCOMPARE(hardware.gpu.smCount, 132);
    const auto diagnostics = test::expectConfigError(
        [] { test::projectLoader().loadHardware("hgx-h100-8gpu", { "hardware.gpu=no-such-gpu" }); });
    QVERIFY(!diagnostics.empty());
    QCOMPARE(diagnostics[0].keyPath, std::string("hardware.gpu"));
    QCOMPARE(QString::fromStdString(diagnostics[0].location.source), QStringLiteral("--set hardware.gpu=no-such-gpu"));
}

void TstOverrides::badOverridesNameTheOverride_data()
{
    QTest::addColumn<QString>("assignment");
    QTest::addColumn<QString>("expectedKey");
    QTest::addColumn<QString>("expectedText");
    QTest::addRow("unknown_key") << "run.parallelism.tpp=4"
                                 << "run.parallelism.tpp"
                                 << "\"tp\"?";
    QTest::addRow("wrong_type") << "run.parallelism.tp=four"
                                << "run.parallelism.tp"
                                << "expected a whole number";
    QTest::addRow("no_equals_sign") << "run.parallelism.tp"
                                    << ""
                                    << "expected KEY=VALUE";
    // Not the key's default: an optional key would otherwise fall back to it without a word.
    QTest::addRow("empty_value") << "run.parallelism.tp="
                                 << "run.parallelism.tp"
                                 << "no value after '='";
    QTest::addRow("blank_value") << "run.precision.kv_cache= "
                                 << "run.precision.kv_cache"
                                 << "no value after '='";
    QTest::addRow("unknown_document") << "cluster.size=4"
                                      << "cluster.size"
                                      << "unknown document";
    QTest::addRow("list_item_missing") << "hardware.cluster.network[7].size=4"
                                       << "hardware.cluster.network[7].size"
                                       << "has no item [7]";
    QTest::addRow("through_a_scalar") << "run.mode.kind=x"
                                      << "run.mode.kind"
                                      << "not a mapping";
}

void TstOverrides::badOverridesNameTheOverride()
{
    QFETCH(QString, assignment);
    QFETCH(QString, expectedKey);
    QFETCH(QString, expectedText);
    const config::ConfigLoader loader = test::projectLoader();
    const auto diagnostics
        = test::expectConfigError([&] { loader.loadWorkspace("llama-3.1-70b-64xh100", { assignment.toStdString() }); });
    QVERIFY(!diagnostics.empty());
    const config::Diagnostic& first = diagnostics.front();
    QCOMPARE(QString::fromStdString(first.location.source), QStringLiteral("--set ") + assignment);
    QCOMPARE(first.location.line, 1);
    QCOMPARE(QString::fromStdString(first.keyPath), expectedKey);
    QVERIFY2(QString::fromStdString(first.message).contains(expectedText), first.message.c_str());
}

void TstOverrides::anErrorNamesTheLastOverrideOfItsKey()
{
    // Later overrides replace earlier ones, so the value in error came from the last override that wrote the key or a
    // mapping above it: a bad tp given after a good one, a bad GPU key after the GPU preset it reaches into.
    const std::vector<std::vector<std::string>> cases = {
        { "run.parallelism.tp=2", "run.parallelism.tp=four" },
        { "hardware.gpu=h100-sxm5-80gb", "hardware.gpu.hbm.bandwidth_GBps=fast" },
    };
    for (const std::vector<std::string>& overrides : cases) {
        const auto diagnostics
            = test::expectConfigError([&] { test::projectLoader().loadWorkspace("llama-3.1-70b-64xh100", overrides); });
        QVERIFY(!diagnostics.empty());
        QCOMPARE(diagnostics.front().location.source, "--set " + overrides.back());
    }
}

QTEST_GUILESS_MAIN(TstOverrides)
#include "tst_overrides.moc"
