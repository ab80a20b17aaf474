// SPDX-License-Identifier: GPL-3.0-or-later
// sim::writeStepChakraTraces (rapid run --chakra-out and the workbench's export): one file per rank of the job with
// progress per file; a stop flag raised midway removes every file the export wrote; an unwritable place is an
// exception, not a crash.
#include "graph/chakracommgroups.h"
#include "graph/chakrareader.h"
#include "sim/flowsimulator.h"
#include "sim/stepchakraexport.h"
#include "sim/tracereplay.h"
#include "testutils.h"

#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <filesystem>

using namespace rapid;

class TstStepChakraExport : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void oneFilePerRankWithProgress();
    void stopRemovesWhatWasWritten();
    void unwritablePlaceThrows();
    void aFileThatCannotBeWrittenTakesBackTheOthers();
    void zeroGathersCarryTheShardAndReplayToTheStep();
    void routedExpertsReduceOnTheirOwnCommunicator();
    void replayEqualsTheStepWithEveryCollectiveOnTheNetwork_data();
    void replayEqualsTheStepWithEveryCollectiveOnTheNetwork();
    void inferenceReplayEqualsTheRequest_data();
    void inferenceReplayEqualsTheRequest();
    void aLayerWaitingForItsHostWritesTheWait();
};

namespace {

// Llama-2-7B on 8 A100: tp 2 x pp 2 x dp 2 = 8 ranks, two data-parallel groups per stage.
config::Scenario scenario()
{
    return test::projectLoader().loadScenario("llama-2-7b", "hgx-a100-8gpu", "llama-2-7b-train-4xa100",
        { "run.parallelism.tp=2", "run.parallelism.pp=2", "run.parallelism.dp=2", "run.training.global_batch=4",
            "run.training.seq_length=1024" });
}

int traceFiles(const std::filesystem::path& directory)
{
    int count = 0;
    for (const auto& entry : std::filesystem::directory_iterator(directory)) {
        count += entry.path().extension() == ".et" ? 1 : 0;
    }
    return count;
}

} // namespace

void TstStepChakraExport::oneFilePerRankWithProgress()
{
    QTemporaryDir dir;
    sim::StepModel model(scenario());
    std::vector<double> reports;
    const sim::ChakraExportSummary summary = sim::writeStepChakraTraces(dir.path().toStdString(), model,
        sim::ChakraDetail::Chunk, nullptr, [&](double fraction) { reports.push_back(fraction); });
    QCOMPARE(summary.files, 8);
    QCOMPARE(traceFiles(dir.path().toStdString()), 8);
    // One report per file, the last one complete.
    QCOMPARE(reports.size(), size_t(8));
    QCOMPARE(reports.front(), 1.0 / 8);
    QCOMPARE(reports.back(), 1.0);
    // dp 2 on 8 ranks: 4 data-parallel communicators (one per tp x pp position) and 4 tensor-parallel ones (one per
    // dp x pp position).
    QCOMPARE(summary.groups, size_t(8));
    QVERIFY(std::filesystem::exists(std::filesystem::path(dir.path().toStdString()) / "comm_groups.json"));
    size_t nodes = 0;
    for (const graph::ChakraTrace& trace : graph::readChakraDirectory(dir.path().toStdString())) {
        nodes += trace.nodes.size();
    }
    QCOMPARE(nodes, summary.nodes);
}

void TstStepChakraExport::stopRemovesWhatWasWritten()
{
    QTemporaryDir dir;
    sim::StepModel model(scenario());
    std::atomic<bool> stop { false };
    int written = 0;
    QVERIFY_THROWS_EXCEPTION(sim::SimulationCancelled,
        sim::writeStepChakraTraces(dir.path().toStdString(), model, sim::ChakraDetail::Layer, &stop, [&](double) {
            if (++written == 3) {
                stop = true;
            }
        }));
    QCOMPARE(written, 3);
    QCOMPARE(traceFiles(dir.path().toStdString()), 0);
}

void TstStepChakraExport::zeroGathersCarryTheShardAndReplayToTheStep()
{
    // Llama-2-7B, dp 8 with Megatron's ZeRO-1: after the step each rank all-gathers the updated bf16 parameters, of
    // which it holds 1/8. Chakra's all-gather comm_size is that per-rank shard (ASTRA-sim reads it so); it used to
    // carry the gathered bytes, and replaying the traces took 8x the gather time.
    const config::Scenario zero1 = test::llama7bOn8({ "run.parallelism.dp=8", "run.parallelism.zero_stage=1",
        "run.framework=megatron", "run.training.global_batch=8" });
    sim::StepModel model(zero1);
    const double step = model.training(false).stepTimeSeconds;
    QTemporaryDir dir;
    sim::writeStepChakraTraces(dir.path().toStdString(), model, sim::ChakraDetail::Chunk);
    const auto traces = graph::readChakraDirectory(dir.path().toStdString());
    const double parameters = model.plan().sharding.stageShares[0].parameters;
    std::int64_t gathered = 0;
    for (const graph::ChakraNode& node : traces[0].nodes) {
        const auto type = node.integerAttribute("comm_type");
        if (node.type == graph::ChakraNodeType::Collective && type
            && *type == static_cast<std::int64_t>(graph::ChakraCollective::AllGather)) {
            gathered += node.integerAttribute("comm_size").value_or(0);
        }
    }
    QVERIFY2(std::abs(static_cast<double>(gathered) - parameters * 2 / 8) <= 1e-6 * parameters,
        qPrintable(QStringLiteral("%1 B gathered per rank, expected %2").arg(gathered).arg(parameters * 2 / 8)));
    const sim::ReplayResult replay = sim::replayChakra(traces,
        graph::readChakraCommGroups(std::filesystem::path(dir.path().toStdString()) / "comm_groups.json"),
        zero1.hardware, sim::NetworkBackend::Analytical, model.plan().library);
    QVERIFY2(std::abs(replay.makespan - step) <= 0.01 * step,
        qPrintable(QStringLiteral("replay %1 s, step %2 s").arg(replay.makespan).arg(step)));
}

void TstStepChakraExport::routedExpertsReduceOnTheirOwnCommunicator()
{
    // Mixtral-8x7B on 8 A100s, dp 8 with ep 4 and ZeRO-1: rank 0 holds experts 0 and 1 (2 x 3 x 4096 x 14336
    // parameters in each of 32 layers, E = 11,274,289,152), as does rank 4 alone. Its trace reduce-scatters their fp32
    // gradients (4 E bytes per rank) on a communicator of { 0, 4 } and gathers its bf16 half of them (E bytes) there
    // after the step; the other parameters' collectives stay on the dp communicator of all 8 ranks.
    const config::Scenario scenario
        = test::projectLoader().loadScenario("mixtral-8x7b", "hgx-a100-8gpu", "llama-2-7b-train-4xa100",
            { "run.framework=megatron", "run.parallelism.tp=1", "run.parallelism.dp=8", "run.parallelism.ep=4",
                "run.parallelism.zero_stage=1", "run.training.seq_length=1024", "run.training.global_batch=8" });
    sim::StepModel model(scenario);
    QTemporaryDir dir;
    sim::writeStepChakraTraces(dir.path().toStdString(), model, sim::ChakraDetail::Chunk);
    const auto traces = graph::readChakraDirectory(dir.path().toStdString());
    const graph::ChakraCommGroups groups
        = graph::readChakraCommGroups(std::filesystem::path(dir.path().toStdString()) / "comm_groups.json");
    std::string expertGroup;
    std::string denseGroup;
    for (const auto& [id, members] : groups) {
        expertGroup = members == std::vector<int> { 0, 4 } ? id : expertGroup;
        denseGroup = members == std::vector<int> { 0, 1, 2, 3, 4, 5, 6, 7 } ? id : denseGroup;
    }
    QVERIFY(!expertGroup.empty() && !denseGroup.empty());
    const double experts = 32.0 * 2 * 3 * 4096 * 14336;
    std::int64_t reduced = 0;
    std::int64_t gathered = 0;
    const graph::ChakraTrace& rank0
        = *std::find_if(traces.begin(), traces.end(), [](const graph::ChakraTrace& trace) { return trace.rank == 0; });
    for (const graph::ChakraNode& node : rank0.nodes) {
        const graph::ChakraAttribute* group = node.attribute("pg_name");
        if (node.type != graph::ChakraNodeType::Collective || !group || group->string() != expertGroup) {
            continue;
        }
        const auto type = node.integerAttribute("comm_type");
        const std::int64_t size = node.integerAttribute("comm_size").value_or(0);
        (type == static_cast<std::int64_t>(graph::ChakraCollective::ReduceScatter) ? reduced : gathered) += size;
    }
    // Integer bytes per node: an overlapped gather's two parts may each round.
    QVERIFY2(std::fabs(static_cast<double>(reduced) - 4 * experts) <= 2, qPrintable(QString::number(reduced)));
    QVERIFY2(std::fabs(static_cast<double>(gathered) - experts) <= 2, qPrintable(QString::number(gathered)));
}

void TstStepChakraExport::replayEqualsTheStepWithEveryCollectiveOnTheNetwork_data()
{
    QTest::addColumn<QString>("model");
    QTest::addColumn<QStringList>("overrides");
    QTest::addColumn<int>("detail");
    QTest::addColumn<bool>("congestion");
    struct Scenario {
        const char* name;
        const char* model;
        std::vector<const char*> overrides;
        bool congestion;
        /// Chunk-level traces on the congestion backend too (their limit: docs/chakra.md, "Agreement").
        bool chunkCongestion = true;
    };
    const Scenario scenarios[] = {
        { "tp4_sp_dp2", "llama-2-7b",
            { "run.parallelism.tp=4", "run.parallelism.dp=2", "run.parallelism.sp=true",
                "run.training.global_batch=8" },
            true },
        { "tp4_overlap_dp2", "llama-2-7b",
            { "run.parallelism.tp=4", "run.parallelism.dp=2", "run.parallelism.sp=true",
                "run.parallelism.tp_comm_overlap=true", "run.training.global_batch=8" },
            false },
        { "tp2_pp2_1f1b_dp2", "llama-2-7b",
            { "run.parallelism.tp=2", "run.parallelism.pp=2", "run.parallelism.dp=2", "run.training.global_batch=16" },
            true },
        { "tp2_pp4_interleaved", "llama-2-7b",
            { "run.parallelism.tp=2", "run.parallelism.pp=4", "run.parallelism.schedule=interleaved",
                "run.parallelism.virtual_stages=2", "run.parallelism.dp=1", "run.training.global_batch=8" },
            false },
        { "dp8_zero2", "llama-2-7b",
            { "run.parallelism.dp=8", "run.parallelism.zero_stage=2", "run.training.global_batch=8" }, true },
        { "dp8_zero3", "llama-2-7b",
            { "run.parallelism.dp=8", "run.parallelism.zero_stage=3", "run.framework=deepspeed",
                "run.training.global_batch=8" },
            true },
        { "tp2_dp4_fsdp", "llama-2-7b",
            { "run.parallelism.tp=2", "run.parallelism.dp=4", "run.parallelism.fsdp=true", "run.framework=pytorch-fsdp",
                "run.training.global_batch=8" },
            true },
        // Hybrid sharding: reduce-scatters in shard groups of 2, then all-reduces of the shards over their replicas.
        { "dp8_fsdp_hsdp2", "llama-2-7b",
            { "run.parallelism.dp=8", "run.parallelism.fsdp=true", "run.parallelism.dp_shard=2",
                "run.framework=pytorch-fsdp", "run.training.global_batch=8" },
            true },
        // Chunk-level traces of cp 2 x ZeRO-1 on the congestion backend replay 2.6% (11% without hybrid sharding) above
        // the step, those of the blocking context-parallel variants 2.1-2.7% below it: the limit of chunk traces
        // (docs/chakra.md); layer and operator traces are checked on both backends.
        { "cp2_dp4_zero1_hsdp2", "llama-2-7b",
            { "run.parallelism.cp=2", "run.parallelism.dp=4", "run.parallelism.zero_stage=1",
                "run.parallelism.dp_shard=2", "run.training.global_batch=4" },
            true, false },
        // Context-parallel variants: K/V all-gathers, Ulysses all-to-alls.
        { "tp2_cp2_allgather_dp2", "llama-2-7b",
            { "run.parallelism.tp=2", "run.parallelism.cp=2", "run.parallelism.dp=2",
                "run.parallelism.cp_comm=all_gather", "run.training.global_batch=4" },
            true, false },
        { "tp2_cp2_a2a_dp2", "llama-2-7b",
            { "run.parallelism.tp=2", "run.parallelism.cp=2", "run.parallelism.dp=2", "run.parallelism.cp_comm=a2a",
                "run.training.global_batch=4" },
            true, false },
        // Hierarchical (a2a+p2p): all-to-alls in slices of two (their own cp_a2a communicator), a ring of two over
        // them.
        { "cp4_a2ap2p_dp2", "llama-2-7b",
            { "run.parallelism.tp=1", "run.parallelism.cp=4", "run.parallelism.dp=2", "run.parallelism.cp_comm=a2a+p2p",
                "run.parallelism.cp_a2a=2", "run.training.seq_length=4096", "run.training.global_batch=4" },
            true },
        { "tp2_cp2_dp2", "llama-2-7b",
            { "run.parallelism.tp=2", "run.parallelism.cp=2", "run.parallelism.dp=2", "run.training.seq_length=4096",
                "run.training.global_batch=4" },
            true },
        // nanotron's small layers wait for its host's dispatch (model/hostdispatch.h): the wait is a node too.
        { "tp8_nanotron_host_bound", "llama-2-7b",
            { "run.framework=nanotron", "run.parallelism.tp=8", "run.parallelism.dp=1", "run.parallelism.sp=true",
                "run.training.seq_length=256", "run.training.global_batch=2" },
            true },
        { "moe_ep8", "mixtral-8x7b",
            { "run.parallelism.tp=1", "run.parallelism.dp=8", "run.parallelism.ep=8", "run.training.seq_length=1024",
                "run.training.global_batch=8" },
            true },
        // Whole experts folded over tp 4 x dp 2 (etp 1): MoE layers run the attention block's tensor pair only.
        { "moe_tp4_sp_ep8_etp1", "mixtral-8x7b",
            { "run.framework=megatron", "run.parallelism.tp=4", "run.parallelism.sp=true", "run.parallelism.dp=2",
                "run.parallelism.ep=8", "run.parallelism.etp=1", "run.training.seq_length=1024",
                "run.training.global_batch=2" },
            true },
        // Experts split over 2 ranks of each tensor-parallel group (etp 2): the routed tokens' all-gather and
        // reduce-scatter sit between the dispatch and the combine, on the etp communicator.
        // Experts on 2 of the 8 dp ranks' slices (ep 4): ZeRO-1 reduce-scatters and gathers them over their own
        // expert-data-parallel communicator ({0, 4}, ...); FSDP gathers them beside every pass after the rest.
        { "moe_ep4_zero1", "mixtral-8x7b",
            { "run.parallelism.tp=1", "run.parallelism.dp=8", "run.parallelism.ep=4", "run.parallelism.zero_stage=1",
                "run.training.seq_length=1024", "run.training.global_batch=8" },
            true },
        { "moe_ep4_fsdp", "mixtral-8x7b",
            { "run.framework=pytorch-fsdp", "run.parallelism.tp=1", "run.parallelism.dp=8", "run.parallelism.ep=4",
                "run.parallelism.fsdp=true", "run.training.seq_length=1024", "run.training.global_batch=8" },
            true },
        { "moe_tp4_sp_ep4_etp2", "mixtral-8x7b",
            { "run.framework=megatron", "run.parallelism.tp=4", "run.parallelism.sp=true", "run.parallelism.dp=2",
                "run.parallelism.ep=4", "run.parallelism.etp=2", "run.training.seq_length=1024",
                "run.training.global_batch=2" },
            true },
        // Full recomputation: each MoE layer's backward dispatches, runs the etp pair and combines twice.
        { "moe_tp4_sp_ep4_etp2_full_recompute", "mixtral-8x7b",
            { "run.framework=megatron", "run.parallelism.tp=4", "run.parallelism.sp=true", "run.parallelism.dp=2",
                "run.parallelism.ep=4", "run.parallelism.etp=2", "run.training.seq_length=1024",
                "run.training.global_batch=2", "run.training.recompute=full" },
            true },
        // Megatron-Core's --moe-shared-expert-overlap: the dispatches and combines beside the shared expert's windows.
        { "moe_ep8_shared_expert_overlap_full_recompute", "mixtral-8x7b",
            { "run.framework=megatron", "model.moe.shared_experts=1", "run.parallelism.tp=1", "run.parallelism.dp=8",
                "run.parallelism.ep=8", "run.parallelism.ep_shared_expert_overlap=true", "run.training.seq_length=1024",
                "run.training.global_batch=8", "run.training.recompute=full" },
            true },
        // Two pipeline schedules per step (NeMo AutoModel's accumulation batches), each filling and draining.
        { "pp2_interleaved_two_flushes", "llama-2-7b",
            { "run.parallelism.tp=1", "run.parallelism.pp=2", "run.parallelism.dp=4",
                "run.parallelism.schedule=interleaved", "run.parallelism.virtual_stages=2",
                "run.training.seq_length=1024", "run.training.global_batch=16", "run.training.pipeline_flushes=2" },
            true },
        // FSDP2 under pipelining with two schedules: each reduce-scatters the stage and reshards it, and the second
        // gathers it again before its first forward.
        { "fsdp_pp2_two_flushes_reshard", "llama-2-7b",
            { "run.framework=pytorch-fsdp", "run.parallelism.fsdp=true", "run.parallelism.tp=1", "run.parallelism.pp=2",
                "run.parallelism.dp=4", "run.training.seq_length=1024", "run.training.global_batch=16",
                "run.training.pipeline_flushes=2" },
            true },
    };
    const char* const details[] = { "chunk", "layer", "operator" };
    for (const Scenario& scenario : scenarios) {
        for (int detail = 0; detail < 3; ++detail) {
            for (const bool congestion : { false, true }) {
                if (congestion && (!scenario.congestion || (detail == 0 && !scenario.chunkCongestion))) {
                    continue;
                }
                QStringList overrides;
                for (const char* assignment : scenario.overrides) {
                    overrides << QString::fromLatin1(assignment);
                }
                QTest::addRow("%s_%s_%s", scenario.name, details[detail], congestion ? "congestion" : "analytical")
                    << QString::fromLatin1(scenario.model) << overrides << detail << congestion;
            }
        }
    }
}

void TstStepChakraExport::replayEqualsTheStepWithEveryCollectiveOnTheNetwork()
{
    // The traces of `rapid run --chakra-out`, replayed by `rapid chakra simulate` on the same hardware and backend,
    // take the step time rapid predicted (within 1%: integer-microsecond durations; with congestion, collectives of
    // a chunk pass that rapid runs among the layers' compute are written after it), and every collective of the step
    // plan is a COMM_COLL_NODE: per micro-batch pass, each layer's tensor-parallel collectives and expert
    // all-to-alls and the ZeRO-3/FSDP parameter gather, plus the data-parallel reductions and ZeRO-1/2 gathers of the
    // execution graph.
    QFETCH(QString, model);
    QFETCH(QStringList, overrides);
    QFETCH(int, detail);
    QFETCH(bool, congestion);
    std::vector<std::string> all = { "run.framework=megatron" };
    for (const QString& assignment : overrides) {
        all.push_back(assignment.toStdString());
    }
    const config::Scenario scenario
        = test::projectLoader().loadScenario(model.toStdString(), "hgx-a100-8gpu", "llama-2-7b-train-4xa100", all);
    const sim::NetworkBackend backend = congestion ? sim::NetworkBackend::Congestion : sim::NetworkBackend::Analytical;
    sim::StepModel stepModel(scenario, backend);
    const double step = stepModel.training(false).stepTimeSeconds;
    QTemporaryDir dir;
    sim::writeStepChakraTraces(dir.path().toStdString(), stepModel, static_cast<sim::ChakraDetail>(detail));
    const auto traces = graph::readChakraDirectory(dir.path().toStdString());
    const std::filesystem::path groupsFile = std::filesystem::path(dir.path().toStdString()) / "comm_groups.json";
    const graph::ChakraCommGroups groups
        = std::filesystem::exists(groupsFile) ? graph::readChakraCommGroups(groupsFile) : graph::ChakraCommGroups {};
    const sim::ReplayResult replay
        = sim::replayChakra(traces, groups, scenario.hardware, backend, stepModel.plan().library);
    // A chunk-level trace on the congestion backend writes the chunk's collectives after its compute (above): the
    // more of the step the network takes, the further that moves it (1.06% for tp 2, cp 2 on A100's NVLink at its
    // data rate); 2% there, 1% everywhere else.
    const double tolerance = congestion && detail == 0 ? 0.02 : 0.01;
    QVERIFY2(std::abs(replay.makespan - step) <= tolerance * step,
        qPrintable(QStringLiteral("replay %1 s, step %2 s").arg(replay.makespan, 0, 'g', 9).arg(step, 0, 'g', 9)));

    // The plan's collectives on each stage's ranks, counted from the execution graph's passes and the plan's layers.
    const parallel::StepPlan& plan = stepModel.plan();
    const graph::ExecutionGraph executionGraph = sim::stepExecutionGraph(stepModel);
    std::vector<int> expected(static_cast<size_t>(executionGraph.ranks()), 0);
    const std::vector<parallel::PlannedCollective> noCollectives;
    for (const graph::Node& node : executionGraph.nodes()) {
        int& count = expected[static_cast<size_t>(node.rank)];
        if (node.kind == graph::NodeKind::DataParallel || node.kind == graph::NodeKind::ParameterGather
            || node.kind == graph::NodeKind::ReplicaReduction) {
            ++count;
        }
        if (node.kind != graph::NodeKind::Compute || node.chunk < 0) {
            continue;
        }
        const parallel::StagePlan& stagePlan = plan.stages[static_cast<size_t>(node.rank)];
        const parallel::LayerCollectives& layer = stagePlan.layer;
        const parallel::ChunkPlan& chunkPlan = stagePlan.chunks[static_cast<size_t>(node.chunk)];
        for (const auto* gather : { &chunkPlan.parameterGather, &chunkPlan.expertParameterGather }) {
            count += *gather && (*gather)->onNetwork() ? 1 : 0; // ZeRO-3/FSDP: the chunk's parameters, every pass
        }
        int tensor = 0;
        for (const parallel::PlannedCollective& part : layer.tensorPair) {
            tensor += part.onNetwork() ? 1 : 0;
        }
        int context = 0; // cp_comm all_gather, a2a, a2a+p2p's all-to-alls
        for (const parallel::PlannedCollective& wait : node.backward ? layer.contextBackward : layer.contextForward) {
            context += wait.onNetwork() ? 1 : 0;
        }
        const std::vector<std::vector<int>> chunks = stepModel.chunkLayersOfStage(node.rank);
        for (const int index : chunks[static_cast<size_t>(node.chunk)]) {
            const bool moe = parallel::isMoeLayer(scenario.model, index);
            count += context + tensor * (node.backward ? layer.pairsBackward(moe) : layer.pairsForward(moe));
            // A backward under full recomputation runs the expert collectives twice (its re-run forward's too).
            const int expertRuns = node.backward ? layer.expertPassesBackward : 1;
            if (moe && layer.expertAllToAll && layer.expertAllToAll->onNetwork()) {
                count += expertRuns * layer.expertAllToAllsPerPass;
            }
            for (const parallel::PlannedCollective& part : moe ? layer.expertTensorPair : noCollectives) {
                count += expertRuns * (part.onNetwork() ? 1 : 0); // expert tensor parallelism's pair
            }
        }
    }
    for (const graph::ChakraTrace& trace : traces) {
        const int written = static_cast<int>(std::count_if(trace.nodes.begin(), trace.nodes.end(),
            [](const graph::ChakraNode& node) { return node.type == graph::ChakraNodeType::Collective; }));
        QCOMPARE(written, expected[static_cast<size_t>(stepModel.placement().stageOf(trace.rank))]);
    }
}

void TstStepChakraExport::inferenceReplayEqualsTheRequest_data()
{
    QTest::addColumn<int>("tp");
    QTest::addColumn<int>("pp");
    QTest::addColumn<int>("detail");
    QTest::addColumn<bool>("congestion");
    for (const auto& [tp, pp] : { std::pair { 8, 1 }, std::pair { 4, 2 } }) {
        for (int detail = 0; detail < 3; ++detail) {
            for (const bool congestion : { false, true }) {
                QTest::addRow("tp%d_pp%d_detail%d_%s", tp, pp, detail, congestion ? "congestion" : "analytical")
                    << tp << pp << detail << congestion;
            }
        }
    }
}

void TstStepChakraExport::inferenceReplayEqualsTheRequest()
{
    // Llama-3.3-70B serving on 8 A100 (batch 1, 200 prompt and 8 output tokens): the request's traces replay in
    // TTFT + 7 ITL (rapid's end-to-end latency) within 1%, with two tensor-parallel all-reduces per layer and step
    // as COMM_COLL_NODEs: 8 steps x (80 / pp) layers x 2 per rank. Eight steps exercise what 32 would (every decode
    // step has the same nodes) at a quarter of the replay, which matters under the sanitizers.
    QFETCH(int, tp);
    QFETCH(int, pp);
    QFETCH(int, detail);
    QFETCH(bool, congestion);
    const sim::NetworkBackend backend = congestion ? sim::NetworkBackend::Congestion : sim::NetworkBackend::Analytical;
    const config::Scenario scenario
        = test::projectLoader().loadScenario("llama-3.3-70b", "hgx-a100-8gpu", "llama-3.3-70b-serve-8xa100",
            { "run.parallelism.tp=" + std::to_string(tp), "run.parallelism.pp=" + std::to_string(pp),
                "run.parallelism.mapping={}", "run.inference.decode_length=8" });
    sim::StepModel stepModel(scenario, backend);
    const double e2e = stepModel.inference().e2eSeconds;
    QTemporaryDir dir;
    sim::writeStepChakraTraces(dir.path().toStdString(), stepModel, static_cast<sim::ChakraDetail>(detail));
    const auto traces = graph::readChakraDirectory(dir.path().toStdString());
    const sim::ReplayResult replay = sim::replayChakra(traces,
        graph::readChakraCommGroups(std::filesystem::path(dir.path().toStdString()) / "comm_groups.json"),
        scenario.hardware, backend, stepModel.plan().library);
    QVERIFY2(std::abs(replay.makespan - e2e) <= 0.01 * e2e,
        qPrintable(QStringLiteral("replay %1 s, end to end %2 s").arg(replay.makespan).arg(e2e)));
    QCOMPARE(traces.size(), size_t { 8 });
    for (const graph::ChakraTrace& trace : traces) {
        const auto collectives = std::count_if(trace.nodes.begin(), trace.nodes.end(),
            [](const graph::ChakraNode& node) { return node.type == graph::ChakraNodeType::Collective; });
        QCOMPARE(collectives, static_cast<std::ptrdiff_t>(8 * (80 / pp) * 2));
    }
}

void TstStepChakraExport::aFileThatCannotBeWrittenTakesBackTheOthers()
{
    // rapid.3.et already exists as a folder: the export fails at rank 3 and removes ranks 0-2's files, so no half
    // trace set is left to be replayed as a different job (the folder that was there stays).
    QTemporaryDir dir;
    const std::filesystem::path root = dir.path().toStdString();
    std::filesystem::create_directories(root / "rapid.3.et");
    sim::StepModel model(scenario());
    QVERIFY_THROWS_EXCEPTION(
        std::exception, sim::writeStepChakraTraces(root.string(), model, sim::ChakraDetail::Chunk));
    QCOMPARE(traceFiles(root), 1); // the folder named rapid.3.et
    QVERIFY(!std::filesystem::exists(root / "rapid.0.et"));
    QVERIFY(!std::filesystem::exists(root / "comm_groups.json"));
}

void TstStepChakraExport::unwritablePlaceThrows()
{
    QTemporaryDir dir;
    const std::string file = test::writeFile(dir, "not-a-directory", "x");
    sim::StepModel model(scenario());
    QVERIFY_THROWS_EXCEPTION(std::exception, sim::writeStepChakraTraces(file, model, sim::ChakraDetail::Chunk));
}

void TstStepChakraExport::aLayerWaitingForItsHostWritesTheWait()
{
    // nanotron's small layers (Llama-2-7B, 256 tokens per micro-batch at tp 8) wait for its host's dispatch: each
    // layer pass's trace ends in a compute node of that wait, its own time, not spread over the kernels. Two
    // micro-batches x (forward + backward) x 32 layers on rank 0, adding up to the layer waits of the breakdown.
    const config::Scenario scenario
        = test::projectLoader().loadScenario("llama-2-7b", "hgx-a100-8gpu", "llama-2-7b-train-4xa100",
            { "run.framework=nanotron", "run.parallelism.tp=8", "run.parallelism.dp=1", "run.parallelism.sp=true",
                "run.training.seq_length=256", "run.training.global_batch=2" });
    sim::StepModel stepModel(scenario);
    const sim::LayerTimes& pass = stepModel.layerTimes(0, false);
    const auto wait = static_cast<size_t>(graph::TimeClass::HostDispatch);
    QVERIFY(pass.forward[wait] > 0 && pass.backward[wait] > 0);
    QTemporaryDir dir;
    sim::writeStepChakraTraces(dir.path().toStdString(), stepModel, sim::ChakraDetail::Layer);
    const auto traces = graph::readChakraDirectory(dir.path().toStdString());
    int waits = 0;
    double micros = 0;
    for (const graph::ChakraNode& node : traces.front().nodes) {
        if (node.name.ends_with("waiting for the host's dispatch")) {
            ++waits;
            micros += static_cast<double>(node.durationMicros);
        }
    }
    QCOMPARE(waits, 2 * 2 * 32);
    const double expected = 2 * 32 * (pass.forward[wait] + pass.backward[wait]) * 1e6;
    QVERIFY2(std::fabs(micros - expected) <= waits,
        qPrintable(QStringLiteral("%1 us, expected %2").arg(micros).arg(expected)));
}

QTEST_GUILESS_MAIN(TstStepChakraExport)
#include "tst_stepchakraexport.moc"
