// SPDX-License-Identifier: GPL-3.0-or-later
// The step plan: the collectives each parallel axis implies, with bytes, groups and counts derived by hand.
#include "memory/memorymodel.h"
#include "model/layeroperators.h"
#include "model/modelstats.h"
#include "network/analyticalnetwork.h"
#include "parallel/expertdispatch.h"
#include "parallel/shardingplan.h"
#include "parallel/stepplan.h"
#include "testutils.h"

#include <QTest>

#include <algorithm>
#include <cmath>

using namespace rapid;
using network::CollectiveKind;
using parallel::Axis;

namespace {

using test::llama7bOn8;

/// Mixtral-8x7B on 16 H100s (2 nodes), Megatron, one micro-batch of 4,096 tokens, with @p parallelism.
config::Scenario mixtralOn16(const std::string& parallelism)
{
    return test::projectLoader().loadScenario("mixtral-8x7b", "dgx-h100-superpod", "llama-2-7b-train-4xa100",
        { "hardware.cluster.network[ib].size=2", "run.framework=megatron", "run.training.seq_length=4096",
            "run.training.micro_batch=1", "run.training.global_batch=4", "run.parallelism=" + parallelism });
}

} // namespace

class TstStepPlan : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void tensorParallelLayerCollectives();
    void shardedParametersAddUpToTheModel();
    void costBalancedFrameworksSplitTimingAndMemoryAlike();
    void pipelineSendsAndGradientReductions();
    void zero3GathersEveryChunk();
    void fp8AllGatherMovesLinearWeightsInOneByte();
    void contextParallelRanksShareTheirGradients();
    void hybridShardingAllReducesTheShardOverItsReplicas();
    void foldedExpertsSendTheirOwnTokens();
    void expertTensorParallelismGathersTheRoutedTokens();
    void expertPlacementErrorsNameTheKey();
    void hybridShardingRefusesGroupsItCannotForm();
    void contextParallelVariantsMoveTheirBytes();
    void hierarchicalContextParallelismSplitsBothExchanges();
    void deepEpSendsOneCopyPerGpuAndNode();
    void consecutiveRoutingReachesOneOrTwoGpus();
    void routedExpertsReduceOverTheirOwnReplicas();
};

void TstStepPlan::deepEpSendsOneCopyPerGpuAndNode()
{
    // deepEpShare by hand: 256 experts on 8 nodes, top-8 (DeepSeek-V3 on 64 GPUs): a node holds none of a token's
    // experts with probability prod_{i<8} (224 - i) / (256 - i) = 0.33817, so a token reaches 7 x 0.66183 = 4.633
    // remote nodes instead of 8 x 7/8 = 7 remote copies: share 0.66183. One expert per destination: no saving.
    QVERIFY(std::abs(parallel::deepEpShare({ 256, 8, 1, 1 }, 8) - 0.66183150) < 1e-7);
    QCOMPARE(parallel::deepEpShare({ 16, 2, 1, 1 }, 16), 1.0);
    QCOMPARE(parallel::deepEpShare({ 16, 2, 1, 1 }, 1), 1.0);
    // DeepSeek-V3's group-limited router (8 groups of 32 experts, a token's 8 experts from at most 4 groups): a node
    // holds one group, chosen with probability C(7,3)/C(8,4) = 1/2; then none of the 8 experts drawn from the 128 of
    // the 4 groups is among its 32 with probability prod_{i<8} (96 - i) / (128 - i) = 0.0927473, so
    // p = 1/2 + 1/2 x 0.0927473 = 0.5463736 and the share 7 (1 - p) / 7 = 0.4536264 (unlimited: 0.66183). Per GPU
    // (64 GPUs of 4 experts, 8 per group): p = 1/2 + 1/2 x prod_{i<8} (124 - i) / (128 - i) = 0.8850098, share
    // 63 (1 - p) / (8 x 63/64) = 0.9199213. No limit (groups_per_token = groups) is the unlimited formula.
    QVERIFY(std::abs(parallel::deepEpShare({ 256, 8, 8, 4 }, 8) - 0.4536264) < 1e-7);
    QVERIFY(std::abs(parallel::deepEpShare({ 256, 8, 8, 4 }, 64) - 0.9199213) < 1e-7);
    QCOMPARE(parallel::deepEpShare({ 256, 8, 8, 8 }, 8), parallel::deepEpShare({ 256, 8, 1, 1 }, 8));
    // Groups that cannot hold a token's experts, or more groups per token than there are, are located errors.
    for (const char* bad : { "model.moe.groups_per_token=9", "model.moe.expert_groups=7",
             "model.moe.groups_per_token=0", "model.moe.expert_groups=256" }) {
        const auto diagnostics = test::expectConfigError([&] {
            test::projectLoader().loadScenario("deepseek-v3", "dgx-h100-superpod", "automodel-fsdp2-train", { bad });
        });
        QVERIFY2(!diagnostics.empty() && diagnostics.front().keyPath.starts_with("model.moe."), bad);
    }
    // Mixtral with 16 experts, top-2, ep 16 over two DGX-H100 nodes: one expert per GPU, so the dispatch sends
    // s x b x k x h x 2 B = 4096 x 1 x 2 x 4096 x 2 = 67,108,864 B per rank as before; between the nodes a token
    // crosses once if either node holds one of its experts: P(the other node holds none) = 8/16 x 7/15 = 7/30, so
    // 23/30 of a crossing per token against k x 1/2 = 1 copy: the InfiniBand phase carries 23/30 of its bytes.
    const config::Scenario scenario
        = test::projectLoader().loadScenario("mixtral-8x7b", "dgx-h100-superpod", "automodel-fsdp2-train",
            { "hardware.cluster.network[ib].size=2", "model.moe.num_experts=16", "run.training.seq_length=4096",
                "run.training.global_batch=16",
                "run.parallelism={fsdp: true, dp: 16, ep: 16, ep_dispatcher: deepep, mapping: {tp: nvlink}}" });
    const parallel::StepPlan plan = parallel::planStep(scenario);
    const parallel::PlannedCollective& dispatch = *plan.stages[0].layer.expertAllToAll;
    QCOMPARE(dispatch.group.size(), size_t(16));
    QCOMPARE(dispatch.bytes, 67108864.0);
    QVERIFY(std::abs(dispatch.outerAxisShare - 23.0 / 30) < 1e-12);
    // The analytical network composes it NVLink first with all the bytes, then InfiniBand with 23/30 of them.
    const network::AnalyticalNetwork network(scenario.hardware);
    std::vector<network::CollectivePhase> phases;
    network.time(dispatch.request(), &phases);
    QCOMPARE(phases.size(), size_t(2));
    QCOMPARE(phases[0].bytes, 67108864.0);
    QVERIFY(std::abs(phases[1].bytes - 67108864.0 * 23 / 30) < 1e-3);
    // NCCL's all-to-all (the default dispatcher) sends every copy.
    const parallel::StepPlan nccl = parallel::planStep(test::projectLoader().loadScenario("mixtral-8x7b",
        "dgx-h100-superpod", "automodel-fsdp2-train",
        { "hardware.cluster.network[ib].size=2", "model.moe.num_experts=16", "run.training.seq_length=4096",
            "run.training.global_batch=16", "run.parallelism={fsdp: true, dp: 16, ep: 16, mapping: {tp: nvlink}}" }));
    QCOMPARE(nccl.stages[0].layer.expertAllToAll->outerAxisShare, 1.0);
    // A busiest rank receiving 1.5x the balanced share (ep_imbalance) is what the all-to-all waits for: 1.5 x the
    // 4096 x 2 x 4096 x 2 = 67,108,864 B, 100,663,296 B; a capacity factor of 1.2 caps it at 80,530,636.8 B.
    for (const auto& [extra, expected] : std::vector<std::pair<std::string, double>> {
             { "ep_imbalance: 1.5", 100663296.0 }, { "ep_imbalance: 1.5, ep_capacity_factor: 1.2", 80530636.8 } }) {
        const parallel::StepPlan skewed = parallel::planStep(
            test::projectLoader().loadScenario("mixtral-8x7b", "dgx-h100-superpod", "automodel-fsdp2-train",
                { "hardware.cluster.network[ib].size=2", "model.moe.num_experts=16", "run.training.seq_length=4096",
                    "run.training.global_batch=16",
                    "run.parallelism={fsdp: true, dp: 16, ep: 16, " + extra + ", mapping: {tp: nvlink}}" }));
        QVERIFY(std::abs(skewed.stages[0].layer.expertAllToAll->bytes - expected) < 1e-3);
    }
    // Imbalance needs expert parallelism, and no rank can receive more than every rank's tokens.
    for (const char* bad : { "run.parallelism.ep_imbalance=2", "run.parallelism.ep_capacity_factor=1.5" }) {
        const auto diagnostics = test::expectConfigError([&] {
            test::projectLoader().loadScenario("llama-3.1-8b", "hgx-h100-8gpu", "automodel-fsdp2-train", { bad });
        });
        QVERIFY2(!diagnostics.empty() && diagnostics.front().keyPath.starts_with("run.parallelism.ep_"), bad);
    }
    const auto tooSkewed = test::expectConfigError([] {
        test::projectLoader().loadScenario("mixtral-8x7b", "hgx-h100-8gpu", "automodel-fsdp2-train",
            { "run.parallelism={fsdp: true, dp: 8, ep: 4, ep_imbalance: 5}" });
    });
    QVERIFY(!tooSkewed.empty() && tooSkewed.front().keyPath == "run.parallelism.ep_imbalance");
}

void TstStepPlan::consecutiveRoutingReachesOneOrTwoGpus()
{
    // AutoModel's FakeBalancedGate gives token t the experts 8t .. 8t + 7 (mod E). DeepSeek-V3 (256 experts) on 64
    // GPUs of 4: the block starts at a multiple of 8, so it covers exactly 2 GPUs: 2 / 8 = 0.25 of the per-expert
    // copies; on 8 nodes of 32 experts it never leaves one node: 1 / 8.
    QCOMPARE(parallel::deepEpShare({ 256, 8, 1, 1, true }, 64), 0.25);
    QCOMPARE(parallel::deepEpShare({ 256, 8, 1, 1, true }, 8), 0.125);
    // The groups play no part: the gate ignores them.
    QCOMPARE(parallel::deepEpShare({ 256, 8, 8, 4, true }, 64), 0.25);
    // Qwen3-30B-A3B (128 experts, top 8) on 8 GPUs of 16: one GPU per token, 1/8.
    QCOMPARE(parallel::deepEpShare({ 128, 8, 1, 1, true }, 8), 0.125);
    // Kimi K2 (384 experts, top 8) on 32 GPUs of 12: starts 0, 8, 16 (mod 24) cover 1, 2 and 1 GPUs (0-7; 8-11 and
    // 12-15; 16-23): 4/3 GPUs, a share of 1/6; its 4 nodes of 96 experts are never straddled: 1/8.
    QVERIFY(std::abs(parallel::deepEpShare({ 384, 8, 1, 1, true }, 32) - 1.0 / 6) < 1e-12);
    QCOMPARE(parallel::deepEpShare({ 384, 8, 1, 1, true }, 4), 0.125);
    // Top 3 of 12 experts on 4 GPUs of 3: starts 0, 3, 6, 9 each fill one GPU: 1/3. On 8 GPUs (12 does not divide
    // by 8) the spread formula stands.
    QVERIFY(std::abs(parallel::deepEpShare({ 12, 3, 1, 1, true }, 4) - 1.0 / 3) < 1e-12);
    QCOMPARE(parallel::deepEpShare({ 12, 3, 1, 1, true }, 8), parallel::deepEpShare({ 12, 3, 1, 1 }, 8));

    // In a plan: DeepSeek-V3 on 8 DGX-H100 nodes, ep 64, DeepEP, consecutive routing. Each rank sends its 4096 tokens
    // x 8 experts x 7168 x 2 B = 469,762,048 B per-expert bytes x 0.25 = 117,440,512 B; of it the InfiniBand phase
    // carries (1/8) / (1/4) = one half.
    const auto load = [](const std::string& routing, const std::string& recompute) {
        return parallel::planStep(
            test::projectLoader().loadScenario("deepseek-v3", "dgx-h100-superpod", "automodel-fsdp2-train",
                { "hardware.cluster.network[ib].size=8", "run.training.seq_length=4096", "run.training.global_batch=64",
                    "run.training.recompute=" + recompute, "model.moe.groups_per_token=8",
                    "run.parallelism={fsdp: true, dp: 64, ep: 64, ep_dispatcher: deepep, ep_routing: " + routing
                        + ", mapping: {tp: nvlink}}" }));
    };
    const parallel::StepPlan consecutive = load("consecutive", "none");
    const parallel::PlannedCollective& dispatch = *consecutive.stages[0].layer.expertAllToAll;
    QCOMPARE(dispatch.bytes, 117440512.0);
    QCOMPARE(dispatch.outerAxisShare, 0.5);
    QCOMPARE(consecutive.stages[0].layer.expertPassesBackward, 1);
    // Spread routing over the same GPUs: prod_{i<8} (252 - i) / (256 - i) of a GPU's tokens miss it, share
    // 63 (1 - p) / (8 x 63/64) with p = 0.8798..., as deepEpSendsOneCopyPerGpuAndNode derives.
    const parallel::StepPlan spread = load("spread", "none");
    QCOMPARE(spread.stages[0].layer.expertAllToAll->bytes, 469762048.0 * parallel::deepEpShare({ 256, 8, 8, 8 }, 64));
    // Full recomputation runs the layer's expert collectives in its backward twice: the re-run forward's as well.
    QCOMPARE(load("consecutive", "full").stages[0].layer.expertPassesBackward, 2);
    // An unknown pattern names its key.
    const auto diagnostics = test::expectConfigError([] {
        test::projectLoader().loadScenario(
            "mixtral-8x7b", "hgx-h100-8gpu", "automodel-fsdp2-train", { "run.parallelism.ep_routing=roundrobin" });
    });
    QVERIFY(!diagnostics.empty() && diagnostics.front().keyPath == "run.parallelism.ep_routing");
}

void TstStepPlan::contextParallelRanksShareTheirGradients()
{
    // cp 2 x dp 4 on 8 GPUs. Each cp rank runs the whole
    // layer on half of a sequence, so the gradient of rank 0 is the sum over ranks {0..7}: the reduction group is
    // dp x cp = all 8 ranks, not rank 0's dp group of 4. ZeRO-1 shards the optimizer over those 8 ranks:
    // P / 8 parameters each.
    const config::Scenario scenario = llama7bOn8({ "run.parallelism.cp=2", "run.parallelism.dp=4",
        "run.parallelism.zero_stage=1", "run.training.global_batch=4" });
    const parallel::StepPlan plan = parallel::planStep(scenario);
    QCOMPARE(plan.placement.groupOf(parallel::Axis::Dp, 0).size(), size_t(4));
    const parallel::PlannedCollective& reduction = plan.stages[0].chunks[0].gradientReduction;
    QCOMPARE(reduction.group, (std::vector<int> { 0, 1, 2, 3, 4, 5, 6, 7 }));
    QCOMPARE(reduction.kind, network::CollectiveKind::ReduceScatter);
    QCOMPARE(plan.stages[0].optimizerParameters, plan.stages[0].parameters / 8);
    QCOMPARE(plan.sharding.weightReplicas, 8);
    QCOMPARE(plan.sharding.optimizerShards(), 8.0);
    // The ZeRO-1 gather of the updated parameters spans the same ranks.
    QVERIFY(plan.stages[0].parameterGather);
    QCOMPARE(plan.stages[0].parameterGather->group.size(), size_t(8));
}

void TstStepPlan::hybridShardingAllReducesTheShardOverItsReplicas()
{
    // FSDP on dp 8 with shard groups of 2 (HSDP; tp 1, so dp has stride 1): rank 0 shards with {0, 1}, and holds the
    // same shard as ranks 2, 4 and 6. Each pass gathers the whole model's bf16 parameters (2 P bytes) inside {0, 1};
    // the backward reduce-scatters the fp32 gradients (4 B each here) inside {0, 1}, then all-reduces its half over
    // {0, 2, 4, 6}; the optimizer updates P / 2 parameters and a rank holds half of every sharded state.
    const config::Scenario hsdp = llama7bOn8({ "run.parallelism.dp=8", "run.parallelism.fsdp=true",
        "run.parallelism.dp_shard=2", "run.training.global_batch=8" });
    const parallel::StepPlan plan = parallel::planStep(hsdp);
    QCOMPARE(plan.placement.weightShardGroup(0), (std::vector<int> { 0, 1 }));
    QCOMPARE(plan.placement.shardReplicaGroup(0), (std::vector<int> { 0, 2, 4, 6 }));
    QCOMPARE(plan.placement.weightShardGroup(5), (std::vector<int> { 4, 5 }));
    QCOMPARE(plan.placement.shardReplicaGroup(5), (std::vector<int> { 1, 3, 5, 7 }));
    const parallel::StagePlan& stage = plan.stages.at(0);
    const double parameters = stage.chunks[0].parameters;
    const double gradientBytes = config::bytesPerElement(hsdp.run.precision.gradients);
    QCOMPARE(stage.chunks[0].parameterGather->group, (std::vector<int> { 0, 1 }));
    QCOMPARE(stage.chunks[0].gradientReduction.kind, CollectiveKind::ReduceScatter);
    QCOMPARE(stage.chunks[0].gradientReduction.group, (std::vector<int> { 0, 1 }));
    QCOMPARE(stage.chunks[0].gradientReduction.bytes, parameters * gradientBytes);
    QVERIFY(stage.chunks[0].replicaReduction);
    QCOMPARE(stage.chunks[0].replicaReduction->kind, CollectiveKind::AllReduce);
    QCOMPARE(stage.chunks[0].replicaReduction->group, (std::vector<int> { 0, 2, 4, 6 }));
    QCOMPARE(stage.chunks[0].replicaReduction->bytes, parameters * gradientBytes / 2);
    // The other shard replicas of stage 0 ({1, 3, 5, 7}) are one rank further.
    QCOMPARE(plan.withReplicas(*stage.chunks[0].replicaReduction).replicaOffsets, std::vector<int> { 1 });
    QCOMPARE(stage.optimizerParameters, parameters / 2);
    QCOMPARE(plan.sharding.weightShards(), 2.0);
    QCOMPARE(plan.sharding.shardReplicas(), 4);
    // Memory: the fp32 master weights (FSDP's sharded parameters) are sharded over 2 ranks, not 8.
    const memory::MemoryEstimate hybrid = memory::estimateMemory(hsdp.model, hsdp.hardware.gpu, hsdp.run);
    const memory::MemoryEstimate full = memory::estimateMemory(hsdp.model, hsdp.hardware.gpu,
        llama7bOn8({ "run.parallelism.dp=8", "run.parallelism.fsdp=true", "run.training.global_batch=8" }).run);
    const auto weights = static_cast<size_t>(memory::MemoryCategory::MasterWeights);
    QVERIFY(std::fabs(hybrid.stages[0].breakdown[weights] / (4 * full.stages[0].breakdown[weights]) - 1) < 1e-6);

    // Context parallelism joins the shard group (torchtitan's dp_shard_cp): cp 2 (stride 1) x dp 4 (stride 2) with
    // ZeRO-1 in shard groups of dp_shard 2: rank 0's dp slice {0, 2} and its cp peer 1's {1, 3} shard together; the
    // shard's replica is rank 4. The reduced shard is a quarter of the gradients.
    const parallel::StepPlan withCp = parallel::planStep(llama7bOn8({ "run.parallelism.cp=2", "run.parallelism.dp=4",
        "run.parallelism.zero_stage=1", "run.parallelism.dp_shard=2", "run.training.global_batch=4" }));
    const parallel::ChunkPlan& chunk = withCp.stages[0].chunks[0];
    QCOMPARE(chunk.gradientReduction.group, (std::vector<int> { 0, 1, 2, 3 }));
    QCOMPARE(chunk.replicaReduction->group, (std::vector<int> { 0, 4 }));
    QCOMPARE(chunk.replicaReduction->bytes, chunk.gradientReduction.bytes / 4);
    QCOMPARE(withCp.stages[0].parameterGather->group, (std::vector<int> { 0, 1, 2, 3 }));
    QCOMPARE(withCp.stages[0].optimizerParameters, withCp.stages[0].parameters / 4);
    // dp_shard = dp is plain FSDP: no replica reduction.
    const parallel::StepPlan whole = parallel::planStep(llama7bOn8({ "run.parallelism.dp=8",
        "run.parallelism.fsdp=true", "run.parallelism.dp_shard=8", "run.training.global_batch=8" }));
    QVERIFY(!whole.stages[0].chunks[0].replicaReduction);
    QCOMPARE(whole.stages[0].chunks[0].gradientReduction.group.size(), size_t(8));
}

void TstStepPlan::foldedExpertsSendTheirOwnTokens()
{
    // Mixtral (8 experts, top-2, hidden 4096) on 16 H100s as tp 4 (sequence parallel) x dp 4, micro-batch 1 of 4,096
    // tokens. With etp 1 and ep 4 the experts are folded over the ranks in tp, cp, dp order: rank 5's ep group is the
    // block of 4 consecutive ranks {4, 5, 6, 7} (its tensor-parallel group), and each rank dispatches its own
    // sequence-parallel share: 4096 / 4 x 2 x 4096 x 2 B = 16,777,216 B. The MoE layers keep the attention block's
    // all-gather / reduce-scatter pair only (no shared experts): forward 1 pair, backward 1.
    const parallel::StepPlan folded = parallel::planStep(mixtralOn16("{tp: 4, sp: true, dp: 4, ep: 4, etp: 1}"));
    const parallel::LayerCollectives& layer = folded.stages[0].layer;
    QCOMPARE(folded.placement.groupOf(parallel::Axis::Ep, 5), (std::vector<int> { 4, 5, 6, 7 }));
    QCOMPARE(layer.expertAllToAll->group, (std::vector<int> { 0, 1, 2, 3 }));
    QCOMPARE(layer.expertAllToAll->bytes, 16777216.0);
    QCOMPARE(layer.pairsForward(false), 2);
    QCOMPARE(layer.pairsForward(true), 1);
    QCOMPARE(layer.pairsBackward(true), 1);
    // ep 8 takes two tensor-parallel groups ({8..15} for rank 9); ep 2 a block of 2 consecutive ranks ({4, 5}).
    QCOMPARE(parallel::planStep(mixtralOn16("{tp: 4, sp: true, dp: 4, ep: 8, etp: 1}"))
                 .placement.groupOf(parallel::Axis::Ep, 9),
        (std::vector<int> { 8, 9, 10, 11, 12, 13, 14, 15 }));
    QCOMPARE(parallel::planStep(mixtralOn16("{tp: 4, sp: true, dp: 4, ep: 2, etp: 1}"))
                 .placement.groupOf(parallel::Axis::Ep, 5),
        (std::vector<int> { 4, 5 }));
    // etp = tp (the default): ep spans members of the dp group (stride tp), each rank sends its tensor-parallel
    // group's 4,096 tokens (4096 x 2 x 4096 x 2 B = 67,108,864 B) and MoE layers keep both pairs.
    const parallel::StepPlan split = parallel::planStep(mixtralOn16("{tp: 4, sp: true, dp: 4, ep: 4}"));
    QCOMPARE(split.stages[0].layer.expertAllToAll->group, (std::vector<int> { 0, 4, 8, 12 }));
    QCOMPARE(split.stages[0].layer.expertAllToAll->bytes, 67108864.0);
    QCOMPARE(split.stages[0].layer.pairsForward(true), 2);
}

void TstStepPlan::expertTensorParallelismGathersTheRoutedTokens()
{
    // Mixtral (8 experts, top-2, hidden 4096) on 16 H100s as tp 4 (sequence parallel) x dp 4, micro-batch 1 of 4,096
    // tokens, ep 2 and etp 2: the expert mesh numbers the ranks tp, cp, dp order with etp innermost, then ep. Rank 5
    // (stage index 5) has the etp group of indices 4-5 and the ep group of every 2nd rank in the block of 4 from 4
    // that holds it: {5, 7}. Rank 0: etp {0, 1}, ep {0, 2}. Each rank dispatches its own 1,024 tokens' 2 routed copies
    // (1024 x 2 x 4096 x 2 B = 16,777,216 B), receives as many, and the all-gather over 2 ranks yields twice that
    // (33,554,432 B: an all-gather's bytes are its output), which the reduce-scatter takes back as its input.
    const parallel::StepPlan plan = parallel::planStep(mixtralOn16("{tp: 4, sp: true, dp: 4, ep: 2, etp: 2}"));
    QCOMPARE(plan.placement.expertTensorGroup(5), (std::vector<int> { 4, 5 }));
    QCOMPARE(plan.placement.groupOf(parallel::Axis::Ep, 5), (std::vector<int> { 5, 7 }));
    const parallel::LayerCollectives& layer = plan.stages[0].layer;
    QCOMPARE(layer.expertAllToAll->group, (std::vector<int> { 0, 2 }));
    QCOMPARE(layer.expertAllToAll->bytes, 16777216.0);
    QCOMPARE(layer.expertTensorPair.size(), size_t(2));
    QCOMPARE(layer.expertTensorPair[0].kind, network::CollectiveKind::AllGather);
    QCOMPARE(layer.expertTensorPair[1].kind, network::CollectiveKind::ReduceScatter);
    for (const parallel::PlannedCollective& part : layer.expertTensorPair) {
        QCOMPARE(part.group, (std::vector<int> { 0, 1 }));
        QCOMPARE(part.bytes, 33554432.0);
        QVERIFY(part.subgroup == parallel::PlannedCollective::Subgroup::ExpertTensor);
    }
    // The routed experts take their tokens from the dispatch: MoE layers keep the attention block's pair only.
    QCOMPARE(layer.pairsForward(true), 1);
    // ep 4 x etp 2 fills blocks of 8: rank 9's ep group is every 2nd index from 9 ({9, 11, 13, 15}), its etp {8, 9}.
    const parallel::StepPlan wide = parallel::planStep(mixtralOn16("{tp: 4, sp: true, dp: 4, ep: 4, etp: 2}"));
    QCOMPARE(wide.placement.groupOf(parallel::Axis::Ep, 9), (std::vector<int> { 9, 11, 13, 15 }));
    QCOMPARE(wide.placement.expertTensorGroup(9), (std::vector<int> { 8, 9 }));
    // etp 1 and etp = tp have no expert-tensor pair (the former has no split, the latter gathers over tp).
    QVERIFY(parallel::planStep(mixtralOn16("{tp: 4, sp: true, dp: 4, ep: 4, etp: 1}"))
                .stages[0]
                .layer.expertTensorPair.empty());
    QVERIFY(
        parallel::planStep(mixtralOn16("{tp: 4, sp: true, dp: 4, ep: 4}")).stages[0].layer.expertTensorPair.empty());
}

void TstStepPlan::expertPlacementErrorsNameTheKey()
{
    // etp that does not divide tp; etp below tp in training without sequence parallelism; ep x etp beyond the
    // stage's ranks (8 x 2 over tp 4 x dp 2); ep beyond dp with etp = tp (Mixtral's 8 experts over tp 8 and dp 1
    // cannot sit on dp ranks); etp on a dense model.
    for (const auto& [parallelism, key] : std::vector<std::pair<std::string, std::string>> {
             { "{tp: 4, sp: true, dp: 2, ep: 2, etp: 3}", "run.parallelism.etp" },
             { "{tp: 4, dp: 2, ep: 4, etp: 1}", "run.parallelism.etp" },
             { "{tp: 4, dp: 2, ep: 2, etp: 2}", "run.parallelism.etp" },
             { "{tp: 4, sp: true, dp: 2, ep: 8, etp: 2}", "run.parallelism.ep" },
             { "{tp: 8, sp: true, dp: 1, ep: 8}", "run.parallelism.ep" },
             // Hybrid sharding whose shard group (dp_shard 2) cannot hold an expert-parallel group of 4.
             { "{tp: 1, dp: 8, ep: 4, zero_stage: 1, dp_shard: 2}", "run.parallelism.dp_shard" } }) {
        const auto diagnostics = test::expectConfigError([&] {
            test::projectLoader().loadScenario("mixtral-8x7b", "hgx-h100-8gpu", "llama-2-7b-train-4xa100",
                { "run.framework=megatron", "run.training.global_batch=8", "run.parallelism=" + parallelism });
        });
        QVERIFY2(!diagnostics.empty() && diagnostics.front().keyPath == key, parallelism.c_str());
    }
    const auto dense = test::expectConfigError([] {
        test::projectLoader().loadScenario(
            "llama-3.1-8b", "hgx-h100-8gpu", "automodel-fsdp2-train", { "run.parallelism.etp=1" });
    });
    QVERIFY(!dense.empty() && dense.front().keyPath == "run.parallelism.etp");
}

void TstStepPlan::hybridShardingRefusesGroupsItCannotForm()
{
    // A shard group that does not divide dp, one without sharding, and one of a single rank (plain data parallelism)
    // are errors naming the key.
    for (const std::vector<std::string>& bad : std::vector<std::vector<std::string>> {
             { "run.parallelism.dp=8", "run.parallelism.fsdp=true", "run.parallelism.dp_shard=3" },
             { "run.parallelism.dp=8", "run.parallelism.fsdp=true", "run.parallelism.dp_shard=16" },
             { "run.parallelism.dp=8", "run.parallelism.zero_stage=0", "run.parallelism.dp_shard=2" },
             { "run.parallelism.dp=8", "run.parallelism.fsdp=true", "run.parallelism.dp_shard=1" } }) {
        std::vector<std::string> overrides = bad;
        overrides.emplace_back("run.training.global_batch=8");
        const auto diagnostics = test::expectConfigError([&] { llama7bOn8(overrides); });
        QVERIFY2(!diagnostics.empty() && diagnostics.front().keyPath == "run.parallelism.dp_shard", bad.back().c_str());
    }
}

void TstStepPlan::contextParallelVariantsMoveTheirBytes()
{
    // Llama-2-7B (32 heads of 128, MHA), sequence 2048, micro-batch 1, tp 2 x cp 2 x dp 2 (Megatron): a rank holds
    // 1,024 tokens and 16 heads; one head of its tokens is 1,024 x 128 x 2 B = 262,144 B, its K and V 2 x 16 x 262,144
    // = 8,388,608 B.
    auto layerOf = [](const std::string& comm) {
        return parallel::planStep(
            llama7bOn8({ "run.framework=megatron", "run.parallelism.tp=2", "run.parallelism.cp=2",
                "run.parallelism.dp=2", "run.parallelism.cp_comm=" + comm, "run.training.global_batch=2" }))
            .stages[0]
            .layer;
    };
    // p2p: one ring step of K/V forward, two backward (K/V again and dK/dV), hidden behind the attention.
    const parallel::LayerCollectives ring = layerOf("p2p");
    QCOMPARE(ring.contextStep->bytes, 8388608.0);
    QCOMPARE(ring.contextStepsForward, 1);
    QCOMPARE(ring.contextStepsBackward, 2);
    QVERIFY(ring.contextForward.empty() && ring.contextBackward.empty());
    // all_gather: K and V of both ranks gathered (16 MiB out) before the attention, again in the backward, whose dK
    // and dV (16 MiB in) are reduce-scattered.
    const parallel::LayerCollectives gather = layerOf("all_gather");
    QVERIFY(!gather.contextStep);
    QCOMPARE(gather.contextForward.size(), size_t(1));
    QCOMPARE(gather.contextForward[0].kind, CollectiveKind::AllGather);
    QCOMPARE(gather.contextForward[0].bytes, 16777216.0);
    QCOMPARE(gather.contextForward[0].group.size(), size_t(2));
    QCOMPARE(gather.contextBackward.size(), size_t(2));
    QCOMPARE(gather.contextBackward[1].kind, CollectiveKind::ReduceScatter);
    QCOMPARE(gather.contextBackward[1].bytes, 16777216.0);
    // a2a (Ulysses): Q, K and V of the rank's tokens (16 + 32 heads: 12,582,912 B) to the head split, the output
    // (16 heads: 4,194,304 B) back; the backward sends dO, then dQ, dK and dV.
    const parallel::LayerCollectives ulysses = layerOf("a2a");
    QCOMPARE(ulysses.contextForward.size(), size_t(2));
    QCOMPARE(ulysses.contextForward[0].kind, CollectiveKind::AllToAll);
    QCOMPARE(ulysses.contextForward[0].bytes, 12582912.0);
    QCOMPARE(ulysses.contextForward[1].bytes, 4194304.0);
    QCOMPARE(ulysses.contextBackward[0].bytes, 4194304.0);
    QCOMPARE(ulysses.contextBackward[1].bytes, 12582912.0);

    // Ulysses's attention core runs the whole sequence with half the rank's heads: 8 heads over 2,048 queries, the
    // same causal work as the ring's 16 heads over the rank's 1,024 queries against 2,048 keys.
    const config::Scenario scenario = llama7bOn8({ "run.framework=megatron", "run.parallelism.tp=2",
        "run.parallelism.cp=2", "run.parallelism.dp=2", "run.parallelism.cp_comm=a2a", "run.training.global_batch=2" });
    const parallel::StepPlan plan = parallel::planStep(scenario);
    const auto ops = model::trainingForward(scenario.model, scenario.run, plan.sharding.layer, false);
    const auto core
        = std::find_if(ops.begin(), ops.end(), [](const model::Operator& op) { return op.name == "attention.core"; });
    QVERIFY(core != ops.end());
    QCOMPARE(core->attention.heads, std::int64_t(8));
    QCOMPARE(core->attention.queryLength, std::int64_t(2048));
    QCOMPARE(core->attention.keyLength, std::int64_t(2048));
    const config::Scenario ringScenario = llama7bOn8({ "run.framework=megatron", "run.parallelism.tp=2",
        "run.parallelism.cp=2", "run.parallelism.dp=2", "run.training.global_batch=2" });
    const auto ringOps = model::trainingForward(
        ringScenario.model, ringScenario.run, parallel::planStep(ringScenario).sharding.layer, false);
    const auto ringCore = std::find_if(
        ringOps.begin(), ringOps.end(), [](const model::Operator& op) { return op.name == "attention.core"; });
    QCOMPARE(core->flops, ringCore->flops);

    // Variants the framework does not run, and heads Ulysses cannot split, are errors naming cp_comm.
    for (const std::vector<std::string>& bad :
        std::vector<std::vector<std::string>> { { "run.framework=pytorch-fsdp", "run.parallelism.cp_comm=a2a" },
            { "run.framework=deepspeed", "run.parallelism.cp_comm=all_gather" },
            { "run.framework=megatron", "run.parallelism.cp_comm=a2a", "run.parallelism.tp=2", "run.parallelism.cp=4",
                "run.parallelism.dp=1", "model.num_kv_heads=4" } }) {
        std::vector<std::string> overrides
            = { "run.parallelism.cp=2", "run.parallelism.dp=4", "run.training.global_batch=4" };
        overrides.insert(overrides.end(), bad.begin(), bad.end());
        const auto diagnostics = test::expectConfigError([&] { llama7bOn8(overrides); });
        QVERIFY2(!diagnostics.empty() && diagnostics.front().keyPath == "run.parallelism.cp_comm", bad.back().c_str());
    }
}

void TstStepPlan::hierarchicalContextParallelismSplitsBothExchanges()
{
    // Llama-2-7B (32 heads of 128, MHA), sequence 2048, micro-batch 1, tp 1 x cp 4 x dp 2 (Megatron), cp_comm
    // a2a+p2p with cp_a2a 2: rank 0's cp group is 0,1,2,3; its all-to-all group the first slice 0,1 and its ring the
    // first rank of each slice, 0,2. A rank holds 512 tokens; one head of them is 512 x 128 x 2 B = 131,072 B.
    const std::vector<std::string> overrides
        = { "run.framework=megatron", "run.parallelism.tp=1", "run.parallelism.cp=4", "run.parallelism.dp=2",
              "run.parallelism.cp_comm=a2a+p2p", "run.parallelism.cp_a2a=2", "run.training.global_batch=2" };
    const config::Scenario scenario = llama7bOn8(overrides);
    const parallel::StepPlan plan = parallel::planStep(scenario);
    const parallel::LayerCollectives& layer = plan.stages[0].layer;
    // The all-to-alls: Q, K and V of all 32 heads (96 x 131,072 = 12,582,912 B) out, the output (32 heads:
    // 4,194,304 B) back, within the slice and marked as a subgroup of the cp group.
    QCOMPARE(layer.contextForward.size(), size_t(2));
    QCOMPARE(layer.contextForward[0].kind, CollectiveKind::AllToAll);
    QCOMPARE(layer.contextForward[0].group, (std::vector<int> { 0, 1 }));
    QVERIFY(layer.contextForward[0].subgroup);
    QCOMPARE(layer.contextForward[0].bytes, 12582912.0);
    QCOMPARE(layer.contextForward[1].bytes, 4194304.0);
    QCOMPARE(layer.contextBackward.size(), size_t(2));
    QCOMPARE(layer.contextBackward[0].bytes, 4194304.0);
    QCOMPARE(layer.contextBackward[1].bytes, 12582912.0);
    // The ring of 2 then passes the slice's 1,024 tokens of 16 K and 16 V heads (8,388,608 B, as many as the rank's
    // own 512 tokens of all 64) once forward and twice backward, to rank 2.
    QVERIFY(layer.contextStep);
    QCOMPARE(layer.contextStep->kind, CollectiveKind::SendRecv);
    QCOMPARE(layer.contextStep->group, (std::vector<int> { 0, 2 }));
    QCOMPARE(layer.contextStep->bytes, 8388608.0);
    QCOMPARE(layer.contextStepsForward, 1);
    QCOMPARE(layer.contextStepsBackward, 2);
    // The groups of the other ranks: slices 2,3 and rings of the second members 1,3.
    QCOMPARE(plan.placement.contextAllToAllGroup(3), (std::vector<int> { 2, 3 }));
    QCOMPARE(plan.placement.contextRingGroup(3), (std::vector<int> { 1, 3 }));
    QCOMPARE(plan.placement.contextAllToAllGroup(5), (std::vector<int> { 4, 5 }));
    QCOMPARE(plan.placement.contextRingGroup(5), (std::vector<int> { 5, 7 }));

    // The attention core runs the slice's 1,024 queries with 16 heads against the whole 2,048 keys: the causal work
    // of the plain ring's 32 heads over its 512 queries.
    auto coreOf = [](const config::Scenario& of) {
        const auto ops = model::trainingForward(of.model, of.run, parallel::planStep(of).sharding.layer, false);
        return *std::find_if(
            ops.begin(), ops.end(), [](const model::Operator& op) { return op.name == "attention.core"; });
    };
    const model::Operator core = coreOf(scenario);
    QCOMPARE(core.attention.heads, std::int64_t(16));
    QCOMPARE(core.attention.queryLength, std::int64_t(1024));
    QCOMPARE(core.attention.keyLength, std::int64_t(2048));
    const model::Operator ringCore = coreOf(llama7bOn8({ "run.framework=megatron", "run.parallelism.tp=1",
        "run.parallelism.cp=4", "run.parallelism.dp=2", "run.training.global_batch=2" }));
    QCOMPARE(core.flops, ringCore.flops);

    // cp_a2a missing, not a proper divisor of cp, given to another cp_comm, or not dividing the heads per rank: errors
    // naming cp_a2a.
    for (const std::vector<std::string>& bad : std::vector<std::vector<std::string>> { { "run.parallelism.cp_a2a=4" },
             { "run.parallelism.cp_a2a=3" }, { "run.parallelism.cp_comm=p2p" }, { "model.num_kv_heads=1" } }) {
        std::vector<std::string> edited = overrides;
        edited.insert(edited.end(), bad.begin(), bad.end());
        const auto diagnostics = test::expectConfigError([&] { llama7bOn8(edited); });
        QVERIFY2(!diagnostics.empty() && diagnostics.front().keyPath == "run.parallelism.cp_a2a", bad.back().c_str());
    }
    const auto missing = test::expectConfigError([&] {
        llama7bOn8({ "run.framework=megatron", "run.parallelism.tp=1", "run.parallelism.cp=4", "run.parallelism.dp=2",
            "run.parallelism.cp_comm=a2a+p2p", "run.training.global_batch=2" });
    });
    QVERIFY(!missing.empty() && missing.front().keyPath == "run.parallelism.cp_a2a");
}

void TstStepPlan::tensorParallelLayerCollectives()
{
    // Megatron TP 8 without SP: per block an all-reduce of s * b * h * 2 bytes = 2048 * 1 * 4096 * 2 = 16,777,216,
    // twice per pass; full recomputation repeats the forward's two in the backward.
    const parallel::StepPlan plan = parallel::planStep(llama7bOn8({ "run.parallelism.tp=8", "run.parallelism.dp=1",
        "run.training.global_batch=1", "run.training.recompute=full" }));
    QCOMPARE(plan.stages.size(), size_t(1));
    const parallel::LayerCollectives& layer = plan.stages[0].layer;
    QCOMPARE(layer.tensorPair.size(), size_t(1));
    QCOMPARE(layer.tensorPair[0].kind, CollectiveKind::AllReduce);
    QCOMPARE(layer.tensorPair[0].bytes, 16777216.0);
    QCOMPARE(layer.tensorPair[0].group, (std::vector<int> { 0, 1, 2, 3, 4, 5, 6, 7 }));
    QCOMPARE(layer.tensorPairsForward, 2);
    QCOMPARE(layer.tensorPairsBackward, 4);
    QVERIFY(!layer.contextStep && !layer.expertAllToAll);
    // tp 8 fills the node: no other tp group to replicate.
    QVERIFY(plan.withReplicas(layer.tensorPair[0]).replicaOffsets.empty());
}

void TstStepPlan::shardedParametersAddUpToTheModel()
{
    // Llama-2-7B (no biases, RoPE, untied head) over tp 2 x pp 4: every matrix is split over tp, the norms are
    // replicated. Summed over the stages, one GPU's shares times tp give the model back, with the norms counted once
    // per tp rank: sum = (P - N) / tp + N, N = the layers' two norms plus the final norm.
    const config::Scenario scenario = llama7bOn8(
        { "run.parallelism.tp=2", "run.parallelism.pp=4", "run.parallelism.dp=1", "run.training.global_batch=4" });
    const parallel::ShardingPlan plan = parallel::planSharding(scenario.model, scenario.run);
    const model::ParameterCounts counts = model::countParameters(scenario.model);
    const double norms
        = static_cast<double>(counts.denseLayers) * counts.denseLayer.norms + static_cast<double>(counts.finalNorm);
    const double expected = (static_cast<double>(counts.total()) - norms) / 2 + norms;
    double sum = 0;
    QCOMPARE(plan.stageShares.size(), size_t(4));
    for (const parallel::StageShare& share : plan.stageShares) {
        QCOMPARE(share.chunks.size(), size_t(1));
        QCOMPARE(share.layerCount(), 8); // 32 layers / 4 stages
        sum += share.parameters;
    }
    QCOMPARE(sum, expected);
    // The step plan's chunks are the sharding plan's: the DP gradient of a chunk is its parameters.
    const parallel::StepPlan step = parallel::planStep(scenario);
    QCOMPARE(step.stages[3].chunks[0].parameters, plan.stageShares[3].parameters);
    QCOMPARE(step.stages[3].chunks[0].gradientReduction.bytes,
        plan.stageShares[3].parameters * config::bytesPerElement(scenario.run.precision.gradients));
}

void TstStepPlan::costBalancedFrameworksSplitTimingAndMemoryAlike()
{
    // nanotron balances stages by parameter cost with the LM head counted, so its last stage takes fewer layers than
    // an even split; the step's chunks (timing, Chakra) and the memory model read that same split.
    const config::Scenario scenario = llama7bOn8({ "run.framework=nanotron", "run.parallelism.tp=2",
        "run.parallelism.pp=4", "run.parallelism.dp=1", "run.training.global_batch=4" });
    const parallel::StepPlan step = parallel::planStep(scenario);
    const std::vector<int> expected
        = parallel::costBalancedLayersPerStage(32, 4, 4.0 * 32 * 128 * 4096.0 + 3.0 * 11008 * 4096.0, 32000.0 * 4096);
    int total = 0;
    for (size_t stage = 0; stage < 4; ++stage) {
        QCOMPARE(static_cast<int>(step.stages[stage].chunks[0].layers.size()), expected[stage]);
        total += expected[stage];
    }
    QCOMPARE(total, 32);
    QVERIFY(expected.back() < 8);
    const memory::MemoryEstimate memory = memory::estimateMemory(scenario.model, scenario.hardware.gpu, scenario.run);
    for (size_t stage = 0; stage < 4; ++stage) {
        // Weights on a stage: its parameters at 2 bytes (bf16, no ZeRO), the same split as the step's.
        QCOMPARE(memory.stages[stage].breakdown[static_cast<size_t>(memory::MemoryCategory::Weights)],
            step.stages[stage].parameters * 2);
    }
}

void TstStepPlan::pipelineSendsAndGradientReductions()
{
    // tp 2 x pp 2 x dp 2 on 8 GPUs (Megatron order: tp stride 1, dp stride 2, pp stride 4). Stage 1's representative
    // rank is 4; it sends one micro-batch's hidden state split over tp (2048 * 4096 * 2 / 2 = 8 MiB) to rank 0 (the
    // next stage wraps around) and its gradients go back to rank 0 too. Its dp group is {4, 6}.
    const parallel::StepPlan plan = parallel::planStep(llama7bOn8(
        { "run.parallelism.tp=2", "run.parallelism.pp=2", "run.parallelism.dp=2", "run.training.global_batch=8" }));
    QCOMPARE(plan.stages.size(), size_t(2));
    const parallel::StagePlan& last = plan.stages[1];
    QCOMPARE(last.representativeRank, 4);
    QVERIFY(last.sendForward && last.sendBackward);
    QCOMPARE(last.sendForward->bytes, 8388608.0);
    QCOMPARE(last.sendForward->group, (std::vector<int> { 4, 0 }));
    QCOMPARE(last.sendBackward->group, (std::vector<int> { 4, 0 }));
    QCOMPARE(last.chunks.size(), size_t(1));
    QCOMPARE(last.chunks[0].layers.size(), size_t(16)); // 32 layers over 2 stages
    QVERIFY(last.chunks[0].holdsHead && !last.chunks[0].holdsEmbedding);
    const parallel::PlannedCollective& reduction = last.chunks[0].gradientReduction;
    QCOMPARE(reduction.kind, CollectiveKind::AllReduce); // ZeRO 0
    QCOMPARE(reduction.group, (std::vector<int> { 4, 6 }));
    // The stage's gradients (fp32 main gradients in this run: 4 bytes per parameter) of its tp-sharded parameters.
    QCOMPARE(reduction.bytes, last.parameters * 4);
    QVERIFY(!last.parameterGather);
    // The other dp group of stage 1 is {5, 7}: one replica, 1 rank further.
    QCOMPARE(plan.withReplicas(reduction).replicaOffsets, std::vector<int> { 1 });
}

void TstStepPlan::zero3GathersEveryChunk()
{
    // FSDP on 8 GPUs, pp 1, tp 1: one chunk holding the whole model. Its bf16 parameters (2 bytes each) are gathered
    // before each pass and its gradients reduce-scattered; the optimizer updates a 1/8 shard.
    const parallel::StepPlan plan = parallel::planStep(
        llama7bOn8({ "run.parallelism.dp=8", "run.parallelism.fsdp=true", "run.training.global_batch=8" }));
    const parallel::StagePlan& stage = plan.stages.at(0);
    const double modelParams = static_cast<double>(
        model::countParameters(llama7bOn8({ "run.parallelism.dp=8", "run.parallelism.fsdp=true" }).model).total());
    QVERIFY(stage.chunks[0].parameterGather);
    QCOMPARE(stage.chunks[0].parameterGather->kind, CollectiveKind::AllGather);
    QVERIFY(std::fabs(stage.chunks[0].parameterGather->bytes / (2 * modelParams) - 1) < 1e-6);
    QCOMPARE(stage.chunks[0].gradientReduction.kind, CollectiveKind::ReduceScatter);
    QVERIFY(std::fabs(stage.optimizerParameters * 8 / modelParams - 1) < 1e-6);
    QVERIFY(!stage.sendForward);
}

void TstStepPlan::fp8AllGatherMovesLinearWeightsInOneByte()
{
    // Llama 2 7B under PyTorch FSDP on 8 H100 with FP8 linears and torchao's float8 all-gather. By hand: a layer holds
    // 4 x 4,096^2 + 3 x 4,096 x 11,008 = 202,375,168 linear weights (1 B each on the wire) and two RMSNorm weights of
    // 4,096 (bf16); the embedding 32,000 x 4,096 = 131,072,000 and the final norm with the LM head 131,076,096 stay
    // bf16: 32 x 202,375,168 + 2 x (32 x 8,192 + 131,072,000 + 131,076,096) = 7,000,825,856 B.
    const config::Scenario scenario
        = test::projectLoader().loadScenario("llama-2-7b", "hgx-h100-8gpu", "llama-2-7b-train-4xa100",
            { "hardware.cluster.network[0].size=8", "run.training.seq_length=2048", "run.framework=pytorch-fsdp",
                "run.parallelism.dp=8", "run.parallelism.tp=1", "run.parallelism.pp=1", "run.parallelism.fsdp=true",
                "run.training.global_batch=8", "run.precision.compute=fp8", "run.precision.fp8_all_gather=true" });
    const parallel::StepPlan plan = parallel::planStep(scenario);
    QCOMPARE(plan.stages.at(0).chunks.at(0).parameterGather->bytes, 7000825856.0);
}

void TstStepPlan::routedExpertsReduceOverTheirOwnReplicas()
{
    // Mixtral-8x7B (32 MoE layers, 8 experts of 3 x 4096 x 14336 = 176,160,768 parameters, gated) on 16 H100s as
    // tp 4 (stride 1) x dp 4 (stride 4), ZeRO-1. With ep 2 (etp = tp) a rank holds 8 / 2 experts at 1/4 of their
    // width: 176,160,768 routed-expert parameters per layer, E = 32 x that = 5,637,144,576 per stage. Experts sit on
    // pairs of consecutive dp members ({0, 4}, {8, 12} for rank 0's tp coordinate): rank 0's expert shard is also on
    // rank 8 (dp coordinate 2), so the experts' fp32 gradients (4 E bytes) are reduce-scattered over {0, 8} and the
    // other P - E parameters' over the dp group {0, 4, 8, 12}; the optimizer updates (P - E) / 4 + E / 2 parameters
    // and gathers E / 2 of the updated experts over {0, 8} (Megatron-Core's expert-data-parallel group).
    const double expertsPerLayer = 8.0 / 2 * 3 * 4096 * 14336 / 4;
    const double experts = 32 * expertsPerLayer;
    const parallel::StepPlan plan = parallel::planStep(mixtralOn16("{tp: 4, sp: true, dp: 4, ep: 2, zero_stage: 1}"));
    const parallel::StagePlan& stage = plan.stages.at(0);
    const parallel::ChunkPlan& chunk = stage.chunks.at(0);
    QCOMPARE(plan.placement.expertReplicaGroup(0), (std::vector<int> { 0, 8 }));
    QCOMPARE(plan.placement.expertReplicaGroup(7), (std::vector<int> { 7, 15 }));
    QCOMPARE(chunk.expertParameters, experts);
    QVERIFY(chunk.expertGradientReduction);
    QCOMPARE(chunk.expertGradientReduction->kind, CollectiveKind::ReduceScatter);
    QCOMPARE(chunk.expertGradientReduction->group, (std::vector<int> { 0, 8 }));
    QCOMPARE(chunk.expertGradientReduction->bytes, 4 * experts);
    QCOMPARE(chunk.gradientReduction.group, (std::vector<int> { 0, 4, 8, 12 }));
    QCOMPARE(chunk.gradientReduction.bytes, 4 * (chunk.parameters - experts));
    QCOMPARE(stage.optimizerParameters, (chunk.parameters - experts) / 4 + experts / 2);
    QVERIFY(stage.expertParameterGather);
    QCOMPARE(stage.expertParameterGather->group, (std::vector<int> { 0, 8 }));
    QCOMPARE(stage.parameterGather->bytes + stage.expertParameterGather->bytes,
        chunk.parameters * 2.0); // bf16 weights
    QCOMPARE(plan.sharding.expertShardGroup, 2);
    QCOMPARE(plan.sharding.expertWeightReplicas, 2);

    // ep = dp: every rank of a tensor-parallel coordinate holds other experts, so nothing sums them (a group of one)
    // and ZeRO cannot shard them further: the optimizer keeps all E' = 32 x 8 / 4 x 176,160,768 / 4 of them.
    const parallel::StepPlan whole = parallel::planStep(mixtralOn16("{tp: 4, sp: true, dp: 4, ep: 4, zero_stage: 1}"));
    const double ownExperts = 32 * 8.0 / 4 * 3 * 4096 * 14336 / 4;
    const parallel::StagePlan& wholeStage = whole.stages.at(0);
    QVERIFY(wholeStage.chunks[0].expertGradientReduction);
    QVERIFY(!wholeStage.chunks[0].expertGradientReduction->onNetwork());
    QVERIFY(!wholeStage.expertParameterGather);
    QCOMPARE(wholeStage.optimizerParameters, (wholeStage.parameters - ownExperts) / 4 + ownExperts);
    // Memory: the optimizer's two fp32 moments of that many parameters.
    const config::Scenario wholeScenario = mixtralOn16("{tp: 4, sp: true, dp: 4, ep: 4, zero_stage: 1}");
    const memory::MemoryEstimate memory
        = memory::estimateMemory(wholeScenario.model, wholeScenario.hardware.gpu, wholeScenario.run);
    QVERIFY(std::fabs(memory.stages[0].breakdown[static_cast<size_t>(memory::MemoryCategory::OptimizerStates)]
                    / (2 * 4 * wholeStage.optimizerParameters)
                - 1)
        < 1e-12);

    // Folded with etp 1 and ep 4 over tp 4: the expert mesh's ep groups are the tp groups, so a rank's experts are
    // on the same dp members as its other weights: reduced with them, nothing apart.
    const parallel::StepPlan sameGroup
        = parallel::planStep(mixtralOn16("{tp: 4, sp: true, dp: 4, ep: 4, etp: 1, zero_stage: 1}"));
    QVERIFY(!sameGroup.stages[0].chunks[0].expertGradientReduction);
    QCOMPARE(sameGroup.stages[0].chunks[0].gradientReduction.bytes, 4 * sameGroup.stages[0].chunks[0].parameters);
    // Folded with etp 1 and ep 2: blocks of 2 consecutive indices, so the same expert shard is on every 2nd rank.
    const parallel::StepPlan everyOther
        = parallel::planStep(mixtralOn16("{tp: 4, sp: true, dp: 4, ep: 2, etp: 1, zero_stage: 1}"));
    QCOMPARE(everyOther.stages[0].chunks[0].expertGradientReduction->group,
        (std::vector<int> { 0, 2, 4, 6, 8, 10, 12, 14 }));

    // FSDP in shard groups of dp_shard 2 with ep 2: rank 0's dp slice {0, 4} holds both expert shards once, so its
    // experts are sharded over { 0 } alone (nothing to gather or reduce-scatter), and the shard's replica (rank 8,
    // shardReplicaGroup) all-reduces (P - E) / 2 + E gradients.
    const parallel::StepPlan hybrid
        = parallel::planStep(mixtralOn16("{tp: 4, sp: true, dp: 4, ep: 2, zero_stage: 3, dp_shard: 2}"));
    const parallel::ChunkPlan& hybridChunk = hybrid.stages.at(0).chunks.at(0);
    QCOMPARE(hybrid.placement.expertShardGroup(0), (std::vector<int> { 0 }));
    QVERIFY(!hybridChunk.expertParameterGather->onNetwork());
    QVERIFY(!hybridChunk.expertGradientReduction->onNetwork());
    QCOMPARE(hybridChunk.parameterGather->group, (std::vector<int> { 0, 4 }));
    QCOMPARE(hybridChunk.replicaReduction->group, (std::vector<int> { 0, 8 }));
    QCOMPARE(hybridChunk.replicaReduction->bytes, 4 * ((hybridChunk.parameters - experts) / 2 + experts));
}

QTEST_GUILESS_MAIN(TstStepPlan)
#include "tst_stepplan.moc"
