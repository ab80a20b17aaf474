// SPDX-License-Identifier: GPL-3.0-or-later
// Training throughput against published measurements that no validation set holds and that never set anything in
// the model (unseen checks, as tst_decodephysics is for decode).
//
// Mixture of experts: Megatron-Core's MoE README (megatron/core/transformer/moe/README.md of core_r0.9.0, "Reference
// Best Parallel Mapping" and its first paragraph): Mixtral 8x7B, dropless, all-to-all dispatcher, BF16, on 64 H100 80GB
// (8 x H100 per node on NVLink 4, InfiniBand 8 x 400 Gbit/s per node; PyTorch 24.04, Transformer Engine 1.9), sequence
// 4,096, TP 1, EP 8, PP 4, VP 8, micro-batch 1, global batch 256: "438 TFLOPS" as of MCore v0.8. What the README leaves
// out follows its own recommendations there: the distributed optimizer with --overlap-grad-reduce and
// --overlap-param-gather, grouped GEMMs, Transformer Engine's fused attention, no recomputation (the model fits: 61 GiB
// of 80 at the peak); routing balanced (ep_imbalance 1), as its auxiliary loss aims at; FP32 gradient reduction (the
// BF16 rule of r0.8's arguments.py).

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

class TstTrainingPhysics : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void megatronCoreMixtralMatchesItsReadme();
};

void TstTrainingPhysics::megatronCoreMixtralMatchesItsReadme()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString json = dir.filePath(QStringLiteral("run.json"));
    const QStringList arguments { QStringLiteral("run"), QStringLiteral("--model"), QStringLiteral("mixtral-8x7b"),
        QStringLiteral("--hardware"), QStringLiteral("dgx-h100-superpod"), QStringLiteral("--run"),
        QStringLiteral("megatron-gpt-train"), QStringLiteral("--set"),
        QStringLiteral("hardware.cluster.network[ib].size=8"), QStringLiteral("--set"),
        QStringLiteral("model.max_context=4096"), QStringLiteral("--set"), QStringLiteral("run.flash_attention=true"),
        QStringLiteral("--set"),
        QStringLiteral(
            "run.precision={compute: bf16, weights: bf16, activations: bf16, gradients: fp32, optimizer: fp32}"),
        QStringLiteral("--set"), QStringLiteral("run.training.seq_length=4096"), QStringLiteral("--set"),
        QStringLiteral("run.training.micro_batch=1"), QStringLiteral("--set"),
        QStringLiteral("run.training.global_batch=256"), QStringLiteral("--set"),
        QStringLiteral("run.training.recompute=none"), QStringLiteral("--set"),
        QStringLiteral("run.training.dropout=false"), QStringLiteral("--set"),
        QStringLiteral("run.parallelism={tp: 1, pp: 4, dp: 16, ep: 8, schedule: interleaved, virtual_stages: 8, "
                       "zero_stage: 1, dp_overlap: true, mapping: {tp: nvlink}}"),
        QStringLiteral("--json"), json };
    QProcess process;
    process.start(QStringLiteral(RAPID_CLI_PATH), arguments);
    QVERIFY(process.waitForFinished(60000));
    QVERIFY2(process.exitCode() == 0, process.readAllStandardError().constData());
    QFile file(json);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QJsonObject result = QJsonDocument::fromJson(file.readAll()).object();
    const double tflops = result.value(QStringLiteral("throughput"))
                              .toObject()
                              .value(QStringLiteral("model_flops_per_gpu"))
                              .toDouble(-1)
        / 1e12;
    const double measured = 438;
    const double error = (tflops - measured) / measured;
    // Within 10%: +5.7% on 2026-12-06 (463 TFLOP/s; -1.1% against the 468 of MCore v0.9 that later READMEs give
    // beside the same mapping; docs/calibration.md, "Megatron-Core's Mixtral 8x7B").
    QVERIFY2(std::abs(error) <= 0.10,
        qPrintable(QStringLiteral("%1 TFLOP/s per GPU against %2 measured (%3%)")
                       .arg(tflops, 0, 'f', 1)
                       .arg(measured)
                       .arg(error * 100, 0, 'f', 1)));
}

QTEST_GUILESS_MAIN(TstTrainingPhysics)
#include "tst_trainingphysics.moc"
