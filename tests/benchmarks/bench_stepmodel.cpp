// SPDX-License-Identifier: GPL-3.0-or-later
// Speed of the analytical step model (issue 4): one evaluation of Llama-3.1-70B training on 1,024 H100 (TP8, PP8
// interleaved, DP16) after warm-up, and a sweep of 10,000 different configurations, each a fresh StepModel.
#include "sim/stepmodel.h"
#include "testutils.h"

#include <QElapsedTimer>
#include <QTest>

#include <algorithm>
#include <random>

using namespace rapid;

class BenchStepModel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void llama70bOn1024H100();
    void qwen3MoeCombinedOneFOneBOn256H100();
    void sweepOfVariedConfigs();
};

namespace {
config::Scenario llama70b(int tp, int pp, int dp, int virtualStages, int microBatch)
{
    const int gpus = tp * pp * dp;
    std::vector<std::string> overrides = {
        "hardware.cluster.network[ib].size=" + std::to_string(gpus / 8),
        "run.parallelism.tp=" + std::to_string(tp),
        "run.parallelism.pp=" + std::to_string(pp),
        "run.parallelism.dp=" + std::to_string(dp),
        "run.parallelism.schedule=" + std::string(virtualStages > 1 ? "interleaved" : "1f1b"),
        "run.parallelism.virtual_stages=" + std::to_string(virtualStages),
        "run.training.micro_batch=" + std::to_string(microBatch),
        "run.training.global_batch=" + std::to_string(1024),
    };
    return test::projectLoader().loadWorkspace("llama-3.1-70b-64xh100", overrides);
}

/// One point of the sweep (applied to a copy of the base scenario).
struct SweepPoint {
    int tp = 1;
    int pp = 1;
    int microBatch = 1;
    int globalBatch = 256;
    config::PipelineSchedule schedule = config::PipelineSchedule::OneFOneB;
    int virtualStages = 1;
    config::Recompute recompute = config::Recompute::None;
    int seqLength = 2048;
    int zeroStage = 0;
};

constexpr int kGpus = 1024;

config::Scenario apply(const config::Scenario& base, const SweepPoint& point)
{
    config::Scenario scenario = base;
    config::RunSpec& run = scenario.run;
    config::ParallelismSpec& parallel = run.parallelism;
    parallel.tp = point.tp;
    parallel.pp = point.pp;
    parallel.dp = kGpus / (point.tp * point.pp);
    parallel.schedule = point.schedule;
    parallel.virtualStages = point.virtualStages;
    parallel.zeroStage = point.zeroStage;
    parallel.mapping.clear(); // default placement: tp inside the node, the preset's mapping needs tp = 8
    run.microBatch = point.microBatch;
    run.globalBatch = point.globalBatch;
    run.recompute = point.recompute;
    run.seqLength = point.seqLength;
    scenario.hardware.cluster.dimensions[1].size = kGpus / 8; // the ib rail: 8 GPUs per node
    return scenario;
}
} // namespace

void BenchStepModel::llama70bOn1024H100()
{
    sim::StepModel model(llama70b(8, 8, 16, 5, 1));
    double step = model.training(false).stepTimeSeconds; // warm-up: GEMM cache and network plans
    QBENCHMARK
    {
        step = model.training(false).stepTimeSeconds;
    }
    QVERIFY(step > 0);
}

void BenchStepModel::qwen3MoeCombinedOneFOneBOn256H100()
{
    // Megatron-Bridge's Qwen3-235B-A22B recipe on 256 H100 (tp 2, pp 8 x 4 virtual stages, ep 32, 512 micro-batches)
    // with the combined 1F1B all-to-all overlap: 16 co-scheduled chunk pairs per stage, each a two-stream timeline.
    const config::Scenario scenario
        = test::projectLoader().loadScenario("qwen3-235b-a22b", "dgx-h100-superpod", "megatron-gpt-train",
            { "hardware.cluster.network[ib].size=32", "run.precision.compute=fp8", "run.precision.weights=fp8",
                "run.precision.gradients=bf16", "run.training.global_batch=8192", "run.training.seq_length=4096",
                "run.training.recompute=none", "run.flash_attention=true", "run.training.dropout=false",
                "run.parallelism.tp=2", "run.parallelism.sp=true", "run.parallelism.pp=8",
                "run.parallelism.schedule=interleaved", "run.parallelism.virtual_stages=4", "run.parallelism.dp=16",
                "run.parallelism.ep=32", "run.parallelism.etp=1", "run.parallelism.zero_stage=1",
                "run.parallelism.ep_a2a_overlap=true", "run.parallelism.ep_delay_wgrad=true" });
    sim::StepModel model(scenario);
    double step = model.training(false).stepTimeSeconds;
    QBENCHMARK
    {
        step = model.training(false).stepTimeSeconds;
    }
    QVERIFY(step > 0);
}

void BenchStepModel::sweepOfVariedConfigs()
{
    // Load once (the config loader is slow), then vary the run: every valid combination of tp, pp (dp fills 1,024
    // GPUs), micro-batch, global batch, pipeline schedule and virtual stages, recomputation, sequence length and ZeRO
    // stage, in a fixed shuffled order, the first 10,000 of them evaluated by a fresh StepModel each (cold GEMM
    // cache, as a real sweep).
    const config::Scenario base = test::projectLoader().loadWorkspace("llama-3.1-70b-64xh100");
    struct Schedule {
        config::PipelineSchedule schedule;
        int virtualStages;
    };
    const Schedule schedules[] = { { config::PipelineSchedule::Gpipe, 1 }, { config::PipelineSchedule::OneFOneB, 1 },
        { config::PipelineSchedule::Interleaved, 2 }, { config::PipelineSchedule::Interleaved, 4 },
        { config::PipelineSchedule::Interleaved, 5 } };
    std::vector<SweepPoint> points;
    for (int tp : { 1, 2, 4, 8 }) {
        for (int pp : { 1, 2, 4, 8 }) {
            for (int microBatch : { 1, 2, 4 }) {
                for (int globalBatch : { 256, 512, 1024, 2048, 4096 }) {
                    for (const Schedule& schedule : schedules) {
                        for (config::Recompute recompute :
                            { config::Recompute::None, config::Recompute::Selective, config::Recompute::Full }) {
                            for (int seqLength : { 2048, 4096, 8192 }) {
                                for (int zeroStage : { 0, 1 }) {
                                    const SweepPoint point { tp, pp, microBatch, globalBatch, schedule.schedule,
                                        schedule.virtualStages, recompute, seqLength, zeroStage };
                                    const int dp = kGpus / (tp * pp);
                                    if (globalBatch % (microBatch * dp) != 0
                                        || (pp == 1 && schedule.schedule == config::PipelineSchedule::Interleaved)) {
                                        continue;
                                    }
                                    const config::Scenario scenario = apply(base, point);
                                    if (config::checkScenario(scenario.model, scenario.hardware, scenario.run, {})
                                            .empty()) {
                                        points.push_back(point);
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    std::shuffle(points.begin(), points.end(), std::mt19937(4));
    QVERIFY2(points.size() >= 10000, ("only " + std::to_string(points.size()) + " valid configurations").c_str());
    points.resize(10000);

    QElapsedTimer timer;
    timer.start();
    double checksum = 0;
    for (const SweepPoint& point : points) {
        sim::StepModel model(apply(base, point));
        checksum += model.training(false).stepTimeSeconds;
    }
    const double seconds = static_cast<double>(timer.nsecsElapsed()) * 1e-9;
    qInfo("%zu evaluations of different configurations in %.3f s (%.1f us each); sum of step times %.6g s",
        points.size(), seconds, seconds / static_cast<double>(points.size()) * 1e6, checksum);
    QVERIFY(checksum > 0);
}

QTEST_GUILESS_MAIN(BenchStepModel)
#include "bench_stepmodel.moc"
