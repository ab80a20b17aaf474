// SPDX-License-Identifier: GPL-3.0-or-later
// How long the GEMM model takes: a memoised lookup (target < 1 us) and a cold estimate with its tile search
// (target < 20 us). An LLM step has a few dozen distinct GEMM shapes, evaluated thousands of times in a sweep.
#include "compute/gemmcache.h"
#include "testutils.h"

#include <QTest>

using namespace rapid;

class BenchGemm : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void memoisedLookup();
    void coldEstimate();

private:
    config::GpuSpec m_gpu;
    compute::GemmShape m_shape;
};

void BenchGemm::initTestCase()
{
    m_gpu = test::projectLoader().loadHardware("H100-SXM5-80GB").gpu;
    m_shape.m = 8192;
    m_shape.k = 8192;
    m_shape.n = 28672;
    m_shape.precision = config::Precision::Bf16;
}

void BenchGemm::memoisedLookup()
{
    compute::GemmCache cache;
    cache.estimate(m_gpu, m_shape);
    double sink = 0;
    QBENCHMARK
    {
        sink += cache.estimate(m_gpu, m_shape).totalSeconds;
    }
    QVERIFY(sink > 0);
    QVERIFY(cache.hits() > 0);
}

void BenchGemm::coldEstimate()
{
    double sink = 0;
    QBENCHMARK
    {
        sink += compute::estimateGemm(m_gpu, m_shape).totalSeconds;
    }
    QVERIFY(sink > 0);
}

QTEST_GUILESS_MAIN(BenchGemm)
#include "bench_gemm.moc"
