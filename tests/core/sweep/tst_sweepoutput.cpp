// SPDX-License-Identifier: GPL-3.0-or-later
// The CSV and JSON of a sweep, written from hand-made rows: header and columns, labels per axis, a long message kept
// whole with its quotes made single, figures only where the point has them.
#include "sweep/sweepoutput.h"

#include <QTest>

#include <sstream>

using namespace rapid;

class TstSweepOutput : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void csvColumnsAndMessages();
    void jsonFiguresOnlyWhereMeasured();
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
    sweep::SweepRow invalid;
    invalid.index = 1;
    invalid.coordinates = { 1 };
    invalid.status = sweep::PointStatus::Invalid;
    invalid.message = "run.parallelism: \"tp\" " + std::string(600, 'x');
    result.rows = { ok, invalid };
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
                    "mfu,joules_per_token,peak_memory_gib,capacity_gib,pareto,message"));
    QCOMPARE(first, std::string("0,\"2\",ok,1.5,0,0,0,1000,125,0.5,2.25,2.0000,80.0000,1,\"\""));
    // The 600-character message is whole, its double quotes turned into single ones.
    QVERIFY(second.rfind("1,\"4\",invalid,", 0) == 0);
    QVERIFY(second.find("\"run.parallelism: 'tp' " + std::string(600, 'x') + "\"") != std::string::npos);
}

void TstSweepOutput::jsonFiguresOnlyWhereMeasured()
{
    std::ostringstream out;
    sweep::writeSweepJson(out, handMade());
    const std::string json = out.str();
    QVERIFY(json.find("\"points\": 2") != std::string::npos);
    QVERIFY(json.find("{\"name\": \"run.parallelism.tp\", \"values\": [\"2\", \"4\"]}") != std::string::npos);
    QVERIFY(json.find("\"step_time_s\": 1.5, \"mfu\": 0.5, \"joules_per_token\": 2.25") != std::string::npos);
    // The invalid point has its status and message, and no figures.
    const std::string invalid = json.substr(json.find("\"index\": 1"));
    QVERIFY(invalid.find("\"status\": \"invalid\"") != std::string::npos);
    QVERIFY(invalid.find("step_time_s") == std::string::npos);
    QVERIFY(invalid.find("\\\"tp\\\"") != std::string::npos); // JSON-escaped quotes
}

QTEST_GUILESS_MAIN(TstSweepOutput)
#include "tst_sweepoutput.moc"
