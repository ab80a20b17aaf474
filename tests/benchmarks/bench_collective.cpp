// SPDX-License-Identifier: GPL-3.0-or-later
// How long an analytical collective takes to cost: warm calls (target well under 10 us, the step model makes tens
// per evaluation) on a 32x32 torus and on a 1,024-GPU DGX H100 SuperPOD, and a cold network + first call.
#include "network/analyticalnetwork.h"
#include "testutils.h"

#include <QTest>

using namespace rapid;

namespace {

std::vector<int> allGpus(int count)
{
    std::vector<int> gpus;
    for (int gpu = 0; gpu < count; ++gpu) {
        gpus.push_back(gpu);
    }
    return gpus;
}

config::HardwareSpec torus32x32()
{
    config::HardwareSpec spec;
    spec.name = "torus 32x32";
    config::NetworkDimension torus;
    torus.name = "torus";
    torus.kind = config::NetworkKind::Torus2d;
    torus.size = 1024;
    torus.shape = { 32, 32 };
    torus.linkBandwidth = 100e9;
    torus.latencySeconds = 500e-9;
    spec.cluster.dimensions = { torus };
    return spec;
}

network::CollectiveRequest allReduce(double bytes, std::vector<int> gpus)
{
    network::CollectiveRequest request;
    request.kind = network::CollectiveKind::AllReduce;
    request.bytes = bytes;
    request.gpus = std::move(gpus);
    return request;
}

} // namespace

class BenchCollective : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void torusAllReduceWarm();
    void superPodAllReduceWarm();
    void superPodTensorParallelWarm();
    void superPodColdNetworkAndFirstCall();

private:
    config::HardwareSpec m_superPod;
};

void BenchCollective::initTestCase()
{
    m_superPod = test::projectLoader().loadHardware("dgx-h100-superpod", { "hardware.cluster.network[ib].size=128" });
    QCOMPARE(m_superPod.cluster.totalGpus(), 1024);
}

void BenchCollective::torusAllReduceWarm()
{
    const network::AnalyticalNetwork network(torus32x32());
    const network::CollectiveRequest request = allReduce(1073741824.0, allGpus(1024));
    double sink = network.time(request).seconds;
    QBENCHMARK
    {
        sink += network.time(request).seconds;
    }
    QVERIFY(sink > 0);
}

void BenchCollective::superPodAllReduceWarm()
{
    const network::AnalyticalNetwork network(m_superPod);
    const network::CollectiveRequest request = allReduce(1073741824.0, allGpus(1024));
    double sink = network.time(request).seconds;
    QBENCHMARK
    {
        sink += network.time(request).seconds;
    }
    QVERIFY(sink > 0);
}

void BenchCollective::superPodTensorParallelWarm()
{
    const network::AnalyticalNetwork network(m_superPod);
    const network::CollectiveRequest request = allReduce(16.0 * 1024 * 1024, allGpus(8));
    double sink = network.time(request).seconds;
    QBENCHMARK
    {
        sink += network.time(request).seconds;
    }
    QVERIFY(sink > 0);
}

void BenchCollective::superPodColdNetworkAndFirstCall()
{
    const network::CollectiveRequest request = allReduce(1073741824.0, allGpus(1024));
    double sink = 0;
    QBENCHMARK
    {
        const network::AnalyticalNetwork network(m_superPod);
        sink += network.time(request).seconds;
    }
    QVERIFY(sink > 0);
}

QTEST_GUILESS_MAIN(BenchCollective)
#include "bench_collective.moc"
