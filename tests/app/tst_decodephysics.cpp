// SPDX-License-Identifier: GPL-3.0-or-later
// Batch-1 decode on A100s against a published benchmark that runs no serving engine: gpt-fast (pytorch-labs/gpt-fast,
// README "Benchmarks" and "Tensor Parallelism", 8 x A100-SXM4-80GB power-limited to 330 W, batch 1, a 5-token prompt,
// the whole decode step one CUDA graph through torch.compile, tensor parallelism over PyTorch's intra-node all-reduce).
// Never used to set anything in the model. It separates the GPU's kernels from the engine around them: the A100 presets
// carried a FITTED efficiency.memory (0.816) until 2026-12-05, standing for what the serving engines of the A100
// validation sets lose outside the kernels; with it the model ran these rows 13-19% slow, without it (the measured
// BabelStream shares, the kernel and all-reduce models alone) it reproduces them, so the allowance now sits in those
// datasets' mappings (docs/calibration.md). The check keeps the presets' kernel-level decode model honest.
//
// A second engine-free source: TensorRT-LLM's published static-batch throughput (docs/source/performance.md of its
// v0.6.1 release, "Peak Throughput", tables for H100 in FP8 and A100 in FP16: gptSessionBenchmark, the C++ session
// running one batch's context phase and then its generation steps, no server, out tok/s per GPU) and its batch-1
// first-token latencies (the same document's "Low Latency" tables, data from v0.5).

#include "clijson.h"

#include <QTest>

#include <cmath>

class TstDecodePhysics : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void a100KernelsAloneMatchGptFast_data();
    void a100KernelsAloneMatchGptFast();
    void staticBatchesMatchTensorRtLlmTables_data();
    void staticBatchesMatchTensorRtLlmTables();
    void longPromptsFirstTokenMatchesTensorRtLlmTables_data();
    void longPromptsFirstTokenMatchesTensorRtLlmTables();

private:
    /// `rapid run` of one request batch on @p gpu ("a100" or "h100"): the GPU preset alone at tp 1, else the HGX node's
    /// NVLink switch cut to tp GPUs; the JSON result, or an empty object after a failed check.
    static QJsonObject runInference(const QString& model, const QString& gpu, int tp, const QStringList& settings);
    /// The precision of TensorRT-LLM's published engines on @p gpu.
    static QStringList tensorRtLlmEngineSettings(const QString& gpu);
    /// "<what> <modelled> against <measured> measured (<error>%)", the values in @p unit after scaling by @p scale.
    static QString comparison(const QString& what, double modelled, double measured, double scale, const QString& unit);
};

QString TstDecodePhysics::comparison(
    const QString& what, double modelled, double measured, double scale, const QString& unit)
{
    return QStringLiteral("%1 %2%3 against %4%3 measured (%5%)")
        .arg(what)
        .arg(modelled * scale, 0, 'g', 4)
        .arg(unit)
        .arg(measured * scale, 0, 'g', 4)
        .arg((modelled - measured) / measured * 100, 0, 'f', 1);
}

QStringList TstDecodePhysics::tensorRtLlmEngineSettings(const QString& gpu)
{
    if (gpu == QLatin1String("h100")) {
        // The H100 engines were built with --enable_fp8 --fp8_kv_cache: FP8 GEMMs with calibrated (static) scales and
        // an FP8 KV cache; the context attention in 16 bits.
        return { QStringLiteral("run.precision.compute=fp8"), QStringLiteral("run.precision.weights=fp8"),
            QStringLiteral("run.precision.activations=bf16"), QStringLiteral("run.precision.kv_cache=fp8"),
            QStringLiteral("run.precision.fp8_scaling=static") };
    }
    return {}; // FP16 engines: the run preset's 16-bit precisions
}

QJsonObject TstDecodePhysics::runInference(
    const QString& model, const QString& gpu, int tp, const QStringList& settings)
{
    QStringList arguments { QStringLiteral("run"), QStringLiteral("--model"), model, QStringLiteral("--run"),
        QStringLiteral("llama-serve-a100"), QStringLiteral("--set"), QStringLiteral("run.parallelism.tp=%1").arg(tp) };
    for (const QString& setting : settings) {
        arguments << QStringLiteral("--set") << setting;
    }
    const bool a100 = gpu == QLatin1String("a100");
    if (tp == 1) {
        arguments << QStringLiteral("--hardware")
                  << (a100 ? QStringLiteral("a100-sxm4-80gb") : QStringLiteral("h100-sxm5-80gb"));
    } else {
        arguments << QStringLiteral("--hardware")
                  << (a100 ? QStringLiteral("hgx-a100-8gpu") : QStringLiteral("hgx-h100-8gpu"))
                  << QStringLiteral("--set") << QStringLiteral("hardware.cluster.gpus_per_node=%1").arg(tp)
                  << QStringLiteral("--set") << QStringLiteral("hardware.cluster.network[nvlink].size=%1").arg(tp);
    }
    return rapid::test::runCliJson(arguments);
}

void TstDecodePhysics::a100KernelsAloneMatchGptFast_data()
{
    QTest::addColumn<QString>("model");
    QTest::addColumn<int>("tp");
    QTest::addColumn<double>("tokensPerSecond");
    // gpt-fast's published tokens/s at batch 1 (so 1 / ITL). Llama-2-7B at tp 8 (328.43 tok/s, 3.04 ms) is left out:
    // the model gives 3.52 ms, +16%, because every kernel pays the preset's 4 us eager `kernel_launch` where gpt-fast
    // replays a CUDA graph; at 1.7 GB of weights per GPU those launches are a sixth of the step (docs/calibration.md,
    // "Low-concurrency TPOT").
    QTest::addRow("llama-2-7b tp 1") << QStringLiteral("llama-2-7b") << 1 << 104.9;
    QTest::addRow("llama-2-7b tp 2") << QStringLiteral("llama-2-7b") << 2 << 168.84;
    QTest::addRow("llama-2-7b tp 4") << QStringLiteral("llama-2-7b") << 4 << 254.02;
    QTest::addRow("llama-2-70b tp 2") << QStringLiteral("llama-2-70b") << 2 << 21.32;
    QTest::addRow("llama-2-70b tp 4") << QStringLiteral("llama-2-70b") << 4 << 38.01;
    QTest::addRow("llama-2-70b tp 8") << QStringLiteral("llama-2-70b") << 8 << 62.50;
}

void TstDecodePhysics::a100KernelsAloneMatchGptFast()
{
    QFETCH(QString, model);
    QFETCH(int, tp);
    QFETCH(double, tokensPerSecond);
    const QJsonObject result = runInference(model, QStringLiteral("a100"), tp,
        { QStringLiteral("run.inference.prompt_length=5"), QStringLiteral("run.inference.decode_length=200") });
    QVERIFY(!result.isEmpty());
    const double itl = result.value(QStringLiteral("itl_s")).toDouble(-1);
    const double measured = 1.0 / tokensPerSecond;
    const double error = (itl - measured) / measured;
    // Within 8%: the rows run -4.1..+5.9% today (docs/calibration.md, efficiency.memory).
    QVERIFY2(std::abs(error) <= 0.08,
        qPrintable(comparison(QStringLiteral("ITL"), itl, measured, 1e3, QStringLiteral(" ms"))));
}

void TstDecodePhysics::staticBatchesMatchTensorRtLlmTables_data()
{
    QTest::addColumn<QString>("gpu");
    QTest::addColumn<int>("tp");
    QTest::addColumn<int>("batch");
    QTest::addColumn<int>("input");
    QTest::addColumn<int>("output");
    QTest::addColumn<double>("tokensPerSecondPerGpu");
    // The tables' "LLaMA 7B" rows (Llama 2 7B, its methodology section): every query head has its own KV head, so the
    // decode attention kernel's grid does not matter. Left out, docs/calibration.md ("TensorRT-LLM's published
    // tables"): the Llama 2 70B rows, whose long decodes at large batches run about half as fast as the model
    // (+55% on A100, +91% and +100% on H100): eight query heads share each KV head there,
    // most likely read eight times by the decode attention kernel of those releases (one CTA per query head).
    QTest::addRow("h100 fp8 768 x 128/128") << QStringLiteral("h100") << 1 << 768 << 128 << 128 << 19694.0;
    QTest::addRow("h100 fp8 112 x 128/2048") << QStringLiteral("h100") << 1 << 112 << 128 << 2048 << 6818.0;
    QTest::addRow("h100 fp8 80 x 2048/128") << QStringLiteral("h100") << 1 << 80 << 2048 << 128 << 2244.0;
    QTest::addRow("h100 fp8 48 x 2048/2048") << QStringLiteral("h100") << 1 << 48 << 2048 << 2048 << 2740.0;
    QTest::addRow("a100 fp16 384 x 128/128") << QStringLiteral("a100") << 1 << 384 << 128 << 128 << 5586.0;
    QTest::addRow("a100 fp16 60 x 128/2048") << QStringLiteral("a100") << 1 << 60 << 128 << 2048 << 1928.0;
    QTest::addRow("a100 fp16 52 x 2048/128") << QStringLiteral("a100") << 1 << 52 << 2048 << 128 << 591.0;
    QTest::addRow("a100 fp16 tp 2 64 x 2048/2048") << QStringLiteral("a100") << 2 << 64 << 2048 << 2048 << 782.0;
}

void TstDecodePhysics::staticBatchesMatchTensorRtLlmTables()
{
    QFETCH(QString, gpu);
    QFETCH(int, tp);
    QFETCH(int, batch);
    QFETCH(int, input);
    QFETCH(int, output);
    QFETCH(double, tokensPerSecondPerGpu);
    QStringList settings { QStringLiteral("run.inference.batch=%1").arg(batch),
        QStringLiteral("run.inference.prompt_length=%1").arg(input),
        QStringLiteral("run.inference.decode_length=%1").arg(output) };
    settings << tensorRtLlmEngineSettings(gpu);
    const QJsonObject result = runInference(QStringLiteral("llama-2-7b"), gpu, tp, settings);
    QVERIFY(!result.isEmpty());
    const double perGpu
        = result.value(QStringLiteral("throughput")).toObject().value(QStringLiteral("tokens_per_s")).toDouble(-1) / tp;
    const double error = (perGpu - tokensPerSecondPerGpu) / tokensPerSecondPerGpu;
    // Within 10%: the rows run -7.9..+8.1% today.
    QVERIFY2(std::abs(error) <= 0.10,
        qPrintable(comparison(QStringLiteral("output tokens/s per GPU"), perGpu, tokensPerSecondPerGpu, 1, {})));
}

void TstDecodePhysics::longPromptsFirstTokenMatchesTensorRtLlmTables_data()
{
    QTest::addColumn<QString>("gpu");
    QTest::addColumn<QString>("model");
    QTest::addColumn<int>("tp");
    QTest::addColumn<double>("firstTokenSeconds");
    // "Low Latency" tables of the same document (data from v0.5): batch 1, the time to the first token of a 2,048-token
    // prompt. The 128-token prompts of those tables are left out: the model is 20-38% fast there (about 0.1 ms per
    // layer that those releases' short context phases paid beyond their kernels' work; docs/calibration.md).
    QTest::addRow("a100 fp16 llama-2-7b") << QStringLiteral("a100") << QStringLiteral("llama-2-7b") << 1 << 0.133;
    QTest::addRow("a100 fp16 llama-2-70b tp 4")
        << QStringLiteral("a100") << QStringLiteral("llama-2-70b") << 4 << 0.377;
    QTest::addRow("h100 fp8 llama-2-7b") << QStringLiteral("h100") << QStringLiteral("llama-2-7b") << 1 << 0.036;
    QTest::addRow("h100 fp8 llama-2-70b tp 4") << QStringLiteral("h100") << QStringLiteral("llama-2-70b") << 4 << 0.109;
}

void TstDecodePhysics::longPromptsFirstTokenMatchesTensorRtLlmTables()
{
    QFETCH(QString, gpu);
    QFETCH(QString, model);
    QFETCH(int, tp);
    QFETCH(double, firstTokenSeconds);
    QStringList settings { QStringLiteral("run.inference.batch=1"), QStringLiteral("run.inference.prompt_length=2048"),
        QStringLiteral("run.inference.decode_length=1") };
    settings << tensorRtLlmEngineSettings(gpu);
    const QJsonObject result = runInference(model, gpu, tp, settings);
    QVERIFY(!result.isEmpty());
    const double ttft = result.value(QStringLiteral("ttft_s")).toDouble(-1);
    const double error = (ttft - firstTokenSeconds) / firstTokenSeconds;
    // Within 10%: the rows run -8.8..+1.9% today.
    QVERIFY2(std::abs(error) <= 0.10,
        qPrintable(
            comparison(QStringLiteral("first token after"), ttft, firstTokenSeconds, 1e3, QStringLiteral(" ms"))));
}

QTEST_GUILESS_MAIN(TstDecodePhysics)
#include "tst_decodephysics.moc"
