// SPDX-License-Identifier: GPL-3.0-or-later
// The CSV and JSON of a sweep, written from hand-made rows: header and columns, labels per axis, a long message kept
// whole with its quotes made single, figures only where the point has them, the tails (counts, Pareto front, the
// interrupted line), and a non-finite figure refused before any of its row is written.
#include "report/json.h"
#include "sweep/sweepoutput.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <limits>
#include <sstream>

using namespace rapid;

class TstSweepOutput : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void csvColumnsAndMessages();
    void jsonFiguresOnlyWhereMeasured();
    void interruptedSweepSaysSo();
    void nonFiniteFigureIsRefused();
};

namespace {

sweep::SweepResult handMade()
{
    sweep::SweepResult result;
    result.space = sweep::SweepSpace({ sweep::parseSweepAxis("run.parallelism.tp=2,4") });
    sweep::SweepRow ok;
    ok.index = 0;
    ok.coordinates = { 0 };
    ok.status = sweep::PointStatus::Ok;
    ok.stepTimeSeconds = 1.5;
    ok.tokensPerSecond = 1000;
    ok.tokensPerSecondPerGpu = 125;
    ok.mfu = 0.5;
    ok.joulesPerToken = 2.25;
    ok.peakMemoryBytes = 2.0 * 1024 * 1024 * 1024;
    ok.capacityBytes = 80.0 * 1024 * 1024 * 1024;
    ok.pareto = true;
    result.paretoFront = { ok };
    sweep::SweepRow invalid;
    invalid.index = 1;
    invalid.coordinates = { 1 };
    invalid.status = sweep::PointStatus::Invalid;
    invalid.message = "run.parallelism: \"tp\" " + std::string(600, 'x');
    result.rows = { ok, invalid };
    result.statusCounts = { 1, 1, 0, 0, 0 };
    return result;
}

} // namespace

void TstSweepOutput::csvColumnsAndMessages()
{
    std::ostringstream out;
    sweep::writeSweepCsv(out, handMade());
    std::istringstream lines(out.str());
    std::string header;
    std::string first;
    std::string second;
    std::getline(lines, header);
    std::getline(lines, first);
    std::getline(lines, second);
    QCOMPARE(header,
        std::string("index,run.parallelism.tp,status,step_time_s,ttft_s,itl_s,e2e_s,tokens_per_s,tokens_per_s_per_gpu,"
                    "mfu,joules_per_token,peak_memory_gib,capacity_gib,message"));
    QCOMPARE(first, std::string("0,\"2\",ok,1.5,0,0,0,1000,125,0.5,2.25,2.0000,80.0000,\"\""));
    // The 600-character message is whole, its double quotes turned into single ones.
    QVERIFY(second.rfind("1,\"4\",invalid,", 0) == 0);
    QVERIFY(second.find("\"run.parallelism: 'tp' " + std::string(600, 'x') + "\"") != std::string::npos);
}

void TstSweepOutput::jsonFiguresOnlyWhereMeasured()
{
    std::ostringstream out;
    sweep::writeSweepJson(out, handMade());
    QJsonParseError error {};
    const QJsonObject json = QJsonDocument::fromJson(QByteArray::fromStdString(out.str()), &error).object();
    QCOMPARE(error.error, QJsonParseError::NoError);
    QCOMPARE(json.value(QStringLiteral("points")).toInt(), 2);
    const QJsonObject axis = json.value(QStringLiteral("axes")).toArray().at(0).toObject();
    QCOMPARE(axis.value(QStringLiteral("name")).toString(), QStringLiteral("run.parallelism.tp"));
    QCOMPARE(axis.value(QStringLiteral("values")).toArray(), (QJsonArray { QStringLiteral("2"), QStringLiteral("4") }));
    const QJsonArray rows = json.value(QStringLiteral("rows")).toArray();
    const QJsonObject ok = rows.at(0).toObject();
    QCOMPARE(ok.value(QStringLiteral("step_time_s")).toDouble(), 1.5);
    QCOMPARE(ok.value(QStringLiteral("mfu")).toDouble(), 0.5);
    QCOMPARE(ok.value(QStringLiteral("joules_per_token")).toDouble(), 2.25);
    // The invalid point has its status and message (quotes and all), and no figures.
    const QJsonObject invalid = rows.at(1).toObject();
    QCOMPARE(invalid.value(QStringLiteral("index")).toInt(), 1);
    QCOMPARE(invalid.value(QStringLiteral("status")).toString(), QStringLiteral("invalid"));
    QVERIFY(!invalid.contains(QStringLiteral("step_time_s")));
    QCOMPARE(invalid.value(QStringLiteral("message")).toString(),
        QStringLiteral("run.parallelism: \"tp\" ") + QString(600, QLatin1Char('x')));
    // The tail: no row carries a Pareto flag, the front is a list of indices at the end, with the counts.
    QVERIFY(!ok.contains(QStringLiteral("pareto")));
    QCOMPARE(json.value(QStringLiteral("pareto_front")).toArray(), (QJsonArray { 0 }));
    QCOMPARE(json.value(QStringLiteral("interrupted")).toBool(true), false);
    QCOMPARE(json.value(QStringLiteral("cancelled")).toBool(true), false);
    const QJsonObject counts = json.value(QStringLiteral("counts")).toObject();
    QCOMPARE(counts.value(QStringLiteral("ok")).toInt(), 1);
    QCOMPARE(counts.value(QStringLiteral("invalid")).toInt(), 1);
    QCOMPARE(counts.value(QStringLiteral("not-run")).toInt(), 0);
}

void TstSweepOutput::interruptedSweepSaysSo()
{
    // Two of three points ran: the CSV's last line says so, the JSON is complete with "interrupted": true.
    sweep::SweepResult result = handMade();
    result.space = sweep::SweepSpace({ sweep::parseSweepAxis("run.parallelism.tp=2,4,8") });
    result.cancelled = true;
    result.statusCounts = { 1, 1, 0, 0, 1 };
    std::ostringstream csv;
    sweep::writeSweepCsv(csv, result);
    QVERIFY2(csv.str().ends_with("\"\n# interrupted after 2 of 3 points\n"), csv.str().c_str());
    std::ostringstream json;
    sweep::writeSweepJson(json, result);
    const report::Json parsed = report::Json::parse(json.str());
    QCOMPARE(parsed["interrupted"].get<bool>(), true);
    QCOMPARE(parsed["rows"].size(), size_t(2));
    QCOMPARE(parsed["counts"]["not-run"].get<int>(), 1);
}

void TstSweepOutput::nonFiniteFigureIsRefused()
{
    sweep::SweepResult result = handMade();
    result.rows[0].tokensPerSecond = std::numeric_limits<double>::infinity();
    std::ostringstream out;
    sweep::SweepJsonWriter writer(out, result.space);
    writer.begin();
    const std::string head = out.str();
    QVERIFY_THROWS_EXCEPTION(report::NonFiniteJson, writer.row(result.rows[0]));
    QCOMPARE(out.str(), head); // nothing of the refused row was written
}

QTEST_GUILESS_MAIN(TstSweepOutput)
#include "tst_sweepoutput.moc"
