// SPDX-License-Identifier: GPL-3.0-or-later
// The analytical step model: the collectives each parallel axis implies (bytes and groups derived by hand), linear
// scaling with gradient accumulation at pp = 1, and the bounded error of sampling decode steps.
#include "compute/operatortimer.h"
#include "config/attentionkernel.h"
#include "graph/trainingstep.h"
#include "model/hostdispatch.h"
#include "model/layeroperators.h"
#include "model/modelstats.h"
#include "network/analyticalnetwork.h"
#include "network/router.h"
#include "sim/shardedunits.h"
#include "sim/stepmodel.h"
#include "testutils.h"

#include <QTest>

#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>
#include <limits>
#include <numeric>

using namespace rapid;
using network::CollectiveKind;

namespace {

/// Records every collective the model asks for and charges nothing.
struct Recorder {
    std::shared_ptr<std::vector<network::CollectiveRequest>> requests
        = std::make_shared<std::vector<network::CollectiveRequest>>();
    sim::CollectiveCost cost() const
    {
        auto log = requests;
        return [log](const network::CollectiveRequest& request) {
            log->push_back(request);
            return 0.0;
        };
    }
    double bytes(CollectiveKind kind) const
    {
        double sum = 0;
        for (const auto& request : *requests) {
            sum += request.kind == kind ? request.bytes : 0.0;
        }
        return sum;
    }
    double largest(CollectiveKind kind) const
    {
        double most = 0;
        for (const auto& request : *requests) {
            most = request.kind == kind ? std::max(most, request.bytes) : most;
        }
        return most;
    }
    double smallest(CollectiveKind kind) const
    {
        double least = std::numeric_limits<double>::infinity();
        for (const auto& request : *requests) {
            least = request.kind == kind ? std::min(least, request.bytes) : least;
        }
        return least;
    }
};

/// Whether @p charged took @p expected seconds longer than @p free, all of them in @p timeClass (relative 1e-9).
bool chargesExactly(const report::TrainingResult& charged, const report::TrainingResult& free, double expected,
    graph::TimeClass timeClass)
{
    const double longer = charged.stepTimeSeconds - free.stepTimeSeconds;
    const double inClass = charged.breakdown.parts[static_cast<size_t>(timeClass)];
    if (std::fabs(longer / expected - 1) < 1e-9 && std::fabs(inClass / expected - 1) < 1e-9) {
        return true;
    }
    qWarning("%.9g s longer, %.9g s in %s, expected %.9g s", longer, inClass, graph::toString(timeClass), expected);
    return false;
}

using test::llama7bOn8;

} // namespace

/// Seconds of the operators of one MoE layer's forward and backward on one GPU that @p include selects, each as the
/// operator model times it alone.
template <typename Include> double moeLayerSeconds(const config::Scenario& scenario, const Include& include)
{
    compute::OperatorTimer timer(
        scenario.hardware.gpu, config::resolvedAttentionKernel(scenario.run, scenario.hardware.gpu));
    const sim::StepModel plain(scenario);
    const parallel::ShardingPlan& sharding = plain.plan().sharding;
    double seconds = 0;
    for (const auto& ops : { model::trainingForward(scenario.model, scenario.run, sharding.layer, true),
             model::trainingBackward(scenario.model, scenario.run, sharding.layer, true, sharding.gradientSum()) }) {
        for (const model::Operator& op : ops) {
            seconds += include(op) ? timer.time(op).seconds : 0.0;
        }
    }
    return seconds;
}

class TstStepModel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void mfuIsMeasuredAgainstTheFastestRateTheStepUses();
    void tensorParallelAllReduceBytesPerLayer();
    void opSacRecomputesTheAllGathersItDoesNotKeep();
    void asyncTpLeavesSummedGradientReduceScattersExposed();
    void zero3GathersAndReducesEveryParameter();
    void shardedUnitGathersHideBehindThePreviousUnit();
    void unitGathersSlowTheComputeBesideThem();
    void collectivesBesideComputeCostTheirShareOfIt();
    void fsdpGathersLayerByLayer();
    void gradientBucketsHideBehindTheLastBackward();
    void hybridShardingReducesThenAllReducesTheShard();
    void ulyssesAllToAllsAreWaitedFor();
    void hierarchicalContextParallelismWaitsForItsSliceOnly();
    void contextRingStepsTakeSmsFromTheAttentionBesideThem();
    void expertTensorParallelismWaitsForItsGatherAndScatter();
    void routedExpertGradientsReduceOverTheirOwnGroup();
    void fsdpUnderPipelineGathersOnceAndReducesAfterTheLastBackward();
    void prefetchedGathersRunOneUnitAhead();
    void megatronParameterGatherWaitsInTheFirstForward();
    void faultsOutsideGpuZerosGroupsCountToo();
    void aStragglerStretchesItsReplicasCompute();
    void accumulationScalesLinearlyAtPpOne();
    void eachPipelineFlushAddsOneWholeSchedule();
    void fullRecomputationRunsTheExpertCollectivesAgain();
    void theSharedExpertRunsBesideTheExpertAllToAlls();
    void theDispatchersSmsSetTheSlowdownBesideIt();
    void expertAllToAllsHideBehindAnotherMicroBatch();
    void servingAllReducesRunOnTheRunsLibrary();
    void theResultNamesTheGroupAFaultSlows();
    void aStragglerSlowsTheRequestsOfItsReplica();
    void decodeSamplingErrorIsBounded();
    void idealNetworkRemovesExactlyTheCommunication();
    void aHostBoundLayerWaitsForItsHost();
    void aSlowGpuCatchesUpWithItsHost();
};

void TstStepModel::mfuIsMeasuredAgainstTheFastestRateTheStepUses()
{
    // fp32 GEMMs with bf16 activations: attention runs at the bf16 tensor rate (15x the A100's fp32 one), so MFU is
    // model FLOP/s over the bf16 peak, at most 1 even when a huge head_dim makes attention nearly all of the step (the
    // hour-long extreme-value fuzz run found MFU 1.18 and 1.38 against the fp32 peak).
    for (const char* headDim : { "128", "6493" }) {
        const config::Scenario scenario = llama7bOn8({ "run.parallelism.dp=8", "run.training.global_batch=8",
            "run.precision.compute=fp32", std::string("model.head_dim=") + headDim });
        QCOMPARE(scenario.run.precision.activations, config::Precision::Bf16);
        const report::TrainingResult result = sim::StepModel(scenario, sim::NetworkBackend::Ideal).training(false);
        const double bf16Peak = scenario.hardware.gpu.tensorPeak(config::Precision::Bf16);
        QVERIFY(bf16Peak > scenario.hardware.gpu.tensorPeak(config::Precision::Fp32));
        QVERIFY(std::abs(result.mfu - result.modelFlopsPerGpu / bf16Peak) <= 1e-12 * result.mfu);
        QVERIFY2(result.mfu > 0 && result.mfu <= 1, qPrintable(QString::number(result.mfu)));
    }
}

void TstStepModel::tensorParallelAllReduceBytesPerLayer()
{
    // Megatron TP without sequence parallelism: each layer all-reduces its hidden state after attention and after
    // the MLP, forward and backward: s * b * h * 2 bytes = 2048 * 1 * 4096 * 2 = 16,777,216 bytes over the 8 GPUs.
    Recorder recorder;
    sim::StepModel model(
        llama7bOn8({ "run.parallelism.tp=8", "run.parallelism.dp=1", "run.training.global_batch=1" }), recorder.cost());
    model.trainingStageCosts();
    int allReduces = 0;
    for (const auto& request : *recorder.requests) {
        if (request.kind == CollectiveKind::AllReduce && request.gpus.size() == 8) {
            QCOMPARE(request.bytes, 16777216.0);
            QCOMPARE(request.gpus, (std::vector<int> { 0, 1, 2, 3, 4, 5, 6, 7 }));
            ++allReduces;
        }
    }
    QVERIFY(allReduces >= 1);
    // With sequence parallelism the same volume moves as an all-gather plus a reduce-scatter.
    Recorder sp;
    sim::StepModel spModel(llama7bOn8({ "run.parallelism.tp=8", "run.parallelism.sp=true", "run.parallelism.dp=1",
                               "run.training.global_batch=1" }),
        sp.cost());
    spModel.trainingStageCosts();
    QCOMPARE(sp.bytes(CollectiveKind::AllGather), 16777216.0);
    QCOMPARE(sp.bytes(CollectiveKind::ReduceScatter), 16777216.0);
}

void TstStepModel::opSacRecomputesTheAllGathersItDoesNotKeep()
{
    // tp 8 with sequence parallelism, every collective costing its bytes / rate: a pair (all-gather + reduce-scatter of
    // the same volume) costs 2c. Forward: two pairs per layer, 4c. Backward: two pairs, plus what the recompute re-runs
    // - per-op SAC (torchtitan) keeps reduce-scatters but not all-gathers and recomputes wk and w3, whose inputs are
    // the two all-gathers: 4c + 2c = 6c; no recompute: 4c; full recompute: the forward's two pairs again, 8c.
    // Without sequence parallelism one all-reduce per block: per-op SAC re-runs the one after the recomputed wo.
    const double rate = 1e11;
    const auto cost = [rate](const network::CollectiveRequest& request) { return request.bytes / rate; };
    const auto tensorTimes = [&](const std::vector<std::string>& overrides) {
        std::vector<std::string> all = { "run.parallelism.tp=8", "run.parallelism.dp=1", "run.training.global_batch=1",
            "run.framework=pytorch-fsdp" };
        all.insert(all.end(), overrides.begin(), overrides.end());
        sim::StepModel model(llama7bOn8(all), cost);
        model.trainingStageCosts();
        const auto tp = static_cast<size_t>(graph::TimeClass::TensorParallel);
        const double c = model.plan().stages[0].layer.tensorPair.front().bytes / rate;
        const sim::LayerTimes& layer = model.layerTimes(0, false);
        return std::array<double, 2> { layer.forward[tp] / c, layer.backward[tp] / c };
    };
    const std::array<double, 2> none = tensorTimes({ "run.parallelism.sp=true", "run.training.recompute=none" });
    const std::array<double, 2> opSac = tensorTimes({ "run.parallelism.sp=true", "run.training.recompute=op-sac" });
    const std::array<double, 2> full = tensorTimes({ "run.parallelism.sp=true", "run.training.recompute=full" });
    const std::array<double, 2> allReduce
        = tensorTimes({ "run.parallelism.sp=false", "run.training.recompute=op-sac" });
    for (const auto& [got, forward, backward] : { std::tuple(none, 4.0, 4.0), std::tuple(opSac, 4.0, 6.0),
             std::tuple(full, 4.0, 8.0), std::tuple(allReduce, 2.0, 3.0) }) {
        QVERIFY2(std::fabs(got[0] - forward) < 1e-9 && std::fabs(got[1] - backward) < 1e-9,
            qPrintable(QStringLiteral("%1 %2").arg(got[0]).arg(got[1])));
    }
}

void TstStepModel::asyncTpLeavesSummedGradientReduceScattersExposed()
{
    // tp 8 + SP with tp_comm_overlap, no recompute, collectives at bytes / rate (one of a pair: c). PyTorch's async TP
    // fuses a reduce-scatter only with the one matmul producing its input, so the backward's two input-gradient
    // reduce-scatters (sums over wq, wk, wv and over Llama's gate and up projections) stay exposed: 2c, plus what the
    // other 2c exceeds the backward GEMMs by (nothing on a fast network). Megatron's overlap (Transformer Engine,
    // fused QKV) hides all of them. The forward hides all under both, but PyTorch's two fused reduce-scatters each
    // end in a reduction kernel that reads the stacked partials (the whole hidden state, b bytes) and writes a
    // tp-th: b x 9/8 at the read-write stream rate, plus a launch. Every all-gather it fuses (the forward's two and the
    // backward's two) starts with the shard's copy into symmetric memory (b / 8 read and written) and a barrier
    // kernel: 2 x b / 8 at that rate plus two launches.
    const double rate = 1e13;
    const auto cost = [rate](const network::CollectiveRequest& request) { return request.bytes / rate; };
    for (const std::string framework : { "pytorch-fsdp", "megatron" }) {
        sim::StepModel model(llama7bOn8({ "run.parallelism.tp=8", "run.parallelism.sp=true", "run.parallelism.dp=1",
                                 "run.training.global_batch=1", "run.training.recompute=none",
                                 "run.parallelism.tp_comm_overlap=true", "run.framework=" + framework }),
            cost);
        model.trainingStageCosts();
        const auto tp = static_cast<size_t>(graph::TimeClass::TensorParallel);
        const double c = model.plan().stages[0].layer.tensorPair.front().bytes / rate;
        const sim::LayerTimes& layer = model.layerTimes(0, false);
        const config::GpuSpec& gpu = model.scenario().hardware.gpu;
        const double readWrite = gpu.hbmBandwidth * gpu.hbmReadWriteShare * gpu.memoryEfficiency;
        const double b = model.plan().stages[0].layer.tensorPair.back().bytes;
        const double reduction = b * 9.0 / 8.0 / readWrite + gpu.kernelLaunchSeconds;
        const double setup = 2 * b / 8.0 / readWrite + 2 * gpu.kernelLaunchSeconds;
        const double exposedBackward = framework == "megatron" ? 0.0 : 2 * c + 2 * setup;
        QVERIFY2(
            std::fabs(layer.backward[tp] - exposedBackward) <= 1e-9 * c, qPrintable(QString::fromStdString(framework)));
        const double exposedForward = framework == "megatron" ? 0.0 : 2 * (reduction + setup);
        QVERIFY2(std::fabs(layer.forward[tp] - exposedForward) <= 1e-9 * reduction,
            qPrintable(QString::number(layer.forward[tp])));
    }
}

void TstStepModel::zero3GathersAndReducesEveryParameter()
{
    // FSDP (ZeRO-3) on 8 GPUs, pp = 1, tp = 1: the whole model is one chunk of 32 layer units. Its bf16 parameters
    // are all-gathered unit by unit (one unit's gather, 1/32 of the chunk, is costed and charged per unit and pass)
    // and its fp32 gradients reduce-scattered: 2 and 4 bytes per parameter of the model (Llama-2-7B: 6,738,415,616
    // parameters; the final norm's 4,096 weights are replicated and not counted by the per-GPU shards). Each is
    // costed whole and per unit: the gather's largest request is the chunk's, its smallest one unit's; the reduction
    // adds up to 4 P (1 + 1/32) (per unit: what shares the links with the backward's gathers).
    Recorder recorder;
    sim::StepModel model(
        llama7bOn8({ "run.parallelism.dp=8", "run.parallelism.fsdp=true", "run.training.global_batch=8" }),
        recorder.cost());
    model.trainingStageCosts();
    const double params = static_cast<double>(model::countParameters(model.scenario().model).total());
    QVERIFY(std::fabs(recorder.largest(CollectiveKind::AllGather) / (2 * params) - 1) < 1e-6);
    QVERIFY(std::fabs(recorder.bytes(CollectiveKind::ReduceScatter) / (4 * params * (1 + 1.0 / 32)) - 1) < 1e-6);
    QVERIFY(std::fabs(recorder.smallest(CollectiveKind::AllGather) / (2 * params / 32) - 1) < 1e-6);
}

void TstStepModel::shardedUnitGathersHideBehindThePreviousUnit()
{
    // Three units of 3 s compute, gathers of 5 s: the first waits 5 s, units 2 and 3 wait 5 - 3 = 2 s each (their
    // gathers ran under the previous unit) = 9 s. Backward with 1 s of reduce-scatter beside each unit on the same
    // links (4 s units, so 3 s hide each gather) and the first unit still gathered: 2 x (5 - 3) = 4 s. Gathers
    // shorter than the compute cost only the first: 5 s.
    const std::vector<double> forward { 3, 3, 3 };
    const std::vector<double> backward { 4, 4, 4 };
    QCOMPARE(sim::exposedUnitGathers(forward, 5, 0, true, 0), 9.0);
    QCOMPARE(sim::exposedUnitGathers(backward, 5, 1, false, 0), 4.0);
    QCOMPARE(sim::exposedUnitGathers(backward, 5, 1, true, 0), 9.0);
    QCOMPARE(sim::exposedUnitGathers(forward, 2, 0, true, 0), 2.0);
    QCOMPARE(sim::exposedUnitGathers(forward, 2, 0, false, 0), 0.0);
    QCOMPARE(sim::exposedUnitGathers({}, 5, 0, true, 0), 0.0);
}

void TstStepModel::unitGathersSlowTheComputeBesideThem()
{
    // The collectives hold a quarter of the SMs while they run, so the compute beside them advances at 0.75.
    const std::vector<double> forward { 3, 3, 3 };
    const std::vector<double> backward { 4, 4, 4 };
    // 2 s gathers under 3 s units: 2 s at 0.75 do 1.5 s of work, the other 1.5 s run at full rate: 3.5 s, 0.5 s
    // lost per prefetched unit; with the first gather: 2 + 0.5 + 0.5.
    QCOMPARE(sim::exposedUnitGathers(forward, 2, 0, true, 0.25), 3.0);
    // Backward: 1 s of reduce-scatter and a 2 s gather beside 4 s units: 3 s at 0.75 do 2.25 s, 1.75 s remain at full
    // rate: 4.75 s, 0.75 s lost per unit after the first.
    QCOMPARE(sim::exposedUnitGathers(backward, 2, 1, false, 0.25), 1.5);
    // A 3.5 s gather beside a 3 s unit: 3.5 s at 0.75 do 2.625 s, 0.375 s remain: the unit ends at 3.875 s, after its
    // gather (0.5 s of plain waiting would undercount); 0.875 s lost.
    const std::vector<double> two { 3, 3 };
    QCOMPARE(sim::exposedUnitGathers(two, 3.5, 0, false, 0.25), 0.875);
    // A 4.5 s gather: the unit computes slowed throughout (3 / 0.75 = 4 s) and the next one waits for the gather: 1.5
    // s.
    QCOMPARE(sim::exposedUnitGathers(two, 4.5, 0, false, 0.25), 1.5);
    // Gathers longer than the compute at any share: the wait alone (5 - 3 per unit), as without contention.
    QCOMPARE(sim::exposedUnitGathers(forward, 5, 0, true, 0.25), 9.0);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, sim::exposedUnitGathers(forward, 2, 0, true, 1.0));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, sim::exposedUnitGathers(forward, 2, 0, true, -0.1));
}

void TstStepModel::collectivesBesideComputeCostTheirShareOfIt()
{
    // A quarter of the SMs held: 2 s of collectives beside 3 s of compute do 1.5 s of its work at 0.75, the other
    // 1.5 s run at full rate: 3.5 s, 0.5 s lost.
    QCOMPARE(sim::collectiveContention(3, 2, 0.25), 0.5);
    // Collectives that outlast the compute slow all of it: 3 / 0.75 = 4 s, 1 s lost, however long they run.
    QCOMPARE(sim::collectiveContention(3, 4, 0.25), 1.0);
    QCOMPARE(sim::collectiveContention(3, 40, 0.25), 1.0);
    // Nothing beside, nothing to slow, or no SMs held: nothing lost.
    QCOMPARE(sim::collectiveContention(3, 0, 0.25), 0.0);
    QCOMPARE(sim::collectiveContention(0, 2, 0.25), 0.0);
    QCOMPARE(sim::collectiveContention(3, 2, 0), 0.0);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, sim::collectiveContention(3, 2, 1.0));
    // Megatron's prefetched parameter gathers: 2 s gathers beside 3 s units never make a unit wait but cost 0.5 s
    // each beside units 1 and 2 (the first waits its 2 s with nothing beside): 3 s. 4 s gathers make each unit wait
    // 1 s, which is also what slowing the whole 3 s unit costs (3 / 0.75 - 3): the waits alone, 4 + 1 + 1.
    const std::vector<double> compute { 3, 3, 3 };
    QCOMPARE(sim::prefetchedGatherDelay(compute, std::vector<double> { 2, 2, 2 }, 0, 0.25), 3.0);
    QCOMPARE(sim::prefetchedGatherDelay(compute, std::vector<double> { 2, 2, 2 }, 0), 2.0);
    QCOMPARE(sim::prefetchedGatherDelay(compute, std::vector<double> { 4, 4, 4 }, 0, 0.25), 6.0);
}

void TstStepModel::fsdpGathersLayerByLayer()
{
    // FSDP over 8 GPUs, Llama-2-7B (32 dense layers in one chunk), one micro-batch. Only the 8-GPU all-gather costs
    // anything: bytes / rate, so one layer unit's gather is g = (2 bytes x P / 32) / rate. With c_f and c_b the
    // forward and backward seconds of one layer, the forward waits g + 31 max(0, g - c_f) and the backward
    // g + 31 max(0, g - c_b). A fast network hides all but the first gather; a slow one exposes the difference for
    // every unit. Before, the whole model's gather hid behind the whole forward. While a gather runs, NCCL's 24 CTAs
    // hold s = 24 / SMs of the GPU and the layer beside it computes at 1 - s: a prefetched unit costs
    // max(g - c, s min(g, c / (1 - s))) (shardedunits.h).
    for (const double rate : { 1e12, 2e9 }) {
        sim::StepModel model(
            llama7bOn8({ "run.parallelism.dp=8", "run.parallelism.fsdp=true", "run.training.global_batch=8" }),
            [rate](const network::CollectiveRequest& request) {
                return request.kind == CollectiveKind::AllGather ? request.bytes / rate : 0.0;
            });
        const std::vector<graph::StageCost> stages = model.trainingStageCosts();
        const parallel::ChunkPlan& chunk = model.plan().stages[0].chunks[0];
        QCOMPARE(chunk.layers.size(), size_t(32));
        const double g = chunk.parameterGather->bytes / 32 / rate;
        const sim::LayerTimes& layer = model.layerTimes(0, false);
        const double forward = std::accumulate(layer.forward.begin(), layer.forward.end(), 0.0);
        const double backward = std::accumulate(layer.backward.begin(), layer.backward.end(), 0.0);
        const double share = 24.0 / model.scenario().hardware.gpu.smCount;
        const auto unit = [g, share](double compute) {
            return std::max(std::max(0.0, g - compute), share * std::min(g, compute / (1 - share)));
        };
        const double expectedForward = g + 31 * unit(forward);
        const double expectedBackward = g + 31 * unit(backward);
        const auto dp = static_cast<size_t>(graph::TimeClass::DataParallel);
        QVERIFY(std::fabs(stages[0].chunks[0].forward[dp] - expectedForward) <= 1e-12 * expectedForward + 1e-15);
        QVERIFY(std::fabs(stages[0].chunks[0].backward[dp] - expectedBackward) <= 1e-12 * expectedForward + 1e-15);
        if (rate < 1e10) {
            QVERIFY(expectedBackward > 0); // the slow network exposes every unit
        }
    }
}

void TstStepModel::prefetchedGathersRunOneUnitAhead()
{
    // Units of 3 s compute. Gathers of 5 s: the first is waited for whole, each later one starts when the previous
    // unit starts computing and arrives 2 s after it ends: 5 + 2 + 2 = 9 s. Gathers of 2 s: only the first, 2 s. A
    // 4 s head start (a later pipeline stage waiting for its input) hides 4 s of the first gather: 1 + 2 + 2 = 5 s.
    // A unit needing no parameters (a gap of 6 s) hides the next gather whole: 5 + 0 + 0 = 5 s.
    const std::vector<double> compute { 3, 3, 3 };
    QCOMPARE(sim::prefetchedGatherDelay(compute, std::vector<double> { 5, 5, 5 }, 0), 9.0);
    QCOMPARE(sim::prefetchedGatherDelay(compute, std::vector<double> { 2, 2, 2 }, 0), 2.0);
    QCOMPARE(sim::prefetchedGatherDelay(compute, std::vector<double> { 5, 5, 5 }, 4), 5.0);
    QCOMPARE(sim::prefetchedGatherDelay(std::vector<double> { 3, 6, 3 }, std::vector<double> { 5, 0, 5 }, 0), 5.0);
    QCOMPARE(sim::prefetchedGatherDelay({}, {}, 0), 0.0);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, sim::prefetchedGatherDelay(compute, std::vector<double> { 1 }, 0));
}

void TstStepModel::megatronParameterGatherWaitsInTheFirstForward()
{
    // Megatron-Core, ZeRO-1 (distributed optimizer) over dp 8, pp 1: after the step the updated bf16 parameters are
    // all-gathered. Only that gather costs anything: bytes / rate. Overlapped (--overlap-param-gather), the units of
    // the next forward are the embedding (E parameters), 32 layers (L each) and the LM head (H), computing c_e, c_l
    // and c_h; each unit's gather g = 2 bytes x parameters / rate starts when the previous unit starts computing, so
    // the forward waits g_e + max(0, g_l - c_e) + 31 max(0, g_l - c_l) + max(0, g_h - c_l) and the rest of the
    // gather, whole - wait, runs beside it. Not overlapped, the whole gather follows the optimizer.
    for (const double rate : { 1e12, 2e9 }) {
        auto model = [rate](bool overlap) {
            return sim::StepModel(llama7bOn8({ "run.framework=megatron", "run.parallelism.dp=8",
                                      "run.parallelism.zero_stage=1", "run.training.global_batch=8",
                                      std::string("run.parallelism.dp_overlap=") + (overlap ? "true" : "false") }),
                [rate](const network::CollectiveRequest& request) {
                    return request.kind == CollectiveKind::AllGather ? request.bytes / rate : 0.0;
                });
        };
        sim::StepModel overlapped = model(true);
        const std::vector<graph::StageCost> stages = overlapped.trainingStageCosts();
        const parallel::StagePlan& stage = overlapped.plan().stages[0];
        QVERIFY(stage.parameterGather.has_value());
        const double whole = stage.parameterGather->bytes / rate;
        const double layerParameters = overlapped.plan().sharding.layerParameters[0];
        const auto ends = parallel::endParameters(overlapped.scenario().model, overlapped.plan().sharding.layer, true);
        QCOMPARE(stage.parameters, 32 * layerParameters + ends.embedding + ends.head);
        const double bytesPerParameter = stage.parameterGather->bytes / stage.parameters;
        QCOMPARE(bytesPerParameter, 2.0);
        const sim::LayerTimes& layer = overlapped.layerTimes(0, false);
        const double cl = std::accumulate(layer.forward.begin(), layer.forward.end(), 0.0);
        const auto model7b = overlapped.scenario().model;
        const auto& run = overlapped.scenario().run;
        const auto embeddingOps
            = model::embeddingOperators(model7b, run, overlapped.plan().sharding.layer, model::Workload::Training);
        std::vector<model::Operator> embeddingForward;
        std::copy_if(embeddingOps.begin(), embeddingOps.end(), std::back_inserter(embeddingForward),
            [](const model::Operator& op) { return op.phase == model::Phase::Forward; });
        const graph::TimeBreakdown embeddingTimes = overlapped.operatorSeconds(embeddingForward);
        const double ce = std::accumulate(embeddingTimes.begin(), embeddingTimes.end(), 0.0);
        const double ge = 2 * ends.embedding / rate;
        const double gl = 2 * layerParameters / rate;
        const double gh = 2 * ends.head / rate;
        const double wait = ge + std::max(0.0, gl - ce) + 31 * std::max(0.0, gl - cl) + std::max(0.0, gh - cl);
        QVERIFY2(std::fabs(stages[0].parameterGatherSeconds - wait) <= 1e-9 * wait,
            qPrintable(
                QString::number(stages[0].parameterGatherSeconds) + QStringLiteral(" vs ") + QString::number(wait)));
        QVERIFY(std::fabs(stages[0].parameterGatherHiddenSeconds - (whole - wait)) <= 1e-9 * whole);
        if (rate > 1e11) {
            QVERIFY(wait < 0.05 * whole); // a fast network hides all but the embedding's gather
        } else {
            QVERIFY(wait > 0.5 * whole); // a slow one falls behind the forward on every layer
        }
        sim::StepModel plain = model(false);
        const std::vector<graph::StageCost> plainStages = plain.trainingStageCosts();
        QVERIFY(std::fabs(plainStages[0].parameterGatherSeconds - whole) <= 1e-12 * whole);
        QCOMPARE(plainStages[0].parameterGatherHiddenSeconds, 0.0);
    }
}

void TstStepModel::gradientBucketsHideBehindTheLastBackward()
{
    // tp 4 x dp 2, pp 1, one micro-batch (forward F, backward B): the DP all-reduce of the chunk's P parameters costs
    // c = bytes / rate (everything else is free). Overlapped, its buckets of b parameters leave while the backward
    // runs; only the last one (share f = b / P) waits for the backward's end. Without overlap the whole c follows the
    // backward. The buckets that leave under the backward hold NCCL's 24 CTAs (a share s of the SMs) and slow it by
    // k = s min(c (1 - f), B / (1 - s)) (sim::collectiveContention): the backward ends at B + k, the buckets at
    // c (1 - f), the last bucket after both. So the step shrinks by B + c (1 - f) - max(B + k, c (1 - f)): c (1 - f)
    // - k when the backward covers the buckets, B when they outlast even the slowed backward.
    // Megatron-Core buckets hold max(40M, 1M x dp) = 40M parameters; PyTorch DDP's 25 MiB hold 25 MiB / 4 B of fp32
    // gradients (nanotron).
    struct Step {
        double seconds = 0;
        double backward = 0;
        double reductionSeconds = 0; ///< c
        double bucketShare = 0; ///< f
        double lastBucketBytes = 0;
        double allBytes = 0;
        double bufferBytes = 0;
        double smShare = 0; ///< s
    };
    auto step = [](const std::string& framework, bool overlap, double rate) {
        sim::StepModel model(llama7bOn8({ "run.framework=" + framework, "run.parallelism.tp=4", "run.parallelism.dp=2",
                                 "run.training.global_batch=2",
                                 std::string("run.parallelism.dp_overlap=") + (overlap ? "true" : "false") }),
            [rate](const network::CollectiveRequest& request) {
                return request.kind == CollectiveKind::AllReduce && request.gpus.size() == 2 ? request.bytes / rate
                                                                                             : 0.0;
            });
        const std::vector<graph::StageCost> stages = model.trainingStageCosts();
        const parallel::ChunkPlan& chunk = model.plan().stages[0].chunks[0];
        Step result;
        result.seconds = model.training(false).stepTimeSeconds;
        for (double seconds : stages[0].chunks[0].backward) {
            result.backward += seconds;
        }
        result.reductionSeconds = chunk.gradientReduction.bytes / rate;
        result.bucketShare = (framework == "megatron" ? 40e6 : 25.0 * (1 << 20) / 4) / chunk.parameters;
        result.lastBucketBytes = stages[0].dataParallelLastBucketBytes[0];
        result.allBytes = stages[0].dataParallelBytes[0] + result.lastBucketBytes;
        result.bufferBytes = chunk.gradientReduction.bytes;
        result.smShare = std::min(0.5, double(network::kCollectiveCtas) / model.scenario().hardware.gpu.smCount);
        return result;
    };
    for (const std::string framework : { "megatron", "nanotron" }) {
        for (double rate : { 1e12, 1e9 }) { // a reduction shorter than the backward, and a much longer one
            const Step overlapped = step(framework, true, rate);
            const Step plain = step(framework, false, rate);
            const double f = overlapped.bucketShare;
            QVERIFY(f > 0 && f < 0.05); // 40M (or 6.5M) of ~1.7B parameters per GPU
            QCOMPARE(overlapped.allBytes, overlapped.bufferBytes); // the parts add up to the buffer
            QCOMPARE(overlapped.lastBucketBytes, overlapped.allBytes * f);
            const double c = overlapped.reductionSeconds;
            const double beside = c * (1 - f);
            const double b = overlapped.backward;
            const double k = overlapped.smShare * std::min(beside, b / (1 - overlapped.smShare));
            const double saved = b + beside - std::max(b + k, beside);
            QVERIFY2(std::fabs((plain.seconds - overlapped.seconds) / saved - 1) < 1e-9,
                qPrintable(QStringLiteral("%1 rate %2: saved %3 s, expected %4 s")
                               .arg(QString::fromStdString(framework))
                               .arg(rate)
                               .arg(plain.seconds - overlapped.seconds)
                               .arg(saved)));
        }
    }
}

void TstStepModel::hybridShardingReducesThenAllReducesTheShard()
{
    // ZeRO-1 on dp 8 in shard groups of 2 (Megatron-Core with 4 distributed-optimizer instances), gradients not
    // overlapped: after the backward the chunk's G gradient bytes are reduce-scattered inside the shard group of 2
    // (c1 = G / r1) and the half each rank holds is then all-reduced over its 4 replicas (c2 = G / 2 / r2), one after
    // the other; every other collective is free. The step is longer than with free collectives by exactly c1 + c2,
    // all of it data-parallel time.
    const double r1 = 2e11;
    const double r2 = 5e10;
    auto step = [](bool charged, double rate1, double rate2) {
        sim::StepModel model(
            llama7bOn8({ "run.framework=megatron", "run.parallelism.dp=8", "run.parallelism.zero_stage=1",
                "run.parallelism.dp_shard=2", "run.parallelism.dp_overlap=false", "run.training.global_batch=8" }),
            [charged, rate1, rate2](const network::CollectiveRequest& request) {
                if (!charged) {
                    return 0.0;
                }
                if (request.kind == CollectiveKind::ReduceScatter && request.gpus.size() == 2) {
                    return request.bytes / rate1;
                }
                return request.kind == CollectiveKind::AllReduce && request.gpus.size() == 4 ? request.bytes / rate2
                                                                                             : 0.0;
            });
        return std::make_pair(model.training(false), model.plan().stages[0].chunks[0].gradientReduction.bytes);
    };
    const auto [charged, gradientBytes] = step(true, r1, r2);
    const auto [free, unused] = step(false, r1, r2);
    const double expected = gradientBytes / r1 + gradientBytes / 2 / r2;
    QVERIFY(gradientBytes > 1e9); // fp32 gradients of ~6.7 B parameters
    QVERIFY(chargesExactly(charged, free, expected, graph::TimeClass::DataParallel));
}

void TstStepModel::ulyssesAllToAllsAreWaitedFor()
{
    // Llama-2-7B, tp 2 x cp 2 x dp 2 with Ulysses (cp_comm a2a), one micro-batch of 2,048 tokens per step: each of the
    // 32 layers sends 12 MiB (Q, K, V) and 4 MiB (output) through all-to-alls in its forward, and the same in its
    // backward (dO, then dQ, dK, dV), none of it hidden. Charging only those all-to-alls at r B/s lengthens the step by
    // 32 x 2 x 16 MiB / r exactly, all of it context-parallel time.
    const double rate = 1e10;
    auto step = [rate](bool charged) {
        sim::StepModel model(
            llama7bOn8({ "run.framework=megatron", "run.parallelism.tp=2", "run.parallelism.cp=2",
                "run.parallelism.dp=2", "run.parallelism.cp_comm=a2a", "run.training.global_batch=2" }),
            [charged, rate](const network::CollectiveRequest& request) {
                return charged && request.kind == CollectiveKind::AllToAll ? request.bytes / rate : 0.0;
            });
        return model.training(false);
    };
    const report::TrainingResult charged = step(true);
    const report::TrainingResult free = step(false);
    const double expected = 32 * 2 * 16777216.0 / rate;
    QVERIFY(chargesExactly(charged, free, expected, graph::TimeClass::ContextParallel));
}

void TstStepModel::contextRingStepsTakeSmsFromTheAttentionBesideThem()
{
    // Llama-2-7B, cp 2 x dp 4 with Megatron's p2p ring, one micro-batch of 2,048 tokens: each layer's ring takes 1
    // step forward and 2 backward. At 1 us a step it hides behind the attention core, but NCCL holds 24 of the A100's
    // 108 SMs meanwhile: each step costs 24 / 108 of its length in slower attention, 32 x 3 x 1 us x 24 / 108 in all,
    // charged as context-parallel time.
    auto step = [](double ringStepSeconds) {
        const config::Scenario scenario
            = llama7bOn8({ "run.framework=megatron", "run.parallelism.tp=1", "run.parallelism.cp=2",
                "run.parallelism.dp=4", "run.parallelism.cp_comm=p2p", "run.training.global_batch=4" });
        if (scenario.hardware.gpu.smCount != 108) {
            qFatal("the A100 preset is expected to have 108 SMs");
        }
        sim::StepModel model(scenario, [=](const network::CollectiveRequest& request) {
            return request.kind == CollectiveKind::SendRecv ? ringStepSeconds : 0.0;
        });
        return model.training(false);
    };
    QVERIFY(chargesExactly(step(1e-6), step(0.0), 32 * 3 * 1e-6 * 24 / 108, graph::TimeClass::ContextParallel));
}

void TstStepModel::expertTensorParallelismWaitsForItsGatherAndScatter()
{
    // Mixtral-8x7B (32 MoE layers, top-2 of 8 experts, hidden 4096) on 8 A100s as tp 4 (sequence parallel) x dp 2
    // with ep 2 and etp 2, one micro-batch of 4,096 tokens per replica. A rank routes its own 1,024 tokens' 2 copies
    // (16 MiB in bf16) and receives as many; the experts' all-gather over its 2 etp ranks yields 32 MiB, and their
    // reduce-scatter takes 32 MiB back, in each layer's forward and backward, with nothing to hide behind. Charging
    // only the collectives of the etp group {0, 1} at r B/s lengthens the step by 32 x 2 x 2 x 32 MiB / r exactly,
    // all of it expert-parallel time.
    const double rate = 1e10;
    auto step = [rate](bool charged) {
        sim::StepModel model(
            test::projectLoader().loadScenario("mixtral-8x7b", "hgx-a100-8gpu", "llama-2-7b-train-4xa100",
                { "run.framework=megatron", "run.parallelism.tp=4", "run.parallelism.sp=true", "run.parallelism.dp=2",
                    "run.parallelism.ep=2", "run.parallelism.etp=2", "run.training.seq_length=4096",
                    "run.training.micro_batch=1", "run.training.global_batch=2" }),
            [charged, rate](const network::CollectiveRequest& request) {
                return charged && request.gpus == std::vector<int> { 0, 1 } ? request.bytes / rate : 0.0;
            });
        return model.training(false);
    };
    const double expected = 32 * 2 * 2 * 33554432.0 / rate;
    QVERIFY(chargesExactly(step(true), step(false), expected, graph::TimeClass::ExpertParallel));
}

void TstStepModel::routedExpertGradientsReduceOverTheirOwnGroup()
{
    // Mixtral-8x7B on 8 A100s as dp 8 with ep 4 and ZeRO-1, gradients reduced after the backward (no overlap): a rank
    // holds 2 of the 8 experts whole, E = 32 x 2 x 3 x 4096 x 14336 = 11,274,289,152 parameters, and shares them with
    // rank 4 alone (the same place in the other ep slice). Charging reduce-scatters over {0, 4} at r1 and over all 8
    // ranks at r2 lengthens the step by 4 E / r1 + 4 (P - E) / r2 exactly (fp32 gradients), all data-parallel time:
    // the experts' gradients do not travel over the dense group.
    const double r1 = 2e10;
    const double r2 = 1e11;
    auto step = [&](bool charged) {
        sim::StepModel model(
            test::projectLoader().loadScenario("mixtral-8x7b", "hgx-a100-8gpu", "llama-2-7b-train-4xa100",
                { "run.framework=megatron", "run.parallelism.tp=1", "run.parallelism.dp=8", "run.parallelism.ep=4",
                    "run.parallelism.zero_stage=1", "run.parallelism.dp_overlap=false", "run.training.seq_length=4096",
                    "run.training.micro_batch=1", "run.training.global_batch=8" }),
            [charged, r1, r2](const network::CollectiveRequest& request) {
                if (!charged || request.kind != CollectiveKind::ReduceScatter) {
                    return 0.0;
                }
                if (request.gpus == std::vector<int> { 0, 4 }) {
                    return request.bytes / r1;
                }
                return request.gpus.size() == 8 ? request.bytes / r2 : 0.0;
            });
        return std::make_pair(model.training(false), model.plan().stages[0].parameters);
    };
    const double experts = 32.0 * 2 * 3 * 4096 * 14336;
    const auto [charged, parameters] = step(true);
    const double expected = 4 * experts / r1 + 4 * (parameters - experts) / r2;
    QVERIFY(chargesExactly(charged, step(false).first, expected, graph::TimeClass::DataParallel));
}

void TstStepModel::fsdpUnderPipelineGathersOnceAndReducesAfterTheLastBackward()
{
    // Llama-2-7B under PyTorch FSDP2 on pp 2 x dp 4 (dp innermost: stage 0 is ranks 0-3), 8 micro-batches: the stage's
    // parameters are gathered once per step (not per pass), and its fp32 gradients reduce-scattered once, after the
    // last backward, with no bucket leaving under it (torch.distributed.pipelining's manual post-backward). Stage 0
    // runs the pipeline's last backward, so charging only its reduce-scatter at r B/s lengthens the step by exactly
    // G / r, G its gradient bytes (4 B for each of its parameters). (The breakdown describes the last stage, which
    // waits for stage 0 in the bubble.)
    const double rate = 2e10;
    auto step = [rate](bool charged) {
        sim::StepModel model(llama7bOn8({ "run.framework=pytorch-fsdp", "run.parallelism.pp=2", "run.parallelism.dp=4",
                                 "run.parallelism.fsdp=true", "run.training.global_batch=32" }),
            [charged, rate](const network::CollectiveRequest& request) {
                return charged && request.kind == CollectiveKind::ReduceScatter
                        && request.gpus == std::vector<int> { 0, 1, 2, 3 }
                    ? request.bytes / rate
                    : 0.0;
            });
        return std::make_pair(model.training(false), model.plan());
    };
    const auto [charged, plan] = step(true);
    const parallel::StagePlan& first = plan.stages.at(0);
    QVERIFY(!first.chunks.at(0).parameterGather); // nothing per pass
    QVERIFY(first.parameterGather);
    QCOMPARE(first.parameterGather->bytes, first.parameters * 2); // bf16, once
    QCOMPARE(first.chunks[0].gradientReduction.bytes, first.parameters * 4);
    const double longer = charged.stepTimeSeconds - step(false).first.stepTimeSeconds;
    QVERIFY2(std::fabs(longer / (first.parameters * 4 / rate) - 1) < 1e-9, qPrintable(QString::number(longer)));
    // The 8 micro-batches' unsharded gradients are summed before that one reduction (no expert to leave out of FSDP);
    // at pp 1 each pass's gradients are reduce-scattered as they come and nothing is summed unsharded.
    QCOMPARE(plan.sharding.gradientSum(), (model::GradientSum { 8, true, false }));
    const config::Scenario flat = llama7bOn8({ "run.framework=pytorch-fsdp", "run.parallelism.dp=8",
        "run.parallelism.fsdp=true", "run.training.global_batch=32" });
    QCOMPARE(parallel::planSharding(flat.model, flat.run).gradientSum(), (model::GradientSum { 4, false, false }));
    // Two schedules of 4 (pipeline_flushes 2): torch.distributed.pipelining reduces and reshards after each, so the
    // sums restart (two syncs) and the plan gathers each schedule; deferred to the last (reshard_each_flush false,
    // AutoModel's MoE models since 2025-10-08), one sync per step as above.
    const config::Scenario twoSchedules
        = llama7bOn8({ "run.framework=pytorch-fsdp", "run.parallelism.pp=2", "run.parallelism.dp=4",
            "run.parallelism.fsdp=true", "run.training.global_batch=32", "run.training.pipeline_flushes=2" });
    const parallel::ShardingPlan each = parallel::planSharding(twoSchedules.model, twoSchedules.run);
    QVERIFY(each.gathersEachFlush);
    QCOMPARE(each.gradientSum(), (model::GradientSum { 8, true, false, 2 }));
    config::RunSpec deferred = twoSchedules.run;
    deferred.reshardEachFlush = false;
    const parallel::ShardingPlan once = parallel::planSharding(twoSchedules.model, deferred);
    QVERIFY(!once.gathersEachFlush);
    QCOMPARE(once.gradientSum(), (model::GradientSum { 8, true, false, 1 }));
    // The step graph holds one reduction per stage and schedule.
    sim::StepModel model(twoSchedules);
    model.training(false);
    int reductions = 0;
    const graph::ExecutionGraph graph = graph::buildTrainingStep(model.plan().sharding, model.trainingStageCosts());
    for (const graph::Node& node : graph.nodes()) {
        reductions += node.kind == graph::NodeKind::DataParallel ? 1 : 0;
    }
    QCOMPARE(reductions, 2 * 2);
}

void TstStepModel::hierarchicalContextParallelismWaitsForItsSliceOnly()
{
    // Llama-2-7B, tp 1 x cp 4 x dp 2 with cp_comm a2a+p2p and cp_a2a 2, one micro-batch of 2,048 tokens: a rank's
    // 512 tokens of 32 heads (131,072 B per head) send Q, K, V (96 heads: 12 MiB) and the output (4 MiB) through
    // all-to-alls of two ranks, forward and backward, none hidden: 32 x 2 x 16 MiB / r of context-parallel time when
    // only the all-to-alls cost r B/s. Every request of that kind names the two ranks of a slice.
    const double rate = 1e10;
    auto step = [rate](bool chargeAllToAll, double ringStepSeconds) {
        auto groups = std::make_shared<std::vector<std::vector<int>>>();
        sim::StepModel model(llama7bOn8({ "run.framework=megatron", "run.parallelism.tp=1", "run.parallelism.cp=4",
                                 "run.parallelism.dp=2", "run.parallelism.cp_comm=a2a+p2p", "run.parallelism.cp_a2a=2",
                                 "run.training.global_batch=2" }),
            [=](const network::CollectiveRequest& request) {
                if (request.kind == CollectiveKind::AllToAll) {
                    groups->push_back(request.gpus);
                    return chargeAllToAll ? request.bytes / rate : 0.0;
                }
                return request.kind == CollectiveKind::SendRecv ? ringStepSeconds : 0.0;
            });
        return std::make_pair(model.training(false), *groups);
    };
    const auto [charged, groups] = step(true, 0.0);
    const auto [free, unused] = step(false, 0.0);
    QVERIFY(chargesExactly(charged, free, 32 * 2 * 16777216.0 / rate, graph::TimeClass::ContextParallel));
    QVERIFY(!groups.empty());
    for (const std::vector<int>& group : groups) {
        QCOMPARE(group.size(), size_t(2));
    }
    // The ring of two takes 1 step per layer forward and 2 backward, hidden only behind that layer's attention: at
    // 1 s a step the 32 x 3 steps cost at least 96 s less the whole free step.
    const auto [slowRing, ignored] = step(false, 1.0);
    QVERIFY(slowRing.stepTimeSeconds - free.stepTimeSeconds >= 96.0 - free.stepTimeSeconds);
    QVERIFY(slowRing.stepTimeSeconds - free.stepTimeSeconds <= 96.0 + 1e-9);
}

void TstStepModel::faultsOutsideGpuZerosGroupsCountToo()
{
    // The default workspace (tp 8 x pp 4 x dp 2 on 8 DGX H100 nodes; nodes 0 and 1 hold pipeline stage 0's two data
    // replicas). Halving GPU 9's NVLink link (node 1) slows stage 0's tensor-parallel collectives of that replica just
    // as halving GPU 1's link (node 0, the representative's group) slows them in replica 0: the step waits for the
    // slowest replica, so both faults give the same step, longer than the healthy one. A failed link that cuts GPU 9
    // off is an unreachable network wherever it is.
    const config::ConfigLoader loader = test::projectLoader();
    auto step = [&](const std::string& faults) {
        std::vector<std::string> overrides;
        if (!faults.empty()) {
            overrides.push_back("hardware.faults=" + faults);
        }
        return sim::StepModel(loader.loadWorkspace("llama-3.1-70b-64xh100", overrides)).training(false).stepTimeSeconds;
    };
    const double healthy = step("");
    const double representative = step("[{link: \"nvlink@0:1-s1.0\", health: 0.5}]");
    const double elsewhere = step("[{link: \"nvlink@1:1-s1.0\", health: 0.5}]");
    QVERIFY(representative > healthy * 1.01);
    QCOMPARE(elsewhere, representative);
    QVERIFY_THROWS_EXCEPTION(network::UnreachableError, step("[{link: \"nvlink@1:1-s1.0\", health: 0}]"));
}

void TstStepModel::aStragglerStretchesItsReplicasCompute()
{
    // One A100 node, tp 8, pp 1, dp 1, every collective free: the step is compute and the optimizer only. One GPU
    // of the TP group at slowdown s makes every layer wait for it, so the whole step takes exactly s times as long.
    auto step = [](const std::vector<std::string>& overrides) {
        return sim::StepModel(llama7bOn8(overrides), [](const network::CollectiveRequest&) { return 0.0; })
            .training(false)
            .stepTimeSeconds;
    };
    const std::vector<std::string> tp8
        = { "run.parallelism.tp=8", "run.parallelism.dp=1", "run.training.global_batch=2" };
    std::vector<std::string> slow = tp8;
    slow.push_back("hardware.stragglers=[{gpu: 3, slowdown: 1.5}]");
    QCOMPARE(step(slow), 1.5 * step(tp8));
    // tp 4 x dp 2: GPU 5 is in data-parallel replica 1, GPU 1 in replica 0; the step waits for the slow replica
    // either way, and two slow GPUs of one replica cost what its slowest does.
    const std::vector<std::string> dp2
        = { "run.parallelism.tp=4", "run.parallelism.dp=2", "run.training.global_batch=2" };
    auto withStragglers = [&](const std::string& list) {
        std::vector<std::string> overrides = dp2;
        overrides.push_back("hardware.stragglers=" + list);
        return step(overrides);
    };
    const double replica0 = withStragglers("[{gpu: 1, slowdown: 1.5}]");
    QCOMPARE(withStragglers("[{gpu: 5, slowdown: 1.5}]"), replica0);
    QCOMPARE(withStragglers("[{gpu: 5, slowdown: 1.5}, {gpu: 6, slowdown: 1.2}]"), replica0);
    QCOMPARE(replica0, 1.5 * step(dp2));
    // The result names the slow GPUs of the replica that set the step.
    std::vector<std::string> two = dp2;
    two.push_back("hardware.stragglers=[{gpu: 6, slowdown: 1.2}, {gpu: 5, slowdown: 1.5}]");
    QCOMPARE(sim::StepModel(llama7bOn8(two)).training(false).limitingStragglers, (std::vector<int> { 5, 6 }));
    QVERIFY(sim::StepModel(llama7bOn8(dp2)).training(false).limitingStragglers.empty());
}

void TstStepModel::theResultNamesTheGroupAFaultSlows()
{
    // The default workspace (tp 8 on each node's NVLink switch): GPU 9's NVLink at half rate slows the tensor-parallel
    // group of node 1 (GPUs 8-15), never node 0's group the healthy model costs. Its ring collectives are bound by
    // their slowest link, so they take at most twice the healthy time (less: per-hop latency is unchanged).
    const config::Scenario scenario = test::projectLoader().loadWorkspace(
        "llama-3.1-70b-64xh100", { "hardware.faults=[{link: \"nvlink@1:1-s1.0\", health: 0.5}]" });
    const report::TrainingResult result = sim::StepModel(scenario).training(false);
    QVERIFY(!result.faultLimitedGroups.empty());
    for (const report::FaultLimitedGroup& group : result.faultLimitedGroups) {
        QCOMPARE(group.gpus, (std::vector<int> { 8, 9, 10, 11, 12, 13, 14, 15 }));
        QCOMPARE(group.representative, (std::vector<int> { 0, 1, 2, 3, 4, 5, 6, 7 }));
        const double ratio = group.seconds / group.representativeSeconds;
        QVERIFY2(ratio > 1.5 && ratio <= 2.0, qPrintable(QString::number(ratio)));
    }
    const config::Scenario healthy = test::projectLoader().loadWorkspace("llama-3.1-70b-64xh100");
    QVERIFY(sim::StepModel(healthy).training(false).faultLimitedGroups.empty());
}

void TstStepModel::aStragglerSlowsTheRequestsOfItsReplica()
{
    // Serving Llama-3.1-8B as tp 4 x dp 2 on a free network (collectives cost nothing): GPU 5 at 1.5x slows replica 1
    // only. Its requests see 1.5x the latency (one stage: every kernel of the pass waits for GPU 5); replica 0 keeps
    // the healthy speed, so throughput is half the healthy one plus half of it / 1.5.
    auto serve = [](const std::string& stragglers) {
        std::vector<std::string> overrides = { "run.parallelism.tp=4", "run.parallelism.dp=2" };
        if (!stragglers.empty()) {
            overrides.push_back("hardware.stragglers=" + stragglers);
        }
        const config::Scenario scenario = test::projectLoader().loadScenario(
            "llama-3.1-8b", "hgx-a100-8gpu", "llama-3.3-70b-serve-8xa100", overrides);
        return sim::StepModel(scenario, [](const network::CollectiveRequest&) { return 0.0; }).inference();
    };
    const report::InferenceResult healthy = serve("");
    const report::InferenceResult slow = serve("[{gpu: 5, slowdown: 1.5}]");
    QVERIFY(std::abs(slow.ttftSeconds / healthy.ttftSeconds - 1.5) < 1e-12);
    QVERIFY(std::abs(slow.itlSeconds / healthy.itlSeconds - 1.5) < 1e-12);
    QVERIFY(std::abs(slow.tokensPerSecond / healthy.tokensPerSecond - (0.5 + 0.5 / 1.5)) < 1e-12);
    QCOMPARE(slow.limitingStragglers, std::vector<int> { 5 });
    QVERIFY(healthy.limitingStragglers.empty());
}

void TstStepModel::accumulationScalesLinearlyAtPpOne()
{
    // pp = 1, dp = 1: each extra micro-batch adds one forward and one backward; nothing may be dropped (the reference
    // tool stopped after the first micro-batch). T(4) - T(2) = 2 (T(2) - T(1)).
    auto step = [](int microBatches) {
        sim::StepModel model(llama7bOn8(
            { "hardware.cluster.network[0].size=2", "hardware.cluster.gpus_per_node=2", "run.parallelism.tp=2",
                "run.parallelism.dp=1", "run.training.global_batch=" + std::to_string(microBatches) }));
        return model.training(false).stepTimeSeconds;
    };
    const double t1 = step(1);
    const double t2 = step(2);
    const double t4 = step(4);
    QVERIFY(t2 > t1);
    QVERIFY(std::fabs((t4 - t2) / (2 * (t2 - t1)) - 1) < 1e-9);
}

void TstStepModel::eachPipelineFlushAddsOneWholeSchedule()
{
    // pp 2 (1F1B), 4 micro-batches per schedule, on an infinitely fast network: a step of f schedules runs them one
    // after another, the next starting on stage 0 when it has finished the last (stage 0 drains last in 1F1B), so
    // each further schedule of 4 micro-batches adds the same makespan: T(3) - T(2) = T(2) - T(1). One schedule of all
    // 8 micro-batches fills and drains the pipeline once and is shorter than two of 4.
    auto step = [](int globalBatch, int flushes) {
        sim::StepModel model(llama7bOn8({ "hardware.cluster.network[0].size=2", "hardware.cluster.gpus_per_node=2",
                                 "run.parallelism.tp=1", "run.parallelism.pp=2", "run.parallelism.dp=1",
                                 "run.training.global_batch=" + std::to_string(globalBatch),
                                 "run.training.pipeline_flushes=" + std::to_string(flushes) }),
            [](const network::CollectiveRequest&) { return 0.0; });
        return model.training(false).stepTimeSeconds;
    };
    const double t1 = step(4, 1);
    const double t2 = step(8, 2);
    const double t3 = step(12, 3);
    QVERIFY(std::fabs((t3 - t2) / (t2 - t1) - 1) < 1e-9);
    QVERIFY(step(8, 1) < t2);
    // A flush count that does not divide the micro-batches is a located error.
    const auto diagnostics = test::expectConfigError([] {
        llama7bOn8({ "run.training.global_batch=8", "run.training.pipeline_flushes=3" });
    });
    QVERIFY(!diagnostics.empty() && diagnostics.front().keyPath == "run.training.pipeline_flushes");
}

void TstStepModel::fullRecomputationRunsTheExpertCollectivesAgain()
{
    // The set-up of expertTensorParallelismWaitsForItsGatherAndScatter (Mixtral-8x7B, tp 4 sp x dp 2, ep 2, etp 2)
    // under full recomputation: each layer's backward re-runs the forward, its dispatch, etp pair and combine
    // included, before its own. Charging only the etp group {0, 1} at r B/s lengthens the step by
    // 32 layers x 3 runs (forward, recomputed forward, backward) x 2 collectives x 32 MiB / r; charging only the
    // all-to-alls of the 16 MiB a rank routes, by 32 x (2 + 2 x 2) x 16 MiB / r (4 x without recomputation).
    const double rate = 1e10;
    auto step = [rate](const std::string& recompute, int charged) {
        sim::StepModel model(
            test::projectLoader().loadScenario("mixtral-8x7b", "hgx-a100-8gpu", "llama-2-7b-train-4xa100",
                { "run.framework=megatron", "run.parallelism.tp=4", "run.parallelism.sp=true", "run.parallelism.dp=2",
                    "run.parallelism.ep=2", "run.parallelism.etp=2", "run.training.seq_length=4096",
                    "run.training.micro_batch=1", "run.training.global_batch=2",
                    "run.training.recompute=" + recompute }),
            [charged, rate](const network::CollectiveRequest& request) {
                const bool etp = charged == 1 && request.gpus == std::vector<int> { 0, 1 };
                const bool allToAll = charged == 2 && request.kind == CollectiveKind::AllToAll;
                return etp || allToAll ? request.bytes / rate : 0.0;
            });
        return model.training(false);
    };
    const double mib = 1048576.0;
    QVERIFY(chargesExactly(
        step("full", 1), step("full", 0), 32 * 3 * 2 * 32 * mib / rate, graph::TimeClass::ExpertParallel));
    QVERIFY(
        chargesExactly(step("full", 2), step("full", 0), 32 * 6 * 16 * mib / rate, graph::TimeClass::ExpertParallel));
    QVERIFY(
        chargesExactly(step("none", 2), step("none", 0), 32 * 4 * 16 * mib / rate, graph::TimeClass::ExpertParallel));
}

void TstStepModel::theSharedExpertRunsBesideTheExpertAllToAlls()
{
    // Mixtral-8x7B given one shared expert (width 14,336) on 8 A100s as dp 8 x ep 8, one micro-batch of 4,096 tokens
    // per replica, with Megatron-Core's --moe-shared-expert-overlap: each MoE layer's dispatch runs beside the shared
    // expert's gate/up GEMMs and activation, its combine beside the down projection, in the forward and (their
    // gradients) in the backward.
    auto step = [](double allToAllSeconds, bool overlap) {
        const config::Scenario scenario
            = test::projectLoader().loadScenario("mixtral-8x7b", "hgx-a100-8gpu", "llama-2-7b-train-4xa100",
                { "run.framework=megatron", "model.moe.shared_experts=1", "run.parallelism.tp=1",
                    "run.parallelism.dp=8", "run.parallelism.ep=8", "run.training.seq_length=4096",
                    "run.training.micro_batch=1", "run.training.global_batch=8",
                    std::string("run.parallelism.ep_shared_expert_overlap=") + (overlap ? "true" : "false") });
        sim::StepModel model(scenario, [=](const network::CollectiveRequest& request) {
            return request.kind == CollectiveKind::AllToAll ? allToAllSeconds : 0.0;
        });
        return model.training(false);
    };
    // All-to-alls of 1 us hide behind the milliseconds of the shared expert, which NCCL slows by 24 of the A100's 108
    // SMs while each lasts: 32 layers x 4 windows x 1 us x 24 / 108 (4 x 1 us a layer without the overlap).
    QVERIFY(
        chargesExactly(step(1e-6, true), step(0, true), 32 * 4 * 1e-6 * 24 / 108, graph::TimeClass::ExpertParallel));
    QVERIFY(chargesExactly(step(1e-6, false), step(0, false), 32 * 4 * 1e-6, graph::TimeClass::ExpertParallel));
    // All-to-alls of 1 s outlast it: the whole shared expert, forward and backward, hides behind them.
    const config::Scenario scenario
        = test::projectLoader().loadScenario("mixtral-8x7b", "hgx-a100-8gpu", "llama-2-7b-train-4xa100",
            { "run.framework=megatron", "model.moe.shared_experts=1", "run.parallelism.tp=1", "run.parallelism.dp=8",
                "run.parallelism.ep=8", "run.training.seq_length=4096", "run.training.micro_batch=1",
                "run.training.global_batch=8" });
    const double shared = moeLayerSeconds(
        scenario, [](const model::Operator& op) { return op.name.starts_with("moe.shared_expert_"); });
    QVERIFY(shared > 1e-3);
    const double hidden = step(1.0, false).stepTimeSeconds - step(1.0, true).stepTimeSeconds;
    QVERIFY2(std::fabs(hidden / (32 * shared) - 1) < 1e-9, qPrintable(QString::number(hidden / (32 * shared))));
}

void TstStepModel::theDispatchersSmsSetTheSlowdownBesideIt()
{
    // The shared-expert overlap of the test above with all-to-alls of 1 us, each hidden behind the shared expert and
    // slowing it by the share of the A100's 108 SMs the dispatcher holds: 32 layers x 4 windows x 1 us x SMs / 108.
    // NCCL's 24 CTAs by default, DeepEP's 20 (Megatron-Core's moe_deepep_num_sms), or run.parallelism.ep_comm_sms.
    auto step = [](double allToAllSeconds, std::vector<std::string> extra) {
        std::vector<std::string> overrides
            = { "run.framework=megatron", "model.moe.shared_experts=1", "run.parallelism.tp=1", "run.parallelism.dp=8",
                  "run.parallelism.ep=8", "run.training.seq_length=4096", "run.training.micro_batch=1",
                  "run.training.global_batch=8", "run.parallelism.ep_shared_expert_overlap=true" };
        overrides.insert(overrides.end(), extra.begin(), extra.end());
        const config::Scenario scenario
            = test::projectLoader().loadScenario("mixtral-8x7b", "hgx-a100-8gpu", "llama-2-7b-train-4xa100", overrides);
        sim::StepModel model(scenario, [=](const network::CollectiveRequest& request) {
            return request.kind == CollectiveKind::AllToAll ? allToAllSeconds : 0.0;
        });
        return model.training(false);
    };
    const std::pair<std::vector<std::string>, double> cases[] = {
        { {}, 24 },
        { { "run.parallelism.ep_comm_sms=24" }, 24 },
        { { "run.parallelism.ep_dispatcher=deepep" }, 20 },
        { { "run.parallelism.ep_comm_sms=54" }, 54 },
        { { "run.parallelism.ep_dispatcher=deepep", "run.parallelism.ep_comm_sms=32" }, 32 },
    };
    for (const auto& [extra, sms] : cases) {
        QVERIFY2(chargesExactly(
                     step(1e-6, extra), step(0, extra), 32 * 4 * 1e-6 * sms / 108, graph::TimeClass::ExpertParallel),
            qPrintable(QString::number(sms)));
    }
    // Combined 1F1B, two micro-batches (F0, then F1 beside B0, then B1): F0 and B1 wait for their two all-to-alls of
    // 1 us a layer; in the pair each of the four hides behind a piece of the other pass's compute and slows it by the
    // dispatcher's share: 32 layers x (4 x 1 us + 4 x 1 us x SMs / 108).
    auto combined = [](double allToAllSeconds, const char* sms) {
        const config::Scenario scenario
            = test::projectLoader().loadScenario("mixtral-8x7b", "hgx-a100-8gpu", "llama-2-7b-train-4xa100",
                { "run.framework=megatron", "run.parallelism.tp=1", "run.parallelism.dp=8", "run.parallelism.ep=8",
                    "run.training.seq_length=4096", "run.training.micro_batch=1", "run.training.global_batch=16",
                    "run.training.recompute=none", "run.parallelism.ep_a2a_overlap=true",
                    std::string("run.parallelism.ep_comm_sms=") + sms });
        sim::StepModel model(scenario, [=](const network::CollectiveRequest& request) {
            return request.kind == CollectiveKind::AllToAll ? allToAllSeconds : 0.0;
        });
        return model.training(false).stepTimeSeconds;
    };
    for (const int sms : { 24, 64 }) {
        const std::string text = std::to_string(sms);
        const double longer = combined(1e-6, text.c_str()) - combined(0, text.c_str());
        const double expected = 32 * (4 * 1e-6 + 4 * 1e-6 * sms / 108);
        QVERIFY2(std::fabs(longer / expected - 1) < 1e-9, qPrintable(QString::number(longer / expected)));
    }
}

void TstStepModel::expertAllToAllsHideBehindAnotherMicroBatch()
{
    // Mixtral-8x7B (32 MoE layers) on 8 A100s as dp 8 x ep 8, two micro-batches per replica, no pipeline: with
    // Megatron-Core's --overlap-moe-expert-parallel-comm the step runs F0, then F1 beside B0 layer by layer, then B1.
    // All-to-alls of 1 s dwarf a layer's milliseconds of compute, so in the co-scheduled step each layer pair takes
    // its four all-to-alls and nothing more: every kernel of F1 and B0 hides behind them (slowed by NCCL's SMs, still
    // far shorter). The step is shorter by exactly 32 layers x the compute of one MoE layer's forward and backward.
    auto scenarioWith = [](bool overlap) {
        return test::projectLoader().loadScenario("mixtral-8x7b", "hgx-a100-8gpu", "llama-2-7b-train-4xa100",
            { "run.framework=megatron", "run.parallelism.tp=1", "run.parallelism.dp=8", "run.parallelism.ep=8",
                "run.training.seq_length=4096", "run.training.micro_batch=1", "run.training.global_batch=16",
                "run.training.recompute=none",
                std::string("run.parallelism.ep_a2a_overlap=") + (overlap ? "true" : "false") });
    };
    auto step = [&](bool overlap, double allToAllSeconds) {
        sim::StepModel model(scenarioWith(overlap), [=](const network::CollectiveRequest& request) {
            return request.kind == CollectiveKind::AllToAll ? allToAllSeconds : 0.0;
        });
        return model.training(false).stepTimeSeconds;
    };
    const config::Scenario scenario = scenarioWith(false);
    const double layerCompute = moeLayerSeconds(scenario, [](const model::Operator&) { return true; });
    QVERIFY(layerCompute > 1e-3 && layerCompute < 0.1);
    const double hidden = step(false, 1.0) - step(true, 1.0);
    QVERIFY2(
        std::fabs(hidden / (32 * layerCompute) - 1) < 1e-9, qPrintable(QString::number(hidden / (32 * layerCompute))));
    // With free all-to-alls there is nothing to hide and, without a pipeline, nothing else changes.
    QVERIFY(std::fabs(step(true, 0) / step(false, 0) - 1) < 1e-12);
}

void TstStepModel::servingAllReducesRunOnTheRunsLibrary()
{
    // Llama-2-7B at tp 8 on the HGX A100 switch (300 GB/s at 0.775 protocol efficiency, 600 ns GPU-switch-GPU, NCCL's
    // measured ring step n = 1.41 us): every layer all-reduces its hidden states twice. A decode step's 8 KiB
    // all-reduce (4,096 x 2 B) costs a serving engine's one-shot kernel 2 (7/8 S / B + a); NCCL's ring 14 (S / 8 / B +
    // n). The 200-token prefill's 1.6 MB one costs either 1.75 S / B in bandwidth, so they differ by 14 n - 2 a. The
    // launch is the same in both.
    auto served = [](const char* library) {
        return sim::StepModel(test::projectLoader().loadScenario("llama-2-7b", "hgx-a100-8gpu", "llama-serve-a100",
                                  { "run.parallelism.tp=8", "run.parallelism.collectives=" + std::string(library) }))
            .inference(0);
    };
    const report::InferenceResult custom = served("custom");
    const report::InferenceResult nccl = served("nccl");
    const double bandwidth = 300e9 * 0.775;
    const double latency = 600e-9;
    const double ncclStep = 1.41e-6;
    const double decode = 14 * (1024 / bandwidth + ncclStep) - 2 * (0.875 * 8192 / bandwidth + latency);
    const double perStep = 2 * 32 * decode;
    QVERIFY2(std::fabs((nccl.itlSeconds - custom.itlSeconds) / perStep - 1) < 1e-9,
        qPrintable(QString::number(nccl.itlSeconds - custom.itlSeconds, 'g', 12)));
    const double prefill = 2 * 32 * (14 * ncclStep - 2 * latency);
    QVERIFY2(std::fabs((nccl.ttftSeconds - custom.ttftSeconds) / prefill - 1) < 1e-9,
        qPrintable(QString::number(nccl.ttftSeconds - custom.ttftSeconds, 'g', 12)));
}

void TstStepModel::decodeSamplingErrorIsBounded()
{
    // Integrating 9 sampled decode steps must stay within 0.1% of timing all 512.
    sim::StepModel model(test::projectLoader().loadScenario("llama-3.1-8b", "a100-sxm4-80gb", "llama-serve-a100",
        { "run.inference.batch=8", "run.inference.prompt_length=1500", "run.inference.decode_length=512" }));
    const double sampled = model.inference(9).itlSeconds;
    const double exact = model.inference(0).itlSeconds;
    QVERIFY2(std::fabs(sampled / exact - 1) < 1e-3, qPrintable(QString::number(sampled / exact - 1)));
}

void TstStepModel::idealNetworkRemovesExactlyTheCommunication()
{
    // tp 8, pp 1, dp 1, no overlap: the step is its compute, its tensor-parallel all-reduces and the optimizer one
    // after another, so on an infinitely fast network it is shorter by exactly the tp_comm of the breakdown.
    const config::Scenario scenario
        = llama7bOn8({ "run.parallelism.tp=8", "run.parallelism.dp=1", "run.training.global_batch=4" });
    const report::TrainingResult analytical = sim::StepModel(scenario).training(false);
    const report::TrainingResult ideal = sim::StepModel(scenario, sim::NetworkBackend::Ideal).training(false);
    const double tensor = analytical.breakdown.parts[static_cast<size_t>(graph::TimeClass::TensorParallel)];
    QVERIFY(tensor > 0);
    QVERIFY(
        std::fabs(ideal.stepTimeSeconds - (analytical.stepTimeSeconds - tensor)) < 1e-12 * analytical.stepTimeSeconds);
    QCOMPARE(ideal.breakdown.parts[static_cast<size_t>(graph::TimeClass::TensorParallel)], 0.0);
    QVERIFY(ideal.mfu > analytical.mfu && ideal.mfu <= 1);
}

namespace {

/// A small nanotron layer on 8 A100s (tp 8, one micro-batch of 256 tokens, every collective free): microseconds of
/// GPU work per pass against its host's ~1 ms of calls (model/hostdispatch.h).
std::vector<std::string> smallLayer(const std::string& framework, int microBatch)
{
    return { "run.framework=" + framework, "run.parallelism.tp=8", "run.parallelism.dp=1",
        "run.training.global_batch=" + std::to_string(microBatch),
        "run.training.micro_batch=" + std::to_string(microBatch), "model.num_layers=2", "model.hidden_size=512",
        "model.num_heads=8", "model.num_kv_heads=8", "model.head_dim=64", "model.ffn_size=1376",
        "run.training.seq_length=256" };
}

double gpuWork(const graph::TimeBreakdown& parts)
{
    double seconds = 0;
    for (int i = 0; i < graph::kTimeClassCount; ++i) {
        seconds += graph::isGpuWork(static_cast<graph::TimeClass>(i)) ? parts[static_cast<size_t>(i)] : 0.0;
    }
    return seconds;
}

double total(const graph::TimeBreakdown& parts)
{
    return std::accumulate(parts.begin(), parts.end(), 0.0);
}

const auto kFree = [](const network::CollectiveRequest&) { return 0.0; };

} // namespace

void TstStepModel::aHostBoundLayerWaitsForItsHost()
{
    // The GPU cannot run a kernel its host has not issued: nanotron's small layer lasts exactly its host's dispatch
    // (908 us forward, 1,155 us backward at tp 8, tst_hostdispatch), and the wait is that less the GPU's own work.
    const config::Scenario small = llama7bOn8(smallLayer("nanotron", 1));
    const model::LayerHostDispatch host = model::layerHostDispatch(small.run, false);
    sim::StepModel model(small, kFree);
    const sim::LayerTimes& pass = model.layerTimes(0, false);
    const auto wait = static_cast<size_t>(graph::TimeClass::HostDispatch);
    QVERIFY2(gpuWork(pass.forward) < host.forwardSeconds / 4, qPrintable(QString::number(gpuWork(pass.forward))));
    QVERIFY(std::fabs(total(pass.forward) - host.forwardSeconds) < 1e-15);
    QVERIFY(std::fabs(total(pass.backward) - host.backwardSeconds) < 1e-15);
    QVERIFY(std::fabs(pass.forward[wait] - (host.forwardSeconds - gpuWork(pass.forward))) < 1e-15);
    // Megatron's host-side work is not derived: the same layer is its GPU work alone.
    sim::StepModel megatron(llama7bOn8(smallLayer("megatron", 1)), kFree);
    QCOMPARE(megatron.layerTimes(0, false).forward[wait], 0.0);
    // Wide enough (Llama-2-7B's own layer, 16 x 2,048 tokens), the GPU's work outlasts the host's and nothing waits.
    sim::StepModel wide(llama7bOn8({ "run.framework=nanotron", "run.parallelism.tp=8", "run.parallelism.dp=1",
                            "run.training.global_batch=16", "run.training.micro_batch=16" }),
        kFree);
    QVERIFY(gpuWork(wide.layerTimes(0, false).forward) > host.forwardSeconds);
    QCOMPARE(wide.layerTimes(0, false).forward[wait], 0.0);
    QCOMPARE(wide.layerTimes(0, false).backward[wait], 0.0);
}

void TstStepModel::aSlowGpuCatchesUpWithItsHost()
{
    // One micro-batch, pp 1, every collective free: the step is the chunk's forward, its backward and the optimizer.
    // A GPU s times slower stretches the GPU work; each pass takes the longer of its host's dispatch (the healthy
    // pass, where it waited) and the slower work: max(H, s G) with G the pass's GPU work; the optimizer takes s times.
    const config::Scenario healthy = llama7bOn8(smallLayer("nanotron", 1));
    const std::vector<graph::StageCost> stages = sim::StepModel(healthy, kFree).trainingStageCosts();
    QCOMPARE(stages.size(), size_t(1));
    const graph::ChunkCost& chunk = stages[0].chunks[0];
    const auto wait = static_cast<size_t>(graph::TimeClass::HostDispatch);
    QVERIFY(chunk.forward[wait] > 0 && chunk.backward[wait] > 0);
    for (double s : { 1.5, 4.0, 100.0 }) {
        std::vector<std::string> overrides = smallLayer("nanotron", 1);
        overrides.push_back("hardware.stragglers=[{gpu: 3, slowdown: " + std::to_string(s) + "}]");
        const double step = sim::StepModel(llama7bOn8(overrides), kFree).training(false).stepTimeSeconds;
        const double expected = std::max(total(chunk.forward), s * gpuWork(chunk.forward))
            + std::max(total(chunk.backward), s * gpuWork(chunk.backward)) + s * stages[0].optimizerSeconds;
        QVERIFY2(std::fabs(step / expected - 1) < 1e-9,
            qPrintable(QStringLiteral("slowdown %1: step %2 s, expected %3 s").arg(s).arg(step).arg(expected)));
    }
}

QTEST_GUILESS_MAIN(TstStepModel)
#include "tst_stepmodel.moc"
