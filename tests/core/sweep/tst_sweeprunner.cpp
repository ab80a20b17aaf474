// SPDX-License-Identifier: GPL-3.0-or-later
// Sweeps: every evaluated point equals `rapid run` on the same overrides (no second model), rejected points carry the
// loader's own first diagnostic, points that do not fit are pruned, one and two threads give the same rows,
// cancellation leaves untouched points NotRun, and the Pareto front of hand-made rows.
#include "config/workspacefile.h"
#include "memory/memorymodel.h"
#include "sim/stepmodel.h"
#include "sweep/sweeprunner.h"
#include "testutils.h"

#include <QTest>

using namespace rapid;

class TstSweepRunner : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void pointsEqualSingleRuns();
    void threadsGiveTheSameRows();
    void cancellationLeavesPointsNotRun();
    void paretoFrontOfHandMadeRows();
};

namespace {

const char* kWorkspace = "llama-3.1-70b-64xh100";
// The workspace pins dp and pp to InfiniBand; a small global batch keeps the graphs small.
const std::vector<std::string> kBase = { "run.parallelism.mapping={}", "run.training.global_batch=32" };

sweep::SweepSpace space()
{
    // 64 GPUs, tp <= 8 over tp, pp, dp, and two recompute modes: some points fit, some do not, some are invalid
    // (pp beyond the layers with the workspace's virtual stages).
    return sweep::SweepSpace({ sweep::parallelSplits(64, { "tp", "pp", "dp" }, 8),
        sweep::parseSweepAxis("run.training.recompute=none,full") });
}

sweep::ScenarioFactory factory()
{
    return [](const std::vector<std::string>& overrides) {
        std::vector<std::string> all = kBase;
        all.insert(all.end(), overrides.begin(), overrides.end());
        return test::projectLoader().loadWorkspace(kWorkspace, all);
    };
}

} // namespace

void TstSweepRunner::pointsEqualSingleRuns()
{
    const sweep::SweepSpace points = space();
    sweep::SweepOptions options;
    options.threads = 2;
    const sweep::SweepResult result = sweep::runSweep(points, factory(), options);
    QCOMPARE(result.rows.size(), size_t(points.size()));
    QVERIFY(!result.cancelled);
    QVERIFY(result.count(sweep::PointStatus::Ok) > 0);
    QVERIFY(result.count(sweep::PointStatus::DoesNotFit) > 0);
    QVERIFY(result.count(sweep::PointStatus::Invalid) > 0);
    QCOMPARE(result.count(sweep::PointStatus::Failed), std::int64_t(0));
    const config::ConfigLoader loader = test::projectLoader();
    for (const sweep::SweepRow& row : result.rows) {
        QCOMPARE(row.coordinates, points.coordinates(row.index));
        std::vector<std::string> all = kBase;
        for (const std::string& assignment : points.overrides(row.index)) {
            all.push_back(assignment);
        }
        config::Scenario scenario;
        try {
            scenario = loader.loadWorkspace(kWorkspace, all);
        } catch (const config::ConfigError& error) {
            QCOMPARE(row.status, sweep::PointStatus::Invalid);
            QCOMPARE(row.message, error.diagnostics().front().toString());
            continue;
        }
        const memory::MemoryEstimate memory
            = memory::estimateMemory(scenario.model, scenario.hardware.gpu, scenario.run);
        QCOMPARE(row.peakMemoryBytes, memory.peakBytes);
        if (!memory.fits) {
            QCOMPARE(row.status, sweep::PointStatus::DoesNotFit);
            QVERIFY(row.peakMemoryBytes > row.capacityBytes);
            QCOMPARE(row.stepTimeSeconds, 0.0); // pruned: the step model did not run
            continue;
        }
        QCOMPARE(row.status, sweep::PointStatus::Ok);
        const report::TrainingResult single = sim::StepModel(scenario).training(false);
        QCOMPARE(row.stepTimeSeconds, single.stepTimeSeconds);
        QCOMPARE(row.tokensPerSecond, single.tokensPerSecond);
        QCOMPARE(row.mfu, single.mfu);
        QCOMPARE(row.gpus, 64);
        QCOMPARE(row.tokensPerSecondPerGpu, single.tokensPerSecond / 64);
    }
}

void TstSweepRunner::threadsGiveTheSameRows()
{
    sweep::SweepOptions one;
    one.threads = 1;
    sweep::SweepOptions two;
    two.threads = 2;
    const sweep::SweepResult a = sweep::runSweep(space(), factory(), one);
    const sweep::SweepResult b = sweep::runSweep(space(), factory(), two);
    QCOMPARE(a.rows.size(), b.rows.size());
    for (size_t i = 0; i < a.rows.size(); ++i) {
        QCOMPARE(a.rows[i].status, b.rows[i].status);
        QCOMPARE(a.rows[i].stepTimeSeconds, b.rows[i].stepTimeSeconds);
        QCOMPARE(a.rows[i].peakMemoryBytes, b.rows[i].peakMemoryBytes);
        QCOMPARE(a.rows[i].pareto, b.rows[i].pareto);
        QCOMPARE(a.rows[i].message, b.rows[i].message);
    }
}

void TstSweepRunner::cancellationLeavesPointsNotRun()
{
    std::atomic<bool> stop { false };
    std::int64_t reports = 0;
    sweep::SweepOptions options;
    options.threads = 2;
    options.stop = &stop;
    options.progress = [&](std::int64_t done, std::int64_t total) {
        ++reports;
        QVERIFY(done <= total);
        if (done >= 3) {
            stop = true;
        }
    };
    const sweep::SweepResult result = sweep::runSweep(space(), factory(), options);
    QVERIFY(result.cancelled);
    QVERIFY(reports >= 3);
    const std::int64_t notRun = result.count(sweep::PointStatus::NotRun);
    // At most one point per thread was in flight when the flag was raised.
    QVERIFY2(notRun >= static_cast<std::int64_t>(result.rows.size()) - 5, qPrintable(QString::number(notRun)));
    for (const sweep::SweepRow& row : result.rows) {
        if (row.status == sweep::PointStatus::NotRun) {
            QCOMPARE(row.stepTimeSeconds, 0.0);
            QCOMPARE(row.peakMemoryBytes, 0.0);
            QVERIFY(!row.pareto);
        }
    }
}

void TstSweepRunner::paretoFrontOfHandMadeRows()
{
    // Training: throughput per GPU up, memory down. (tok/s/GPU, GiB): A (100, 50), B (90, 40), C (90, 45), D (80, 60),
    // E (70, 30), F (100, 55), G (120, 70) not evaluated. Front: A (best throughput, lower memory than F), B (beats C
    // on memory), E (least memory); C loses to B, D to A, F to A.
    auto row = [](double throughput, double memory, sweep::PointStatus status = sweep::PointStatus::Ok) {
        sweep::SweepRow r;
        r.status = status;
        r.tokensPerSecondPerGpu = throughput;
        r.peakMemoryBytes = memory;
        return r;
    };
    std::vector<sweep::SweepRow> rows = { row(100, 50), row(90, 40), row(90, 45), row(80, 60), row(70, 30),
        row(100, 55), row(120, 70, sweep::PointStatus::DoesNotFit) };
    sweep::markParetoFront(rows);
    std::vector<bool> front;
    for (const sweep::SweepRow& r : rows) {
        front.push_back(r.pareto);
    }
    QCOMPARE(front, (std::vector<bool> { true, true, false, false, true, false, false }));
    // Inference: the cost is end-to-end latency, not memory.
    std::vector<sweep::SweepRow> serving = { row(10, 99), row(5, 1) };
    serving[0].inference = serving[1].inference = true;
    serving[0].e2eSeconds = 2;
    serving[1].e2eSeconds = 3;
    sweep::markParetoFront(serving);
    QVERIFY(serving[0].pareto);
    QVERIFY(!serving[1].pareto); // slower and lower throughput, whatever its memory
}

QTEST_GUILESS_MAIN(TstSweepRunner)
#include "tst_sweeprunner.moc"
