// SPDX-License-Identifier: GPL-3.0-or-later
// Sweeps that stream their rows instead of keeping them: the sink sees every point once, in index order, with the
// figures the keep-all mode keeps (the streamed CSV and JSON are those of the kept rows); the top rows, the Pareto
// front (kept row by row), the counts and the rejection reasons equal what the kept rows give (markParetoFront), also
// on random rows full of ties; a window of one row still delivers everything; a sink that throws stops the sweep
// and its exception leaves runSweep; a cancelled sweep streams a prefix of the points and says so.
#include "config/workspacefile.h"
#include "report/json.h"
#include "sweep/sweepoutput.h"
#include "sweep/sweeptally.h"
#include "testutils.h"

#include <QTest>

#include <algorithm>
#include <atomic>
#include <memory>
#include <random>
#include <set>
#include <sstream>

using namespace rapid;

class TstSweepStream : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void streamedFilesEqualTheKeptRows();
    void topAndFrontEqualTheKeptRows();
    void tallyFrontEqualsMarkParetoFrontOnRandomRows();
    void smallWindowDeliversEveryRowInOrder();
    void throwingSinkStopsTheSweep();
    void cancelledSweepStreamsAPrefix();

private:
    std::unique_ptr<config::ScenarioTemplate> m_template;
};

namespace {

/// 22 splits of 64 GPUs x 3 recompute modes x 4 micro-batches = 264 points of Llama-3.1-70B training: some fit, some
/// do not, some are invalid.
sweep::SweepSpace space()
{
    return sweep::SweepSpace({ sweep::parallelSplits(64, { "tp", "pp", "dp" }, 8),
        sweep::parseSweepAxis("run.training.recompute=none,selective,full"),
        sweep::parseSweepAxis("run.training.micro_batch=1..8:x2") });
}

std::vector<std::int64_t> indices(const std::vector<sweep::SweepRow>& rows)
{
    std::vector<std::int64_t> result;
    for (const sweep::SweepRow& row : rows) {
        result.push_back(row.index);
    }
    return result;
}

} // namespace

void TstSweepStream::initTestCase()
{
    const config::ConfigLoader loader = test::projectLoader();
    const config::WorkspaceDocuments documents
        = config::readWorkspaceDocuments("llama-3.1-70b-64xh100", loader.library());
    std::vector<std::string> overrides = documents.overrides;
    overrides.push_back("run.parallelism.mapping={}"); // let the placement map every split
    m_template = std::make_unique<config::ScenarioTemplate>(
        loader, documents.model, documents.hardware, documents.run, overrides);
}

void TstSweepStream::streamedFilesEqualTheKeptRows()
{
    const sweep::SweepSpace points = space();
    const sweep::ScenarioFactory factory = [&](const auto& overrides) { return m_template->load(overrides); };
    sweep::SweepOptions keep;
    keep.threads = 2;
    const sweep::SweepResult kept = sweep::runSweep(points, factory, keep);

    std::ostringstream csv;
    std::ostringstream json;
    sweep::SweepCsvWriter csvWriter(csv, points);
    sweep::SweepJsonWriter jsonWriter(json, points);
    csvWriter.header();
    jsonWriter.begin();
    std::vector<std::int64_t> order;
    sweep::SweepOptions stream = keep;
    stream.keepRows = false;
    stream.rowSink = [&](const sweep::SweepRow& row) {
        order.push_back(row.index);
        csvWriter.row(row);
        jsonWriter.row(row);
    };
    const sweep::SweepResult streamed = sweep::runSweep(points, factory, stream);
    csvWriter.finish(streamed);
    jsonWriter.finish(streamed);

    QVERIFY(streamed.rows.empty());
    QCOMPARE(order.size(), size_t(points.size()));
    for (size_t i = 0; i < order.size(); ++i) {
        QCOMPARE(order[i], std::int64_t(i));
    }
    // The CSV is byte for byte the kept rows' (no Pareto column, no interrupted line).
    std::ostringstream keptCsv;
    sweep::writeSweepCsv(keptCsv, kept);
    QCOMPARE(csv.str(), keptCsv.str());
    // The JSON parses and holds the same rows, counts and front; only the wall time differs.
    std::ostringstream keptJson;
    sweep::writeSweepJson(keptJson, kept);
    report::Json a = report::Json::parse(json.str());
    report::Json b = report::Json::parse(keptJson.str());
    QCOMPARE(a["rows"].size(), size_t(points.size()));
    QVERIFY(a["seconds"].get<double>() > 0);
    a.erase("seconds");
    b.erase("seconds");
    QCOMPARE(a.dump(), b.dump());
    QCOMPARE(a["interrupted"].get<bool>(), false);
    QVERIFY(a["pareto_front"].size() >= 2);
}

void TstSweepStream::topAndFrontEqualTheKeptRows()
{
    const sweep::SweepSpace points = space();
    const sweep::ScenarioFactory factory = [&](const auto& overrides) { return m_template->load(overrides); };
    sweep::SweepOptions keep;
    keep.threads = 2;
    const sweep::SweepResult kept = sweep::runSweep(points, factory, keep);
    sweep::SweepOptions stream = keep;
    stream.keepRows = false;
    stream.keepTop = 15;
    const sweep::SweepResult streamed = sweep::runSweep(points, factory, stream);

    // Reference: the kept rows ranked as `rapid sweep` always ranked them, and the flags of markParetoFront.
    std::vector<sweep::SweepRow> ranked;
    std::vector<std::int64_t> front;
    for (const sweep::SweepRow& row : kept.rows) {
        if (row.status == sweep::PointStatus::Ok) {
            ranked.push_back(row);
        }
        if (row.pareto) {
            front.push_back(row.index);
        }
    }
    std::stable_sort(ranked.begin(), ranked.end(), [](const sweep::SweepRow& a, const sweep::SweepRow& b) {
        return a.tokensPerSecondPerGpu > b.tokensPerSecondPerGpu;
    });
    QVERIFY2(ranked.size() > 15 && front.size() >= 2,
        qPrintable(QStringLiteral("%1 ok, front %2").arg(ranked.size()).arg(front.size())));
    ranked.resize(15);
    QCOMPARE(indices(streamed.top), indices(ranked));
    for (const sweep::SweepRow& row : streamed.top) {
        QCOMPARE(row.pareto, kept.rows[static_cast<size_t>(row.index)].pareto);
        QCOMPARE(row.stepTimeSeconds, kept.rows[static_cast<size_t>(row.index)].stepTimeSeconds);
    }
    std::vector<std::int64_t> streamedFront = indices(streamed.paretoFront);
    std::sort(streamedFront.begin(), streamedFront.end());
    QCOMPARE(streamedFront, front);
    QCOMPARE(indices(kept.paretoFront), indices(streamed.paretoFront));
    for (size_t i = 1; i < streamed.paretoFront.size(); ++i) { // best throughput first
        QVERIFY(streamed.paretoFront[i - 1].tokensPerSecondPerGpu > streamed.paretoFront[i].tokensPerSecondPerGpu);
    }
    // Counts and the first distinct rejection reasons, as the kept rows give them.
    std::set<std::string> messages;
    std::vector<std::int64_t> rejections;
    for (const sweep::SweepRow& row : kept.rows) {
        QVERIFY(row.status != sweep::PointStatus::NotRun);
        if (!row.message.empty() && messages.size() < sweep::kKeptRejections && messages.insert(row.message).second) {
            rejections.push_back(row.index);
        }
    }
    QCOMPARE(indices(streamed.rejections), rejections);
    QVERIFY(!rejections.empty());
    QCOMPARE(streamed.statusCounts, kept.statusCounts);
    std::int64_t ok = 0;
    for (const sweep::SweepRow& row : kept.rows) {
        ok += row.status == sweep::PointStatus::Ok;
    }
    QCOMPARE(streamed.count(sweep::PointStatus::Ok), ok);
}

void TstSweepStream::tallyFrontEqualsMarkParetoFrontOnRandomRows()
{
    // Throughputs and costs from small sets, so equal throughputs, equal costs and exact duplicates abound.
    std::mt19937 random(20);
    for (int trial = 0; trial < 50; ++trial) {
        std::vector<sweep::SweepRow> rows(400);
        std::uniform_int_distribution<int> figure(1, trial % 2 == 0 ? 6 : 40);
        std::uniform_int_distribution<int> status(0, 4);
        for (size_t i = 0; i < rows.size(); ++i) {
            rows[i].index = static_cast<std::int64_t>(i);
            rows[i].status = status(random) == 0 ? sweep::PointStatus::DoesNotFit : sweep::PointStatus::Ok;
            rows[i].inference = trial % 3 == 0;
            rows[i].tokensPerSecondPerGpu = figure(random);
            rows[i].peakMemoryBytes = figure(random);
            rows[i].e2eSeconds = figure(random);
        }
        sweep::SweepTally tally(7);
        for (const sweep::SweepRow& row : rows) {
            tally.add(row);
        }
        sweep::SweepResult result;
        result.space = sweep::SweepSpace({ sweep::parseSweepAxis("x=1..400") });
        tally.finish(result);
        sweep::markParetoFront(rows);
        std::vector<std::int64_t> marked;
        for (const sweep::SweepRow& row : rows) {
            if (row.pareto) {
                marked.push_back(row.index);
            }
        }
        std::vector<std::int64_t> front = indices(result.paretoFront);
        std::sort(front.begin(), front.end());
        QCOMPARE(front, marked);
        QCOMPARE(result.top.size(), size_t(7));
        QCOMPARE(result.count(sweep::PointStatus::NotRun), std::int64_t(0));
    }
}

void TstSweepStream::smallWindowDeliversEveryRowInOrder()
{
    const sweep::SweepSpace points = space();
    const sweep::ScenarioFactory factory = [&](const auto& overrides) { return m_template->load(overrides); };
    std::int64_t expected = 0;
    bool inOrder = true;
    sweep::SweepOptions options;
    options.threads = 3;
    options.window = 1; // raised to one per thread: workers ahead of the earliest point wait for it
    options.keepRows = false;
    options.rowSink = [&](const sweep::SweepRow& row) { inOrder = inOrder && row.index == expected++; };
    const sweep::SweepResult result = sweep::runSweep(points, factory, options);
    QVERIFY(inOrder);
    QCOMPARE(expected, points.size());
    QVERIFY(!result.cancelled);
}

void TstSweepStream::throwingSinkStopsTheSweep()
{
    const sweep::SweepSpace points = space();
    const sweep::ScenarioFactory factory = [&](const auto& overrides) { return m_template->load(overrides); };
    std::int64_t delivered = 0;
    sweep::SweepOptions options;
    options.threads = 2;
    options.keepRows = false;
    options.rowSink = [&](const sweep::SweepRow& row) {
        ++delivered;
        if (row.index == 5) {
            throw std::runtime_error("disk full");
        }
    };
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, sweep::runSweep(points, factory, options));
    QCOMPARE(delivered, std::int64_t(6)); // nothing after the row that threw
}

void TstSweepStream::cancelledSweepStreamsAPrefix()
{
    const sweep::SweepSpace points = space();
    const sweep::ScenarioFactory factory = [&](const auto& overrides) { return m_template->load(overrides); };
    std::atomic<bool> stop { false };
    std::ostringstream csv;
    sweep::SweepCsvWriter writer(csv, points);
    writer.header();
    sweep::SweepOptions options;
    options.threads = 2;
    options.keepRows = false;
    options.stop = &stop;
    options.rowSink = [&](const sweep::SweepRow& row) {
        writer.row(row);
        if (row.index == 20) {
            stop = true;
        }
    };
    const sweep::SweepResult result = sweep::runSweep(points, factory, options);
    writer.finish(result);
    QVERIFY(result.cancelled);
    // Row 20 raised the flag; the rows after it are those other threads had finished or were running (fast invalid
    // points may have run ahead of a slow point 20).
    QVERIFY2(result.pointsRun() >= 21 && result.pointsRun() < points.size(),
        qPrintable(QString::number(result.pointsRun())));
    std::istringstream lines(csv.str());
    std::string line;
    std::vector<std::string> all;
    while (std::getline(lines, line)) {
        all.push_back(line);
    }
    QCOMPARE(all.size(), size_t(result.pointsRun() + 2));
    for (std::int64_t i = 0; i < result.pointsRun(); ++i) {
        QVERIFY(all[static_cast<size_t>(i + 1)].starts_with(std::to_string(i) + ",\""));
    }
    QCOMPARE(all.back(),
        "# interrupted after " + std::to_string(result.pointsRun()) + " of " + std::to_string(points.size())
            + " points");
    QCOMPARE(result.count(sweep::PointStatus::NotRun), points.size() - result.pointsRun());
}

QTEST_GUILESS_MAIN(TstSweepStream)
#include "tst_sweepstream.moc"
