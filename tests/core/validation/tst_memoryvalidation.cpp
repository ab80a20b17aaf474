// SPDX-License-Identifier: GPL-3.0-or-later
// The memory model against 4,104 real nanotron training runs on H100 (../shared/validation/memory): fit/OOM
// verdicts at least 97% right, and the logged peak allocated memory within 10% on completed runs (issue bars).
#include "memory/memorymodel.h"
#include "model/modelstats.h"
#include "testutils.h"
#include "validation/memorydataset.h"
#include "validation/performancedatasets.h"
#include "validationfigure.h"

#include <QFileInfo>
#include <QTest>

#include <map>

using namespace rapid;

class TstMemoryValidation : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void benchmarkShapesMatchTheirNames();
    void meetsTheIssueBars();
    void throughputCasesFollowTheDocumentedRules();
    void reservedErrorIsStageZerosReservedPeakAgainstMemRes();
};

void TstMemoryValidation::benchmarkShapesMatchTheirNames()
{
    const std::string path = std::string(RAPID_SHARED_DIR) + "/validation/memory/hf_nanotron_h100_bench.csv";
    if (!QFileInfo::exists(QString::fromStdString(path))) {
        QSKIP("shared validation data not present");
    }
    std::vector<std::string> skipped;
    const auto runs = validation::readNanotronBenchmark(path, &skipped);
    QCOMPARE(int(runs.size()), 4104);
    QVERIFY(skipped.empty());
    // The shapes assumed for each size reproduce the size in the run name (3 significant digits).
    for (const auto& run : runs) {
        const double billions = static_cast<double>(model::countParameters(run.model).total()) / 1e9;
        const std::string size = run.name.substr(0, run.name.find('G'));
        if (run.model.numKvHeads == run.model.numHeads && run.model.vocabSize == 131072) {
            QVERIFY2(std::abs(billions / std::stod(size) - 1) < 0.005, run.name.c_str());
        }
    }
}

void TstMemoryValidation::meetsTheIssueBars()
{
    const std::string path = std::string(RAPID_SHARED_DIR) + "/validation/memory/hf_nanotron_h100_bench.csv";
    if (!QFileInfo::exists(QString::fromStdString(path))) {
        QSKIP("shared validation data not present");
    }
    const auto runs = validation::readNanotronBenchmark(path, nullptr);
    const config::HardwareSpec hardware = test::projectLoader().loadHardware("h100-sxm5-80gb");
    const validation::MemoryValidationSummary summary = validation::validateMemory(runs, hardware.gpu);
    qInfo("accuracy %.2f%% over %d known outcomes, false fits %.2f%%, allocated MAPE %.2f%% over %d runs",
        100 * summary.accuracy(), summary.known(), 100 * summary.falseFitRate(), summary.meanAbsolutePercentageError,
        summary.errorRuns);
    QCOMPARE(summary.known(), 3682); // 1,765 Success + 1,917 OOM; 422 "Other" have no known outcome
    test::checkValidationFigure(
        { QStringLiteral("fit/OOM accuracy %"), 100 * summary.accuracy(), 97.0, std::nullopt, true });
    test::checkValidationFigure(
        { QStringLiteral("peak allocated MAPE %"), summary.meanAbsolutePercentageError, 10.0, std::nullopt, false });
    // No bar was set for false "fits" (runs predicted to fit that ran out of memory), the figure users pay for most:
    // held at today's figure plus half a point. 0.87% until 2026-12-05 under a fragmentation factor fitted on this
    // benchmark; 2.24% with GMLake's published ratio in its place (docs/calibration.md).
    test::checkValidationFigure({ QStringLiteral("false fits %"), 100 * summary.falseFitRate(), 0.0, 2.75, false });
}

void TstMemoryValidation::reservedErrorIsStageZerosReservedPeakAgainstMemRes()
{
    // Two completed runs whose Mem Res is set to twice and to two thirds of what the model reserves on stage 0:
    // errors of -50% and +50%, so a mean absolute error of 50% and a median (of the two) of 0%. A run that ran out
    // of memory and one with no Mem Res take no part.
    const std::string path = std::string(RAPID_SHARED_DIR) + "/validation/memory/hf_nanotron_h100_bench.csv";
    if (!QFileInfo::exists(QString::fromStdString(path))) {
        QSKIP("shared validation data not present");
    }
    const config::HardwareSpec hardware = test::projectLoader().loadHardware("h100-sxm5-80gb");
    std::vector<validation::MemoryBenchmarkRun> runs;
    for (const validation::MemoryBenchmarkRun& run : validation::readNanotronBenchmark(path, nullptr)) {
        if (run.measuredFits == std::optional<bool>(true) && runs.size() < 3) {
            runs.push_back(run);
        }
    }
    QCOMPARE(int(runs.size()), 3);
    const double reserved0
        = validation::measuredReservedQuantity(memory::estimateMemory(runs[0].model, hardware.gpu, runs[0].run));
    const double reserved1
        = validation::measuredReservedQuantity(memory::estimateMemory(runs[1].model, hardware.gpu, runs[1].run));
    QVERIFY(reserved0 > 0 && reserved1 > 0);
    runs[0].measuredReservedBytes = 2 * reserved0;
    runs[1].measuredReservedBytes = reserved1 / 1.5;
    runs[2].measuredReservedBytes.reset();
    validation::MemoryBenchmarkRun failed = runs[0];
    failed.measuredFits = false;
    runs.push_back(failed);
    const validation::MemoryValidationSummary summary = validation::validateMemory(runs, hardware.gpu);
    QCOMPARE(summary.reservedErrorRuns, 2);
    QVERIFY(std::abs(summary.reservedMeanAbsolutePercentageError - 50) < 1e-9);
    QVERIFY(std::abs(summary.reservedMedianSignedError) < 1e-9);
}

void TstMemoryValidation::throughputCasesFollowTheDocumentedRules()
{
    const std::string shared = RAPID_SHARED_DIR;
    const std::string path = shared + "/validation/memory/hf_nanotron_h100_bench.csv";
    if (!QFileInfo::exists(QString::fromStdString(path))) {
        QSKIP("shared validation data not present");
    }
    // The throughput dataset takes a completed run only when it was measured after the pipeline fix, on one node, on
    // a healthy node and under a job id of its own. Counted here from the file independently of the dataset's code.
    const auto runs = validation::readNanotronBenchmark(path, nullptr);
    std::map<std::string, int> rowsPerJob;
    for (const auto& run : runs) {
        if (run.measuredTokensPerSecondPerGpu) {
            ++rowsPerJob[run.jobId];
        }
    }
    int expected = 0;
    for (const auto& run : runs) {
        expected += run.measuredTokensPerSecondPerGpu && run.afterPipelineFix && run.nodes == 1
            && rowsPerJob[run.jobId] == 1 && run.measuredAllReduceGBps.value_or(0) > 200;
    }
    const validation::Dataset dataset = validation::readPerformanceDataset("nanotron", shared);
    QCOMPARE(int(dataset.cases.size()), expected);
    for (const auto& c : dataset.cases) {
        QVERIFY2(c.label.find("_dp") != std::string::npos && c.measured > 0, c.label.c_str());
    }
    // Job 14098548 is listed twice (37,097 and 485 tokens/s): reported once as ambiguous. Job 14098567 measured a 45
    // GB/s all-reduce on its node where the others measured 420-460: a degraded node.
    int ambiguous = 0;
    int degraded = 0;
    for (const auto& skipped : dataset.skipped) {
        ambiguous += skipped.label.find("job 14098548") != std::string::npos;
        degraded += skipped.label.find("job 14098567") != std::string::npos
            && skipped.reason.find("degraded node") != std::string::npos;
    }
    QCOMPARE(ambiguous, 1);
    QCOMPARE(degraded, 1);
}

QTEST_GUILESS_MAIN(TstMemoryValidation)
#include "tst_memoryvalidation.moc"
