// SPDX-License-Identifier: GPL-3.0-or-later
// `rapid sweep` streams its files and stops cleanly: a 105,600-point sweep run as a child process and sent SIGINT
// (or SIGTERM) about a second in exits promptly with 130 (143), its CSV is a header, complete rows in index order and
// a last line saying it was interrupted, its JSON parses with "interrupted": true and counts that add up; a SIGINT
// ignored when rapid started (a background job of a script) stays ignored; a sweep
// written to standard output leaves it one valid JSON document (the tables go to standard error) with exactly the
// keys docs/json-output.md lists, in its order and of its types.
#include "report/json.h"

#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

#include <signal.h>

using namespace rapid;

class TstSweepInterrupt : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void signalCompletesTheFiles_data();
    void signalCompletesTheFiles();
    void ignoredSigintStaysIgnored();
    void jsonOnStandardOutputIsOneDocument();
};

namespace {

/// Every split of the default workspace's 64 GPUs (22) x 4 micro-batches x 3 recompute modes x 4 sequence lengths x
/// 100 global batches: 105,600 points, minutes of work on two cores.
QStringList bigSweep()
{
    return { QStringLiteral("sweep"), QStringLiteral("--set"), QStringLiteral("run.parallelism.mapping={}"),
        QStringLiteral("--splits"), QStringLiteral("tp,pp,dp"), QStringLiteral("--vary"),
        QStringLiteral("run.training.micro_batch=1..8:x2"), QStringLiteral("--vary"),
        QStringLiteral("run.training.recompute=none,selective,full"), QStringLiteral("--vary"),
        QStringLiteral("run.training.seq_length=1024..8192:x2"), QStringLiteral("--vary"),
        QStringLiteral("run.training.global_batch=64..163") };
}

/// The fields of one CSV line (double quotes group, as rapid writes them: no quote inside a field).
QStringList csvFields(const QString& line)
{
    QStringList fields(QString {});
    bool quoted = false;
    for (const QChar c : line) {
        if (c == QLatin1Char('"')) {
            quoted = !quoted;
        } else if (c == QLatin1Char(',') && !quoted) {
            fields.append(QString());
        } else {
            fields.last().append(c);
        }
    }
    return fields;
}

/// Starts rapid with @p arguments and SIGINT's disposition set to @p sigint (the test runner may ignore it, and a
/// child inherits what is ignored).
void startRapid(QProcess& process, const QStringList& arguments, void (*sigint)(int))
{
    process.setChildProcessModifier([sigint] {
        ::signal(SIGINT, sigint);
        ::signal(SIGTERM, SIG_DFL);
    });
    process.start(QStringLiteral(RAPID_CLI_PATH), arguments);
}

QByteArray readAll(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

/// The rows `| `key` | type | ... |` of the `rapid sweep --json` table of docs/json-output.md, as (key, type).
std::vector<std::pair<std::string, std::string>> documentedSweepKeys()
{
    const QString text = QString::fromUtf8(readAll(QStringLiteral(RAPID_SOURCE_CONFIG_DIR "/../docs/json-output.md")));
    std::vector<std::pair<std::string, std::string>> keys;
    for (const QString& line : text.section(QStringLiteral("## `rapid sweep --json`"), 1).split(QLatin1Char('\n'))) {
        if (line.startsWith(QStringLiteral("| `"))) {
            keys.emplace_back(line.section(QLatin1Char('`'), 1, 1).toStdString(),
                line.section(QLatin1Char('|'), 2, 2).trimmed().toStdString());
        }
    }
    return keys;
}

bool hasType(const report::Json& value, const std::string& type)
{
    return type == "integer" ? value.is_number_integer()
        : type == "number"   ? value.is_number()
        : type == "boolean"  ? value.is_boolean()
        : type == "array"    ? value.is_array()
        : type == "object"   ? value.is_object()
                             : value.is_string();
}

} // namespace

void TstSweepInterrupt::signalCompletesTheFiles_data()
{
    QTest::addColumn<int>("signal");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("name");
    QTest::addRow("sigint") << SIGINT << 130 << QStringLiteral("SIGINT");
    QTest::addRow("sigterm") << SIGTERM << 143 << QStringLiteral("SIGTERM");
}

void TstSweepInterrupt::signalCompletesTheFiles()
{
    QFETCH(int, signal);
    QFETCH(int, exitCode);
    QFETCH(QString, name);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString csv = dir.filePath(QStringLiteral("sweep.csv"));
    const QString json = dir.filePath(QStringLiteral("sweep.json"));
    QProcess process;
    startRapid(process, bigSweep() << QStringLiteral("--csv") << csv << QStringLiteral("--json") << json, SIG_DFL);
    QVERIFY(process.waitForStarted());
    // The header is written (and flushed) before the first point runs; then let it run about a second.
    QTRY_VERIFY_WITH_TIMEOUT(QFile(csv).size() > 0, 60000);
    QTest::qSleep(1000);
    QCOMPARE(process.state(), QProcess::Running);
    QElapsedTimer sinceSignal;
    sinceSignal.start();
    QCOMPARE(::kill(static_cast<pid_t>(process.processId()), signal), 0);
    QVERIFY2(process.waitForFinished(10000), "still running 10 s after the signal");
    const double seconds = static_cast<double>(sinceSignal.nsecsElapsed()) * 1e-9;
    qInfo("%s to exit: %.3f s", qPrintable(name), seconds);
    QCOMPARE(process.exitStatus(), QProcess::NormalExit);
    QCOMPARE(process.exitCode(), exitCode);
    const QString out = QString::fromUtf8(process.readAllStandardOutput());
    QVERIFY2(out.contains(QStringLiteral("interrupted by ") + name), qPrintable(out));

    // CSV: the header, complete rows 0, 1, 2, ... and the interrupted line.
    const QStringList lines = QString::fromUtf8(readAll(csv)).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QVERIFY(lines.size() >= 2);
    const QStringList header = csvFields(lines.first());
    QCOMPARE(header.first(), QStringLiteral("index"));
    const qsizetype rows = lines.size() - 2;
    for (qsizetype i = 0; i < rows; ++i) {
        const QStringList fields = csvFields(lines[i + 1]);
        QVERIFY2(fields.size() == header.size(), qPrintable(lines[i + 1]));
        QCOMPARE(fields.first().toLongLong(), static_cast<long long>(i));
    }
    QCOMPARE(lines.last(), QStringLiteral("# interrupted after %1 of 105600 points").arg(rows));
    qInfo("%lld rows written before the signal took effect", static_cast<long long>(rows));

    // JSON: one document, the same rows, interrupted, counts adding up to the points.
    const report::Json document = report::Json::parse(readAll(json).toStdString());
    QCOMPARE(document["interrupted"].get<bool>(), true);
    QCOMPARE(document["points"].get<long long>(), 105600LL);
    QCOMPARE(static_cast<qsizetype>(document["rows"].size()), rows);
    QCOMPARE(document["rows"].back()["index"].get<long long>(), static_cast<long long>(rows - 1));
    long long counted = 0;
    for (const auto& [status, count] : document["counts"].items()) {
        counted += count.get<long long>();
    }
    QCOMPARE(counted, 105600LL);
    QCOMPARE(document["counts"]["not-run"].get<long long>(), 105600LL - rows);
}

void TstSweepInterrupt::ignoredSigintStaysIgnored()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString csv = dir.filePath(QStringLiteral("sweep.csv"));
    QProcess process;
    startRapid(process, bigSweep() << QStringLiteral("--csv") << csv, SIG_IGN);
    QVERIFY(process.waitForStarted());
    QTRY_VERIFY_WITH_TIMEOUT(QFile(csv).size() > 0, 60000);
    QCOMPARE(::kill(static_cast<pid_t>(process.processId()), SIGINT), 0);
    QVERIFY(!process.waitForFinished(1000)); // still sweeping
    QCOMPARE(::kill(static_cast<pid_t>(process.processId()), SIGTERM), 0);
    QVERIFY2(process.waitForFinished(10000), "still running 10 s after SIGTERM");
    QCOMPARE(process.exitCode(), 143);
    QVERIFY(QString::fromUtf8(readAll(csv)).trimmed().endsWith(QStringLiteral(" of 105600 points")));
}

void TstSweepInterrupt::jsonOnStandardOutputIsOneDocument()
{
    // 8 points of Llama-3.3-70B serving on 8 A100: the JSON alone on standard output, the tables on standard error.
    QProcess process;
    process.start(QStringLiteral(RAPID_CLI_PATH),
        { QStringLiteral("sweep"), QStringLiteral("--model"), QStringLiteral("llama-3.3-70b"),
            QStringLiteral("--hardware"), QStringLiteral("hgx-a100-8gpu"), QStringLiteral("--run"),
            QStringLiteral("llama-3.3-70b-serve-8xa100"), QStringLiteral("--splits"), QStringLiteral("tp,dp"),
            QStringLiteral("--vary"), QStringLiteral("run.inference.batch=1,8"), QStringLiteral("--json"),
            QStringLiteral("-") });
    QVERIFY(process.waitForFinished(60000));
    QCOMPARE(process.exitCode(), 0);
    const report::Json document = report::Json::parse(process.readAllStandardOutput().toStdString());
    QCOMPARE(document["rows"].size(), size_t(8));
    QCOMPARE(document["interrupted"].get<bool>(), false);
    QCOMPARE(document["counts"]["ok"].get<int>(), 6);
    QVERIFY(!document["pareto_front"].empty());
    // Exactly the documented keys, in the documented order, of the documented types.
    const auto documented = documentedSweepKeys();
    QCOMPARE(documented.size(), document.size());
    size_t i = 0;
    for (const auto& [key, value] : document.items()) {
        QCOMPARE(key, documented[i].first);
        QVERIFY2(hasType(value, documented[i].second), key.c_str());
        ++i;
    }
    const QString err = QString::fromUtf8(process.readAllStandardError());
    QVERIFY2(
        err.contains(QStringLiteral("Pareto front of throughput per GPU and end-to-end latency")), qPrintable(err));
}

QTEST_GUILESS_MAIN(TstSweepInterrupt)
#include "tst_sweepinterrupt.moc"
