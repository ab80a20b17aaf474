// SPDX-License-Identifier: GPL-3.0-or-later
// The host-side dispatch of a decoder layer pass (model/hostdispatch.h): nanotron's calls times their published
// per-call costs, added up by hand here, and no host floor for the frameworks it has not been derived for.
#include "model/hostdispatch.h"

#include <QTest>

#include <cmath>

using namespace rapid;

namespace {

config::RunSpec runOf(config::Framework framework, int tp, config::Recompute recompute = config::Recompute::None)
{
    config::RunSpec run;
    run.framework = framework;
    run.parallelism.tp = tp;
    run.recompute = recompute;
    return run;
}

bool near(double a, double b)
{
    return std::fabs(a - b) <= 1e-12 * std::max(1.0, std::fabs(b));
}

} // namespace

class TstHostDispatch : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void nanotronLayerAddsUpItsCalls();
    void withoutTensorParallelismTheCollectiveCallsDropOut();
    void fullRecomputationIssuesTheForwardAgain();
    void otherFrameworksAndMoeLayersChargeNone();
};

void TstHostDispatch::nanotronLayerAddsUpItsCalls()
{
    // Forward: 60 non-launching ATen calls x 3 us + 22 launching ops x 10 + 4 Triton launches x 45 + 11 Function
    // applies x 12 + 4 NCCL calls x 35 + 14 module calls x 4 = 180 + 220 + 180 + 132 + 140 + 56 = 908 us.
    // Backward: 4 Triton x 45 + 6 NCCL x 35 + 26 C++ nodes x 5 + 28 launches x 5 + 9 Python nodes x 15 + 100 ATen
    // calls x 3 + 6 fp32 accumulations x 10 = 180 + 210 + 130 + 140 + 135 + 300 + 60 = 1,155 us.
    const model::LayerHostDispatch host = model::layerHostDispatch(runOf(config::Framework::Nanotron, 8), false);
    QVERIFY2(near(host.forwardSeconds, 908e-6), qPrintable(QString::number(host.forwardSeconds * 1e6)));
    QVERIFY2(near(host.backwardSeconds, 1155e-6), qPrintable(QString::number(host.backwardSeconds * 1e6)));
    // The host's work is the same at any tensor-parallel degree above 1 (it does not shrink with the shards).
    const model::LayerHostDispatch tp2 = model::layerHostDispatch(runOf(config::Framework::Nanotron, 2), false);
    QCOMPARE(tp2.forwardSeconds, host.forwardSeconds);
    QCOMPARE(tp2.backwardSeconds, host.backwardSeconds);
}

void TstHostDispatch::withoutTensorParallelismTheCollectiveCallsDropOut()
{
    // tp 1: no all-gather or reduce-scatter calls: 908 - 4 x 35 = 768 us forward, 1,155 - 6 x 35 = 945 us backward.
    const model::LayerHostDispatch host = model::layerHostDispatch(runOf(config::Framework::Nanotron, 1), false);
    QVERIFY(near(host.forwardSeconds, 768e-6));
    QVERIFY(near(host.backwardSeconds, 945e-6));
}

void TstHostDispatch::fullRecomputationIssuesTheForwardAgain()
{
    const model::LayerHostDispatch host
        = model::layerHostDispatch(runOf(config::Framework::Nanotron, 4, config::Recompute::Full), false);
    QVERIFY(near(host.forwardSeconds, 908e-6));
    QVERIFY(near(host.backwardSeconds, (1155 + 908) * 1e-6));
}

void TstHostDispatch::otherFrameworksAndMoeLayersChargeNone()
{
    for (config::Framework framework : { config::Framework::Megatron, config::Framework::DeepSpeed,
             config::Framework::PytorchFsdp, config::Framework::Vllm }) {
        const model::LayerHostDispatch host = model::layerHostDispatch(runOf(framework, 8), false);
        QCOMPARE(host.forwardSeconds, 0.0);
        QCOMPARE(host.backwardSeconds, 0.0);
    }
    const model::LayerHostDispatch moe = model::layerHostDispatch(runOf(config::Framework::Nanotron, 8), true);
    QCOMPARE(moe.forwardSeconds + moe.backwardSeconds, 0.0);
}

QTEST_GUILESS_MAIN(TstHostDispatch)
#include "tst_hostdispatch.moc"
