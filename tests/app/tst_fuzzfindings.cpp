// SPDX-License-Identifier: GPL-3.0-or-later
// Every command line of the independent fuzz campaign (../shared/fuzz-findings/README.md), and neighbours of each
// that reach the same limit by another road, as a data row. Each must end as an input error that names the option or
// key (exit 1, an option as a key) or as a finite answer: never a crash, a sanitizer report, a hang, "internal error"
// (exit 3) or a number such as inf, nan or 0 ns for an absurd input. Under the ASan+UBSan build this is the regression
// test of the campaign's eight signed-overflow crashes.
#include <QProcess>
#include <QTest>

namespace {

struct Result {
    int exitCode = -1; ///< -1: killed by a signal (a crash) or still running at the deadline (a hang)
    QString out;
    QString err;
};

Result runRapid(const QStringList& arguments)
{
    QProcess process;
    process.start(QStringLiteral(RAPID_CLI_PATH), arguments);
    // Generous for a sanitizer build on a slow core; every row ends in well under a second in a release build.
    if (!process.waitForFinished(120000)) {
        process.kill();
        process.waitForFinished();
        return { -1, {}, QStringLiteral("still running after 120 s") };
    }
    return { process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
        QString::fromUtf8(process.readAllStandardOutput()), QString::fromUtf8(process.readAllStandardError()) };
}

QString trace(const char* name)
{
    return QStringLiteral(RAPID_TEST_DATA_DIR "/fuzz/") + QLatin1String(name);
}

QStringList words(const QString& line)
{
    return line.split(QLatin1Char(' '), Qt::SkipEmptyParts);
}

} // namespace

class TstFuzzFindings : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void endsAsAnInputErrorNamingTheCause_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("named"); // what the message must name: the option or key to change
        auto row = [](const char* name, const QString& line, int exitCode, const char* named) {
            QTest::newRow(name) << words(line) << exitCode << QString::fromUtf8(named);
        };
        // Sanitizer crashes (signed overflow in the GEMM model, parameter counts, sweep axes, huge durations).
        row("gemm n 2^63-1", QStringLiteral("gemm --m 8192 --k 3 --n 9223372036854775807 --hardware b200"), 1, "--n");
        row("gemm m 2^62", QStringLiteral("gemm --m 4611686018427387904 --k 1 --n 1000000 --hardware b200"), 1, "--m");
        row("gemm n 2^53+1 batch 65536",
            QStringLiteral("gemm --m 8192 --k 1 --n 9007199254740993 --batch 65536 --hardware b200"), 1, "--n");
        row("gemm tf32 n 2^62",
            QStringLiteral("gemm --m 4096 --k 2 --n 4611686018427387904 --precision tf32 --hardware hgx-h100-8gpu"), 1,
            "--n");
        row("gemm operand beyond 2^60 elements",
            QStringLiteral("gemm --m 2147483648 --k 2147483648 --n 1 --batch 2147483648 --hardware b200"), 1,
            "--batch");
        row("hidden_size 2^31", QStringLiteral("model-info --model llama-2-7b --set model.hidden_size=2147483648"), 1,
            "model.hidden_size");
        row("10^15 parameters",
            QStringLiteral(
                "model-info --model llama-2-7b --set model.hidden_size=16777216 --set model.num_layers=65536"),
            1, "model.hidden_size");
        // 1, 2, 4, ... 2^62: 63 values (the doubling past 2^62 used to overflow); most are invalid sequences.
        row("sweep axis to 2^63", QStringLiteral("sweep --vary run.training.seq_length=1..9223372036854775807:x2"), 0,
            "");
        row("linear sweep axis to 2^63", QStringLiteral("sweep --vary run.training.seq_length=1..9223372036854775807"),
            1, "more than 10^6 values");
        row("congestion bytes DBL_MAX",
            QStringLiteral("collective --hardware dgx-a100 --op allreduce --op sendrecv --op broadcast --bytes "
                           "1.7976931348623157e308B --backend congestion"),
            1, "--bytes");
        row("packet bytes DBL_MAX",
            QStringLiteral("collective --hardware torus2d-4x4 --op sendrecv --op broadcast --bytes "
                           "1.7976931348623157e308B --backend packet"),
            1, "--bytes");
        row("trace duration 2^63-1",
            QStringList { QStringLiteral("chakra"), QStringLiteral("simulate"), trace("chakra-hugeduration"),
                QStringLiteral("--hardware"), QStringLiteral("h100-sxm5-80gb") }
                .join(QLatin1Char(' ')),
            1, "duration_micros");
        row("trace duration 2^62 us",
            QStringList { QStringLiteral("chakra"), QStringLiteral("simulate"), trace("chakra-duration-overflow2"),
                QStringLiteral("--hardware"), QStringLiteral("h100-sxm5-80gb") }
                .join(QLatin1Char(' ')),
            1, "duration_micros");
        // "internal error" for input errors.
        row("odd switch radix", QStringLiteral("run --set hardware.cluster.network[ib].switch_radix=3"), 1,
            "switch_radix");
        row("switch radix 2", QStringLiteral("run --set hardware.cluster.network[ib].switch_radix=2"), 1,
            "switch_radix");
        row("3 KiB shared memory", QStringLiteral("run --set hardware.gpu.shared_memory_per_sm_KiB=3"), 1,
            "shared_memory_per_sm");
        row("2^30 global batch", QStringLiteral("run --set run.training.global_batch=1073741824"), 1,
            "run.training.global_batch");
        row("a million GPUs times four",
            QStringLiteral("run --set hardware.cluster.network[ib].size=1048576 --set run.parallelism.dp=1048576"), 1,
            "hardware.cluster.network");
        row("degrees that overflow an int",
            QStringLiteral("run --set run.parallelism.dp=1048576 --set run.parallelism.cp=1048576"), 1,
            "run.parallelism");
        // Silent absurd answers.
        row("clock 1e-308 GHz", QStringLiteral("run --set hardware.gpu.sustained_clock_GHz=1e-308 --json -"), 1,
            "sustained_clock");
        row("sustained clock 1e-290 GHz", QStringLiteral("run --set hardware.gpu.sustained_clock_GHz=1e-290"), 1,
            "sustained_clock");
        row("link 5e-324 GB/s",
            QStringLiteral("run --set hardware.cluster.network[nvlink].link_bandwidth_GBps=5e-324 --json -"), 1,
            "link_bandwidth");
        row("link 1e-200 GB/s", QStringLiteral("run --set hardware.cluster.network[nvlink].link_bandwidth_GBps=1e-200"),
            1, "link_bandwidth");
        row("HBM 5e-324 GB/s",
            QStringLiteral("gemm --m 100000000 --k 2 --n 3 --hardware h100-sxm5-80gb --set "
                           "hardware.gpu.hbm.bandwidth_GBps=5e-324 --json -"),
            1, "hbm.bandwidth");
        row("tensor rate 1e-20 TFLOP/s", QStringLiteral("run --set hardware.gpu.tensor_TFLOPs.bf16=1e-20"), 1,
            "tensor_TFLOPs.bf16");
        row("sendrecv 1e22 B",
            QStringLiteral("collective --hardware hgx-h100-8gpu --op sendrecv --bytes 1e22B --backend congestion"), 1,
            "--bytes");
        row("broadcast 1e30 B",
            QStringLiteral("collective --hardware torus2d-4x4 --op broadcast --bytes 1e30B --backend congestion"), 1,
            "--bytes");
        row("sendrecv DBL_MAX json",
            QStringLiteral(
                "collective --hardware hgx-h100-8gpu --op sendrecv --bytes 1.7976931348623157e308B --json -"),
            1, "--bytes");
        row("decode against 2^63 keys", QStringLiteral("layer --phase decode --kv-length 9223372036854775807"), 1,
            "--kv-length");
        row("negative busiest links", QStringLiteral("collective --hardware hgx-a100-8gpu --op allreduce --links -5"),
            1, "--links");
        row("collective traces into /proc",
            QStringLiteral("collective --hardware hgx-a100-8gpu --op allreduce --chakra-out /proc/rapid-nope"), 1,
            "--chakra-out");
        row("step traces under a file", QStringLiteral("run --chakra-out /dev/null/traces"), 1, "--chakra-out");
        // Found by the hour-long extreme-value fuzz run under ASan: 4,096-port switches on 3 tiers built 4 million top
        // switches for 8 endpoints (out of memory); on 4 tiers the switch count overflowed.
        row("fat tree with tiers to spare",
            QStringLiteral("run --set hardware.cluster.network[ib].switch_radix=4096 --set "
                           "hardware.cluster.network[ib].tiers=4"),
            1, "hardware.cluster.network[1].tiers");
        // Resource blow-ups: refused before any work, naming what to change.
        row("2^20 global batch", QStringLiteral("run --set run.training.global_batch=1048576"), 1,
            "run.training.global_batch");
        row("congestion with 50,000 micro-batches",
            QStringLiteral("run --model mixtral-8x7b --hardware dgx-a100 --run llama-3.1-70b-train-64 --set "
                           "run.training.global_batch=100000 --backend congestion"),
            1, "analytical backend");
        row("packet all-to-all of 1 TB",
            QStringLiteral("collective --hardware hgx-a100-8gpu --op alltoall --bytes 1TB --ranks 1,0 --algorithm ring "
                           "--backend packet"),
            1, "--backend congestion");
        row("inference tokens beyond a GEMM",
            QStringLiteral("run --model llama-3.1-8b --hardware hgx-a100-8gpu --run llama-3.3-70b-serve-8xa100 --set "
                           "run.inference.batch=16777216 --set run.inference.prompt_length=4096"),
            1, "run.inference.batch");
    }

    void endsAsAnInputErrorNamingTheCause()
    {
        QFETCH(QStringList, arguments);
        QFETCH(int, exitCode);
        QFETCH(QString, named);
        const Result result = runRapid(arguments);
        QVERIFY2(result.exitCode == exitCode,
            qPrintable(QStringLiteral("exit %1, expected %2: %3").arg(result.exitCode).arg(exitCode).arg(result.err)));
        QVERIFY2(!result.err.contains(QStringLiteral("internal error")), qPrintable(result.err));
        QVERIFY2(!result.err.contains(QStringLiteral("runtime error")), qPrintable(result.err)); // UBSan
        QVERIFY2(result.err.contains(named), qPrintable(QStringLiteral("does not name %1: %2").arg(named, result.err)));
    }

    /// The layer table of a training workspace times prefill and decode of its micro-batch (it used to stop with an
    /// internal error: the training run has no prompt).
    void layerPhasesOfATrainingRunUseItsMicroBatch_data()
    {
        QTest::addColumn<QString>("phase");
        QTest::newRow("prefill") << QStringLiteral("prefill");
        QTest::newRow("decode") << QStringLiteral("decode");
    }

    void layerPhasesOfATrainingRunUseItsMicroBatch()
    {
        QFETCH(QString, phase);
        const Result result = runRapid({ QStringLiteral("layer"), QStringLiteral("--phase"), phase });
        QVERIFY2(result.exitCode == 0, qPrintable(result.err));
        // The default workspace trains micro-batches of 1 x 8192 tokens.
        QVERIFY2(result.out.contains(phase == QStringLiteral("prefill") ? QStringLiteral("batch 1, prompt 8192")
                                                                        : QStringLiteral("batch 1, KV length 8192")),
            qPrintable(result.out));
        QVERIFY(!result.out.contains(QStringLiteral("inf")) && !result.out.contains(QStringLiteral("nan")));
    }
};

QTEST_APPLESS_MAIN(TstFuzzFindings)
#include "tst_fuzzfindings.moc"
