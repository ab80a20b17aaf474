// SPDX-License-Identifier: GPL-3.0-or-later
// The words that name what a pinned run changes against the baseline, each derived by hand from the override
// applied to the default workspace's scenario (tp 8, pp 4, dp 2 on 64 H100; seq 8192, micro-batch 1, no recompute).
#include "analysis/scenariodiff.h"
#include "testutils.h"

#include <QTest>

using namespace rapid;

namespace {

config::Scenario workspaceWith(const std::vector<std::string>& overrides)
{
    return test::projectLoader().loadWorkspace("llama-3.1-70b-64xh100", overrides);
}

QString labelOf(const std::vector<std::string>& overrides)
{
    return QString::fromStdString(analysis::differenceLabel(workspaceWith({}), workspaceWith(overrides)));
}

} // namespace

class TstScenarioDiff : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void namesWhatDiffers_data();
    void namesWhatDiffers();
    void sameScenarioSaysSo();
    void unnamedChangesAreNotHidden();
};

void TstScenarioDiff::namesWhatDiffers_data()
{
    QTest::addColumn<QStringList>("overrides");
    QTest::addColumn<QString>("label");
    const auto row = [](const char* name, std::initializer_list<const char*> overrides, const char* label) {
        QStringList list;
        for (const char* assignment : overrides) {
            list.append(QString::fromUtf8(assignment));
        }
        QTest::addRow("%s", name) << list << QString::fromUtf8(label);
    };
    row("tp and dp", { "run.parallelism.tp=4", "run.parallelism.dp=4" }, "tp4 dp4");
    row("pp and dp", { "run.parallelism.pp=8", "run.parallelism.dp=1" }, "pp8 dp1");
    row("sequence", { "run.training.seq_length=4096" }, "seq 4096");
    row("micro-batch", { "run.training.micro_batch=2" }, "mb 2");
    row("recompute", { "run.training.recompute=full" }, "recompute full");
    row("LoRA", { "run.training.lora_rank=16", "run.training.lora_targets=all_linear" }, "LoRA r16 +head");
    row("one degraded link", { "hardware.faults=[{link: \"nvlink@1:1-s1.0\", health: 0.5}]" }, "1 link fault");
    // The model or GPU edited under its own name: the changed shape, or that the GPU's specs were edited.
    row("layers", { "model.num_layers=96" }, "layers 96");
    row("hidden and heads", { "model.hidden_size=12288", "model.num_heads=96" }, "hidden 12288 heads 96");
    row("a GPU clock", { "hardware.gpu.clock_GHz=1.5" }, "GPU specs edited");
}

void TstScenarioDiff::namesWhatDiffers()
{
    QFETCH(QStringList, overrides);
    QFETCH(QString, label);
    std::vector<std::string> assignments;
    for (const QString& assignment : overrides) {
        assignments.push_back(assignment.toStdString());
    }
    QCOMPARE(labelOf(assignments), label);
}

void TstScenarioDiff::sameScenarioSaysSo()
{
    QCOMPARE(labelOf({}), QStringLiteral("same as the baseline"));
    QVERIFY(analysis::scenarioDifferences(workspaceWith({}), workspaceWith({})).empty());
}

void TstScenarioDiff::unnamedChangesAreNotHidden()
{
    // Dropout is not one of the named words; the runs still do not read as the same.
    QCOMPARE(labelOf({ "run.training.dropout=true" }), QStringLiteral("other changes"));
}

QTEST_APPLESS_MAIN(TstScenarioDiff)
#include "tst_scenariodiff.moc"
