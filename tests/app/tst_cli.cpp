// SPDX-License-Identifier: GPL-3.0-or-later
// The rapid executable end to end: published numbers from model-info, one-line located errors for bad input,
// usage errors, and the honest "no prediction yet" of run.
#include "testutils.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

namespace {

struct Result {
    int exitCode = -1;
    QString out;
    QString err;
};

/// The number after "key": in JSON text written by rapid (-1 when the key is missing).
double jsonNumber(const QString& text, const QString& key)
{
    const qsizetype at = text.indexOf(QStringLiteral("\"") + key + QStringLiteral("\": "));
    return at < 0 ? -1.0 : text.mid(at + key.size() + 4).section(QLatin1Char(','), 0, 0).trimmed().toDouble();
}

Result runRapid(const QStringList& arguments)
{
    QProcess process;
    process.start(QStringLiteral(RAPID_CLI_PATH), arguments);
    process.waitForFinished(60000);
    return { process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
        QString::fromUtf8(process.readAllStandardOutput()), QString::fromUtf8(process.readAllStandardError()) };
}

} // namespace

class TstCli : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void modelInfoPrintsPublishedTotals_data();
    void modelInfoPrintsPublishedTotals();
    void runOnTheDefaultWorkspacePredictsTimeAndMemory();
    void badInputGivesOneLocatedLine();
    void usageErrors_data();
    void usageErrors();
    void everyCommandHasHelp_data();
    void everyCommandHasHelp();
    void importHfWritesALoadableModel();
    void chakraExportReadsBackWithoutDefects();
    void chakraExportPerRankReplaysToTheSameStep();
    void chakraRanksWritesASubsetWithCompleteGroups();
    void collectiveMicrobenchmarkIsByteIdenticalToAstraSims();
    void collectiveOnAFailedLinkSaysWhatTheAnalyticalFigureLeavesOut();
    void collectiveMicrobenchmarkOfASubgroupHasATraceForEveryRank();
    void collectivePacketBackendMatchesTheClosedForm();
    void collectiveOnNcclPaysItsRingSteps();
    void collectiveOnOneGpuMovesNothingAndHasNoRate();
    void resilienceOnOneGpuSaysThereIsNoLinkToFail();
    void resilienceRowWhoseTrialsAllCutGpusApartHasNoSlowdown();
    void inferenceExportReplaysToTheRequestLatency();
    void sweepWritesEveryPointAndRanksTheFeasibleOnes();
    void runJsonFollowsTheDocumentedSchema();
    void validateGemmsWritesEveryRow();
    void gemmTakesMxfp4BesideFp8OnBlackwell();
    void validateSplitsADatasetsErrorByGroup();
    void validateNamesAMissingSharedFolder();
};

void TstCli::modelInfoPrintsPublishedTotals_data()
{
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("expected");
    QTest::addRow("llama_2_7b") << "llama-2-7b"
                                << "6.74 B";
    QTest::addRow("llama_2_70b") << "llama-2-70b"
                                 << "68.98 B";
    QTest::addRow("gpt_3_175b") << "gpt-3-175b"
                                << "174.60 B";
    QTest::addRow("mixtral_active") << "mixtral-8x7b"
                                    << "active per token      12.88 B";
}

void TstCli::modelInfoPrintsPublishedTotals()
{
    QFETCH(QString, model);
    QFETCH(QString, expected);
    const Result result = runRapid({ QStringLiteral("model-info"), QStringLiteral("--model"), model });
    QCOMPARE(result.exitCode, 0);
    QVERIFY2(result.out.contains(expected), qPrintable(result.out));
}

void TstCli::collectiveOnOneGpuMovesNothingAndHasNoRate()
{
    // An all-reduce over one GPU sends nothing: 0 ns, and no bandwidth (it printed "0 B/s", a rate of bytes over no
    // time).
    const Result result
        = runRapid({ QStringLiteral("collective"), QStringLiteral("--hardware"), QStringLiteral("a100-sxm4-80gb"),
            QStringLiteral("--op"), QStringLiteral("allreduce"), QStringLiteral("--bytes"), QStringLiteral("64MiB") });
    QCOMPARE(result.exitCode, 0);
    QVERIFY2(result.out.contains(QStringLiteral("completion time       0 ns")), qPrintable(result.out));
    QVERIFY2(result.out.contains(QStringLiteral("bandwidth             - (nothing crosses a link)")),
        qPrintable(result.out));
    QVERIFY(!result.out.contains(QStringLiteral("B/s")));
}

void TstCli::resilienceOnOneGpuSaysThereIsNoLinkToFail()
{
    // A GPU preset as the hardware has no network: the fault study is an input error saying so (it said "the classes
    // hold 0"), the criticality ranking says so instead of an empty table.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("one.rapid.yaml"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("name: one GPU\nmodel: llama-2-7b\nhardware: a100-sxm4-80gb\nrun: llama-2-7b-train-4xa100\n"
               "overrides: [run.parallelism.dp=1, run.training.global_batch=8]\n");
    file.close();
    const Result study = runRapid({ QStringLiteral("resilience"), path });
    QCOMPARE(study.exitCode, 1);
    QVERIFY2(study.err.contains(QStringLiteral("the hardware has no links to fail")), qPrintable(study.err));
    const Result ranking = runRapid({ QStringLiteral("resilience"), path, QStringLiteral("--criticality") });
    QCOMPARE(ranking.exitCode, 0);
    QVERIFY2(ranking.out.contains(QStringLiteral("the hardware has no links to fail")), qPrintable(ranking.out));
}

void TstCli::resilienceRowWhoseTrialsAllCutGpusApartHasNoSlowdown()
{
    // A node's NICs failing together leave its 8 GPUs no path to the other 7 nodes (their data-parallel peers): every
    // trial is cut off, so there is no slowdown to state. The table printed 0.0000 (a step 0 times as long) and the
    // JSON 0 for every slowdown and step time.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString json = dir.filePath(QStringLiteral("study.json"));
    const Result result = runRapid({ QStringLiteral("resilience"), QStringLiteral("--workspace"),
        QStringLiteral("llama-3.1-70b-64xh100"), QStringLiteral("--class"), QStringLiteral("ib node NICs"),
        QStringLiteral("--faulty-links"), QStringLiteral("1"), QStringLiteral("--health"), QStringLiteral("0"),
        QStringLiteral("--trials"), QStringLiteral("2"), QStringLiteral("--backend"), QStringLiteral("analytical"),
        QStringLiteral("--json"), json });
    QCOMPARE(result.exitCode, 0);
    QVERIFY2(result.out.contains(
                 QStringLiteral("   1       0          0        2       -       -       -       -       -\n")),
        qPrintable(result.out));
    QVERIFY(!result.out.contains(QStringLiteral("0.0000")));
    QFile file(json);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QJsonObject study
        = QJsonDocument::fromJson(file.readAll()).object().value(QStringLiteral("studies")).toArray().at(0).toObject();
    QCOMPARE(study.value(QStringLiteral("disconnected")).toInt(), 2);
    QVERIFY(study.value(QStringLiteral("slowdown")).isNull());
    const QJsonArray trials = study.value(QStringLiteral("trial_results")).toArray();
    QCOMPARE(trials.size(), 2);
    for (const QJsonValue& trial : trials) {
        QVERIFY(trial.toObject().value(QStringLiteral("step_time_s")).isNull());
    }
}

void TstCli::gemmTakesMxfp4BesideFp8OnBlackwell()
{
    // MXFP8 x MXFP4 is a Blackwell MMA (tcgen05 kind f8f6f4): the B200 estimates it, and its time is below the
    // 2 x 8192 x 2880 x 5760 FLOP at the bf16 peak (2,250 TFLOP/s: 120.8 us) that any dequantising kernel would need.
    const Result result = runRapid({ QStringLiteral("gemm"), QStringLiteral("--hardware"), QStringLiteral("b200"),
        QStringLiteral("--m"), QStringLiteral("8192"), QStringLiteral("--k"), QStringLiteral("2880"),
        QStringLiteral("--n"), QStringLiteral("5760"), QStringLiteral("--weights"), QStringLiteral("mxfp4"),
        QStringLiteral("--precision"), QStringLiteral("fp8"), QStringLiteral("--json"), QStringLiteral("-") });
    QCOMPARE(result.exitCode, 0);
    QVERIFY2(result.out.contains(QStringLiteral("fp8 on mxfp4 weights")), qPrintable(result.out));
    const qsizetype json = result.out.indexOf(QLatin1Char('{'));
    QVERIFY(json >= 0);
    const QJsonObject estimate = QJsonDocument::fromJson(result.out.mid(json).toUtf8()).object();
    QCOMPARE(estimate[QStringLiteral("shape")][QStringLiteral("weights")].toString(), QStringLiteral("mxfp4"));
    const double total = estimate[QStringLiteral("seconds")][QStringLiteral("total")].toDouble();
    QVERIFY2(total > 0 && total < 2.0 * 8192 * 2880 * 5760 / 2250e12, qPrintable(result.out));
}

void TstCli::validateGemmsWritesEveryRow()
{
    if (!QFileInfo::exists(QStringLiteral(RAPID_SHARED_DIR "/validation/gemm/ncu_a100_gemm.csv"))) {
        QSKIP("shared validation data not present");
    }
    // The GEMM set in `rapid validate`: its figure is a missed bar (exit 1 unless --no-fail) and the CSV holds every
    // one of the file's 48 rows, each with the signed error of its own two times.
    QTemporaryDir dir;
    const QString csvPath = dir.filePath(QStringLiteral("gemm.csv"));
    const QStringList base { QStringLiteral("validate"), QStringLiteral("--dataset"), QStringLiteral("gemm"),
        QStringLiteral("--shared"), QStringLiteral(RAPID_SHARED_DIR) };
    QCOMPARE(runRapid(base).exitCode, 1);
    const Result result
        = runRapid(base + QStringList { QStringLiteral("--csv"), csvPath, QStringLiteral("--no-fail") });
    QCOMPARE(result.exitCode, 0);
    QVERIFY(result.out.contains(QStringLiteral("mean absolute error")));
    QFile csv(csvPath);
    QVERIFY(csv.open(QIODevice::ReadOnly | QIODevice::Text));
    const QStringList lines = QString::fromUtf8(csv.readAll()).trimmed().split(QLatin1Char('\n'));
    QCOMPARE(lines.size(), 49);
    for (const QString& line : lines.mid(1)) {
        const QStringList cells = line.split(QLatin1Char(','));
        QCOMPARE(cells.size(), 7);
        const double measured = cells[3].toDouble();
        const double predicted = cells[4].toDouble();
        QVERIFY(std::abs((predicted - measured) / measured * 100 - cells[5].toDouble()) < 1e-3);
    }
}

void TstCli::validateSplitsADatasetsErrorByGroup()
{
    if (!QFileInfo::exists(QStringLiteral(RAPID_SHARED_DIR "/validation/memory/hf_nanotron_h100_bench.csv"))) {
        QSKIP("shared validation data not present");
    }
    // nanotron's runs grouped by tensor parallelism: the groups hold every case the figure line counts, and their
    // shares of the summed absolute error add up to all of it.
    QTemporaryDir dir;
    const QString csvPath = dir.filePath(QStringLiteral("nanotron.csv"));
    const Result result = runRapid({ QStringLiteral("validate"), QStringLiteral("--dataset"),
        QStringLiteral("nanotron"), QStringLiteral("--shared"), QStringLiteral(RAPID_SHARED_DIR),
        QStringLiteral("--no-fail"), QStringLiteral("--csv"), csvPath });
    QCOMPARE(result.exitCode, 0);
    // The CSV names each run's group, the tensor parallelism its name carries ("..._tp4_...").
    QFile csv(csvPath);
    QVERIFY(csv.open(QIODevice::ReadOnly | QIODevice::Text));
    const QStringList csvLines = QString::fromUtf8(csv.readAll()).trimmed().split(QLatin1Char('\n'));
    QCOMPARE(csvLines.first(), QStringLiteral("dataset,case,measured,predicted,error_percent,group"));
    const QRegularExpression tpInName(QStringLiteral("_tp(\\d+)_"));
    for (const QString& line : csvLines.mid(1)) {
        const QRegularExpressionMatch tp = tpInName.match(line);
        QVERIFY2(tp.hasMatch(), qPrintable(line));
        QVERIFY2(line.endsWith(QStringLiteral(",\"tp ") + tp.captured(1) + QStringLiteral("\"")), qPrintable(line));
    }
    const QRegularExpression figure(QStringLiteral("; (\\d+) cases in "));
    const QRegularExpressionMatch counted = figure.match(result.out);
    QVERIFY(counted.hasMatch());
    const QStringList lines = result.out.split(QLatin1Char('\n'));
    const qsizetype header = lines.indexOf(QRegularExpression(QStringLiteral("^\\s+group\\s+cases\\s+MAPE.*")));
    QVERIFY(header > 0);
    const QRegularExpression row(
        QStringLiteral("^\\s+(tp \\d+)\\s+(\\d+)\\s+([\\d.]+)%\\s+([-+][\\d.]+)%\\s+([\\d.]+)%$"));
    int cases = 0;
    double share = 0;
    int groups = 0;
    for (qsizetype i = header + 1; i < lines.size(); ++i) {
        const QRegularExpressionMatch match = row.match(lines[i]);
        if (!match.hasMatch()) {
            break;
        }
        ++groups;
        cases += match.captured(2).toInt();
        share += match.captured(5).toDouble();
    }
    QVERIFY(groups >= 2);
    QCOMPARE(cases, counted.captured(1).toInt());
    QVERIFY(std::abs(share - 100) < 0.05 * groups); // each share printed to 0.1
}

void TstCli::validateNamesAMissingSharedFolder()
{
    // A --shared folder without validation data is the user's input (exit 1, the option named), for every dataset,
    // never an internal error.
    QTemporaryDir dir;
    for (const QString& dataset : { QStringLiteral("nanotron"), QStringLiteral("gemm"), QStringLiteral("all") }) {
        const Result result = runRapid({ QStringLiteral("validate"), QStringLiteral("--dataset"), dataset,
            QStringLiteral("--shared"), dir.path() });
        QCOMPARE(result.exitCode, 1);
        QVERIFY2(result.err.contains(QStringLiteral("not found (give --shared DIR)")), qPrintable(result.err));
        QVERIFY(!result.err.contains(QStringLiteral("internal error")));
    }
}

void TstCli::runOnTheDefaultWorkspacePredictsTimeAndMemory()
{
    const Result result = runRapid({ QStringLiteral("run") });
    QCOMPARE(result.exitCode, 0);
    QVERIFY(result.out.contains(QStringLiteral("64 x H100-SXM5-80GB")));
    QVERIFY(result.out.contains(QStringLiteral("step       ")));
    QVERIFY(result.out.contains(QStringLiteral("memory     fits")));
    // tp 8 inside the NVLink switch: stride 1, group 0..7.
    QVERIFY(result.out.contains(QStringLiteral("tp         8       1  nvlink")));
}

void TstCli::badInputGivesOneLocatedLine()
{
    QTemporaryDir dir;
    const std::string run = rapid::test::writeFile(dir, "run.yaml",
        "run:\n"
        "  mode: inference\n"
        "  inference: {batch: 1, prompt_length: 200, decode_length: 200}\n"
        "  parallelism:\n"
        "    tp: 3\n");
    const Result result = runRapid(
        { QStringLiteral("run"), QStringLiteral("--model"), QStringLiteral("llama-2-7b"), QStringLiteral("--hardware"),
            QStringLiteral("a100-sxm4-80gb"), QStringLiteral("--run"), QString::fromStdString(run) });
    QCOMPARE(result.exitCode, 1);
    // tp 3 does not divide 32 heads, and 3 GPUs are not the 1 the hardware has: two lines, both at line 5 or the
    // parallelism mapping (line 5, column 5).
    const QStringList lines = result.err.trimmed().split(QLatin1Char('\n'));
    QCOMPARE(lines.size(), 2);
    QVERIFY2(lines[0].startsWith(
                 QString::fromStdString(run) + QStringLiteral(":5:9: run.parallelism.tp: tp (3) must divide")),
        qPrintable(lines[0]));
    QVERIFY2(lines[1].startsWith(QString::fromStdString(run) + QStringLiteral(":5:5: run.parallelism: ")),
        qPrintable(lines[1]));
}

void TstCli::usageErrors_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("expected");
    QTest::addRow("unknown_command") << QStringList { QStringLiteral("simulate") } << "unknown command";
    QTest::addRow("unknown_option") << QStringList { QStringLiteral("run"), QStringLiteral("--tp"),
        QStringLiteral("4") } << "unknown option --tp";
    QTest::addRow("missing_value") << QStringList { QStringLiteral("model-info"), QStringLiteral("--model") }
                                   << "--model needs a value";
    // An option where its value should be is a slip, not the value: "--splits --top 5" named "5" a workspace.
    QTest::addRow("option_in_place_of_a_value") << QStringList { QStringLiteral("sweep"), QStringLiteral("--splits"),
        QStringLiteral("--top"), QStringLiteral("5") }
                                                << "--splits needs a value (AXES) before the option --top";
    QTest::addRow("missing_required") << QStringList { QStringLiteral("model-info") } << "missing --model";
    QTest::addRow("sweep_axis_without_values") << QStringList { QStringLiteral("sweep"), QStringLiteral("--vary"),
        QStringLiteral("run.parallelism.tp") } << "--vary: sweep axis \"run.parallelism.tp\": expected KEY=VALUES";
    QTest::addRow("sweep_bad_range") << QStringList { QStringLiteral("sweep"), QStringLiteral("--vary"),
        QStringLiteral("run.training.micro_batch=1..8:2") }
                                     << "a range step is written :xF";
    QTest::addRow("sweep_unknown_split_axis") << QStringList { QStringLiteral("sweep"), QStringLiteral("--splits"),
        QStringLiteral("tp,xp") } << "--splits: \"xp\" is not a parallel axis";
    QTest::addRow("header_without_packet_backend") << QStringList { QStringLiteral("collective"),
        QStringLiteral("--hardware"), QStringLiteral("hgx-a100-8gpu"), QStringLiteral("--header-bytes"),
        QStringLiteral("40B") } << "--header-bytes is for --backend packet";
    QTest::addRow("header_not_smaller_than_packet")
        << QStringList { QStringLiteral("collective"), QStringLiteral("--hardware"), QStringLiteral("hgx-a100-8gpu"),
               QStringLiteral("--backend"), QStringLiteral("packet"), QStringLiteral("--packet-bytes"),
               QStringLiteral("1KiB"), QStringLiteral("--header-bytes"), QStringLiteral("2KiB") }
        << "must be smaller than the packet";
    // Sizes beyond any GPU: refused where they enter, not overflowed in the simulators' 64-bit counters.
    QTest::addRow("collective_beyond_a_petabyte") << QStringList { QStringLiteral("collective"),
        QStringLiteral("--hardware"), QStringLiteral("hgx-a100-8gpu"), QStringLiteral("--backend"),
        QStringLiteral("congestion"), QStringLiteral("--bytes"), QStringLiteral("1e30B") }
                                                  << "--bytes \"1e30B\": at most";
    QTest::addRow("packet_beyond_a_mebibyte") << QStringList { QStringLiteral("collective"),
        QStringLiteral("--hardware"), QStringLiteral("hgx-a100-8gpu"), QStringLiteral("--backend"),
        QStringLiteral("packet"), QStringLiteral("--packet-bytes"), QStringLiteral("1TB") }
                                              << "--packet-bytes \"1TB\": at most";
    QTest::addRow("collectives_not_a_library") << QStringList { QStringLiteral("collective"),
        QStringLiteral("--hardware"), QStringLiteral("hgx-a100-8gpu"), QStringLiteral("--collectives"),
        QStringLiteral("mpi") } << "--collectives \"mpi\": expected custom or nccl";
    QTest::addRow("gemm_int4_precision") << QStringList { QStringLiteral("gemm"), QStringLiteral("--hardware"),
        QStringLiteral("a100-sxm4-80gb"), QStringLiteral("--m"), QStringLiteral("16"), QStringLiteral("--k"),
        QStringLiteral("4096"), QStringLiteral("--n"), QStringLiteral("4096"), QStringLiteral("--precision"),
        QStringLiteral("int4") } << "int4 is a weight-only format";
    QTest::addRow("gemm_weights_not_int4") << QStringList { QStringLiteral("gemm"), QStringLiteral("--hardware"),
        QStringLiteral("a100-sxm4-80gb"), QStringLiteral("--m"), QStringLiteral("16"), QStringLiteral("--k"),
        QStringLiteral("4096"), QStringLiteral("--n"), QStringLiteral("4096"), QStringLiteral("--weights"),
        QStringLiteral("fp8") } << "--weights \"fp8\": expected int4 or mxfp4";
    QTest::addRow("gemm_mxfp4_precision") << QStringList { QStringLiteral("gemm"), QStringLiteral("--hardware"),
        QStringLiteral("h100-sxm5-80gb"), QStringLiteral("--m"), QStringLiteral("16"), QStringLiteral("--k"),
        QStringLiteral("2880"), QStringLiteral("--n"), QStringLiteral("5760"), QStringLiteral("--precision"),
        QStringLiteral("mxfp4") } << "mxfp4 is a weight-only format; give --precision bf16 --weights mxfp4";
    QTest::addRow("gemm_mxfp4_under_fp8") << QStringList { QStringLiteral("gemm"), QStringLiteral("--hardware"),
        QStringLiteral("h100-sxm5-80gb"), QStringLiteral("--m"), QStringLiteral("16"), QStringLiteral("--k"),
        QStringLiteral("2880"), QStringLiteral("--n"), QStringLiteral("5760"), QStringLiteral("--weights"),
        QStringLiteral("mxfp4"), QStringLiteral("--precision"), QStringLiteral("fp8") }
                                          << "--weights mxfp4 with --precision fp8: weight-only formats are multiplied";
    QTest::addRow("validate_negative_threads") << QStringList { QStringLiteral("validate"), QStringLiteral("--threads"),
        QStringLiteral("-2") } << "--threads takes a number of threads";
}

void TstCli::usageErrors()
{
    QFETCH(QStringList, arguments);
    QFETCH(QString, expected);
    const Result result = runRapid(arguments);
    QCOMPARE(result.exitCode, 1); // an option, its value or the command: an input error, naming it
    QVERIFY2(result.err.contains(expected), qPrintable(result.err));
}

void TstCli::everyCommandHasHelp_data()
{
    QTest::addColumn<QString>("command");
    for (const char* command :
        { "model-info", "import-hf", "run", "presets", "sweep", "serve", "goodput", "resilience" }) {
        QTest::addRow("%s", command) << QString::fromLatin1(command);
    }
}

void TstCli::everyCommandHasHelp()
{
    QFETCH(QString, command);
    const Result result = runRapid({ command, QStringLiteral("--help") });
    QCOMPARE(result.exitCode, 0);
    QVERIFY(result.out.startsWith(QStringLiteral("usage: rapid ") + command));
}

void TstCli::importHfWritesALoadableModel()
{
    QTemporaryDir dir;
    const std::string json = rapid::test::writeFile(dir, "config.json",
        R"({"model_type": "mistral", "hidden_size": 4096, "intermediate_size": 14336, "num_attention_heads": 32,
            "num_hidden_layers": 32, "num_key_value_heads": 8, "vocab_size": 32000, "max_position_embeddings": 32768,
            "hidden_act": "silu", "tie_word_embeddings": false})");
    const QString output = dir.filePath(QStringLiteral("mistral.yaml"));
    const Result result = runRapid({ QStringLiteral("import-hf"), QString::fromStdString(json), QStringLiteral("-o"),
        output, QStringLiteral("--name"), QStringLiteral("Mistral-7B") });
    QCOMPARE(result.exitCode, 0);
    const Result info = runRapid({ QStringLiteral("model-info"), QStringLiteral("--model"), output });
    QCOMPARE(info.exitCode, 0);
    // Mistral-7B: 32 layers of (attention 4096*4096*2 + 4096*1024*2 = 41,943,040; MLP 3*4096*14336 = 176,160,768;
    // norms 8,192) = 7,000,817,664 + embeddings and head 2*32000*4096 = 262,144,000 + final norm 4,096
    // = 7,241,732,096 (the published 7.24B).
    QVERIFY2(info.out.contains(QStringLiteral("(7241732096)")), qPrintable(info.out));
}

void TstCli::chakraExportReadsBackWithoutDefects()
{
    // A 2-stage pipeline of Llama-2-7B on 2 GPUs, 4 micro-batches: one trace per stage; every send must find its
    // receive on the other rank, so the inspection reports no error.
    QTemporaryDir dir;
    const QString traces = dir.filePath(QStringLiteral("traces"));
    const Result run = runRapid(
        { QStringLiteral("run"), QStringLiteral("--model"), QStringLiteral("llama-2-7b"), QStringLiteral("--hardware"),
            QStringLiteral("hgx-a100-8gpu"), QStringLiteral("--run"), QStringLiteral("llama-2-7b-train-4xa100"),
            QStringLiteral("--set"), QStringLiteral("hardware.cluster.network[0].size=2"), QStringLiteral("--set"),
            QStringLiteral("hardware.cluster.gpus_per_node=2"), QStringLiteral("--set"),
            QStringLiteral("run.parallelism.pp=2"), QStringLiteral("--set"), QStringLiteral("run.parallelism.dp=1"),
            QStringLiteral("--set"), QStringLiteral("run.training.global_batch=4"), QStringLiteral("--chakra-out"),
            traces });
    QCOMPARE(run.exitCode, 0);
    QVERIFY2(run.out.contains(QStringLiteral("wrote 2 trace file(s)")), qPrintable(run.out));
    QVERIFY(QFile::exists(traces + QStringLiteral("/rapid.0.et")));
    QVERIFY(QFile::exists(traces + QStringLiteral("/rapid.1.et")));
    const Result inspect = runRapid({ QStringLiteral("chakra"), QStringLiteral("inspect"), traces });
    QCOMPARE(inspect.exitCode, 0);
    QVERIFY2(inspect.out.contains(QStringLiteral("2 ranks")) && inspect.out.contains(QStringLiteral(" 0 errors")),
        qPrintable(inspect.out.left(400)));
}

void TstCli::chakraExportPerRankReplaysToTheSameStep()
{
    // Llama-2-7B on 8 GPUs as TP 2 x PP 2 x DP 2: one trace per rank (8) and 8 communicators: 4 data-parallel (one
    // per stage and tensor rank) and 4 tensor-parallel (one per stage and data-parallel rank). Replayed on the same
    // hardware, the traces give the step time `rapid run` predicted, up to the integer microseconds of Chakra durations
    // (about 40 nodes on the critical path: < 0.1 ms).
    QTemporaryDir dir;
    const QString traces = dir.filePath(QStringLiteral("traces"));
    const QStringList scenario = { QStringLiteral("--model"), QStringLiteral("llama-2-7b"),
        QStringLiteral("--hardware"), QStringLiteral("hgx-a100-8gpu"), QStringLiteral("--run"),
        QStringLiteral("llama-2-7b-train-4xa100"), QStringLiteral("--set"), QStringLiteral("run.framework=megatron"),
        QStringLiteral("--set"), QStringLiteral("run.parallelism.tp=2"), QStringLiteral("--set"),
        QStringLiteral("run.parallelism.pp=2"), QStringLiteral("--set"), QStringLiteral("run.parallelism.dp=2"),
        QStringLiteral("--set"), QStringLiteral("run.training.global_batch=16") };
    const Result run = runRapid(QStringList { QStringLiteral("run") } + scenario
        + QStringList { QStringLiteral("--chakra-out"), traces, QStringLiteral("--json"), QStringLiteral("-") });
    QCOMPARE(run.exitCode, 0);
    QVERIFY2(run.out.contains(QStringLiteral("wrote 8 trace file(s)")), qPrintable(run.out));
    QVERIFY2(run.out.contains(QStringLiteral("comm_groups.json (8 groups)")), qPrintable(run.out));
    const Result inspect = runRapid({ QStringLiteral("chakra"), QStringLiteral("inspect"), traces });
    QVERIFY2(inspect.out.contains(QStringLiteral("8 ranks")) && inspect.out.contains(QStringLiteral(" 0 errors")),
        qPrintable(inspect.out.left(600)));
    // The library the run's collectives took is recorded in every file's metadata, and inspect shows it.
    QVERIFY2(inspect.out.contains(QStringLiteral("version 0.0.4  rapid_collectives \"nccl\"")),
        qPrintable(inspect.out.left(600)));
    // The training run's collectives are NCCL's (run.parallelism.collectives defaults to nccl for training): the
    // replay takes the same library.
    const Result replay = runRapid({ QStringLiteral("chakra"), QStringLiteral("simulate"), traces,
        QStringLiteral("--hardware"), QStringLiteral("hgx-a100-8gpu"), QStringLiteral("--collectives"),
        QStringLiteral("nccl"), QStringLiteral("--json"), QStringLiteral("-") });
    QCOMPARE(replay.exitCode, 0);
    const double predicted = jsonNumber(run.out, QStringLiteral("step_time_s"));
    const double replayed = jsonNumber(replay.out, QStringLiteral("makespan_s"));
    QVERIFY2(predicted > 0 && std::abs(replayed - predicted) < 1e-4,
        qPrintable(QStringLiteral("run %1 s, replay %2 s").arg(predicted).arg(replayed)));
    // Operator detail: every pass becomes a chain of named operators whose durations add up to it.
    const QString detailed = dir.filePath(QStringLiteral("operators"));
    const Result operators = runRapid(QStringList { QStringLiteral("run") } + scenario
        + QStringList {
            QStringLiteral("--chakra-out"), detailed, QStringLiteral("--chakra-detail"), QStringLiteral("operator") });
    QCOMPARE(operators.exitCode, 0);
    const Result dot
        = runRapid({ QStringLiteral("chakra"), QStringLiteral("dot"), detailed + QStringLiteral("/rapid.0.et") });
    QVERIFY2(dot.out.contains(QStringLiteral("stage 0 forward micro-batch 0 layer 0 attention.qkv_projection")),
        qPrintable(dot.out.left(600)));
    // Without --collectives the replay takes the library the traces record (rapid writes it in their metadata).
    const Result detailedReplay = runRapid({ QStringLiteral("chakra"), QStringLiteral("simulate"), detailed,
        QStringLiteral("--hardware"), QStringLiteral("hgx-a100-8gpu"), QStringLiteral("--json"), QStringLiteral("-") });
    QVERIFY2(detailedReplay.out.contains(QStringLiteral("reductions and gathers run by nccl (recorded in the traces)")),
        qPrintable(detailedReplay.out.left(600)));
    const double replayedDetailed = jsonNumber(detailedReplay.out, QStringLiteral("makespan_s"));
    QVERIFY2(std::abs(replayedDetailed - predicted) < 1e-4,
        qPrintable(QStringLiteral("run %1 s, operator-level replay %2 s").arg(predicted).arg(replayedDetailed)));
}

void TstCli::chakraRanksWritesASubsetWithCompleteGroups()
{
    // tp 2 x pp 2 x dp 2 on 8 GPUs, only ranks 0-2 and 5 written: 4 files, the other ranks listed as ranges, and
    // comm_groups.json still has all 8 communicators (4 dp, 4 tp). A rank outside the job is an input error naming
    // the option, before anything is written.
    QTemporaryDir dir;
    const QStringList scenario
        = { QStringLiteral("--model"), QStringLiteral("llama-2-7b"), QStringLiteral("--hardware"),
              QStringLiteral("hgx-a100-8gpu"), QStringLiteral("--run"), QStringLiteral("llama-2-7b-train-4xa100"),
              QStringLiteral("--set"), QStringLiteral("run.parallelism.tp=2"), QStringLiteral("--set"),
              QStringLiteral("run.parallelism.pp=2"), QStringLiteral("--set"), QStringLiteral("run.parallelism.dp=2") };
    const QString traces = dir.filePath(QStringLiteral("subset"));
    const Result run = runRapid(QStringList { QStringLiteral("run") } + scenario
        + QStringList {
            QStringLiteral("--chakra-out"), traces, QStringLiteral("--chakra-ranks"), QStringLiteral("5,0-2") });
    QCOMPARE(run.exitCode, 0);
    QVERIFY2(run.out.contains(QStringLiteral("wrote 4 trace file(s)"))
            && run.out.contains(QStringLiteral("comm_groups.json (8 groups)"))
            && run.out.contains(QStringLiteral("ranks not written (--chakra-ranks): 3-4,6-7")),
        qPrintable(run.out));
    const QStringList files = QDir(traces).entryList(QDir::Files, QDir::Name);
    QCOMPARE(files,
        (QStringList { QStringLiteral("comm_groups.json"), QStringLiteral("rapid.0.et"), QStringLiteral("rapid.1.et"),
            QStringLiteral("rapid.2.et"), QStringLiteral("rapid.5.et") }));

    const QString outside = dir.filePath(QStringLiteral("outside"));
    const Result wrong = runRapid(QStringList { QStringLiteral("run") } + scenario
        + QStringList {
            QStringLiteral("--chakra-out"), outside, QStringLiteral("--chakra-ranks"), QStringLiteral("8") });
    QCOMPARE(wrong.exitCode, 1);
    QVERIFY2(wrong.err.contains(QStringLiteral("--chakra-ranks: rank 8 is outside the job's ranks 0..7")),
        qPrintable(wrong.err));
    QVERIFY(!QFileInfo::exists(outside));
    const Result syntax = runRapid(QStringList { QStringLiteral("run") } + scenario
        + QStringList {
            QStringLiteral("--chakra-out"), outside, QStringLiteral("--chakra-ranks"), QStringLiteral("3-1") });
    QCOMPARE(syntax.exitCode, 1);
    QVERIFY(syntax.err.contains(QStringLiteral("--chakra-ranks")));
}

void TstCli::collectiveMicrobenchmarkIsByteIdenticalToAstraSims()
{
    // ../shared/chakra-samples/microbench-allreduce-8npus was written by ASTRA-sim's microbenchmark generator: our
    // export of the same collective (8 ranks, 1 MiB all-reduce) must be the same bytes, rank by rank.
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("mb"));
    const Result result = runRapid({ QStringLiteral("collective"), QStringLiteral("--hardware"),
        QStringLiteral("hgx-a100-8gpu"), QStringLiteral("--op"), QStringLiteral("allreduce"), QStringLiteral("--bytes"),
        QStringLiteral("1MiB"), QStringLiteral("--chakra-out"), out });
    QCOMPARE(result.exitCode, 0);
    for (int rank = 0; rank < 8; ++rank) {
        const QString name = QStringLiteral("/all_reduce.%1.et").arg(rank);
        QFile ours(out + name);
        QFile theirs(
            QStringLiteral(RAPID_SHARED_DIR) + QStringLiteral("/chakra-samples/microbench-allreduce-8npus") + name);
        QVERIFY(ours.open(QIODevice::ReadOnly) && theirs.open(QIODevice::ReadOnly));
        QCOMPARE(ours.readAll(), theirs.readAll());
    }
}

void TstCli::collectiveOnAFailedLinkSaysWhatTheAnalyticalFigureLeavesOut()
{
    // One failed x link on a 4x4 torus (100 GB/s): the analytical backend routes around it without charging the
    // detour to the rows it crosses, and says so; the congestion backend charges it and prints no such note. Its
    // 256 MiB all-reduce takes longer than the healthy pipelined bound of 2 x 3/4 x 256 MiB / 100 GB/s = 4.03 ms.
    const QString hardware
        = QStringLiteral(RAPID_SOURCE_CONFIG_DIR) + QStringLiteral("/../tests/ns3/cases/torus4x4-failed.yaml");
    const QStringList common { QStringLiteral("collective"), QStringLiteral("--hardware"), hardware,
        QStringLiteral("--op"), QStringLiteral("allreduce"), QStringLiteral("--bytes"), QStringLiteral("256MiB"),
        QStringLiteral("--json"), QStringLiteral("-") };
    const Result analytical = runRapid(common);
    QCOMPARE(analytical.exitCode, 0);
    QVERIFY2(analytical.out.contains(QStringLiteral("does not charge the detour traffic")), qPrintable(analytical.out));
    const Result congestion
        = runRapid(common + QStringList { QStringLiteral("--backend"), QStringLiteral("congestion") });
    QCOMPARE(congestion.exitCode, 0);
    QVERIFY(!congestion.out.contains(QStringLiteral("detour")));
    const double bound = 2 * 0.75 * 256 * 1048576.0 / 100e9;
    QVERIFY2(jsonNumber(congestion.out, QStringLiteral("time_s")) > bound * 1.1, qPrintable(congestion.out));
}

void TstCli::collectiveMicrobenchmarkOfASubgroupHasATraceForEveryRank()
{
    // ASTRA-sim opens <prefix>.<r>.et for every NPU of its network: an all-reduce of GPUs 0-3 on the 8-GPU node writes
    // 8 files, ranks 4-7 idle (one zero-length compute node). Replayed, the members take the closed-form time the
    // command prints and the idle ranks finish at once.
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("group"));
    const Result result
        = runRapid({ QStringLiteral("collective"), QStringLiteral("--hardware"), QStringLiteral("hgx-a100-8gpu"),
            QStringLiteral("--op"), QStringLiteral("allreduce"), QStringLiteral("--bytes"), QStringLiteral("1MiB"),
            QStringLiteral("--ranks"), QStringLiteral("0-3"), QStringLiteral("--chakra-out"), out });
    QVERIFY2(result.exitCode == 0, qPrintable(result.err));
    for (int rank = 0; rank < 8; ++rank) {
        QVERIFY(QFile::exists(out + QStringLiteral("/all_reduce.%1.et").arg(rank)));
    }
    const Result inspect = runRapid({ QStringLiteral("chakra"), QStringLiteral("inspect"), out });
    QVERIFY2(inspect.out.contains(QStringLiteral("no defects")), qPrintable(inspect.out));
    const Result replay = runRapid({ QStringLiteral("chakra"), QStringLiteral("simulate"), out,
        QStringLiteral("--hardware"), QStringLiteral("hgx-a100-8gpu") });
    QVERIFY2(replay.exitCode == 0, qPrintable(replay.err));
    QVERIFY2(replay.out.contains(QStringLiteral("8 ranks")), qPrintable(replay.out));
    // Written as ASTRA-sim's generator writes them, the traces record no library: the replay says it took the default.
    QVERIFY2(
        replay.out.contains(QStringLiteral("run by custom (default; the traces record none and name no NCCL kernel)")),
        qPrintable(replay.out));
}

void TstCli::inferenceExportReplaysToTheRequestLatency()
{
    // Llama-3.1-8B serving 8 sequences (prompt 1500, 64 output tokens) on 8 GPUs as TP 2 x PP 2 x DP 2: one trace per
    // rank of the prefill and 63 decode steps (every step has the same nodes; more steps only lengthen the run, which
    // matters under the sanitizers). Replayed, the request takes the predicted end-to-end latency plus the token
    // hand-back between steps that the closed form leaves out: 63 messages of 32 bytes, each about the 6.6 us launch
    // plus two NVSwitch hops (0.6 us) and 32 B / 300 GB/s, so 0.46 ms at most (allow 20 us each).
    QTemporaryDir dir;
    const QString traces = dir.filePath(QStringLiteral("inference"));
    const Result run = runRapid({ QStringLiteral("run"), QStringLiteral("--model"), QStringLiteral("llama-3.1-8b"),
        QStringLiteral("--hardware"), QStringLiteral("hgx-a100-8gpu"), QStringLiteral("--run"),
        QStringLiteral("llama-3.1-8b-decode-1gpu"), QStringLiteral("--set"), QStringLiteral("run.parallelism.pp=2"),
        QStringLiteral("--set"), QStringLiteral("run.parallelism.tp=2"), QStringLiteral("--set"),
        QStringLiteral("run.parallelism.dp=2"), QStringLiteral("--set"),
        QStringLiteral("run.inference.decode_length=64"), QStringLiteral("--chakra-out"), traces,
        QStringLiteral("--json"), QStringLiteral("-") });
    QCOMPARE(run.exitCode, 0);
    QVERIFY2(run.out.contains(QStringLiteral("wrote 8 trace file(s)")), qPrintable(run.out));
    const Result replay = runRapid({ QStringLiteral("chakra"), QStringLiteral("simulate"), traces,
        QStringLiteral("--hardware"), QStringLiteral("hgx-a100-8gpu"), QStringLiteral("--json"), QStringLiteral("-") });
    QCOMPARE(replay.exitCode, 0);
    const double predicted = jsonNumber(run.out, QStringLiteral("e2e_s"));
    const double replayed = jsonNumber(replay.out, QStringLiteral("makespan_s"));
    QVERIFY2(predicted > 0 && replayed >= predicted - 1e-4 && replayed <= predicted + 63 * 20e-6,
        qPrintable(QStringLiteral("e2e %1 s, replay %2 s").arg(predicted).arg(replayed)));
}

void TstCli::sweepWritesEveryPointAndRanksTheFeasibleOnes()
{
    // 8 GPUs split over tp and dp (4 splits: 1x8, 2x4, 4x2, 8x1) x 2 batch sizes = 8 points of Llama-3.3-70B serving.
    QTemporaryDir dir;
    const QString csv = dir.filePath(QStringLiteral("sweep.csv"));
    const Result result
        = runRapid({ QStringLiteral("sweep"), QStringLiteral("--model"), QStringLiteral("llama-3.3-70b"),
            QStringLiteral("--hardware"), QStringLiteral("hgx-a100-8gpu"), QStringLiteral("--run"),
            QStringLiteral("llama-3.3-70b-serve-8xa100"), QStringLiteral("--splits"), QStringLiteral("tp,dp"),
            QStringLiteral("--vary"), QStringLiteral("run.inference.batch=1,8"), QStringLiteral("--csv"), csv });
    QVERIFY2(result.exitCode == 0, qPrintable(result.err));
    QVERIFY2(result.out.contains(QStringLiteral("8 points over 2 axes")), qPrintable(result.out));
    QFile file(csv);
    QVERIFY(file.open(QIODevice::ReadOnly | QIODevice::Text));
    const QStringList lines = QString::fromUtf8(file.readAll()).trimmed().split(QLatin1Char('\n'));
    QCOMPARE(lines.size(), 9);
    QVERIFY(lines[0].startsWith(QStringLiteral("index,split,run.inference.batch,status,step_time_s,ttft_s")));
    // 70B in bf16 is 141 GB of weights: tp1 (all of it on one 80 GB GPU) cannot fit; tp8 always fits.
    QVERIFY2(lines[1].contains(QStringLiteral("\"tp1 dp8\",\"1\",does-not-fit")), qPrintable(lines[1]));
    QVERIFY2(lines[7].contains(QStringLiteral("\"tp8 dp1\",\"1\",ok")), qPrintable(lines[7]));
    // The tp8 batch-1 point predicts what rapid run predicts for it.
    const Result single = runRapid({ QStringLiteral("run"), QStringLiteral("--model"), QStringLiteral("llama-3.3-70b"),
        QStringLiteral("--hardware"), QStringLiteral("hgx-a100-8gpu"), QStringLiteral("--run"),
        QStringLiteral("llama-3.3-70b-serve-8xa100"), QStringLiteral("--set"), QStringLiteral("run.parallelism.tp=8"),
        QStringLiteral("--set"), QStringLiteral("run.parallelism.dp=1"), QStringLiteral("--set"),
        QStringLiteral("run.inference.batch=1"), QStringLiteral("--json"), QStringLiteral("-") });
    QCOMPARE(single.exitCode, 0);
    const double e2e = jsonNumber(single.out, QStringLiteral("e2e_s"));
    QVERIFY(e2e > 0);
    const double swept = lines[7].section(QLatin1Char(','), 7, 7).toDouble();
    QVERIFY2(std::abs(swept / e2e - 1) < 1e-6, qPrintable(QStringLiteral("%1 vs %2").arg(swept).arg(e2e)));
}

namespace {

/// The rows `| `key` | type | ... |` of one table of docs/json-output.md, as (dotted key, type).
QList<QPair<QString, QString>> documentedKeys(const QString& table)
{
    QList<QPair<QString, QString>> keys;
    for (const QString& line : table.split(QLatin1Char('\n'))) {
        if (line.startsWith(QStringLiteral("| `"))) {
            keys.append({ line.section(QLatin1Char('`'), 1, 1), line.section(QLatin1Char('|'), 2, 2).trimmed() });
        }
    }
    return keys;
}

/// Checks that @p document has every documented key of @p keys with its documented JSON type.
void checkSchema(const QJsonObject& document, const QList<QPair<QString, QString>>& keys, const QString& what)
{
    for (const auto& [path, type] : keys) {
        QJsonValue value = document;
        for (const QString& part : path.split(QLatin1Char('.'))) {
            value = value.toObject().value(part);
        }
        const QString where = what + QStringLiteral(": ") + path;
        QVERIFY2(!value.isUndefined(), qPrintable(where + QStringLiteral(" missing")));
        const bool typed = type == QStringLiteral("string") ? value.isString()
            : type == QStringLiteral("number")              ? value.isDouble()
            : type == QStringLiteral("integer") ? value.isDouble() && value.toDouble() == std::floor(value.toDouble())
            : type == QStringLiteral("boolean") ? value.isBool()
            : type == QStringLiteral("array")   ? value.isArray()
            : type == QStringLiteral("object")  ? value.isObject()
                                                : false;
        QVERIFY2(typed, qPrintable(where + QStringLiteral(" is not a ") + type));
    }
}

} // namespace

void TstCli::runJsonFollowsTheDocumentedSchema()
{
    // docs/json-output.md lists the keys of `rapid run --json` with their JSON types: the general table, then the
    // training and the inference tables. Every run preset's output (parsed as JSON) has each of them with that type,
    // and values that can be derived without the model agree: gpus = the product of the axes' degrees, fits = peak <=
    // capacity, the breakdown adds up to the step time (as documented), 0 < MFU <= 1.
    QFile doc(QStringLiteral(RAPID_SOURCE_CONFIG_DIR "/../docs/json-output.md"));
    QVERIFY(doc.open(QIODevice::ReadOnly | QIODevice::Text));
    const QString text = QString::fromUtf8(doc.readAll());
    const QString runSection = text.section(QStringLiteral("## `rapid sweep --json`"), 0, 0);
    const QStringList parts = runSection.split(QStringLiteral("Training runs add:"));
    QCOMPARE(parts.size(), 2);
    const QStringList modes = parts[1].split(QStringLiteral("Inference runs add:"));
    QCOMPARE(modes.size(), 2);
    QList<QPair<QString, QString>> general = documentedKeys(parts[0]);
    QList<QPair<QString, QString>> training = documentedKeys(modes[0]);
    QList<QPair<QString, QString>> inference = documentedKeys(modes[1]);
    QVERIFY(general.size() >= 9 && training.size() >= 5 && inference.size() >= 4);
    // energy needs the GPU's power figures, links the congestion backend: checked where they apply below.
    general.removeIf([](const auto& key) { return key.first == QStringLiteral("energy"); });
    // Present only where they apply (links: congestion; the straggler and fault keys: with those set): checked below.
    const QStringList conditional
        = { QStringLiteral("links"), QStringLiteral("limiting_stragglers"), QStringLiteral("fault_limited_groups") };
    QList<QPair<QString, QString>> conditionalTraining = training;
    conditionalTraining.removeIf([&](const auto& key) { return !conditional.contains(key.first); });
    training.removeIf([&](const auto& key) { return conditional.contains(key.first); });
    inference.removeIf([&](const auto& key) { return conditional.contains(key.first); });

    const QList<QStringList> runs = {
        { QStringLiteral("run") },
        { QStringLiteral("run"), QStringLiteral("--backend"), QStringLiteral("congestion") },
        { QStringLiteral("run"), QStringLiteral("--set"),
            QStringLiteral("hardware.faults=[{link: \"nvlink@1:1-s1.0\", health: 0.5}]"), QStringLiteral("--set"),
            QStringLiteral("hardware.stragglers=[{gpu: 9, slowdown: 1.2}]") },
        { QStringLiteral("run"), QStringLiteral("--model"), QStringLiteral("gpt-3-175b"), QStringLiteral("--hardware"),
            QStringLiteral("dgx-a100"), QStringLiteral("--run"), QStringLiteral("gpt-3-175b-train-1024"),
            QStringLiteral("--set"), QStringLiteral("hardware.cluster.network[ib].size=128") },
        { QStringLiteral("run"), QStringLiteral("--model"), QStringLiteral("llama-3.1-70b"),
            QStringLiteral("--hardware"), QStringLiteral("dgx-h100-superpod"), QStringLiteral("--run"),
            QStringLiteral("llama-3.1-70b-train-64") },
        { QStringLiteral("run"), QStringLiteral("--model"), QStringLiteral("llama-3.1-8b"),
            QStringLiteral("--hardware"), QStringLiteral("a100-sxm4-80gb"), QStringLiteral("--run"),
            QStringLiteral("llama-3.1-8b-decode-1gpu") },
        { QStringLiteral("run"), QStringLiteral("--model"), QStringLiteral("llama-3.3-70b"),
            QStringLiteral("--hardware"), QStringLiteral("hgx-a100-8gpu"), QStringLiteral("--run"),
            QStringLiteral("llama-3.3-70b-serve-8xa100") },
    };
    for (const QStringList& arguments : runs) {
        const Result run = runRapid(arguments + QStringList { QStringLiteral("--json"), QStringLiteral("-") });
        const QString what = arguments.join(QLatin1Char(' '));
        QVERIFY2(run.exitCode == 0, qPrintable(what + QStringLiteral("\n") + run.err));
        QJsonParseError error {};
        const QJsonObject json
            = QJsonDocument::fromJson(run.out.mid(run.out.indexOf(QStringLiteral("\n{")) + 1).toUtf8(), &error)
                  .object();
        QVERIFY2(
            error.error == QJsonParseError::NoError, qPrintable(what + QStringLiteral(": ") + error.errorString()));
        checkSchema(json, general, what);
        double gpus = 1;
        for (const QJsonValue& axis : json.value(QStringLiteral("placement")).toArray()) {
            gpus *= axis.toObject().value(QStringLiteral("degree")).toDouble();
        }
        QCOMPARE(json.value(QStringLiteral("gpus")).toDouble(), gpus);
        const QJsonObject memory = json.value(QStringLiteral("memory")).toObject();
        QCOMPARE(memory.value(QStringLiteral("fits")).toBool(),
            memory.value(QStringLiteral("peak_bytes")).toDouble()
                <= memory.value(QStringLiteral("capacity_bytes")).toDouble());
        if (json.contains(QStringLiteral("step_time_s"))) {
            checkSchema(json, training, what);
            double sum = 0;
            for (const QJsonValue& seconds : json.value(QStringLiteral("breakdown_s")).toObject()) {
                sum += seconds.toDouble();
            }
            const double step = json.value(QStringLiteral("step_time_s")).toDouble();
            QVERIFY2(std::abs(sum / step - 1) < 1e-9, qPrintable(what));
            const double mfu = json.value(QStringLiteral("mfu")).toDouble();
            QVERIFY2(mfu > 0 && mfu <= 1, qPrintable(what));
            QCOMPARE(json.contains(QStringLiteral("links")), arguments.contains(QStringLiteral("congestion")));
            QCOMPARE(json.contains(QStringLiteral("fault_limited_groups")), what.contains(QStringLiteral("faults")));
            QCOMPARE(json.contains(QStringLiteral("limiting_stragglers")), what.contains(QStringLiteral("stragglers")));
            QList<QPair<QString, QString>> present = conditionalTraining;
            present.removeIf([&](const auto& key) { return !json.contains(key.first); });
            checkSchema(json, present, what);
        } else {
            checkSchema(json, inference, what);
            QCOMPARE(json.contains(QStringLiteral("limiting_stragglers")), what.contains(QStringLiteral("stragglers")));
        }
    }
}

void TstCli::collectivePacketBackendMatchesTheClosedForm()
{
    // Ring all-reduce of 40,000 bytes on an idle 4-GPU ring (100 GB/s = 100 B/ns, 1 us per hop), 1,000-byte packets:
    // 2(p-1) = 6 steps of a 10,000-byte chunk (10 packets, one hop): 6 x (100 ns + 1,000 ns) = 6.6 us, plus the
    // collective launch charged once (6.6 us, kCollectiveLaunchSeconds).
    QTemporaryDir dir;
    const std::string hardware = rapid::test::writeFile(dir, "ring4.yaml",
        "hardware:\n  name: ring of 4\n  gpu: A100-SXM4-80GB\n  cluster:\n    gpus_per_node: 1\n    network:\n"
        "      - {name: ring, kind: ring, size: 4, link_bandwidth_GBps: 100, latency_ns: 1000}\n");
    const Result result = runRapid({ QStringLiteral("collective"), QStringLiteral("--hardware"),
        QString::fromStdString(hardware), QStringLiteral("--op"), QStringLiteral("allreduce"),
        QStringLiteral("--bytes"), QStringLiteral("40000B"), QStringLiteral("--algorithm"), QStringLiteral("ring"),
        QStringLiteral("--backend"), QStringLiteral("packet"), QStringLiteral("--packet-bytes"),
        QStringLiteral("1000B"), QStringLiteral("--json"), QStringLiteral("-") });
    QCOMPARE(result.exitCode, 0);
    QVERIFY2(result.out.contains(QStringLiteral(" flows, 240 packets, ")), qPrintable(result.out));
    const QString json = result.out.mid(result.out.indexOf(QLatin1Char('{')));
    const QJsonObject object = QJsonDocument::fromJson(json.toUtf8()).object();
    QCOMPARE(object.value(QStringLiteral("backend")).toString(), QStringLiteral("packet"));
    QVERIFY2(std::abs(object.value(QStringLiteral("time_s")).toDouble() - 13.2e-6) < 1e-12, qPrintable(json));
    QCOMPARE(object.value(QStringLiteral("packets")).toInt(), 4 * 6 * 10);
}

void TstCli::collectiveOnNcclPaysItsRingSteps()
{
    // An 8 KiB all-reduce over the 8 GPUs of the HGX A100 switch (300 GB/s x 0.775 = 232.5 GB/s, 600 ns
    // GPU-switch-GPU, NCCL's measured step 1.41 us), plus the launch (6.6 us): NCCL's ring 14 x (1,024 B / B +
    // 1.41 us) = 19.8 us, a custom kernel's one-shot exchange 2 x (7,168 B / B + 600 ns) = 1.26 us. The NCCL figure,
    // 26.4 us, is within 6% of the measurement the preset's step comes from (Vidur's NCCL all-reduce profile of an
    // A100 DGX: 25 us on 8 GPUs at 10 KB, 26 us at 18 KB; configs/hardware/hgx-a100-8gpu.yaml).
    auto seconds = [&](const char* library) {
        const Result result = runRapid({ QStringLiteral("collective"), QStringLiteral("--hardware"),
            QStringLiteral("hgx-a100-8gpu"), QStringLiteral("--op"), QStringLiteral("allreduce"),
            QStringLiteral("--bytes"), QStringLiteral("8KiB"), QStringLiteral("--collectives"),
            QString::fromLatin1(library), QStringLiteral("--json"), QStringLiteral("-") });
        const QString json = result.out.mid(result.out.indexOf(QLatin1Char('{')));
        return QJsonDocument::fromJson(json.toUtf8()).object().value(QStringLiteral("time_s")).toDouble();
    };
    const double bandwidth = 300e9 * 0.775;
    const double nccl = seconds("nccl");
    const double custom = seconds("custom");
    QVERIFY2(std::abs(nccl - (6.6e-6 + 14 * (1024 / bandwidth + 1.41e-6))) < 1e-12, qPrintable(QString::number(nccl)));
    QVERIFY2(
        std::abs(custom - (6.6e-6 + 2 * (7168 / bandwidth + 600e-9))) < 1e-12, qPrintable(QString::number(custom)));
    QVERIFY2(std::abs(nccl / 25e-6 - 1) < 0.06, qPrintable(QString::number(nccl)));
}

QTEST_GUILESS_MAIN(TstCli)
#include "tst_cli.moc"
