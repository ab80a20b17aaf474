// SPDX-License-Identifier: GPL-3.0-or-later
// Sweep speed (core/sweep): loading one point's scenario with its overrides, and whole sweeps of the default
// workspace (Llama-3.1-70B on 64 H100) on one thread and on every hardware thread. Prints; asserts only that the
// sweeps evaluated what they should.
#include "config/workspacefile.h"
#include "sweep/sweeprunner.h"
#include "testutils.h"

#include <QElapsedTimer>
#include <QTest>

using namespace rapid;

class BenchSweep : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void loadingOnePoint();
    void wholeSweeps();
};

namespace {

sweep::SweepSpace bigSpace()
{
    // 22 splits of 64 GPUs (tp up to 8) x 4 micro-batches x 3 recompute modes x 4 sequence lengths x 3 global
    // batches x 2 ZeRO stages.
    return sweep::SweepSpace(
        { sweep::parallelSplits(64, { "tp", "pp", "dp" }, 8), sweep::parseSweepAxis("run.training.micro_batch=1..8:x2"),
            sweep::parseSweepAxis("run.training.recompute=none,selective,full"),
            sweep::parseSweepAxis("run.training.seq_length=1024..8192:x2"),
            sweep::parseSweepAxis("run.training.global_batch=256,512,1024"),
            sweep::parseSweepAxis("run.parallelism.zero_stage=0,1") });
}

} // namespace

void BenchSweep::loadingOnePoint()
{
    const config::ConfigLoader loader = test::projectLoader();
    const std::vector<std::string> overrides = { "run.parallelism.tp=4", "run.parallelism.dp=4" };
    const int repetitions = 200;
    QElapsedTimer timer;
    timer.start();
    for (int i = 0; i < repetitions; ++i) {
        loader.loadWorkspace("llama-3.1-70b-64xh100", overrides);
    }
    const double fromFile = static_cast<double>(timer.nsecsElapsed()) * 1e-9 / repetitions;
    const config::WorkspaceDocuments documents
        = config::readWorkspaceDocuments("llama-3.1-70b-64xh100", loader.library());
    timer.restart();
    for (int i = 0; i < repetitions; ++i) {
        loader.loadTexts(documents.model, documents.hardware, documents.run, overrides);
    }
    const double fromTexts = static_cast<double>(timer.nsecsElapsed()) * 1e-9 / repetitions;
    const config::ScenarioTemplate scenarioTemplate(
        loader, documents.model, documents.hardware, documents.run, documents.overrides);
    scenarioTemplate.load(overrides);
    timer.restart();
    for (int i = 0; i < repetitions; ++i) {
        scenarioTemplate.load(overrides);
    }
    const double fromTemplate = static_cast<double>(timer.nsecsElapsed()) * 1e-9 / repetitions;
    qInfo("one point's scenario: %.1f us from the workspace file, %.1f us from texts held in memory, %.1f us from a "
          "ScenarioTemplate (run overrides only: the run document is parsed again)",
        fromFile * 1e6, fromTexts * 1e6, fromTemplate * 1e6);
}

void BenchSweep::wholeSweeps()
{
    const config::ConfigLoader loader = test::projectLoader();
    const config::WorkspaceDocuments documents
        = config::readWorkspaceDocuments("llama-3.1-70b-64xh100", loader.library());
    // The workspace pins dp and pp to InfiniBand; the sweep lets the placement map every split.
    std::vector<std::string> baseOverrides = documents.overrides;
    baseOverrides.push_back("run.parallelism.mapping={}");
    const config::ScenarioTemplate scenarioTemplate(
        loader, documents.model, documents.hardware, documents.run, baseOverrides);
    const sweep::ScenarioFactory factory
        = [&](const std::vector<std::string>& overrides) { return scenarioTemplate.load(overrides); };
    const sweep::SweepSpace space = bigSpace();
    for (int threads : { 1, 0 }) {
        sweep::SweepOptions options;
        options.threads = threads;
        const sweep::SweepResult result = sweep::runSweep(space, factory, options);
        qInfo("%lld points on %s: %.2f s (%.1f us per point): %lld ok, %lld do not fit, %lld invalid, %lld failed",
            static_cast<long long>(space.size()), threads == 1 ? "1 thread" : "all hardware threads", result.seconds,
            1e6 * result.seconds / static_cast<double>(space.size()),
            static_cast<long long>(result.count(sweep::PointStatus::Ok)),
            static_cast<long long>(result.count(sweep::PointStatus::DoesNotFit)),
            static_cast<long long>(result.count(sweep::PointStatus::Invalid)),
            static_cast<long long>(result.count(sweep::PointStatus::Failed)));
        QCOMPARE(result.count(sweep::PointStatus::Failed), std::int64_t(0));
        QVERIFY(result.count(sweep::PointStatus::Ok) > 500);
    }
}

QTEST_GUILESS_MAIN(BenchSweep)
#include "bench_sweep.moc"
