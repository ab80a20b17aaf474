// SPDX-License-Identifier: GPL-3.0-or-later
// Sweep axes and the space they span: value lists and ranges, parallel splits counted by hand, mixed-radix points,
// and the messages for malformed axes.
#include "sweep/sweepspace.h"

#include <QTest>

#include <set>
#include <stdexcept>

using namespace rapid;

class TstSweepSpace : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void listsAndRanges();
    void malformedAxes_data();
    void malformedAxes();
    void splitsOfEightGpus();
    void mixedRadixPoints();
};

namespace {

std::vector<std::string> labels(const sweep::SweepAxis& axis)
{
    std::vector<std::string> result;
    for (const sweep::AxisValue& value : axis.values) {
        result.push_back(value.label);
    }
    return result;
}

} // namespace

void TstSweepSpace::listsAndRanges()
{
    const sweep::SweepAxis list = sweep::parseSweepAxis("run.training.recompute = none, selective,full");
    QCOMPARE(list.name, std::string("run.training.recompute"));
    QCOMPARE(labels(list), (std::vector<std::string> { "none", "selective", "full" }));
    QCOMPARE(list.values[1].assignments, std::vector<std::string> { "run.training.recompute=selective" });
    QCOMPARE(
        labels(sweep::parseSweepAxis("run.parallelism.pp=2..5")), (std::vector<std::string> { "2", "3", "4", "5" }));
    // Geometric: 1, 2, 4, ... while <= 40.
    QCOMPARE(labels(sweep::parseSweepAxis("run.training.micro_batch=1..40:x2")),
        (std::vector<std::string> { "1", "2", "4", "8", "16", "32" }));
    QCOMPARE(labels(sweep::parseSweepAxis("run.training.seq_length=1024..8192:x4")),
        (std::vector<std::string> { "1024", "4096" }));
    // A single value is an axis of one.
    QCOMPARE(
        labels(sweep::parseSweepAxis("hardware.gpu.hbm.bandwidth_GBps=1500")), std::vector<std::string> { "1500" });
}

void TstSweepSpace::malformedAxes_data()
{
    QTest::addColumn<QString>("specification");
    QTest::addColumn<QString>("expected");
    QTest::newRow("no equals") << "run.parallelism.tp"
                               << "expected KEY=VALUES";
    QTest::newRow("empty key") << "=1,2"
                               << "expected KEY=VALUES";
    QTest::newRow("empty values") << "run.parallelism.tp="
                                  << "must not be empty";
    QTest::newRow("empty list item") << "run.parallelism.tp=1,,4"
                                     << "an empty value";
    QTest::newRow("range not integer") << "run.parallelism.tp=1..x"
                                       << "is not an integer";
    QTest::newRow("range backwards") << "run.parallelism.tp=8..1"
                                     << "ends before it starts";
    QTest::newRow("bad step") << "run.parallelism.tp=1..8:2"
                              << "written :xF";
    QTest::newRow("factor one") << "run.parallelism.tp=1..8:x1"
                                << "at least 2";
    QTest::newRow("geometric from zero") << "run.parallelism.tp=0..8:x2"
                                         << "starts at 1";
}

void TstSweepSpace::malformedAxes()
{
    QFETCH(QString, specification);
    QFETCH(QString, expected);
    try {
        sweep::parseSweepAxis(specification.toStdString());
        QFAIL("no error");
    } catch (const std::invalid_argument& error) {
        QVERIFY2(QString::fromUtf8(error.what()).contains(expected), error.what());
        QVERIFY2(QString::fromUtf8(error.what()).contains(specification), error.what());
    }
}

void TstSweepSpace::splitsOfEightGpus()
{
    // Ordered factorisations of 8 = 2^3 into three factors: distributing three 2s over three axes, C(5, 2) = 10.
    const sweep::SweepAxis all = sweep::parallelSplits(8, { "tp", "pp", "dp" });
    QCOMPARE(all.values.size(), size_t(10));
    std::set<std::string> seen;
    for (const sweep::AxisValue& value : all.values) {
        QCOMPARE(value.assignments.size(), size_t(3));
        QVERIFY(seen.insert(value.label).second);
    }
    QVERIFY(seen.count("tp2 pp2 dp2"));
    QVERIFY(seen.count("tp8 pp1 dp1"));
    QCOMPARE(all.values.front().assignments,
        (std::vector<std::string> { "run.parallelism.tp=1", "run.parallelism.pp=1", "run.parallelism.dp=8" }));
    // tp at most 2: tp 1 leaves the 4 ordered pairs of 8 (1x8, 2x4, 4x2, 8x1), tp 2 the 3 pairs of 4.
    QCOMPARE(sweep::parallelSplits(8, { "tp", "pp", "dp" }, 2).values.size(), size_t(7));
    // 12 = 2^2 x 3 over two axes: its 6 divisors.
    QCOMPARE(sweep::parallelSplits(12, { "tp", "dp" }).values.size(), size_t(6));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, sweep::parallelSplits(0, { "tp" }));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, sweep::parallelSplits(8, {}));
}

void TstSweepSpace::mixedRadixPoints()
{
    const sweep::SweepSpace space({ sweep::parseSweepAxis("a.x=1,2"), sweep::parseSweepAxis("a.y=p,q,r") });
    QCOMPARE(space.size(), std::int64_t(6));
    // The last axis varies fastest: point 4 = (1, 1) -> x=2, y=q.
    QCOMPARE(space.coordinates(4), (std::vector<int> { 1, 1 }));
    QCOMPARE(space.overrides(4), (std::vector<std::string> { "a.x=2", "a.y=q" }));
    QCOMPARE(space.overrides(0), (std::vector<std::string> { "a.x=1", "a.y=p" }));
    QVERIFY_THROWS_EXCEPTION(std::out_of_range, space.coordinates(6));
    QCOMPARE(sweep::SweepSpace().size(), std::int64_t(1));
    QCOMPARE(sweep::SweepSpace().overrides(0), std::vector<std::string> {});
    // 10^6 points is the limit: 1,000 x 1,000 is allowed, x 2 more is not.
    const sweep::SweepAxis thousand = sweep::parseSweepAxis("a.x=1..1000");
    QCOMPARE(sweep::SweepSpace({ thousand, thousand }).size(), std::int64_t(1'000'000));
    QVERIFY_THROWS_EXCEPTION(
        std::invalid_argument, sweep::SweepSpace({ thousand, thousand, sweep::parseSweepAxis("a.y=1,2") }));
}

QTEST_GUILESS_MAIN(TstSweepSpace)
#include "tst_sweepspace.moc"
