// SPDX-License-Identifier: GPL-3.0-or-later
// GemmCache returns what estimateGemm returns, counts hits and misses, and never serves an estimate made for another
// GPU (a derate or an edited field changes the key).
#include "compute/gemmcache.h"
#include "testutils.h"

#include <QTest>

using namespace rapid;

namespace {

compute::GemmShape mlpUp()
{
    compute::GemmShape shape;
    shape.m = 4096;
    shape.k = 4096;
    shape.n = 14336;
    shape.precision = config::Precision::Bf16;
    return shape;
}

} // namespace

class TstGemmCache : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void returnsTheModelsEstimateAndCountsHits();
    void keysOnEveryInputTheModelReads_data();
    void keysOnEveryInputTheModelReads();
    void clearForgetsEverything();
};

void TstGemmCache::returnsTheModelsEstimateAndCountsHits()
{
    const config::GpuSpec gpu = test::projectLoader().loadHardware("H100-SXM5-80GB").gpu;
    compute::GemmCache cache;
    const compute::GemmEstimate first = cache.estimate(gpu, mlpUp());
    // One miss computes; the next two requests are hits that return the identical value.
    QCOMPARE(cache.misses(), 1u);
    QCOMPARE(cache.hits(), 0u);
    QCOMPARE(cache.estimate(gpu, mlpUp()), first);
    QCOMPARE(cache.estimate(gpu, mlpUp()), first);
    QCOMPARE(cache.hits(), 2u);
    QCOMPARE(cache.misses(), 1u);
    QCOMPARE(cache.size(), std::size_t(1));
    QCOMPARE(first, compute::estimateGemm(gpu, mlpUp()));
}

void TstGemmCache::keysOnEveryInputTheModelReads_data()
{
    QTest::addColumn<QString>("change");
    QTest::addRow("shape_m") << "m";
    QTest::addRow("shape_batch") << "batch";
    QTest::addRow("precision") << "precision";
    QTest::addRow("clock_derate") << "clockScale";
    QTest::addRow("hbm_derate") << "hbmBandwidthScale";
    QTest::addRow("sm_count") << "smCount";
    QTest::addRow("compute_efficiency") << "computeEfficiency";
}

void TstGemmCache::keysOnEveryInputTheModelReads()
{
    QFETCH(QString, change);
    const config::GpuSpec gpu = test::projectLoader().loadHardware("A100-SXM4-80GB").gpu;
    compute::GemmCache cache;
    const compute::GemmEstimate original = cache.estimate(gpu, mlpUp());

    config::GpuSpec otherGpu = gpu;
    compute::GemmShape otherShape = mlpUp();
    if (change == QLatin1String("m")) {
        otherShape.m = 2048;
    } else if (change == QLatin1String("batch")) {
        otherShape.batch = 2;
    } else if (change == QLatin1String("precision")) {
        otherShape.precision = config::Precision::Tf32;
    } else if (change == QLatin1String("clockScale")) {
        otherGpu.clockScale = 0.5;
    } else if (change == QLatin1String("hbmBandwidthScale")) {
        otherGpu.hbmBandwidthScale = 0.5;
    } else if (change == QLatin1String("smCount")) {
        otherGpu.smCount = 54;
    } else {
        otherGpu.computeEfficiency = 0.5;
    }
    const compute::GemmEstimate other = cache.estimate(otherGpu, otherShape);
    QCOMPARE(cache.misses(), 2u);
    QCOMPARE(cache.hits(), 0u);
    QCOMPARE(other, compute::estimateGemm(otherGpu, otherShape));
    // The original entry is still there and still right.
    QCOMPARE(cache.estimate(gpu, mlpUp()), original);
    QCOMPARE(cache.hits(), 1u);
}

void TstGemmCache::clearForgetsEverything()
{
    const config::GpuSpec gpu = test::projectLoader().loadHardware("A100-SXM4-80GB").gpu;
    compute::GemmCache cache;
    cache.estimate(gpu, mlpUp());
    cache.clear();
    QCOMPARE(cache.size(), std::size_t(0));
    QCOMPARE(cache.hits(), 0u);
    QCOMPARE(cache.misses(), 0u);
    cache.estimate(gpu, mlpUp());
    QCOMPARE(cache.misses(), 1u);
}

QTEST_GUILESS_MAIN(TstGemmCache)
#include "tst_gemmcache.moc"
