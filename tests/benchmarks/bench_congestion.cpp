// SPDX-License-Identifier: GPL-3.0-or-later
// The congestion backend's speed figures (issue #6): a 1 GiB all-reduce on a 32x32 2D torus (1,024 GPUs; target
// under 0.3 s), on a 128x128 torus (16,384 GPUs; under 30 s and 4 GB), and a GPT-3 175B training step on 1,024 GPUs
// (TP8 PP8 DP16) with every collective simulated (under 10 s), and a Llama-2-7B step on 64 GPUs of one tapered fat tree
// whose TP all-reduces cross the fabric that the pipeline sends and gradient reductions use, so every one of them joins
// the step's simulation; and the packet-level backend on a 1 GiB ring all-reduce and a fat-tree all-to-all. Prints wall
// time, flows, events and peak memory.
#include "sim/congestionnetwork.h"
#include "sim/congestionstepbackend.h"
#include "sim/stepmodel.h"
#include "testutils.h"

#include <QTemporaryDir>
#include <QTest>

#include <chrono>
#include <sys/resource.h>

using namespace rapid;

namespace {

config::HardwareSpec torus(int x, int y)
{
    config::HardwareSpec spec;
    spec.name = "torus";
    config::NetworkDimension dimension;
    dimension.name = "torus";
    dimension.kind = config::NetworkKind::Torus2d;
    dimension.size = x * y;
    dimension.shape = { x, y };
    dimension.linkBandwidth = 100e9;
    dimension.latencySeconds = 500e-9;
    spec.cluster.dimensions = { dimension };
    return spec;
}

double peakResidentMiB()
{
    rusage usage {};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

void allReduceOnTorus(int x, int y)
{
    const auto start = std::chrono::steady_clock::now();
    sim::CongestionNetwork network(torus(x, y));
    network::CollectiveRequest request;
    request.kind = network::CollectiveKind::AllReduce;
    request.bytes = 1073741824.0;
    for (int gpu = 0; gpu < x * y; ++gpu) {
        request.gpus.push_back(gpu);
    }
    const network::CollectiveRequest requests[] = { request };
    const sim::CongestionRun run = network.run(requests);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    qInfo("%dx%d torus, 1 GiB all-reduce: %.3f s wall, %d flows, %llu events, %llu rate recomputations, simulated "
          "%.3f ms (analytical %.3f ms), peak RSS %.0f MiB",
        x, y, wall, run.flows, static_cast<unsigned long long>(run.events),
        static_cast<unsigned long long>(run.rateRecomputations), run.makespan * 1e3,
        network.analytical().time(request).seconds * 1e3, peakResidentMiB());
    QVERIFY(run.makespan > 0);
}

/// A packet-level run of one collective on @p hardware with 9,002-byte packets (ns-3's in tests/ns3).
void packetLevel(const char* what, const config::HardwareSpec& hardware, network::CollectiveKind kind, double bytes)
{
    sim::CongestionNetwork network(hardware);
    network::CollectiveRequest request;
    request.kind = kind;
    request.bytes = bytes;
    for (int gpu = 0; gpu < hardware.cluster.totalGpus(); ++gpu) {
        request.gpus.push_back(gpu);
    }
    const network::CollectiveRequest requests[] = { request };
    const auto start = std::chrono::steady_clock::now();
    const sim::CongestionRun run = network.runPackets(requests, { 9002, 42 });
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    qInfo("packet level, %s: %.3f s wall, %llu packets, %llu events (%.1f M events/s), simulated %.3f ms, peak RSS "
          "%.0f MiB",
        what, wall, static_cast<unsigned long long>(run.packets), static_cast<unsigned long long>(run.events),
        static_cast<double>(run.events) / wall * 1e-6, run.makespan * 1e3, peakResidentMiB());
    QVERIFY(run.makespan > 0);
}

config::NetworkDimension oneDimension(config::NetworkKind kind, int size, double gbps, double latencyNs)
{
    config::NetworkDimension dimension;
    dimension.name = "net";
    dimension.kind = kind;
    dimension.size = size;
    dimension.shape = { size };
    dimension.linkBandwidth = gbps * 1e9;
    dimension.latencySeconds = latencyNs * 1e-9;
    return dimension;
}

} // namespace

class BenchCongestion : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void torus32x32AllReduce() { allReduceOnTorus(32, 32); }

    void packetLevelCollectives()
    {
        // The ns-3 cross-check's largest case (ns-3 takes 70-100 s for it here) and a fat-tree all-to-all.
        config::HardwareSpec ring;
        ring.cluster.dimensions = { oneDimension(config::NetworkKind::Ring, 16, 50, 500) };
        packetLevel("1 GiB ring all-reduce on a ring of 16", ring, network::CollectiveKind::AllReduce, 1073741824.0);
        config::HardwareSpec fatTree;
        config::NetworkDimension ib = oneDimension(config::NetworkKind::FatTree, 64, 25, 675);
        ib.tiers = 2;
        ib.switchRadix = 16;
        ib.oversubscription = 1;
        fatTree.cluster.dimensions = { ib };
        packetLevel(
            "64 MiB all-to-all on a two-tier fat tree of 64", fatTree, network::CollectiveKind::AllToAll, 67108864.0);
    }

    void gpt3TrainingStepOn1024Gpus()
    {
        config::Scenario scenario = test::projectLoader().loadScenario(
            "gpt-3-175b", "dgx-a100", "gpt-3-175b-train-1024", { "hardware.cluster.network[ib].size=128" });
        const auto start = std::chrono::steady_clock::now();
        const auto congestionBackend = std::make_shared<sim::CongestionStepBackend>(scenario.hardware);
        sim::StepModel congestion(scenario, congestionBackend);
        const report::TrainingResult result = congestion.training(false);
        const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        sim::StepModel analytical(scenario);
        qInfo("GPT-3 175B on 1024 A100 (TP8 PP8 DP16), congestion backend: step %.3f s (analytical %.3f s), %.3f s "
              "wall, %d inline collective sets on the network",
            result.stepTimeSeconds, analytical.training(false).stepTimeSeconds, wall,
            congestionBackend->inlineCollectivesOnNetwork());
        QVERIFY(result.stepTimeSeconds > 0);
    }

    void tensorParallelAcrossAFatTree()
    {
        // 64 A100, one GPU per node, on a two-tier fat tree (radix 16: 8 leaves of 8 GPUs, 2:1 tapered uplinks,
        // 25 GB/s). Llama-2-7B with TP 4 (a leaf holds two TP groups), PP 2, DP 8, 32 micro-batches: the TP
        // all-reduces share GPU links with the sends and leaf uplinks with the reductions, so all of them are flows.
        QTemporaryDir dir;
        const std::string hardware = test::writeFile(dir, "fat-tree.yaml",
            "hardware:\n"
            "  name: 64 A100 on a fat tree\n"
            "  gpu: A100-SXM4-80GB\n"
            "  cluster:\n"
            "    gpus_per_node: 1\n"
            "    network:\n"
            "      - name: ib\n"
            "        kind: fat-tree\n"
            "        size: 64\n"
            "        tiers: 2\n"
            "        switch_radix: 16\n"
            "        oversubscription: 2\n"
            "        link_bandwidth_GBps: 25\n"
            "        latency_ns: 700\n");
        const config::Scenario scenario
            = test::projectLoader().loadScenario("llama-2-7b", hardware, "llama-2-7b-train-4xa100",
                { "run.framework=megatron", "run.parallelism.tp=4", "run.parallelism.pp=2", "run.parallelism.dp=8",
                    "run.training.global_batch=256" });
        const auto start = std::chrono::steady_clock::now();
        const auto congestionBackend = std::make_shared<sim::CongestionStepBackend>(scenario.hardware);
        sim::StepModel congestion(scenario, congestionBackend);
        const report::TrainingResult result = congestion.training(false);
        const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const auto foldedBackend = std::make_shared<sim::CongestionStepBackend>(scenario.hardware);
        sim::StepModel folded(scenario, foldedBackend);
        foldedBackend->setInlineCollectivesOnNetwork(false);
        const double foldedStep = folded.training(false).stepTimeSeconds;
        qInfo("Llama-2-7B on 64 A100, TP4 across a 2:1 fat tree (PP2 DP8, 32 micro-batches): step %.3f s with TP "
              "co-simulated (%d inline collective sets), %.3f s folded, analytical %.3f s; %.3f s wall, peak RSS %.0f "
              "MiB",
            result.stepTimeSeconds, congestionBackend->inlineCollectivesOnNetwork(), foldedStep,
            sim::StepModel(scenario).training(false).stepTimeSeconds, wall, peakResidentMiB());
        QVERIFY(congestionBackend->inlineCollectivesOnNetwork() > 0);
        QVERIFY(result.stepTimeSeconds >= foldedStep);
    }

    // Last: its peak memory dominates the process's.
    void torus128x128AllReduce() { allReduceOnTorus(128, 128); }
};

QTEST_GUILESS_MAIN(BenchCongestion)
#include "bench_congestion.moc"
