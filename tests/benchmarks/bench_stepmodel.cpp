// SPDX-License-Identifier: GPL-3.0-or-later
// Speed of the analytical step model (issue 4): one evaluation of Llama-3.1-70B training on 1,024 H100 (TP8, PP8
// interleaved, DP16) after warm-up, and a sweep of varied configurations.
#include "sim/stepmodel.h"
#include "testutils.h"

#include <QElapsedTimer>
#include <QTest>

using namespace rapid;

class BenchStepModel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void llama70bOn1024H100();
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

void BenchStepModel::sweepOfVariedConfigs()
{
    // tp x pp x dp x micro-batch x schedule on up to 1,024 GPUs: load once per shape, evaluate 10,000 times in all.
    std::vector<sim::StepModel> models;
    for (int tp : { 2, 4, 8 }) {
        for (int pp : { 2, 4, 8 }) {
            for (int microBatch : { 1, 2 }) {
                for (int virtualStages : { 1, 5 }) {
                    const int dp = 1024 / (tp * pp);
                    const int microBatches = 1024 / (microBatch * dp);
                    if (80 % (pp * virtualStages) != 0 || microBatches < 1
                        || (virtualStages > 1 && microBatches % pp != 0)) {
                        continue;
                    }
                    models.emplace_back(llama70b(tp, pp, dp, virtualStages, microBatch));
                }
            }
        }
    }
    QVERIFY(!models.empty());
    QElapsedTimer timer;
    timer.start();
    int evaluations = 0;
    while (evaluations < 10000) {
        for (sim::StepModel& model : models) {
            model.training(false);
            if (++evaluations == 10000) {
                break;
            }
        }
    }
    qInfo("%d evaluations of %zu configurations in %.3f s", evaluations, models.size(), timer.elapsed() / 1000.0);
}

QTEST_GUILESS_MAIN(BenchStepModel)
#include "bench_stepmodel.moc"
