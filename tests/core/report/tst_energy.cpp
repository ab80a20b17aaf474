// SPDX-License-Identifier: GPL-3.0-or-later
// The two-state energy model: closed forms by hand, and whole steps where every second is computing (one GPU, no
// communication, no bubble), so the energy must be TDP x time exactly.
#include "report/energy.h"
#include "sim/stepmodel.h"
#include "testutils.h"

#include <QTest>

#include <cmath>

using namespace rapid;

class TstEnergy : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void closedForm();
    void busySecondsExcludeCommunication();
    void singleGpuStepsDrawTheTdp();
    void pipelineBubbleDrawsIdlePower();
};

namespace {

config::GpuSpec gpu(double tdp, double idle)
{
    config::GpuSpec spec;
    spec.tdpWatts = tdp;
    spec.idleWatts = idle;
    return spec;
}

bool near(double a, double b)
{
    return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b));
}

} // namespace

void TstEnergy::closedForm()
{
    // 8 GPUs for 2 s, 10 GPU-seconds computing, TDP 400 W, idle 50 W: 50 x 8 x 2 + 350 x 10 = 4,300 J;
    // 4,300 / 16 GPU-seconds = 268.75 W; 4.3 J per token for 1,000 tokens.
    const report::EnergyEstimate e = report::estimateEnergy(gpu(400, 50), 8, 2.0, 10.0, 1000);
    QCOMPARE(e.joules, 4300.0);
    QCOMPARE(e.busyJoules, 3500.0);
    QCOMPARE(e.averageWattsPerGpu, 268.75);
    QCOMPARE(e.joulesPerToken, 4.3);
    // Busy time beyond the GPU-seconds available is clamped: every GPU at TDP.
    QCOMPARE(report::estimateEnergy(gpu(400, 50), 8, 2.0, 100.0, 1000).averageWattsPerGpu, 400.0);
    // No power figures: unknown, not zero watts.
    QVERIFY(!report::estimateEnergy(gpu(0, 0), 8, 2.0, 10.0, 1000).known());
}

void TstEnergy::busySecondsExcludeCommunication()
{
    graph::TimeBreakdown parts {};
    parts[static_cast<size_t>(graph::TimeClass::Attention)] = 1;
    parts[static_cast<size_t>(graph::TimeClass::Mlp)] = 2;
    parts[static_cast<size_t>(graph::TimeClass::TensorParallel)] = 3;
    parts[static_cast<size_t>(graph::TimeClass::DataParallel)] = 4;
    parts[static_cast<size_t>(graph::TimeClass::PipelineParallel)] = 5;
    parts[static_cast<size_t>(graph::TimeClass::Optimizer)] = 0.5;
    // Waiting for the host to issue work draws no more than idle power either.
    parts[static_cast<size_t>(graph::TimeClass::HostDispatch)] = 6;
    QCOMPARE(report::computeBusySeconds(parts), 3.5);
}

void TstEnergy::singleGpuStepsDrawTheTdp()
{
    const config::ConfigLoader loader = test::projectLoader();
    // Training Llama-3.1-8B on one A100 (TDP 400 W): nothing but compute, so E = 400 W x step time.
    const config::Scenario training = loader.loadScenario("llama-3.1-8b", "a100-sxm4-80gb", "llama-2-7b-train-4xa100",
        { "run.parallelism.dp=1", "run.training.global_batch=4", "run.training.seq_length=2048" });
    const report::TrainingResult step = sim::StepModel(training).training(false);
    QVERIFY(near(step.energy.joules, 400 * step.stepTimeSeconds));
    QVERIFY(near(step.energy.averageWattsPerGpu, 400));
    QVERIFY(near(step.energy.joulesPerToken, step.energy.joules / (4.0 * 2048)));
    // Serving it: prefill and every decode step are compute, E = 400 W x end-to-end latency.
    const config::Scenario serving = loader.loadScenario("llama-3.1-8b", "a100-sxm4-80gb", "llama-serve-a100");
    const report::InferenceResult request = sim::StepModel(serving).inference();
    QVERIFY(near(request.energy.joules, 400 * request.e2eSeconds));
    QVERIFY(near(request.energy.joulesPerToken, request.energy.joules / serving.run.decodeLength));
}

void TstEnergy::pipelineBubbleDrawsIdlePower()
{
    // Two pipeline stages on NVLink, one micro-batch: the passes run one after another (forward 0, forward 1,
    // backward 1, backward 0), so each GPU computes for about half the step plus its optimizer (both stages update
    // at the end) and waits the rest. The energy is idle power over every GPU-second plus (TDP - idle) over the
    // compute-stream time read off the executed timeline (tp = 1: compute nodes hold no communication).
    const config::ConfigLoader loader = test::projectLoader();
    const config::Scenario scenario = loader.loadScenario("llama-3.1-8b", "hgx-a100-8gpu", "llama-2-7b-train-4xa100",
        { "hardware.cluster.network[0].size=2", "hardware.cluster.gpus_per_node=2", "run.parallelism.pp=2",
            "run.parallelism.dp=1", "run.training.global_batch=1", "run.training.seq_length=2048" });
    const report::TrainingResult step = sim::StepModel(scenario).training(true);
    double computing = 0;
    for (const report::TimelineEvent& event : step.timeline) {
        if (event.stream == graph::Stream::Compute) {
            computing += event.finish - event.start;
        }
    }
    QVERIFY(near(step.energy.joules, 50 * 2 * step.stepTimeSeconds + 350 * computing));
    // About half busy: between 50 + 350 x 0.5 and 50 + 350 x 0.7 W (the optimizer adds to the half).
    QVERIFY2(step.energy.averageWattsPerGpu > 225 && step.energy.averageWattsPerGpu < 295,
        qPrintable(QString::number(step.energy.averageWattsPerGpu)));
}

QTEST_GUILESS_MAIN(TstEnergy)
#include "tst_energy.moc"
