// SPDX-License-Identifier: GPL-3.0-or-later
// Cost of `rapid run --chakra-out` at scale (issue 19): GPT-3 175B training on 1,024 A100 (tp 8 x pp 8 x dp 16, 96
// micro-batches, full recomputation) exported at layer detail, every collective of the step on the network: wall
// time, nodes, bytes of files and peak resident memory; then the set read back and inspected as `rapid chakra inspect`
// does it (file by file on every core), with no error expected.
#include "config/diagnostic.h"
#include "graph/chakrainspect.h"
#include "graph/chakrareader.h"
#include "sim/stepchakraexport.h"
#include "testutils.h"

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTest>

#include <filesystem>

#include <sys/resource.h>

using namespace rapid;

namespace {

double peakResidentMegabytes()
{
    rusage usage {};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

} // namespace

class BenchChakraExport : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void gpt3On1024A100AtLayerDetail()
    {
        const config::Scenario scenario = test::projectLoader().loadScenario(
            "gpt-3-175b", "dgx-a100", "gpt-3-175b-train-1024", { "hardware.cluster.network[ib].size=128" });
        sim::StepModel model(scenario);
        QTemporaryDir dir;
        QElapsedTimer timer;
        timer.start();
        const sim::ChakraExportSummary summary
            = sim::writeStepChakraTraces(dir.path().toStdString(), model, sim::ChakraDetail::Layer);
        const double exportSeconds = static_cast<double>(timer.nsecsElapsed()) * 1e-9;
        std::uintmax_t bytes = 0;
        for (const auto& entry : std::filesystem::directory_iterator(dir.path().toStdString())) {
            bytes += entry.file_size();
        }
        qInfo("export: %d files, %zu nodes, %.0f MiB of files in %.2f s, peak RSS %.0f MB", summary.files,
            summary.nodes, static_cast<double>(bytes) / (1 << 20), exportSeconds, peakResidentMegabytes());
        QCOMPARE(summary.files, 1024);

        // Read back as `rapid chakra inspect` does: file by file on every core, only the cross-rank state kept.
        timer.restart();
        const graph::ChakraInspection inspection
            = graph::inspectChakraFiles(graph::listChakraSet(dir.path().toStdString()));
        std::size_t nodes = 0;
        for (const graph::ChakraRankReport& rank : inspection.ranks) {
            nodes += rank.nodeCount;
        }
        qInfo("read back and inspected: %zu traces, %zu nodes, %zu errors in %.2f s, peak RSS %.0f MB",
            inspection.ranks.size(), nodes, inspection.count(graph::ChakraSeverity::Error),
            static_cast<double>(timer.nsecsElapsed()) * 1e-9, peakResidentMegabytes());
        QCOMPARE(nodes, summary.nodes);
        QCOMPARE(inspection.count(graph::ChakraSeverity::Error), std::size_t { 0 });
    }
};

QTEST_GUILESS_MAIN(BenchChakraExport)
#include "bench_chakraexport.moc"
