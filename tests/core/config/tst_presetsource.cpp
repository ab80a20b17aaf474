// SPDX-License-Identifier: GPL-3.0-or-later
// Where a preset value comes from, read from the preset's own comments: the block above a key, a comment after its
// value, the header paragraph named after the key, the header's "Source:" paragraph. Checked on a text written here
// and on the shipped H100 preset (whose comments are quoted below as they stand in configs/gpus/h100-sxm5-80gb.yaml).
#include "config/presetsource.h"

#include <QTest>

#include <fstream>
#include <sstream>

using rapid::config::presetValueSource;

namespace {

const std::string kText = R"(# SPDX-License-Identifier: GPL-3.0-or-later
# Source: a datasheet, table 2.
# clock_GHz: the boost clock of the datasheet,
#   rounded down.
gpu:
  name: X
  clock_GHz: 1.5
  # sustained: measured under load by a
  #   microbenchmark.
  sustained_GHz: 1.2
  sm_count: 100  # whitepaper, page 3
  hbm:

    bandwidth_GBps: 3000
)";

std::string readFile(const std::string& path)
{
    std::ifstream in(path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

} // namespace

class TstPresetSource : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void commentAboveTheKeyJoinsItsLines()
    {
        QCOMPARE(presetValueSource(kText, "gpu.sustained_GHz", true),
            std::string("sustained: measured under load by a microbenchmark."));
    }
    void commentAfterTheValue()
    {
        QCOMPARE(presetValueSource(kText, "gpu.sm_count", true), std::string("whitepaper, page 3"));
    }
    void headerParagraphNamedAfterTheKey()
    {
        QCOMPARE(presetValueSource(kText, "gpu.clock_GHz", true),
            std::string("clock_GHz: the boost clock of the datasheet, rounded down."));
    }
    void headerSourceOnlyWhenAsked()
    {
        // A blank line separates bandwidth_GBps from any comment: it has none of its own.
        QCOMPARE(
            presetValueSource(kText, "gpu.hbm.bandwidth_GBps", true), std::string("Source: a datasheet, table 2."));
        QCOMPARE(presetValueSource(kText, "gpu.hbm.bandwidth_GBps", false), std::string());
        // The key right under the header does not take the header as its own comment.
        QCOMPARE(presetValueSource(kText, "gpu.name", false), std::string());
    }
    void missingKeysAndBrokenTextSayNothing()
    {
        QCOMPARE(presetValueSource(kText, "gpu.nosuch", true), std::string());
        QCOMPARE(presetValueSource("gpu: [unclosed", "gpu.name", true), std::string());
    }
    void shippedH100PresetNamesItsSources()
    {
        const std::string text = readFile(std::string(RAPID_SOURCE_CONFIG_DIR) + "/gpus/h100-sxm5-80gb.yaml");
        QVERIFY(!text.empty());
        const std::string sustained = presetValueSource(text, "gpu.sustained_clock_GHz", true);
        QVERIFY2(sustained.find("MAMF table") != std::string::npos, sustained.c_str());
        const std::string clock = presetValueSource(text, "gpu.clock_GHz", true);
        QVERIFY2(clock.rfind("clock_GHz: the dense tensor peaks correspond to 1.83 GHz", 0) == 0, clock.c_str());
        const std::string sms = presetValueSource(text, "gpu.sm_count", true);
        QVERIFY2(sms.rfind("Source: \"NVIDIA H100 Tensor Core GPU Architecture\" whitepaper", 0) == 0, sms.c_str());
    }
};

QTEST_APPLESS_MAIN(TstPresetSource)
#include "tst_presetsource.moc"
