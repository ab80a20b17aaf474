// SPDX-License-Identifier: GPL-3.0-or-later
// sim::writeStepChakraTraces (rapid run --chakra-out and the workbench's export): one file per rank of the job with
// progress per file; a stop flag raised midway removes every file the export wrote; an unwritable place is an
// exception, not a crash.
#include "graph/chakracommgroups.h"
#include "graph/chakrareader.h"
#include "sim/flowsimulator.h"
#include "sim/stepchakraexport.h"
#include "sim/tracereplay.h"
#include "testutils.h"

#include <QTemporaryDir>
#include <QTest>

#include <filesystem>

using namespace rapid;

class TstStepChakraExport : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void oneFilePerRankWithProgress();
    void stopRemovesWhatWasWritten();
    void unwritablePlaceThrows();
    void zeroGathersCarryTheShardAndReplayToTheStep();
};

namespace {

// Llama-2-7B on 8 A100: tp 2 x pp 2 x dp 2 = 8 ranks, two data-parallel groups per stage.
config::Scenario scenario()
{
    return test::projectLoader().loadScenario("llama-2-7b", "hgx-a100-8gpu", "llama-2-7b-train-4xa100",
        { "run.parallelism.tp=2", "run.parallelism.pp=2", "run.parallelism.dp=2", "run.training.global_batch=4",
            "run.training.seq_length=1024" });
}

int traceFiles(const std::filesystem::path& directory)
{
    int count = 0;
    for (const auto& entry : std::filesystem::directory_iterator(directory)) {
        count += entry.path().extension() == ".et" ? 1 : 0;
    }
    return count;
}

} // namespace

void TstStepChakraExport::oneFilePerRankWithProgress()
{
    QTemporaryDir dir;
    sim::StepModel model(scenario());
    std::vector<double> reports;
    const sim::ChakraExportSummary summary = sim::writeStepChakraTraces(dir.path().toStdString(), model,
        sim::ChakraDetail::Chunk, nullptr, [&](double fraction) { reports.push_back(fraction); });
    QCOMPARE(summary.files, 8);
    QCOMPARE(traceFiles(dir.path().toStdString()), 8);
    // One report per file, the last one complete.
    QCOMPARE(reports.size(), size_t(8));
    QCOMPARE(reports.front(), 1.0 / 8);
    QCOMPARE(reports.back(), 1.0);
    // dp 2 on 8 ranks: 4 data-parallel communicators (one per tp x pp position).
    QCOMPARE(summary.groups, size_t(4));
    QVERIFY(std::filesystem::exists(std::filesystem::path(dir.path().toStdString()) / "comm_groups.json"));
    size_t nodes = 0;
    for (const graph::ChakraTrace& trace : graph::readChakraDirectory(dir.path().toStdString())) {
        nodes += trace.nodes.size();
    }
    QCOMPARE(nodes, summary.nodes);
}

void TstStepChakraExport::stopRemovesWhatWasWritten()
{
    QTemporaryDir dir;
    sim::StepModel model(scenario());
    std::atomic<bool> stop { false };
    int written = 0;
    QVERIFY_THROWS_EXCEPTION(sim::SimulationCancelled,
        sim::writeStepChakraTraces(dir.path().toStdString(), model, sim::ChakraDetail::Layer, &stop, [&](double) {
            if (++written == 3) {
                stop = true;
            }
        }));
    QCOMPARE(written, 3);
    QCOMPARE(traceFiles(dir.path().toStdString()), 0);
}

void TstStepChakraExport::zeroGathersCarryTheShardAndReplayToTheStep()
{
    // Llama-2-7B, dp 8 with Megatron's ZeRO-1: after the step each rank all-gathers the updated bf16 parameters, of
    // which it holds 1/8. Chakra's all-gather comm_size is that per-rank shard (ASTRA-sim reads it so); it used to
    // carry the gathered bytes, and replaying the traces took 8x the gather time.
    const config::Scenario zero1 = test::llama7bOn8({ "run.parallelism.dp=8", "run.parallelism.zero_stage=1",
        "run.framework=megatron", "run.training.global_batch=8" });
    sim::StepModel model(zero1);
    const double step = model.training(false).stepTimeSeconds;
    QTemporaryDir dir;
    sim::writeStepChakraTraces(dir.path().toStdString(), model, sim::ChakraDetail::Chunk);
    const auto traces = graph::readChakraDirectory(dir.path().toStdString());
    const double parameters = model.plan().sharding.stageShares[0].parameters;
    std::int64_t gathered = 0;
    for (const graph::ChakraNode& node : traces[0].nodes) {
        const auto type = node.integerAttribute("comm_type");
        if (node.type == graph::ChakraNodeType::Collective && type
            && *type == static_cast<std::int64_t>(graph::ChakraCollective::AllGather)) {
            gathered += node.integerAttribute("comm_size").value_or(0);
        }
    }
    QVERIFY2(std::abs(static_cast<double>(gathered) - parameters * 2 / 8) <= 1e-6 * parameters,
        qPrintable(QStringLiteral("%1 B gathered per rank, expected %2").arg(gathered).arg(parameters * 2 / 8)));
    const sim::ReplayResult replay = sim::replayChakra(traces,
        graph::readChakraCommGroups(std::filesystem::path(dir.path().toStdString()) / "comm_groups.json"),
        zero1.hardware, sim::NetworkBackend::Analytical);
    QVERIFY2(std::abs(replay.makespan - step) <= 0.01 * step,
        qPrintable(QStringLiteral("replay %1 s, step %2 s").arg(replay.makespan).arg(step)));
}

void TstStepChakraExport::unwritablePlaceThrows()
{
    QTemporaryDir dir;
    const std::string file = test::writeFile(dir, "not-a-directory", "x");
    sim::StepModel model(scenario());
    QVERIFY_THROWS_EXCEPTION(std::exception, sim::writeStepChakraTraces(file, model, sim::ChakraDetail::Chunk));
}

QTEST_GUILESS_MAIN(TstStepChakraExport)
#include "tst_stepchakraexport.moc"
