// SPDX-License-Identifier: GPL-3.0-or-later
// How long timing one whole Llama-3.1-70B training layer (forward, selective recompute, backward; tp 8, 8192 tokens)
// takes on the H100 preset: cold, with a fresh GEMM cache (target < 100 us), and warm, every GEMM memoised. Building
// the operator lists is included in both, as the step model rebuilds them per configuration. And one decode layer of
// Llama-3.3-70B at tp 8 (batch 4, 8,000 cached keys, warm): its attention is timed afresh each time on Flash-Decoding's
// grid (the split-KV heuristic's loop over up to 128 split counts), which the serving model memoises per batch shape.
#include "compute/operatortimer.h"
#include "model/layeroperators.h"
#include "parallel/shardingplan.h"
#include "testutils.h"

#include <QTest>

using namespace rapid;

class BenchLayer : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void coldLayer();
    void warmLayer();
    void warmDecodeLayer();

private:
    double timeLayer(compute::OperatorTimer& timer) const;

    config::GpuSpec m_gpu;
    config::ModelSpec m_model;
    config::RunSpec m_run;
};

void BenchLayer::initTestCase()
{
    const config::ConfigLoader loader = test::projectLoader();
    m_gpu = loader.loadHardware("H100-SXM5-80GB").gpu;
    m_model = loader.loadModel("llama-3.1-70b");
    m_run = loader.loadRun("llama-3.1-70b-train-64");
}

double BenchLayer::timeLayer(compute::OperatorTimer& timer) const
{
    return timer.layerTime(model::trainingForward(m_model, m_run, parallel::layerSharding(m_run), false))
        + timer.layerTime(model::trainingBackward(m_model, m_run, parallel::layerSharding(m_run), false));
}

void BenchLayer::coldLayer()
{
    double sink = 0;
    QBENCHMARK
    {
        compute::OperatorTimer timer(m_gpu);
        sink += timeLayer(timer);
    }
    QVERIFY(sink > 0);
}

void BenchLayer::warmLayer()
{
    compute::OperatorTimer timer(m_gpu);
    timeLayer(timer);
    double sink = 0;
    QBENCHMARK
    {
        sink += timeLayer(timer);
    }
    QVERIFY(sink > 0);
    QVERIFY(timer.cache().hits() > 0);
}

void BenchLayer::warmDecodeLayer()
{
    const config::ConfigLoader loader = test::projectLoader();
    const config::ModelSpec model = loader.loadModel("llama-3.3-70b");
    config::RunSpec run = loader.loadRun("llama-3.3-70b-serve-8xa100");
    run.batch = 4;
    const model::LayerSharding sharding = parallel::layerSharding(run);
    compute::OperatorTimer timer(m_gpu);
    timer.layerTime(model::decodeLayer(model, run, sharding, false, 8000));
    double sink = 0;
    QBENCHMARK
    {
        sink += timer.layerTime(model::decodeLayer(model, run, sharding, false, 8000));
    }
    QVERIFY(sink > 0);
}

QTEST_GUILESS_MAIN(BenchLayer)
#include "bench_layer.moc"
