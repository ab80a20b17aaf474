// SPDX-License-Identifier: GPL-3.0-or-later
// Splits adapted to the scenario (issue #18, defect 12): on the default workspace (Llama-3.1-70B, 80 layers, 64 GPUs,
// global batch 512, micro-batch 1, interleaved with 5 virtual stages, mapping {dp: ib, pp: ib}) every split of
// 64 GPUs over tp, pp and dp loads; unadapted, most are refused by the mapping.
#include "sweep/splitadaptation.h"
#include "testutils.h"

#include <QTest>

using namespace rapid;

namespace {

const sweep::AxisValue* find(const sweep::SweepAxis& axis, const std::string& prefix)
{
    for (const sweep::AxisValue& value : axis.values) {
        if (value.label.rfind(prefix, 0) == 0) {
            return &value;
        }
    }
    return nullptr;
}

} // namespace

class TstSplitAdaptation : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everySplitOfTheDefaultWorkspaceLoads()
    {
        const config::ConfigLoader loader = test::projectLoader();
        const config::Scenario base = loader.loadWorkspace("llama-3.1-70b-64xh100", {});
        sweep::SweepAxis splits = sweep::parallelSplits(64, { "tp", "pp", "dp" }, 8);
        // 64 = 2^6 over three ordered factors with tp <= 8: tp 1, 2, 4, 8 leave 7, 6, 5, 4 (pp, dp) pairs: 22.
        QCOMPARE(splits.values.size(), size_t { 22 });
        int refusedBefore = 0;
        for (const sweep::AxisValue& value : splits.values) {
            try {
                loader.loadWorkspace("llama-3.1-70b-64xh100", value.assignments);
            } catch (const config::ConfigError&) {
                ++refusedBefore;
            }
        }
        QVERIFY(refusedBefore > 0);
        sweep::adaptSplits(splits, base.model, base.run);
        for (const sweep::AxisValue& value : splits.values) {
            try {
                loader.loadWorkspace("llama-3.1-70b-64xh100", value.assignments);
            } catch (const config::ConfigError& error) {
                QFAIL(qPrintable(QString::fromStdString(value.label + ": " + error.what())));
            }
        }
    }

    void virtualStagesFollowPp()
    {
        // pp 16: 16 x 5 = 80 layers, and 512 / dp 4 = 128 micro-batches, a multiple of 16: v stays 5. pp 32: 32 x 5
        // > 80, 32 x 2 = 64 fits and 256 micro-batches divide by 32: v 2. pp 64: even 64 x 2 > 80: 1F1B.
        const config::Scenario base = test::projectLoader().loadWorkspace("llama-3.1-70b-64xh100", {});
        sweep::SweepAxis splits = sweep::parallelSplits(64, { "tp", "pp", "dp" }, 8);
        sweep::adaptSplits(splits, base.model, base.run);
        QVERIFY(find(splits, "tp1 pp16 dp4") && find(splits, "tp1 pp16 dp4")->label == "tp1 pp16 dp4");
        QVERIFY(find(splits, "tp1 pp32 dp2") && find(splits, "tp1 pp32 dp2")->label == "tp1 pp32 dp2 v2");
        QVERIFY(find(splits, "tp1 pp64 dp1") && find(splits, "tp1 pp64 dp1")->label == "tp1 pp64 dp1 1f1b");
        // The mapping written for tp 8 x pp 4 x dp 2 is dropped for every split.
        for (const sweep::AxisValue& value : splits.values) {
            QVERIFY(std::find(value.assignments.begin(), value.assignments.end(), "run.parallelism.mapping={}")
                != value.assignments.end());
        }
    }
};

QTEST_GUILESS_MAIN(TstSplitAdaptation)
#include "tst_splitadaptation.moc"
