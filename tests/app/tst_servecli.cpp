// SPDX-License-Identifier: GPL-3.0-or-later
// `rapid serve` end to end: one client alone is served in the time `rapid run` predicts for one request, the engine
// takes vLLM's defaults for the GPU, the CSV has a row per request, and bad input is an input error (exit 1) naming
// its cause or the option.
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>

namespace {

struct Result {
    int exitCode = -1;
    QString out;
    QString err;
};

Result runRapid(const QStringList& arguments)
{
    QProcess process;
    process.start(QStringLiteral(RAPID_CLI_PATH), arguments);
    process.waitForFinished(120000);
    return { process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
        QString::fromUtf8(process.readAllStandardOutput()), QString::fromUtf8(process.readAllStandardError()) };
}

/// Llama-3.1-8B on the 8 GPUs of an HGX node as one tensor-parallel replica.
QStringList scenario(const QString& hardware)
{
    return { QStringLiteral("--model"), QStringLiteral("llama-3.1-8b"), QStringLiteral("--hardware"), hardware,
        QStringLiteral("--run"), QStringLiteral("llama-3.1-8b-decode-1gpu"), QStringLiteral("--set"),
        QStringLiteral("run.parallelism.tp=8") };
}

QStringList serve(const QStringList& options, const QString& hardware = QStringLiteral("hgx-h100-8gpu"))
{
    return QStringList { QStringLiteral("serve") } + scenario(hardware) + options;
}

QJsonObject parseJson(const QString& text)
{
    return QJsonDocument::fromJson(text.toUtf8()).object();
}

bool writeFile(const QString& path, const QByteArray& text)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(text) == text.size();
}

} // namespace

class TstServeCli : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void oneClientIsServedInTheRunPrediction();
    void disaggregatedPoolsShareTheNode();
    void clientsAreDealtToTheReplicasInTurn();
    void engineDefaultsFollowVllmPerGpu_data();
    void engineDefaultsFollowVllmPerGpu();
    void sglangKeepsItsTwoPromptBudgets();
    void trtllmFusesAWideLlamasAllReducesUnlessATensorRtEngine();
    void mxfp4ExpertsOnBlackwellReportTheMoeRunner();
    void csvHasOneRowPerRequest();
    void aListOfLoadsSweepsThem();
    void theWorkspacesServingSectionGivesTheDefaults();
    void theSectionsWorkloadDrawsAreTheOptions();
    void unchunkedPromptsNeedRoomForWhatIsRecomputed();
    void swappedRequestsAreCopiedNotRecomputed();
    void iterationsCsvTracesTheCacheAndPreemptions();
    void pooledPromptsEvictedWhilePreemptedStayWithinTheCache();
    void draftsKeptEveryTimeDivideTheInterTokenLatency();
    void inputErrorsNameTheirCause_data();
    void inputErrorsNameTheirCause();
    void usageErrorsNameTheOption_data();
    void usageErrorsNameTheOption();
};

void TstServeCli::oneClientIsServedInTheRunPrediction()
{
    // One client, one request at a time: nothing is batched or queued, so each request's TTFT is the prefill of
    // `rapid run` at batch 1 with the same lengths, exactly (the same operators, no scheduler in between). Served from
    // a TensorRT engine, whose layers keep the generic kernels: vLLM, SGLang and TensorRT-LLM's PyTorch backend add
    // the residual in their RMSNorm's kernel, which `rapid run` does not assume (tst_servingsweep).
    const Result served = runRapid(serve({ QStringLiteral("--engine"), QStringLiteral("trtllm"),
        QStringLiteral("--tensorrt-engine"), QStringLiteral("--concurrency"), QStringLiteral("1"),
        QStringLiteral("--requests"), QStringLiteral("3"), QStringLiteral("--input-tokens"), QStringLiteral("700"),
        QStringLiteral("--output-tokens"), QStringLiteral("20"), QStringLiteral("--json"), QStringLiteral("-") }));
    QCOMPARE(served.exitCode, 0);
    const QString servedJson = served.out.mid(served.out.indexOf(QLatin1Char('{')));
    const QJsonObject summary = parseJson(servedJson);
    QCOMPARE(summary.value(QStringLiteral("requests")).toInt(), 3);
    QCOMPARE(summary.value(QStringLiteral("preemptions")).toInt(), 0);

    const Result run = runRapid(QStringList { QStringLiteral("run") } + scenario(QStringLiteral("hgx-h100-8gpu"))
        + QStringList { QStringLiteral("--set"), QStringLiteral("run.inference.batch=1"), QStringLiteral("--set"),
            QStringLiteral("run.inference.prompt_length=700"), QStringLiteral("--set"),
            QStringLiteral("run.inference.decode_length=20"), QStringLiteral("--json"), QStringLiteral("-") });
    QCOMPARE(run.exitCode, 0);
    const QJsonObject predicted = parseJson(run.out.mid(run.out.indexOf(QLatin1Char('{'))));
    const double ttft = predicted.value(QStringLiteral("ttft_s")).toDouble();
    QVERIFY(ttft > 0);
    const QJsonObject servedTtft = summary.value(QStringLiteral("ttft_s")).toObject();
    for (const char* key : { "mean", "p50", "max" }) {
        const double value = servedTtft.value(QLatin1String(key)).toDouble();
        QVERIFY2(std::abs(value - ttft) <= 1e-9 * ttft,
            qPrintable(QStringLiteral("%1: served %2 s, run %3 s").arg(QLatin1String(key)).arg(value).arg(ttft)));
    }
}

void TstServeCli::disaggregatedPoolsShareTheNode()
{
    // One prefill and one decode worker of tp 4 on the 8-GPU node, one client: each TTFT is the aggregated one of
    // the same worker (one request alone, `rapid serve` at tp 4) plus the KV move the summary reports, and the
    // summary counts both workers' 8 GPUs.
    const QStringList lengths { QStringLiteral("--concurrency"), QStringLiteral("1"), QStringLiteral("--requests"),
        QStringLiteral("2"), QStringLiteral("--input-tokens"), QStringLiteral("700"), QStringLiteral("--output-tokens"),
        QStringLiteral("20"), QStringLiteral("--json"), QStringLiteral("-") };
    const Result split = runRapid(serve(lengths
        + QStringList { QStringLiteral("--prefill-workers"), QStringLiteral("1"), QStringLiteral("--decode-workers"),
            QStringLiteral("1"), QStringLiteral("--prefill-tp"), QStringLiteral("4"), QStringLiteral("--decode-tp"),
            QStringLiteral("4") }));
    QCOMPARE(split.exitCode, 0);
    QVERIFY2(split.out.contains(QLatin1String("1 prefill worker(s) of 4 GPU(s)")), qPrintable(split.out));
    // The summary names the pools, not a replica, and has no per-replica KV-cache line (the pools line has it).
    QVERIFY2(split.out.contains(QLatin1String("served     2 requests on 1 prefill and 1 decode worker(s), 8 GPUs")),
        qPrintable(split.out));
    QVERIFY2(!split.out.contains(QLatin1String("blocks per replica")), qPrintable(split.out));
    const QJsonObject summary = parseJson(split.out.mid(split.out.indexOf(QLatin1Char('{'))));
    QCOMPARE(summary.value(QStringLiteral("gpus")).toInt(), 8);
    // Two replicas of tp 4 with a client each: each replica serves one request at a time, as the pools do.
    QStringList shared = lengths;
    shared.replace(1, QStringLiteral("2"));
    shared.replace(3, QStringLiteral("4"));
    const Result together = runRapid(serve(shared
        + QStringList { QStringLiteral("--set"), QStringLiteral("run.parallelism.tp=4"), QStringLiteral("--set"),
            QStringLiteral("run.parallelism.dp=2") }));
    QCOMPARE(together.exitCode, 0);
    const QJsonObject aggregated = parseJson(together.out.mid(together.out.indexOf(QLatin1Char('{'))));
    const double move
        = split.out.section(QStringLiteral("kv move    "), 1).section(QLatin1Char(' '), 0, 0).toDouble() * 1e-3;
    QVERIFY(move > 0);
    const double ttft = summary.value(QStringLiteral("ttft_s")).toObject().value(QStringLiteral("mean")).toDouble();
    const double alone = aggregated.value(QStringLiteral("ttft_s")).toObject().value(QStringLiteral("mean")).toDouble();
    // The summary prints the move in ms to two decimals.
    QVERIFY2(std::abs(ttft - (alone + move)) <= 0.01e-3,
        qPrintable(QStringLiteral("%1 vs %2 + %3").arg(ttft).arg(alone).arg(move)));

    // The same two workers as a one-split sweep: one row, 8 GPUs, on its own Pareto front; CSV with a header.
    QTemporaryDir dir;
    const QString csv = dir.filePath(QStringLiteral("splits.csv"));
    const Result swept
        = runRapid(serve({ QStringLiteral("--concurrency"), QStringLiteral("1"), QStringLiteral("--requests"),
            QStringLiteral("2"), QStringLiteral("--pool-splits"), QStringLiteral("1:1"), QStringLiteral("--prefill-tp"),
            QStringLiteral("4"), QStringLiteral("--decode-tp"), QStringLiteral("4"), QStringLiteral("--csv"), csv }));
    QCOMPARE(swept.exitCode, 0);
    QVERIFY2(swept.out.contains(QRegularExpression(QStringLiteral("\\n\\s+1:1\\s+8 .*\\*\\n"))), qPrintable(swept.out));
    QFile file(csv);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll().count('\n'), 2);
}

void TstServeCli::clientsAreDealtToTheReplicasInTurn()
{
    // Eight replicas of one GPU. Three clients go to three replicas, one each, and five stay idle; eight clients go
    // one to every replica. Either way every request is served alone, two in a row per client, so the latencies are
    // equal and the throughput of three clients is 3/8 of eight's; the summary counts all eight replicas.
    const auto serveClients = [](int clients) {
        return runRapid(serve({ QStringLiteral("--set"), QStringLiteral("run.parallelism.tp=1"),
            QStringLiteral("--set"), QStringLiteral("run.parallelism.dp=8"), QStringLiteral("--concurrency"),
            QString::number(clients), QStringLiteral("--requests"), QString::number(2 * clients),
            QStringLiteral("--input-tokens"), QStringLiteral("300"), QStringLiteral("--output-tokens"),
            QStringLiteral("10"), QStringLiteral("--json"), QStringLiteral("-") }));
    };
    const Result three = serveClients(3);
    const Result eight = serveClients(8);
    QCOMPARE(three.exitCode, 0);
    QCOMPARE(eight.exitCode, 0);
    QVERIFY2(three.out.contains(QLatin1String("served     6 requests on 8 replica(s)")), qPrintable(three.out));
    const QJsonObject few = parseJson(three.out.mid(three.out.indexOf(QLatin1Char('{'))));
    const QJsonObject all = parseJson(eight.out.mid(eight.out.indexOf(QLatin1Char('{'))));
    const auto mean = [](const QJsonObject& summary, const char* latency) {
        return summary.value(QLatin1String(latency)).toObject().value(QStringLiteral("mean")).toDouble();
    };
    QVERIFY(mean(few, "ttft_s") > 0);
    QCOMPARE(mean(few, "ttft_s"), mean(all, "ttft_s"));
    QCOMPARE(mean(few, "e2e_s"), mean(all, "e2e_s"));
    const double ratio = few.value(QStringLiteral("output_tokens_per_s")).toDouble()
        / all.value(QStringLiteral("output_tokens_per_s")).toDouble();
    QVERIFY2(std::abs(ratio - 3.0 / 8.0) < 1e-9, qPrintable(QString::number(ratio)));
}

void TstServeCli::engineDefaultsFollowVllmPerGpu_data()
{
    // vLLM (>= 0.9, EngineArgs.get_batch_defaults for `vllm serve`): a GPU of 70 GiB or more that is not an A100
    // gets 8,192 batched tokens and 1,024 sequences, any other 2,048 and 256.
    // TensorRT-LLM (--engine trtllm): BuildConfig's max_num_tokens 8,192 and max_batch_size 2,048 on any GPU.
    // Both keep 0.9 of the memory. SGLang (server_args.py since v0.5.3): chunked_prefill_size 8,192 below 160 GiB and
    // 16,384 above; mem_fraction_static = (memory - reserve) / memory to 0.001, the reserve 512 MiB + 1.5 MiB per
    // chunk token + 2 MiB per CUDA-graph size (512 at tp 8) + tp x pp / 8 GiB: at tp 8 on 80 GiB (81,920 MiB)
    // 512 + 12,288 + 1,024 + 1,024 = 14,848 MiB, 0.819; on 180 GiB (184,320 MiB) 512 + 24,576 + 1,024 + 1,024 =
    // 27,136 MiB, 0.853; 2,048 requests.
    QTest::addColumn<QString>("hardware");
    QTest::addColumn<QString>("engine");
    QTest::addColumn<int>("tokens");
    QTest::addColumn<int>("sequences");
    QTest::addColumn<double>("utilization");
    // TensorRT-LLM's SchedulerConfig: capacity_scheduler_policy GUARANTEED_NO_EVICT; SGLang's PrefillAdder reserves
    // new_token_ratio of the running outputs; vLLM admits by the blocks free now.
    QTest::addColumn<QString>("policy");
    // KV block: vLLM CacheConfig.block_size 16 on CUDA; TensorRT-LLM KvCacheConfig.tokens_per_block 32; SGLang's
    // page_size 1 (its radix cache keeps single tokens).
    QTest::addColumn<int>("block");
    const QString preempting = QStringLiteral("max-utilization");
    QTest::addRow("h100") << QStringLiteral("hgx-h100-8gpu") << QStringLiteral("vllm") << 8192 << 1024 << 0.9
                          << preempting << 16;
    QTest::addRow("a100") << QStringLiteral("hgx-a100-8gpu") << QStringLiteral("vllm") << 2048 << 256 << 0.9
                          << preempting << 16;
    QTest::addRow("a100_trtllm") << QStringLiteral("hgx-a100-8gpu") << QStringLiteral("trtllm") << 8192 << 2048 << 0.9
                                 << QStringLiteral("guaranteed-no-evict") << 32;
    QTest::addRow("h100_sglang") << QStringLiteral("hgx-h100-8gpu") << QStringLiteral("sglang") << 8192 << 2048 << 0.819
                                 << QStringLiteral("new-token-ratio") << 1;
    QTest::addRow("b200_sglang") << QStringLiteral("hgx-b200-8gpu") << QStringLiteral("sglang") << 16384 << 2048
                                 << 0.853 << QStringLiteral("new-token-ratio") << 1;
}

void TstServeCli::engineDefaultsFollowVllmPerGpu()
{
    QFETCH(QString, hardware);
    QFETCH(QString, engine);
    QFETCH(int, tokens);
    QFETCH(int, sequences);
    QFETCH(double, utilization);
    QFETCH(QString, policy);
    QFETCH(int, block);
    const Result served = runRapid(serve(
        { QStringLiteral("--requests"), QStringLiteral("1"), QStringLiteral("--output-tokens"), QStringLiteral("4"),
            QStringLiteral("--engine"), engine, QStringLiteral("--json"), QStringLiteral("-") },
        hardware));
    QCOMPARE(served.exitCode, 0);
    const QJsonObject options
        = parseJson(served.out.mid(served.out.indexOf(QLatin1Char('{')))).value(QStringLiteral("engine")).toObject();
    QCOMPARE(options.value(QStringLiteral("max_num_batched_tokens")).toInt(), tokens);
    QCOMPARE(options.value(QStringLiteral("max_num_seqs")).toInt(), sequences);
    QVERIFY(std::abs(options.value(QStringLiteral("gpu_memory_utilization")).toDouble() - utilization) < 1e-12);
    QCOMPARE(options.value(QStringLiteral("profile")).toString(), engine);
    QCOMPARE(options.value(QStringLiteral("capacity_policy")).toString(), policy);
    QCOMPARE(options.value(QStringLiteral("block_size")).toInt(), block);
    QVERIFY(served.out.contains(QStringLiteral("max_num_batched_tokens %1").arg(tokens)));
    QVERIFY(served.out.contains(policy));
}

void TstServeCli::sglangKeepsItsTwoPromptBudgets()
{
    // SGLang's two prompt budgets are separate knobs: chunked_prefill_size (--max-num-batched-tokens, 8,192 on an
    // H100) and max_prefill_tokens (16,384 unless given); the timeline they give is tst_servingengine's.
    const auto budget = [](const QStringList& extra) {
        const Result served
            = runRapid(serve(QStringList { QStringLiteral("--requests"), QStringLiteral("1"),
                                 QStringLiteral("--output-tokens"), QStringLiteral("4"), QStringLiteral("--engine"),
                                 QStringLiteral("sglang"), QStringLiteral("--json"), QStringLiteral("-") }
                    + extra,
                QStringLiteral("hgx-h100-8gpu")));
        const QJsonObject engine = parseJson(served.out.mid(served.out.indexOf(QLatin1Char('{'))))
                                       .value(QStringLiteral("engine"))
                                       .toObject();
        return std::make_pair(engine.value(QStringLiteral("max_num_batched_tokens")).toInt(),
            engine.value(QStringLiteral("max_prefill_tokens")).toInt());
    };
    QCOMPARE(budget({}), std::make_pair(8192, 16384));
    QCOMPARE(budget({ QStringLiteral("--max-prefill-tokens"), QStringLiteral("2500") }), std::make_pair(8192, 2500));
}

void TstServeCli::trtllmFusesAWideLlamasAllReducesUnlessATensorRtEngine()
{
    // Llama-3.1-70B (LlamaForCausalLM, hidden 8192) at tp 8: TensorRT-LLM's PyTorch backend fuses each all-reduce with
    // the residual add, the next RMSNorm and (FP8) its quantisation (docs/serving.md); a trtllm-build engine does not.
    // The fused layer drops two norms, two residual adds and two casts, so one request decodes faster.
    const auto run = [](const QStringList& extra) {
        return runRapid(
            QStringList { QStringLiteral("serve"), QStringLiteral("--model"), QStringLiteral("llama-3.1-70b"),
                QStringLiteral("--hardware"), QStringLiteral("hgx-h100-8gpu"), QStringLiteral("--run"),
                QStringLiteral("llama-3.1-8b-decode-1gpu"), QStringLiteral("--set"),
                QStringLiteral("run.parallelism.tp=8"), QStringLiteral("--requests"), QStringLiteral("1"),
                QStringLiteral("--output-tokens"), QStringLiteral("16"), QStringLiteral("--engine"),
                QStringLiteral("trtllm"), QStringLiteral("--json"), QStringLiteral("-") }
            + extra);
    };
    const Result fused = run({});
    const Result engine = run({ QStringLiteral("--tensorrt-engine") });
    QCOMPARE(fused.exitCode, 0);
    QCOMPARE(engine.exitCode, 0);
    const QJsonObject fusedJson = parseJson(fused.out.mid(fused.out.indexOf(QLatin1Char('{'))));
    const QJsonObject engineJson = parseJson(engine.out.mid(engine.out.indexOf(QLatin1Char('{'))));
    QVERIFY(fusedJson.value(QStringLiteral("engine"))
                .toObject()
                .value(QStringLiteral("allreduce_fused_with_norm"))
                .toBool());
    QVERIFY(!engineJson.value(QStringLiteral("engine"))
                 .toObject()
                 .value(QStringLiteral("allreduce_fused_with_norm"))
                 .toBool());
    QVERIFY(engineJson.value(QStringLiteral("engine")).toObject().value(QStringLiteral("tensorrt_engine")).toBool());
    QVERIFY(fused.out.contains(QStringLiteral("all-reduces fused with the residual add and RMSNorm")));
    QVERIFY(!engine.out.contains(QStringLiteral("all-reduces fused")));
    // The PyTorch backend's RMSNorm also adds the residual (one kernel); bf16 has no cast for the all-reduce to
    // fold in. A TensorRT engine's fusions are not known: neither is reported.
    const auto engineFlag = [](const QJsonObject& json, const char* key) {
        return json.value(QStringLiteral("engine")).toObject().value(QLatin1String(key)).toBool();
    };
    QVERIFY(engineFlag(fusedJson, "residual_add_fused_with_norm"));
    QVERIFY(!engineFlag(engineJson, "residual_add_fused_with_norm"));
    QVERIFY(!engineFlag(fusedJson, "allreduce_fused_quantises"));
    QVERIFY(!engine.out.contains(QStringLiteral("residual add fused")));
    const auto itl = [](const QJsonObject& json) {
        return json.value(QStringLiteral("itl_s")).toObject().value(QStringLiteral("mean")).toDouble();
    };
    // bf16: no casts to drop; per layer two norms and two residual adds of one token's 8,192 values, each a launch
    // (H100 preset: 4 us) plus well under 0.1 us of bytes: 80 x 4 x 4 us = 1.28 ms less per decode step, less the
    // epilogues' bytes (160 x 57 KB at 3 TB/s, about 3 us).
    const double saved = itl(engineJson) - itl(fusedJson);
    QVERIFY2(saved > 1.27e-3 && saved < 1.30e-3,
        qPrintable(QString::number(itl(fusedJson)) + QStringLiteral(" vs ") + QString::number(itl(engineJson))));
}

void TstServeCli::mxfp4ExpertsOnBlackwellReportTheMoeRunner()
{
    // gpt-oss-120b's MXFP4 experts on one B200: TensorRT-LLM runs them as trtllm-gen's MoE runner (docs/serving.md),
    // which the engine line and the JSON say; SGLang's kernels are modelled unfused.
    const auto run = [](const char* engine) {
        return runRapid({ QStringLiteral("serve"), QStringLiteral("--model"), QStringLiteral("gpt-oss-120b"),
            QStringLiteral("--hardware"), QStringLiteral("b200"), QStringLiteral("--run"),
            QStringLiteral("llama-serve-a100"), QStringLiteral("--set"),
            QStringLiteral("run.precision.expert_weights=mxfp4"), QStringLiteral("--requests"), QStringLiteral("1"),
            QStringLiteral("--output-tokens"), QStringLiteral("4"), QStringLiteral("--engine"),
            QString::fromLatin1(engine), QStringLiteral("--json"), QStringLiteral("-") });
    };
    const auto fused = [](const Result& served) {
        return parseJson(served.out.mid(served.out.indexOf(QLatin1Char('{'))))
            .value(QStringLiteral("engine"))
            .toObject()
            .value(QStringLiteral("moe_runner_fused"))
            .toBool();
    };
    const Result trtllm = run("trtllm");
    const Result sglang = run("sglang");
    QCOMPARE(trtllm.exitCode, 0);
    QCOMPARE(sglang.exitCode, 0);
    QVERIFY(fused(trtllm));
    QVERIFY(!fused(sglang));
    QVERIFY(trtllm.out.contains(QStringLiteral("MoE runner")));
    QVERIFY(!sglang.out.contains(QStringLiteral("MoE runner")));
}

void TstServeCli::csvHasOneRowPerRequest()
{
    QTemporaryDir dir;
    const QString csv = dir.filePath(QStringLiteral("requests.csv"));
    const Result served = runRapid(serve(
        { QStringLiteral("--concurrency"), QStringLiteral("4"), QStringLiteral("--requests"), QStringLiteral("12"),
            QStringLiteral("--output-tokens"), QStringLiteral("8"), QStringLiteral("--csv"), csv }));
    QCOMPARE(served.exitCode, 0);
    QFile file(csv);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(file.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 13);
    QCOMPARE(lines.front(), QStringLiteral("id,arrival_s,input_tokens,output_tokens,ttft_s,itl_s,e2e_s,preemptions"));

    // Spread lengths and gamma gaps: every request's own lengths in its row, and the workload line says how they
    // were drawn (shape 0.25: a coefficient of variation of 1 / sqrt(0.25) = 2).
    const Result spread = runRapid(serve({ QStringLiteral("--rate"), QStringLiteral("5"),
        QStringLiteral("--burstiness"), QStringLiteral("0.25"), QStringLiteral("--requests"), QStringLiteral("12"),
        QStringLiteral("--input-tokens"), QStringLiteral("300"), QStringLiteral("--input-tokens-stddev"),
        QStringLiteral("50"), QStringLiteral("--output-tokens"), QStringLiteral("8"), QStringLiteral("--csv"), csv }));
    QCOMPARE(spread.exitCode, 0);
    QVERIFY2(spread.out.contains(QStringLiteral("workload   gamma-distributed gaps of shape 0.25 (coefficient of "
                                                "variation 2); lengths drawn from normal distributions: prompts 300 "
                                                "+- 50, outputs 8 +- 0 tokens (seed 1)")),
        qPrintable(spread.out));
    QFile drawn(csv);
    QVERIFY(drawn.open(QIODevice::ReadOnly));
    const QStringList rows = QString::fromUtf8(drawn.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(rows.size(), 13);
    QSet<QString> prompts;
    for (const QString& row : rows.mid(1)) {
        prompts.insert(row.split(QLatin1Char(',')).at(2));
        QCOMPARE(row.split(QLatin1Char(',')).at(3), QStringLiteral("8"));
    }
    QVERIFY2(prompts.size() > 1, qPrintable(rows.join(QLatin1Char('|'))));
}

void TstServeCli::aListOfLoadsSweepsThem()
{
    // Three client counts: one table row each, the JSON's points in the given order with their load and Pareto flag,
    // one CSV row per load; the single-load run of 4 clients gives the same throughput as the sweep's point.
    QTemporaryDir dir;
    const QString csv = dir.filePath(QStringLiteral("sweep.csv"));
    const QString json = dir.filePath(QStringLiteral("sweep.json"));
    const QStringList lengths = { QStringLiteral("--input-tokens"), QStringLiteral("300"),
        QStringLiteral("--output-tokens"), QStringLiteral("16") };
    const Result swept = runRapid(serve(QStringList { QStringLiteral("--concurrency"), QStringLiteral("1,4,16"),
                                            QStringLiteral("--csv"), csv, QStringLiteral("--json"), json }
        + lengths));
    QCOMPARE(swept.exitCode, 0);
    QVERIFY2(swept.out.contains(QStringLiteral("concurrency")) && swept.out.contains(QStringLiteral("Pareto")),
        qPrintable(swept.out));
    QFile jsonFile(json);
    QVERIFY(jsonFile.open(QIODevice::ReadOnly));
    const QJsonObject sweep = QJsonDocument::fromJson(jsonFile.readAll()).object();
    QCOMPARE(sweep.value(QStringLiteral("load")).toString(), QStringLiteral("concurrency"));
    const QJsonArray points = sweep.value(QStringLiteral("points")).toArray();
    QCOMPARE(points.size(), 3);
    QCOMPARE(points[1].toObject().value(QStringLiteral("concurrency")).toDouble(), 4.0);
    QVERIFY(points[1].toObject().contains(QStringLiteral("pareto")));
    QFile csvFile(csv);
    QVERIFY(csvFile.open(QIODevice::ReadOnly));
    QCOMPARE(QString::fromUtf8(csvFile.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts).size(), 4);

    const Result single = runRapid(serve(QStringList { QStringLiteral("--concurrency"), QStringLiteral("4"),
                                             QStringLiteral("--json"), QStringLiteral("-") }
        + lengths));
    QCOMPARE(single.exitCode, 0);
    const QJsonObject alone = parseJson(single.out.mid(single.out.indexOf(QLatin1Char('{'))));
    QCOMPARE(points[1].toObject().value(QStringLiteral("output_tokens_per_s")).toDouble(),
        alone.value(QStringLiteral("output_tokens_per_s")).toDouble());
}

void TstServeCli::theWorkspacesServingSectionGivesTheDefaults()
{
    // The Serving tab's set-up saved with a workspace: `rapid serve WORKSPACE` serves what the same options given on
    // the command line serve, and an option given there wins over the section.
    QTemporaryDir dir;
    const QString workspace = dir.filePath(QStringLiteral("served.rapid.yaml"));
    QVERIFY(writeFile(workspace,
        "name: served\nmodel: llama-3.1-8b\nhardware: hgx-h100-8gpu\nrun: llama-3.1-8b-decode-1gpu\n"
        "overrides:\n  - run.parallelism.tp=8\n"
        "serving:\n  load: concurrency\n  loads: \" 1, 4 \"\n  input_tokens: 300\n  output_tokens: 16\n"
        "  engine: sglang\n  ttft_slo_ms: 40\n  host_time_ms: 1.5\n  host_time_per_request_ms: 0.25\n"
        "  overlap_host: true\n  capacity_policy: guaranteed-no-evict\n  max_num_seqs: 3\n"
        "  max_num_batched_tokens: 700\n  chunked_prefill: false\n  block_size: 8\n  max_prefill_tokens: 400\n"
        "  gpu_memory_utilization: 0.6\n  batching: mixed\n  overlap_scheduler: off\n  speculative_tokens: 2\n"
        "  acceptance: 0.6\n  draft: head\n  draft_layers: 2\n"));
    const Result fromSection = runRapid(
        { QStringLiteral("serve"), workspace, QStringLiteral("--json"), dir.filePath(QStringLiteral("a.json")) });
    QCOMPARE(fromSection.exitCode, 0);
    const Result fromOptions = runRapid(serve({ QStringLiteral("--concurrency"), QStringLiteral("1,4"),
        QStringLiteral("--input-tokens"), QStringLiteral("300"), QStringLiteral("--output-tokens"),
        QStringLiteral("16"), QStringLiteral("--engine"), QStringLiteral("sglang"), QStringLiteral("--slo-ttft"),
        QStringLiteral("40ms"), QStringLiteral("--host-time"), QStringLiteral("1.5ms"),
        QStringLiteral("--host-time-per-request"), QStringLiteral("0.25ms"), QStringLiteral("--overlap-host"),
        QStringLiteral("--capacity-policy"), QStringLiteral("guaranteed-no-evict"), QStringLiteral("--max-num-seqs"),
        QStringLiteral("3"), QStringLiteral("--max-num-batched-tokens"), QStringLiteral("700"),
        QStringLiteral("--no-chunked-prefill"), QStringLiteral("--block-size"), QStringLiteral("8"),
        QStringLiteral("--max-prefill-tokens"), QStringLiteral("400"), QStringLiteral("--gpu-memory-utilization"),
        QStringLiteral("0.6"), QStringLiteral("--batching"), QStringLiteral("mixed"),
        QStringLiteral("--overlap-scheduler"), QStringLiteral("off"), QStringLiteral("--speculative-tokens"),
        QStringLiteral("2"), QStringLiteral("--acceptance"), QStringLiteral("0.6"), QStringLiteral("--draft-layers"),
        QStringLiteral("2"), QStringLiteral("--json"), dir.filePath(QStringLiteral("b.json")) }));
    QCOMPARE(fromOptions.exitCode, 0);
    QFile a(dir.filePath(QStringLiteral("a.json")));
    QFile b(dir.filePath(QStringLiteral("b.json")));
    QVERIFY(a.open(QIODevice::ReadOnly) && b.open(QIODevice::ReadOnly));
    const QJsonObject sectionSweep = QJsonDocument::fromJson(a.readAll()).object();
    QCOMPARE(sectionSweep.value(QStringLiteral("points")).toArray().size(), 2);
    QCOMPARE(sectionSweep, QJsonDocument::fromJson(b.readAll()).object());
    QVERIFY2(fromSection.out.contains(QStringLiteral("speculative: 2 drafts by a 2-layer head, acceptance 0.6")),
        qPrintable(fromSection.out));

    const Result overridden
        = runRapid({ QStringLiteral("serve"), workspace, QStringLiteral("--concurrency"), QStringLiteral("2"),
            QStringLiteral("--engine"), QStringLiteral("vllm"), QStringLiteral("--json"), QStringLiteral("-") });
    QCOMPARE(overridden.exitCode, 0);
    const QJsonObject one = parseJson(overridden.out.mid(overridden.out.indexOf(QLatin1Char('{'))));
    QVERIFY2(!one.contains(QStringLiteral("points")), qPrintable(overridden.out));
    // The section's scheduler knobs stay; SGLang's prefill budget is not applied to vLLM (no usage error either).
    QVERIFY2(overridden.out.contains(QStringLiteral("max_num_seqs 3, max_num_batched_tokens 700, chunked prefill off, "
                                                    "block 8 tokens")),
        qPrintable(overridden.out));

    // The drafts' acceptance given as their mean length: 2 drafts yielding 2.2 tokens per verification is the
    // acceptance P with 1 + P + P^2 = 2.2, P = (sqrt(5.8) - 1) / 2 = 0.70416. An acceptance typed on the command line
    // stands in for the section's, whichever way either is given.
    const QString byLength = dir.filePath(QStringLiteral("length.rapid.yaml"));
    QVERIFY(writeFile(byLength,
        "name: served\nmodel: llama-3.1-8b\nhardware: hgx-h100-8gpu\nrun: llama-3.1-8b-decode-1gpu\n"
        "overrides:\n  - run.parallelism.tp=8\n"
        "serving:\n  loads: \"2\"\n  input_tokens: 300\n  output_tokens: 16\n  speculative_tokens: 2\n"
        "  acceptance_length: 2.2\n  draft: ngram\n"));
    const Result lengthSection = runRapid({ QStringLiteral("serve"), byLength });
    QCOMPARE(lengthSection.exitCode, 0);
    QVERIFY2(lengthSection.out.contains(QStringLiteral("2 drafts by prompt lookup, acceptance 0.704")),
        qPrintable(lengthSection.out));
    const Result typedProbability
        = runRapid({ QStringLiteral("serve"), byLength, QStringLiteral("--acceptance"), QStringLiteral("0.5") });
    QCOMPARE(typedProbability.exitCode, 0);
    QVERIFY2(typedProbability.out.contains(QStringLiteral("acceptance 0.5, 1.75 tokens per verification")),
        qPrintable(typedProbability.out));

    // A damaged section is an input error naming its key, before anything is served.
    QVERIFY(writeFile(workspace,
        "name: served\nmodel: llama-3.1-8b\nhardware: hgx-h100-8gpu\nrun: llama-3.1-8b-decode-1gpu\n"
        "serving:\n  engine: tgi\n"));
    const Result damaged = runRapid({ QStringLiteral("serve"), workspace });
    QCOMPARE(damaged.exitCode, 1);
    QVERIFY2(damaged.err.contains(QStringLiteral("serving.engine")), qPrintable(damaged.err));
    // What the tab may hold but rapid serve cannot take is an input error naming the section's key, not an option the
    // user did not type: loads typed halfway, one pool count without the other, drafts without their acceptance.
    const std::pair<QByteArray, QString> refusals[] = { { "  loads: \"2, x\"\n", QStringLiteral("serving.loads") },
        { "  loads: \"1\"\n  prefill_workers: 1\n", QStringLiteral("serving.decode_workers") },
        { "  loads: \"1\"\n  speculative_tokens: 2\n", QStringLiteral("serving.speculative_tokens") } };
    for (const auto& [section, key] : refusals) {
        QVERIFY(writeFile(workspace,
            "name: served\nmodel: llama-3.1-8b\nhardware: hgx-h100-8gpu\nrun: llama-3.1-8b-decode-1gpu\nserving:\n"
                + section));
        const Result refused = runRapid({ QStringLiteral("serve"), workspace });
        QCOMPARE(refused.exitCode, 1);
        QVERIFY2(refused.err.contains(key) && !refused.err.startsWith(QStringLiteral("rapid serve: --")),
            qPrintable(refused.err));
    }
    // Pools at one load: the same as the presets with the pool options.
    QVERIFY(writeFile(workspace,
        "name: served\nmodel: llama-3.1-8b\nhardware: hgx-h100-8gpu\nrun: llama-3.1-8b-decode-1gpu\n"
        "overrides:\n  - run.parallelism.tp=4\n  - run.parallelism.dp=2\n"
        "serving:\n  loads: \"2\"\n  input_tokens: 700\n  output_tokens: 20\n  requests: 4\n  prefill_workers: 1\n"
        "  decode_workers: 1\n  prefill_tp: 4\n  decode_tp: 4\n"));
    const Result pools
        = runRapid({ QStringLiteral("serve"), workspace, QStringLiteral("--json"), QStringLiteral("-") });
    QCOMPARE(pools.exitCode, 0);
    const Result presets = runRapid(serve({ QStringLiteral("--concurrency"), QStringLiteral("2"),
        QStringLiteral("--requests"), QStringLiteral("4"), QStringLiteral("--input-tokens"), QStringLiteral("700"),
        QStringLiteral("--output-tokens"), QStringLiteral("20"), QStringLiteral("--prefill-workers"),
        QStringLiteral("1"), QStringLiteral("--decode-workers"), QStringLiteral("1"), QStringLiteral("--prefill-tp"),
        QStringLiteral("4"), QStringLiteral("--decode-tp"), QStringLiteral("4"), QStringLiteral("--json"),
        QStringLiteral("-") }));
    QCOMPARE(presets.exitCode, 0);
    QVERIFY2(pools.out.contains(QLatin1String("1 prefill worker(s) of 4 GPU(s)")), qPrintable(pools.out));
    QCOMPARE(parseJson(pools.out.mid(pools.out.indexOf(QLatin1Char('{')))),
        parseJson(presets.out.mid(presets.out.indexOf(QLatin1Char('{')))));
    // Pools at several loads, as the Serving tab serves them: one point per load, the second the single run above.
    const Result poolSweep = runRapid({ QStringLiteral("serve"), workspace, QStringLiteral("--concurrency"),
        QStringLiteral("1,2"), QStringLiteral("--json"), QStringLiteral("-") });
    QCOMPARE(poolSweep.exitCode, 0);
    const QJsonArray poolPoints = parseJson(poolSweep.out.mid(poolSweep.out.indexOf(QLatin1Char('{'))))
                                      .value(QStringLiteral("points"))
                                      .toArray();
    QCOMPARE(poolPoints.size(), 2);
    QCOMPARE(poolPoints[1].toObject().value(QStringLiteral("output_tokens_per_s")).toDouble(),
        parseJson(pools.out.mid(pools.out.indexOf(QLatin1Char('{'))))
            .value(QStringLiteral("output_tokens_per_s"))
            .toDouble());
}

void TstServeCli::theSectionsWorkloadDrawsAreTheOptions()
{
    // Gamma gaps and spread lengths kept with the workspace serve what --burstiness and the two deviations serve (the
    // same draws: every per-request row of the CSV alike). A closed loop keeps the section's burstiness unapplied, as
    // the tab greys it out for clients: no usage error, and the same result as without it.
    QTemporaryDir dir;
    const QString workspace = dir.filePath(QStringLiteral("drawn.rapid.yaml"));
    const QByteArray head = "name: drawn\nmodel: llama-3.1-8b\nhardware: hgx-h100-8gpu\nrun: llama-3.1-8b-decode-1gpu\n"
                            "overrides:\n  - run.parallelism.tp=8\n";
    QVERIFY(writeFile(workspace,
        head
            + "serving:\n  load: rate\n  loads: \"4\"\n  input_tokens: 300\n  output_tokens: 16\n  requests: 40\n"
              "  burstiness: 0.25\n  input_tokens_stddev: 50\n  output_tokens_stddev: 4\n"));
    const Result fromSection = runRapid(
        { QStringLiteral("serve"), workspace, QStringLiteral("--csv"), dir.filePath(QStringLiteral("a.csv")) });
    QCOMPARE(fromSection.exitCode, 0);
    QVERIFY2(
        fromSection.out.contains(QStringLiteral("gamma-distributed gaps of shape 0.25")), qPrintable(fromSection.out));
    const Result fromOptions
        = runRapid(serve({ QStringLiteral("--rate"), QStringLiteral("4"), QStringLiteral("--input-tokens"),
            QStringLiteral("300"), QStringLiteral("--output-tokens"), QStringLiteral("16"),
            QStringLiteral("--requests"), QStringLiteral("40"), QStringLiteral("--burstiness"), QStringLiteral("0.25"),
            QStringLiteral("--input-tokens-stddev"), QStringLiteral("50"), QStringLiteral("--output-tokens-stddev"),
            QStringLiteral("4"), QStringLiteral("--csv"), dir.filePath(QStringLiteral("b.csv")) }));
    QCOMPARE(fromOptions.exitCode, 0);
    QFile a(dir.filePath(QStringLiteral("a.csv")));
    QFile b(dir.filePath(QStringLiteral("b.csv")));
    QVERIFY(a.open(QIODevice::ReadOnly) && b.open(QIODevice::ReadOnly));
    const QByteArray rows = a.readAll();
    QCOMPARE(rows.count('\n'), 41); // a header and 40 requests
    QCOMPARE(rows, b.readAll());

    QVERIFY(writeFile(workspace,
        head
            + "serving:\n  load: concurrency\n  loads: \"2\"\n  input_tokens: 300\n  output_tokens: 16\n"
              "  burstiness: 0.25\n"));
    const Result clients
        = runRapid({ QStringLiteral("serve"), workspace, QStringLiteral("--json"), QStringLiteral("-") });
    QCOMPARE(clients.exitCode, 0);
    QVERIFY2(!clients.out.contains(QStringLiteral("gamma")), qPrintable(clients.out));
    const Result plain = runRapid(serve(
        { QStringLiteral("--concurrency"), QStringLiteral("2"), QStringLiteral("--input-tokens"), QStringLiteral("300"),
            QStringLiteral("--output-tokens"), QStringLiteral("16"), QStringLiteral("--json"), QStringLiteral("-") }));
    QCOMPARE(plain.exitCode, 0);
    QCOMPARE(parseJson(clients.out.mid(clients.out.indexOf(QLatin1Char('{')))),
        parseJson(plain.out.mid(plain.out.indexOf(QLatin1Char('{')))));
    // A burstiness the options refuse is refused in the section too, at its key.
    QVERIFY(writeFile(workspace, head + "serving:\n  load: rate\n  loads: \"4\"\n  burstiness: 0\n"));
    const Result refused = runRapid({ QStringLiteral("serve"), workspace });
    QCOMPARE(refused.exitCode, 1);
    QVERIFY2(refused.err.contains(QStringLiteral("serving.burstiness")), qPrintable(refused.err));

    // The section's prompt pool is --prompt-pool: one prompt sent by 2 clients 20 times (10 requests each) is computed
    // once, then served from the cache but for its last block (300 tokens: 288 cached, 18 whole blocks of 16 short of
    // the last token; the first round's two requests both miss, as they arrive together): 18 x 288 of 20 x 300 =
    // 86.4% of the prompt tokens.
    QVERIFY(writeFile(workspace,
        head
            + "serving:\n  load: concurrency\n  loads: \"2\"\n  input_tokens: 300\n  output_tokens: 16\n"
              "  requests: 20\n  prompt_pool: 1\n"));
    const Result pooledSection
        = runRapid({ QStringLiteral("serve"), workspace, QStringLiteral("--json"), QStringLiteral("-") });
    QCOMPARE(pooledSection.exitCode, 0);
    const Result pooledOptions = runRapid(serve(
        { QStringLiteral("--concurrency"), QStringLiteral("2"), QStringLiteral("--input-tokens"), QStringLiteral("300"),
            QStringLiteral("--output-tokens"), QStringLiteral("16"), QStringLiteral("--requests"), QStringLiteral("20"),
            QStringLiteral("--prompt-pool"), QStringLiteral("1"), QStringLiteral("--json"), QStringLiteral("-") }));
    QCOMPARE(pooledOptions.exitCode, 0);
    QVERIFY2(
        pooledOptions.out.contains(QStringLiteral("prompts drawn from a pool of 1")), qPrintable(pooledOptions.out));
    const QJsonObject pooled = parseJson(pooledOptions.out.mid(pooledOptions.out.indexOf(QLatin1Char('{'))));
    QCOMPARE(parseJson(pooledSection.out.mid(pooledSection.out.indexOf(QLatin1Char('{')))), pooled);
    QCOMPARE(pooled.value(QStringLiteral("prefix_cache_hit_rate")).toDouble(), 18.0 * 288 / (20 * 300));
}

// Without chunked prefill an iteration computes a prompt whole. A preempted request is recomputed whole too (its prompt
// and the outputs it had), so an engine that preempts needs room for prompt + output; TensorRT-LLM's
// guaranteed-no-evict never preempts and needs room for the prompt: 100 tokens fit a 100-token budget, 110 do not;
// nor does vLLM's swapping recompute.
void TstServeCli::unchunkedPromptsNeedRoomForWhatIsRecomputed()
{
    const QStringList options { QStringLiteral("--no-chunked-prefill"), QStringLiteral("--max-num-batched-tokens"),
        QStringLiteral("100"), QStringLiteral("--input-tokens"), QStringLiteral("100"),
        QStringLiteral("--output-tokens"), QStringLiteral("10"), QStringLiteral("--concurrency"), QStringLiteral("2") };
    const Result noEvict
        = runRapid(serve(options + QStringList { QStringLiteral("--engine"), QStringLiteral("trtllm") }));
    QVERIFY2(noEvict.exitCode == 0, qPrintable(noEvict.err));
    const Result preempting
        = runRapid(serve(options + QStringList { QStringLiteral("--engine"), QStringLiteral("vllm") }));
    QCOMPARE(preempting.exitCode, 1);
    QVERIFY2(
        preempting.err.contains(QLatin1String("a request of 110 tokens does not fit max_num_batched_tokens (100)")),
        qPrintable(preempting.err));
    // Swapped, a preempted request comes back with its KV cache: nothing is recomputed, the prompt is what must fit.
    const Result swapping = runRapid(serve(options
        + QStringList { QStringLiteral("--engine"), QStringLiteral("vllm"), QStringLiteral("--preemption"),
            QStringLiteral("swap") }));
    QVERIFY2(swapping.exitCode == 0, qPrintable(swapping.err));
}

// Eight clients of 300 + 200 tokens need 8 x 32 = 256 blocks of 16 tokens at their end; a cache of 200 preempts.
// Swapped, the preempted requests' KV cache goes to the host and back: every preemption is a swap, the copies take
// time, and none of it is recomputed. At tp 8 a token's KV cache is 131,072 / 8 = 16,384 B per GPU, a block 256 KiB:
// 4 GiB of swap space hold 16,384 blocks, moved at the H100 preset's 51 and 52 GB/s.
void TstServeCli::swappedRequestsAreCopiedNotRecomputed()
{
    const QStringList load { QStringLiteral("--kv-blocks"), QStringLiteral("200"), QStringLiteral("--concurrency"),
        QStringLiteral("8"), QStringLiteral("--input-tokens"), QStringLiteral("300"), QStringLiteral("--output-tokens"),
        QStringLiteral("200") };
    const auto summaryOf
        = [](const Result& result) { return parseJson(result.out.mid(result.out.indexOf(QLatin1Char('{')))); };
    const Result recomputed = runRapid(serve(load + QStringList { QStringLiteral("--json"), QStringLiteral("-") }));
    QVERIFY2(recomputed.exitCode == 0, qPrintable(recomputed.err));
    const Result swapped = runRapid(serve(load
        + QStringList {
            QStringLiteral("--preemption"), QStringLiteral("swap"), QStringLiteral("--json"), QStringLiteral("-") }));
    QVERIFY2(swapped.exitCode == 0, qPrintable(swapped.err));
    QVERIFY2(swapped.out.contains(QLatin1String(
                 "preemption by swap: 4 GiB per GPU (16384 blocks), host link 51 / 52 GB/s to / from the GPU")),
        qPrintable(swapped.out));
    const QJsonObject withSwap = summaryOf(swapped);
    const QJsonObject withRecompute = summaryOf(recomputed);
    QVERIFY(withRecompute.value(QStringLiteral("preemptions")).toInt() > 0);
    QCOMPARE(withRecompute.value(QStringLiteral("swap_outs")).toInt(), 0);
    QCOMPARE(withRecompute.value(QStringLiteral("swap_seconds_per_replica")).toDouble(), 0.0);
    QVERIFY(withSwap.value(QStringLiteral("preemptions")).toInt() > 0);
    QCOMPARE(
        withSwap.value(QStringLiteral("swap_outs")).toInt(), withSwap.value(QStringLiteral("preemptions")).toInt());
    QVERIFY(withSwap.value(QStringLiteral("swap_seconds_per_replica")).toDouble() > 0);
    const QJsonObject engine = withSwap.value(QStringLiteral("engine")).toObject();
    QCOMPARE(engine.value(QStringLiteral("preemption")).toString(), QStringLiteral("swap"));
    QCOMPARE(engine.value(QStringLiteral("swap_blocks_per_replica")).toInt(), 16384);
    // A swap space that cannot hold a preempted request stops the run, as vLLM V0 aborts, naming the option.
    const Result full = runRapid(serve(load
        + QStringList { QStringLiteral("--preemption"), QStringLiteral("swap"), QStringLiteral("--swap-space"),
            QStringLiteral("0.001") }));
    QCOMPARE(full.exitCode, 1);
    QVERIFY2(full.err.contains(QLatin1String("--swap-space")), qPrintable(full.err));

    // Kept with a workspace, the choice is served as the options serve it; with prefill-first batches (or another
    // engine) it is kept unapplied, as the tab greys it out: no usage error, no swap.
    QTemporaryDir dir;
    const QString workspace = dir.filePath(QStringLiteral("swap.rapid.yaml"));
    const QByteArray head = "name: swap\nmodel: llama-3.1-8b\nhardware: hgx-h100-8gpu\nrun: llama-3.1-8b-decode-1gpu\n"
                            "overrides:\n  - run.parallelism.tp=8\n"
                            "serving:\n  loads: \"8\"\n  input_tokens: 300\n  output_tokens: 200\n  preemption: swap\n"
                            "  swap_space_GiB: 8\n";
    QVERIFY(writeFile(workspace, head));
    const Result fromSection = runRapid({ QStringLiteral("serve"), workspace, QStringLiteral("--kv-blocks"),
        QStringLiteral("200"), QStringLiteral("--json"), QStringLiteral("-") });
    QVERIFY2(fromSection.exitCode == 0, qPrintable(fromSection.err));
    QVERIFY2(fromSection.out.contains(QLatin1String("preemption by swap: 8 GiB per GPU (32768 blocks)")),
        qPrintable(fromSection.out));
    QVERIFY(writeFile(workspace, head + "  batching: prefill-first\n"));
    const Result prefillFirst = runRapid({ QStringLiteral("serve"), workspace, QStringLiteral("--kv-blocks"),
        QStringLiteral("200"), QStringLiteral("--json"), QStringLiteral("-") });
    QVERIFY2(prefillFirst.exitCode == 0, qPrintable(prefillFirst.err));
    QCOMPARE(summaryOf(prefillFirst).value(QStringLiteral("swap_outs")).toInt(), 0);
    QVERIFY(!prefillFirst.out.contains(QLatin1String("preemption by swap")));
}

// Many pooled prompts evicted from the prefix cache while preempted requests wait (TensorRT-LLM at max-utilization,
// 64 clients of Llama-3.3-70B on one GB200): every iteration keeps its blocks in use within the cache. A preempted
// request once kept its evicted prefix counted as computed and later handed the cache blocks it never held: 10,314 of
// 9,779 blocks in use at seed 10.
void TstServeCli::pooledPromptsEvictedWhilePreemptedStayWithinTheCache()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("iterations.csv"));
    const Result served = runRapid({ QStringLiteral("serve"), QStringLiteral("--model"),
        QStringLiteral("llama-3.3-70b"), QStringLiteral("--hardware"), QStringLiteral("gb200"), QStringLiteral("--run"),
        QStringLiteral("llama-serve-a100"), QStringLiteral("--engine"), QStringLiteral("trtllm"),
        QStringLiteral("--capacity-policy"), QStringLiteral("max-utilization"), QStringLiteral("--batching"),
        QStringLiteral("mixed"), QStringLiteral("--max-num-seqs"), QStringLiteral("64"),
        QStringLiteral("--max-num-batched-tokens"), QStringLiteral("2048"), QStringLiteral("--block-size"),
        QStringLiteral("16"), QStringLiteral("--concurrency"), QStringLiteral("64"), QStringLiteral("--requests"),
        QStringLiteral("36"), QStringLiteral("--input-tokens"), QStringLiteral("8192"),
        QStringLiteral("--output-tokens"), QStringLiteral("512"), QStringLiteral("--prompt-pool"),
        QStringLiteral("100"), QStringLiteral("--input-tokens-stddev"), QStringLiteral("2048"),
        QStringLiteral("--seed"), QStringLiteral("10"), QStringLiteral("--iterations-csv"), path });
    QVERIFY2(served.exitCode == 0, qPrintable(served.err));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(file.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QVERIFY(lines.size() > 100);
    int preemptions = 0;
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const QStringList fields = lines[i].split(QLatin1Char(','));
        QVERIFY2(fields[1].toLongLong() <= fields[2].toLongLong(), qPrintable(lines[i]));
        preemptions = fields[7].toInt();
    }
    QVERIFY(preemptions > 0); // the regime the bound is about
}

// The same cache of 200 blocks under swapping, one row per iteration: as many rows as the summary's iterations, the
// blocks in use within the cache, requests swapped out while preempted ones wait, and the preemptions so far ending
// at the summary's count (one replica).
void TstServeCli::iterationsCsvTracesTheCacheAndPreemptions()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("iterations.csv"));
    const Result served = runRapid(serve(
        { QStringLiteral("--kv-blocks"), QStringLiteral("200"), QStringLiteral("--concurrency"), QStringLiteral("8"),
            QStringLiteral("--input-tokens"), QStringLiteral("300"), QStringLiteral("--output-tokens"),
            QStringLiteral("200"), QStringLiteral("--preemption"), QStringLiteral("swap"),
            QStringLiteral("--iterations-csv"), path, QStringLiteral("--json"), QStringLiteral("-") }));
    QVERIFY2(served.exitCode == 0, qPrintable(served.err));
    const QJsonObject summary = parseJson(served.out.mid(served.out.indexOf(QLatin1Char('{'))));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(file.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(lines.first(),
        QStringLiteral("end_s,kv_blocks_used,kv_blocks,running,waiting,swapped,batched_tokens,preemptions"));
    QCOMPARE(lines.size() - 1, summary.value(QStringLiteral("iterations_per_replica")).toInt());
    int mostSwapped = 0;
    double previousEnd = 0;
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const QStringList cells = lines[i].split(QLatin1Char(','));
        QCOMPARE(cells.size(), 8);
        QVERIFY(cells[0].toDouble() > previousEnd);
        previousEnd = cells[0].toDouble();
        QVERIFY(cells[1].toInt() >= 0 && cells[1].toInt() <= 200);
        QCOMPARE(cells[2].toInt(), 200);
        mostSwapped = std::max(mostSwapped, cells[5].toInt());
    }
    QVERIFY(mostSwapped > 0);
    QCOMPARE(lines.last().split(QLatin1Char(',')).at(7).toInt(), summary.value(QStringLiteral("preemptions")).toInt());
}

void TstServeCli::draftsKeptEveryTimeDivideTheInterTokenLatency()
{
    // Llama-3.1-8B over 8 H100s decoding one request: a step streams each GPU's 2 GB of weights and runs latency-bound
    // all-reduces and kernel launches, none of which grows from one row to four, so a verification of 3 prompt-lookup
    // drafts (free on the GPU) costs within a fifth of a one-token step. Every draft kept: each verification yields 4
    // tokens, and the mean inter-token latency is between 1/4 and 1.2/4 of the one without drafts.
    const QStringList request { QStringLiteral("--input-tokens"), QStringLiteral("700"),
        QStringLiteral("--output-tokens"), QStringLiteral("201"), QStringLiteral("--json"), QStringLiteral("-") };
    const auto itl = [](const Result& result) {
        const QJsonObject summary = parseJson(result.out.mid(result.out.indexOf(QLatin1Char('{'))));
        return summary.value(QStringLiteral("itl_s")).toObject().value(QStringLiteral("mean")).toDouble();
    };
    const Result plain = runRapid(serve(request));
    const Result drafted = runRapid(serve(request
        + QStringList { QStringLiteral("--speculative-tokens"), QStringLiteral("3"), QStringLiteral("--acceptance"),
            QStringLiteral("1"), QStringLiteral("--draft"), QStringLiteral("ngram") }));
    QCOMPARE(plain.exitCode, 0);
    QCOMPARE(drafted.exitCode, 0);
    QVERIFY(drafted.out.contains(QStringLiteral("3 drafts by prompt lookup, acceptance 1, 4 tokens per verification")));
    const double ratio = itl(drafted) / itl(plain);
    QVERIFY2(ratio >= 0.25 && ratio <= 0.30, qPrintable(QString::number(ratio)));
    // The same draft given by its acceptance length: 4 tokens per verification of 3 drafts is an acceptance of 1.
    const Result byLength = runRapid(serve(request
        + QStringList { QStringLiteral("--speculative-tokens"), QStringLiteral("3"),
            QStringLiteral("--acceptance-length"), QStringLiteral("4"), QStringLiteral("--draft"),
            QStringLiteral("ngram") }));
    QCOMPARE(byLength.exitCode, 0);
    QVERIFY(
        byLength.out.contains(QStringLiteral("3 drafts by prompt lookup, acceptance 1, 4 tokens per verification")));
    QCOMPARE(itl(byLength), itl(drafted));
}

void TstServeCli::inputErrorsNameTheirCause_data()
{
    QTest::addColumn<QByteArray>("trace");
    QTest::addColumn<QStringList>("options");
    QTest::addColumn<QString>("expected");
    const QByteArray goodTrace = "arrival_s,input_tokens,output_tokens\n0,100,10\n0.5,200,10\n";
    // Line 3 has a token count that is not a number: the file and line are named.
    QTest::addRow("trace_line") << QByteArray("arrival_s,input_tokens,output_tokens\n0,100,10\n0.5,abc,10\n")
                                << QStringList { QStringLiteral("--trace"), QStringLiteral("TRACE") }
                                << QStringLiteral("trace.csv:3");
    // A prefix_id must be a whole number >= 0.
    QTest::addRow("trace_prefix_id") << QByteArray("arrival_s,input_tokens,output_tokens,prefix_id\n0,100,10,-3\n")
                                     << QStringList { QStringLiteral("--trace"), QStringLiteral("TRACE") }
                                     << QStringLiteral("trace.csv:2");
    // Llama-3.1-8B's context is 131,072 tokens.
    QTest::addRow("beyond_context") << goodTrace
                                    << QStringList { QStringLiteral("--input-tokens"), QStringLiteral("131000"),
                                           QStringLiteral("--output-tokens"), QStringLiteral("100") }
                                    << QStringLiteral("context");
    // Prompts drawn around 130,000 tokens with a deviation of 5,000: some land beyond the context with 100 more.
    QTest::addRow("drawn_beyond_context") << goodTrace
                                          << QStringList { QStringLiteral("--input-tokens"), QStringLiteral("130000"),
                                                 QStringLiteral("--input-tokens-stddev"), QStringLiteral("5000"),
                                                 QStringLiteral("--output-tokens"), QStringLiteral("100") }
                                          << QStringLiteral("standard deviations");
    // 4 blocks of 16 tokens hold 64 tokens; a request of 100 + 10 can never be admitted.
    QTest::addRow("kv_too_small") << goodTrace
                                  << QStringList { QStringLiteral("--kv-blocks"), QStringLiteral("4"),
                                         QStringLiteral("--input-tokens"), QStringLiteral("100"),
                                         QStringLiteral("--output-tokens"), QStringLiteral("10") }
                                  << QStringLiteral("KV");
    // The engine may use 0.02 x 80 GiB = 1.6 GiB of an H100; Llama-3.1-8B's weights alone are 8.03e9 x 2 B / 8 GPUs
    // = 1.87 GiB per GPU: no block is left, and the message says how much each side holds.
    QTest::addRow("no_room_for_kv_cache")
        << goodTrace << QStringList { QStringLiteral("--gpu-memory-utilization"), QStringLiteral("0.02") }
        << QStringLiteral("of the 1.6 GiB the engine may use (gpu_memory_utilization "
                          "0.02)");
    QTest::addRow("no_room_for_kv_cache_sglang")
        << goodTrace
        << QStringList { QStringLiteral("--engine"), QStringLiteral("sglang"),
               QStringLiteral("--gpu-memory-utilization"), QStringLiteral("0.02") }
        << QStringLiteral("no room for a KV cache: the weights take 1.9 GiB per GPU of the 1.6 GiB");
    // Two replicas of tp 4 deal 3 clients 2 and 1; each client sends the same number of requests, so 10 requests
    // cannot be dealt, and the nearest counts that can are named.
    QTest::addRow("requests_across_uneven_replicas")
        << goodTrace
        << QStringList { QStringLiteral("--set"), QStringLiteral("run.parallelism.tp=4"), QStringLiteral("--set"),
               QStringLiteral("run.parallelism.dp=2"), QStringLiteral("--concurrency"), QStringLiteral("3"),
               QStringLiteral("--requests"), QStringLiteral("10") }
        << QStringLiteral("requests 10 is not a multiple of the 3 clients, each of which sends the same number of "
                          "requests: 9 or 12 splits evenly");
    QTest::addRow("warmup_across_replicas")
        << goodTrace
        << QStringList { QStringLiteral("--set"), QStringLiteral("run.parallelism.tp=4"), QStringLiteral("--set"),
               QStringLiteral("run.parallelism.dp=2"), QStringLiteral("--concurrency"), QStringLiteral("2"),
               QStringLiteral("--warmup"), QStringLiteral("3") }
        << QStringLiteral("warm-up requests 3 is not a multiple of the 2 data-parallel replicas");
    // Two workers of tp 8 need 16 GPUs; the HGX node has 8.
    QTest::addRow("pools_beyond_cluster") << goodTrace
                                          << QStringList { QStringLiteral("--prefill-workers"), QStringLiteral("1"),
                                                 QStringLiteral("--decode-workers"), QStringLiteral("1") }
                                          << QStringLiteral("need 16 GPUs; the cluster has 8");
    // TensorRT-LLM cuts prompt chunks to whole KV blocks (32 tokens): 16 tokens per iteration hold none.
    QTest::addRow("trtllm_budget_below_a_block")
        << goodTrace
        << QStringList { QStringLiteral("--engine"), QStringLiteral("trtllm"),
               QStringLiteral("--max-num-batched-tokens"), QStringLiteral("16") }
        << QStringLiteral("must hold one block of 32 tokens");
    QTest::addRow("training_run") << goodTrace
                                  << QStringList { QStringLiteral("--set"), QStringLiteral("run.mode=training") }
                                  << QStringLiteral("run.training");
}

void TstServeCli::inputErrorsNameTheirCause()
{
    QFETCH(QByteArray, trace);
    QFETCH(QStringList, options);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    const QString tracePath = dir.filePath(QStringLiteral("trace.csv"));
    QVERIFY(writeFile(tracePath, trace));
    options.replaceInStrings(QStringLiteral("TRACE"), tracePath);
    const Result served = runRapid(serve(options));
    QCOMPARE(served.exitCode, 1);
    QVERIFY2(served.err.contains(expected), qPrintable(served.err));
    QVERIFY2(!served.err.contains(QLatin1String("internal error")), qPrintable(served.err));
}

void TstServeCli::usageErrorsNameTheOption_data()
{
    QTest::addColumn<QStringList>("options");
    QTest::addColumn<QString>("expected");
    QTest::addRow("slo_without_unit") << QStringList { QStringLiteral("--slo-ttft"), QStringLiteral("500") }
                                      << QStringLiteral("--slo-ttft");
    QTest::addRow("no_clients") << QStringList { QStringLiteral("--concurrency"), QStringLiteral("0") }
                                << QStringLiteral("--concurrency");
    QTest::addRow("two_workloads") << QStringList { QStringLiteral("--concurrency"), QStringLiteral("2"),
        QStringLiteral("--rate"), QStringLiteral("1") }
                                   << QStringLiteral("--rate");
    QTest::addRow("sweep_with_a_fraction")
        << QStringList { QStringLiteral("--concurrency"), QStringLiteral("1,2.5") } << QStringLiteral("--concurrency");
    QTest::addRow("sweep_with_a_gap") << QStringList { QStringLiteral("--rate"), QStringLiteral("1,,2") }
                                      << QStringLiteral("--rate");
    QTest::addRow("prefix_beyond_prompt") << QStringList { QStringLiteral("--shared-prefix"), QStringLiteral("5000"),
        QStringLiteral("--input-tokens"), QStringLiteral("100") }
                                          << QStringLiteral("--shared-prefix");
    QTest::addRow("pool_below_zero") << QStringList { QStringLiteral("--prompt-pool"), QStringLiteral("-1") }
                                     << QStringLiteral("--prompt-pool");
    QTest::addRow("pool_with_a_prefix") << QStringList { QStringLiteral("--prompt-pool"), QStringLiteral("10"),
        QStringLiteral("--shared-prefix"), QStringLiteral("16") }
                                        << QStringLiteral("--prompt-pool and --shared-prefix");
    QTest::addRow("pool_of_a_trace") << QStringList { QStringLiteral("--prompt-pool"), QStringLiteral("10"),
        QStringLiteral("--trace"), QStringLiteral("/nonexistent/trace.csv") }
                                     << QStringLiteral("--prompt-pool: a trace");
    QTest::addRow("rate_not_a_number") << QStringList { QStringLiteral("--rate"), QStringLiteral("fast") }
                                       << QStringLiteral("--rate");
    QTest::addRow("huge_block") << QStringList { QStringLiteral("--block-size"), QStringLiteral("1e30") }
                                << QStringLiteral("--block-size");
    QTest::addRow("prefill_budget_of_vllm") << QStringList { QStringLiteral("--max-prefill-tokens"),
        QStringLiteral("2000") } << QStringLiteral("--max-prefill-tokens");
    QTest::addRow("utilisation_above_one") << QStringList { QStringLiteral("--gpu-memory-utilization"),
        QStringLiteral("1.5") } << QStringLiteral("--gpu-memory-utilization");
    QTest::addRow("ramp_without_unit") << QStringList { QStringLiteral("--concurrency"), QStringLiteral("4"),
        QStringLiteral("--ramp"), QStringLiteral("2") }
                                       << QStringLiteral("--ramp");
    QTest::addRow("ramp_at_a_rate") << QStringList { QStringLiteral("--rate"), QStringLiteral("2"),
        QStringLiteral("--ramp"), QStringLiteral("2s") }
                                    << QStringLiteral("--ramp");
    QTest::addRow("warmup_of_every_request") << QStringList { QStringLiteral("--concurrency"), QStringLiteral("2"),
        QStringLiteral("--requests"), QStringLiteral("4"), QStringLiteral("--warmup"), QStringLiteral("4") }
                                             << QStringLiteral("--warmup");
    QTest::addRow("warmup_of_the_only_request") << QStringList { QStringLiteral("--requests"), QStringLiteral("1"),
        QStringLiteral("--warmup"), QStringLiteral("1") }
                                                << QStringLiteral("--warmup 1: one request is simulated");
    QTest::addRow("warmup_in_a_sweep") << QStringList { QStringLiteral("--concurrency"), QStringLiteral("1,2"),
        QStringLiteral("--warmup"), QStringLiteral("1") }
                                       << QStringLiteral("--warmup");
    QTest::addRow("prefill_without_decode") << QStringList { QStringLiteral("--prefill-workers"), QStringLiteral("2") }
                                            << QStringLiteral("--decode-workers");
    QTest::addRow("worker_tp_not_dividing") << QStringList { QStringLiteral("--prefill-workers"), QStringLiteral("1"),
        QStringLiteral("--decode-workers"), QStringLiteral("1"), QStringLiteral("--prefill-tp"), QStringLiteral("3") }
                                            << QStringLiteral("--prefill-tp 3");
    // Pools serve a list of loads (one sweep point each), but a table of splits is one load's.
    QTest::addRow("splits_sweep") << QStringList { QStringLiteral("--pool-splits"), QStringLiteral("1:1"),
        QStringLiteral("--concurrency"), QStringLiteral("1,2") }
                                  << QStringLiteral("--pool-splits: one load");
    QTest::addRow("malformed_split") << QStringList { QStringLiteral("--pool-splits"), QStringLiteral("1:3,2:x") }
                                     << QStringLiteral("\"2:x\"");
    // Beyond 32 bits: refused, not wrapped round to a split of 1:1.
    QTest::addRow("split_beyond_int") << QStringList { QStringLiteral("--pool-splits"), QStringLiteral("4294967297:1") }
                                      << QStringLiteral("\"4294967297:1\"");
    QTest::addRow("splits_and_workers") << QStringList { QStringLiteral("--pool-splits"), QStringLiteral("1:1"),
        QStringLiteral("--prefill-workers"), QStringLiteral("1") }
                                        << QStringLiteral("--pool-splits");
    QTest::addRow("unknown_engine") << QStringList { QStringLiteral("--engine"), QStringLiteral("tgi") }
                                    << QStringLiteral("--engine");
    QTest::addRow("host_time_without_unit")
        << QStringList { QStringLiteral("--host-time"), QStringLiteral("2") } << QStringLiteral("--host-time");
    QTest::addRow("negative_host_time") << QStringList { QStringLiteral("--host-time-per-request"),
        QStringLiteral("-1ms") } << QStringLiteral("--host-time-per-request");
    QTest::addRow("host_time_beyond_an_hour")
        << QStringList { QStringLiteral("--host-time"), QStringLiteral("2h") } << QStringLiteral("--host-time");
    QTest::addRow("unknown_batching") << QStringList { QStringLiteral("--batching"), QStringLiteral("decode-first") }
                                      << QStringLiteral("--batching");
    QTest::addRow("unknown_overlap_scheduler") << QStringList { QStringLiteral("--overlap-scheduler"),
        QStringLiteral("maybe") } << QStringLiteral("--overlap-scheduler");
    QTest::addRow("unknown_capacity_policy") << QStringList { QStringLiteral("--capacity-policy"),
        QStringLiteral("static-batch") } << QStringLiteral("--capacity-policy");
    QTest::addRow("unknown_preemption") << QStringList { QStringLiteral("--preemption"), QStringLiteral("evict") }
                                        << QStringLiteral("--preemption \"evict\": expected recompute or swap");
    QTest::addRow("swap_with_sglang") << QStringList { QStringLiteral("--engine"), QStringLiteral("sglang"),
        QStringLiteral("--preemption"), QStringLiteral("swap") }
                                      << QStringLiteral("--preemption swap");
    QTest::addRow("negative_swap_space") << QStringList { QStringLiteral("--swap-space"), QStringLiteral("-1") }
                                         << QStringLiteral("--swap-space");
    QTest::addRow("iterations_csv_in_a_sweep") << QStringList { QStringLiteral("--concurrency"), QStringLiteral("1,2"),
        QStringLiteral("--iterations-csv"), QStringLiteral("i.csv") }
                                               << QStringLiteral("--iterations-csv");
    QTest::addRow("tensorrt_engine_without_trtllm")
        << QStringList { QStringLiteral("--tensorrt-engine") } << QStringLiteral("--tensorrt-engine");
    QTest::addRow("unknown_backend") << QStringList { QStringLiteral("--backend"), QStringLiteral("magic") }
                                     << QStringLiteral("--backend");
    QTest::addRow("drafts_without_acceptance") << QStringList { QStringLiteral("--speculative-tokens"),
        QStringLiteral("3") } << QStringLiteral("--speculative-tokens needs --acceptance");
    QTest::addRow("acceptance_without_drafts")
        << QStringList { QStringLiteral("--acceptance"), QStringLiteral("0.7") } << QStringLiteral("--acceptance");
    QTest::addRow("acceptance_above_one") << QStringList { QStringLiteral("--speculative-tokens"), QStringLiteral("3"),
        QStringLiteral("--acceptance"), QStringLiteral("1.5") }
                                          << QStringLiteral("--acceptance");
    QTest::addRow("burstiness_without_rate")
        << QStringList { QStringLiteral("--burstiness"), QStringLiteral("0.5") } << QStringLiteral("--burstiness");
    QTest::addRow("burstiness_zero") << QStringList { QStringLiteral("--rate"), QStringLiteral("2"),
        QStringLiteral("--burstiness"), QStringLiteral("0") }
                                     << QStringLiteral("--burstiness");
    QTest::addRow("negative_deviation") << QStringList { QStringLiteral("--input-tokens-stddev"), QStringLiteral("-5") }
                                        << QStringLiteral("--input-tokens-stddev");
    QTest::addRow("deviation_with_trace") << QStringList { QStringLiteral("--trace"), QStringLiteral("t.csv"),
        QStringLiteral("--output-tokens-stddev"), QStringLiteral("5") }
                                          << QStringLiteral("a trace gives every request's lengths");
    QTest::addRow("acceptance_twice") << QStringList { QStringLiteral("--speculative-tokens"), QStringLiteral("3"),
        QStringLiteral("--acceptance"), QStringLiteral("0.5"), QStringLiteral("--acceptance-length"),
        QStringLiteral("2") } << QStringLiteral("--acceptance and --acceptance-length");
    QTest::addRow("length_beyond_the_drafts") << QStringList { QStringLiteral("--speculative-tokens"),
        QStringLiteral("3"), QStringLiteral("--acceptance-length"), QStringLiteral("4.5") }
                                              << QStringLiteral("--acceptance-length");
    QTest::addRow("length_without_drafts") << QStringList { QStringLiteral("--acceptance-length"), QStringLiteral("2") }
                                           << QStringLiteral("--acceptance-length");
    QTest::addRow("too_many_drafts") << QStringList { QStringLiteral("--speculative-tokens"), QStringLiteral("17"),
        QStringLiteral("--acceptance"), QStringLiteral("0.5") }
                                     << QStringLiteral("--speculative-tokens");
    QTest::addRow("unknown_draft") << QStringList { QStringLiteral("--speculative-tokens"), QStringLiteral("2"),
        QStringLiteral("--acceptance"), QStringLiteral("0.5"), QStringLiteral("--draft"), QStringLiteral("medusa") }
                                   << QStringLiteral("--draft");
    QTest::addRow("layers_of_a_lookup") << QStringList { QStringLiteral("--speculative-tokens"), QStringLiteral("2"),
        QStringLiteral("--acceptance"), QStringLiteral("0.5"), QStringLiteral("--draft"), QStringLiteral("ngram"),
        QStringLiteral("--draft-layers"), QStringLiteral("2") }
                                        << QStringLiteral("--draft-layers");
}

void TstServeCli::usageErrorsNameTheOption()
{
    QFETCH(QStringList, options);
    QFETCH(QString, expected);
    const Result served = runRapid(serve(options));
    QCOMPARE(served.exitCode, 1);
    QVERIFY2(served.err.contains(expected), qPrintable(served.err));
}

QTEST_GUILESS_MAIN(TstServeCli)
#include "tst_servecli.moc"
