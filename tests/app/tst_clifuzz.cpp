// SPDX-License-Identifier: GPL-3.0-or-later
// Command-line fuzzing of the rapid executable: random subcommands with random option values (absurd numbers, wrong
// units, negative counts, NaN, words where numbers belong, out-of-range schema overrides). Every run must end with
// exit 0 (and then valid JSON where --json - was asked for, with no inf or nan in it), 1 (input error) or 2 (usage
// error), within the deadline: never exit 3 ("internal error"), a signal, a sanitizer report or a hang. Seeded
// (RAPID_FUZZ_SEED, default 20261125) and bounded by time (RAPID_FUZZ_SECONDS, default 15; the fuzz-long test runs
// for an hour); a failure prints the command line that reproduces it.
#include "config/schema.h"
#include "fuzzsettings.h"

#include <QJsonDocument>
#include <QProcess>
#include <QTest>

#include <chrono>
#include <cstdlib>
#include <random>

using namespace rapid;

namespace {

class CommandDraw {
public:
    explicit CommandDraw(std::mt19937_64& random)
        : m_random(random)
    {
    }

    QStringList next()
    {
        switch (pick(0, 8)) {
        case 0:
            return gemm();
        case 1:
            return collective();
        case 2:
            return withSets({ QStringLiteral("run"), QStringLiteral("--backend"),
                word({ "analytical", "ideal", "congestion", "packet", "" }) });
        case 3:
            return withSets({ QStringLiteral("layer"), QStringLiteral("--phase"),
                word({ "training", "prefill", "decode", "warmup" }), QStringLiteral("--kv-length"), count() });
        case 4:
            return withSets({ QStringLiteral("model-info"), QStringLiteral("--model"),
                word({ "llama-2-7b", "mixtral-8x7b", "deepseek-v3", "nothing" }) });
        case 5:
            return serve();
        case 6:
            return goodput();
        case 7:
            return resilience();
        default:
            return sweep();
        }
    }

private:
    size_t pick(size_t low, size_t high) { return std::uniform_int_distribution<size_t>(low, high)(m_random); }
    QString word(std::initializer_list<const char*> words)
    {
        return QString::fromUtf8(*(words.begin() + pick(0, words.size() - 1)));
    }

    /// A count as a user might mistype it, or an absurd one.
    QString count()
    {
        if (pick(0, 2) == 0) {
            return QString::number(pick(1, 100000));
        }
        return word({ "0", "-1", "1", "2147483647", "2147483648", "9223372036854775807", "99999999999999999999", "1e3",
            "1.5", "abc", "", "0x10" });
    }

    /// A size with a unit, or without, or absurd.
    QString size()
    {
        if (pick(0, 2) == 0) {
            return QString::number(static_cast<double>(pick(1, 1u << 30)), 'g', 10)
                + word({ " B", "KiB", "MB", "GiB" });
        }
        return word({ "0", "0 B", "1 B", "-5 B", "nan B", "inf B", "1e22B", "1e30B", "1.7976931348623157e308B",
            "5e-324 B", "1 PiB", "1025 TiB", "12", "1 GHz", "B" });
    }

    QString hardware()
    {
        return word({ "b200", "h100-sxm5-80gb", "hgx-h100-8gpu", "hgx-a100-8gpu", "dgx-a100", "torus2d-4x4",
            "dgx-h100-superpod", "unknown-gpu" });
    }

    QStringList gemm()
    {
        QStringList arguments = { QStringLiteral("gemm"), QStringLiteral("--hardware"), hardware() };
        for (const char* option : { "--m", "--k", "--n", "--batch" }) {
            if (pick(0, 4) > 0) {
                arguments << QString::fromUtf8(option) << count();
            }
        }
        arguments << QStringLiteral("--precision") << word({ "bf16", "fp16", "fp8", "tf32", "fp32", "int8", "fp4" });
        return withSets(arguments << QStringLiteral("--json") << QStringLiteral("-"));
    }

    QStringList collective()
    {
        QStringList arguments = { QStringLiteral("collective"), QStringLiteral("--hardware"), hardware() };
        for (size_t i = 0, ops = pick(1, 3); i < ops; ++i) {
            arguments << QStringLiteral("--op")
                      << word({ "allreduce", "reducescatter", "allgather", "alltoall", "broadcast", "sendrecv", "x" });
        }
        arguments << QStringLiteral("--bytes") << size();
        if (pick(0, 2) == 0) {
            arguments << QStringLiteral("--ranks") << word({ "0-7", "1,0", "0", "0-100000", "3,3", "-1", "a" });
        }
        if (pick(0, 2) == 0) {
            arguments << QStringLiteral("--algorithm")
                      << word({ "ring", "tree", "direct", "halving-doubling", "hierarchical", "magic" });
        }
        arguments << QStringLiteral("--backend") << word({ "analytical", "congestion", "packet" });
        if (pick(0, 3) == 0) {
            arguments << QStringLiteral("--packet-bytes") << size();
        }
        return arguments << QStringLiteral("--json") << QStringLiteral("-");
    }

    QString time()
    {
        return word({ "0", "0s", "-1s", "500ms", "500", "nan s", "1e300 s", "15min", "3h", "30d", "1e12d", "x h" });
    }

    QStringList serve()
    {
        QStringList arguments = { QStringLiteral("serve"), QStringLiteral("--model"), QStringLiteral("llama-3.1-8b"),
            QStringLiteral("--hardware"), hardware(), QStringLiteral("--run"),
            word({ "llama-3.1-8b-decode-1gpu", "llama-serve-a100", "llama-3.1-70b-train-64" }) };
        arguments << word({ "--concurrency", "--rate", "--requests" }) << count();
        for (const char* option : { "--input-tokens", "--output-tokens", "--max-num-seqs", "--max-num-batched-tokens",
                 "--block-size", "--kv-blocks" }) {
            if (pick(0, 4) == 0) {
                arguments << QString::fromUtf8(option) << count();
            }
        }
        if (pick(0, 3) == 0) {
            arguments << QStringLiteral("--slo-ttft") << time();
        }
        return withSets(arguments << QStringLiteral("--json") << QStringLiteral("-"));
    }

    QStringList goodput()
    {
        QStringList arguments = { QStringLiteral("goodput"), word({ "--steps", "--tokens" }), count() };
        for (const char* option : { "--mtbf", "--detect", "--relaunch", "--checkpoint-interval", "--work" }) {
            if (pick(0, 3) == 0) {
                arguments << QString::fromUtf8(option) << time();
            }
        }
        arguments << QStringLiteral("--trials") << word({ "0", "1", "10", "-1", "abc" });
        return withSets(arguments << QStringLiteral("--json") << QStringLiteral("-"));
    }

    QStringList resilience()
    {
        // Criticality times every link: on the analytical backend only, so a draw stays within the run's budget.
        const bool criticality = pick(0, 3) == 0;
        QStringList arguments = { QStringLiteral("resilience"), QStringLiteral("--backend"),
            criticality ? QStringLiteral("analytical") : word({ "analytical", "congestion", "ideal", "x" }),
            QStringLiteral("--trials"), word({ "1", "2", "0", "-1", "abc", "99999999999" }),
            QStringLiteral("--faulty-links"), word({ "1", "0", "1,2", "1e9", "a", "3,", "2147483648" }),
            QStringLiteral("--health"), word({ "0", "0.5", "1", "-1", "nan", "0,0.9" }) };
        if (pick(0, 2) == 0) {
            arguments << QStringLiteral("--class") << word({ "nvlink GPU-switch", "ib leaf-spine", "none" });
        }
        if (criticality) {
            arguments << QStringLiteral("--criticality") << QStringLiteral("--max-links") << count();
        }
        return withSets(arguments << QStringLiteral("--json") << QStringLiteral("-"));
    }

    QStringList sweep()
    {
        QStringList arguments = { QStringLiteral("sweep"), QStringLiteral("--vary"),
            word({ "run.training.micro_batch=1,2,4", "run.training.seq_length=1024..8192:x2",
                "run.parallelism.tp=1..8:x2", "run.training.global_batch=1..9223372036854775807:x2",
                "run.training.seq_length=0..-5", "hardware.gpu.hbm.bandwidth_GBps=5e-324,1e308", "nothing=1" }),
            QStringLiteral("--top"), count(), QStringLiteral("--threads"), word({ "1", "2", "0", "-3", "100000" }) };
        return withSets(arguments);
    }

    /// Adds zero to two `--set` overrides of schema keys with values at or beyond their range.
    QStringList withSets(QStringList arguments)
    {
        for (size_t i = 0, sets = pick(0, 2); i < sets; ++i) {
            const auto document = static_cast<config::schema::Document>(pick(0, 3));
            const auto& keys = config::schema::keys(document);
            const config::schema::Key& key = keys[pick(0, keys.size() - 1)];
            QString path = QString::fromStdString(config::schema::scenarioPrefix(document) + key.writtenPath());
            path.replace(QStringLiteral("[]"), QStringLiteral("[0]"));
            const QString value
                = key.type == config::schema::Type::Quantity ? QString::number(key.maximum * 10, 'g', 17) : count();
            arguments << QStringLiteral("--set") << path + QLatin1Char('=') + value;
        }
        return arguments;
    }

    std::mt19937_64& m_random;
};

/// What is wrong with how @p process ended, or nothing.
QString verdict(QProcess& process, const QStringList& arguments)
{
    if (!process.waitForFinished(120000)) {
        process.kill();
        process.waitForFinished();
        return QStringLiteral("still running after 120 s");
    }
    if (process.exitStatus() != QProcess::NormalExit) {
        return QStringLiteral("killed by a signal");
    }
    const QString err = QString::fromUtf8(process.readAllStandardError());
    const QString out = QString::fromUtf8(process.readAllStandardOutput());
    const int code = process.exitCode();
    if (code > 2 || err.contains(QStringLiteral("internal error")) || err.contains(QStringLiteral("runtime error"))
        || err.contains(QStringLiteral("Sanitizer"))) {
        return QStringLiteral("exit %1: %2").arg(code).arg(err.left(600));
    }
    if (code == 0 && arguments.contains(QStringLiteral("--json"))) {
        // Text first, then the JSON document from its first line that opens an object.
        const qsizetype start = out.startsWith(QLatin1Char('{')) ? 0 : out.indexOf(QStringLiteral("\n{")) + 1;
        QJsonParseError error;
        QJsonDocument::fromJson(out.mid(start).toUtf8(), &error);
        if (start <= 0 && !out.startsWith(QLatin1Char('{'))) {
            return QStringLiteral("no JSON on standard output");
        }
        if (error.error != QJsonParseError::NoError) {
            return QStringLiteral("invalid JSON: ") + error.errorString();
        }
    }
    return {};
}

} // namespace

class TstCliFuzz : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everyCommandLineEndsCleanly()
    {
        std::mt19937_64 random(test::fuzzSeed());
        CommandDraw draw(random);
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(test::fuzzSeconds());
        long executions = 0;
        long codes[3] = { 0, 0, 0 };
        QStringList failures;
        while (std::chrono::steady_clock::now() < deadline) {
            const QStringList arguments = draw.next();
            QProcess process;
            process.start(QStringLiteral(RAPID_CLI_PATH), arguments);
            const QString wrong = verdict(process, arguments);
            ++executions;
            if (!wrong.isEmpty()) {
                // Keep going: a long run reports every distinct failure (up to 20), not only the first.
                failures << wrong + QStringLiteral("\n  rapid '") + arguments.join(QStringLiteral("' '"))
                        + QLatin1Char('\'');
                if (failures.size() >= 20) {
                    break;
                }
                continue;
            }
            ++codes[process.exitCode()];
        }
        qInfo("%ld command lines (%.1f/s): %ld answered, %ld input errors, %ld usage errors", executions,
            static_cast<double>(executions) / test::fuzzSeconds(), codes[0], codes[1], codes[2]);
        QVERIFY2(failures.isEmpty(), qPrintable(failures.join(QLatin1Char('\n'))));
        QVERIFY(executions > 0);
    }
};

QTEST_GUILESS_MAIN(TstCliFuzz)
#include "tst_clifuzz.moc"
