// SPDX-License-Identifier: GPL-3.0-or-later
// Data-parallel replicas sharing a workload that does not split evenly, against values derived by hand: how clients,
// requests and Poisson rates are dealt (serving::replicaShares), percentiles of samples that stand for several
// replicas, and the summary of replicas with different shares under an iteration cost a + b x tokens.
#include "affinecost.h"
#include "serving/replicashares.h"
#include "serving/servingengine.h"
#include "serving/servingstats.h"

#include <QTest>

#include <cmath>
#include <stdexcept>

using namespace rapid;
using serving::ReplicaShare;
using serving::WorkloadSpec;
using test::AffineCost;
using test::closedLoop;

namespace {

bool near(double actual, double expected, double relative)
{
    return std::abs(actual - expected) <= relative * std::abs(expected);
}

/// @p share stands for @p replicas replicas of @p clients clients sending @p requests requests.
void checkShare(const ReplicaShare& share, int replicas, int clients, int requests)
{
    QCOMPARE(share.replicas, replicas);
    QCOMPARE(share.workload.concurrency, clients);
    QCOMPARE(share.workload.requests, requests);
}

QString errorOf(const WorkloadSpec& workload, int replicas)
{
    try {
        serving::replicaShares(workload, replicas);
    } catch (const std::invalid_argument& error) {
        return QString::fromStdString(error.what());
    }
    return {};
}

} // namespace

class TstReplicaShares : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void clientsAreDealtInTurn()
    {
        // 7 clients over 4 replicas: 3 replicas get 2, 1 gets 1; 70 requests are 10 per client.
        const auto uneven = serving::replicaShares(closedLoop(7, 70, 100, 10), 4);
        QCOMPARE(uneven.size(), size_t { 2 });
        checkShare(uneven[0], 3, 2, 20);
        checkShare(uneven[1], 1, 1, 10);
        // 8 clients over 4 replicas: 2 each, and 12 requests 3 each (a multiple of the replicas is enough then).
        const auto even = serving::replicaShares(closedLoop(8, 12, 100, 10), 4);
        QCOMPARE(even.size(), size_t { 1 });
        checkShare(even[0], 4, 2, 3);
        // 3 clients over 8 replicas: three replicas of one client; five stay idle and are in no share.
        const auto few = serving::replicaShares(closedLoop(3, 6, 100, 10), 8);
        QCOMPARE(few.size(), size_t { 1 });
        checkShare(few[0], 3, 1, 2);
        // No request at all is one share of nothing for every replica (an empty trace), never no share.
        const auto none = serving::replicaShares(closedLoop(4, 0, 100, 10), 4);
        QCOMPARE(none.size(), size_t { 1 });
        QCOMPARE(none[0].replicas, 4);
        QCOMPARE(none[0].workload.requests, 0);
    }

    void aRampKeepsTheClientsSpacing()
    {
        // 6 clients ramped over 6 s start a second apart. Over 4 replicas, two replicas of 2 clients start theirs
        // 4 s apart (a ramp of 8 s over 2), and two of 1 client start it at once (a ramp of 4 s over 1).
        WorkloadSpec workload = closedLoop(6, 12, 100, 10);
        workload.rampSeconds = 6;
        const auto shares = serving::replicaShares(workload, 4);
        QCOMPARE(shares.size(), size_t { 2 });
        QCOMPARE(shares[0].workload.rampSeconds / shares[0].workload.concurrency, 4.0);
        QCOMPARE(shares[1].workload.rampSeconds / shares[1].workload.concurrency, 4.0);
    }

    void poissonRequestsAreDealtInTurn()
    {
        // 1,002 requests at 8 per second over 4 replicas: 2 replicas serve 251, 2 serve 250, each at 2 per second.
        WorkloadSpec workload;
        workload.arrival = serving::ArrivalKind::Poisson;
        workload.ratePerSecond = 8;
        workload.requests = 1002;
        const auto shares = serving::replicaShares(workload, 4);
        QCOMPARE(shares.size(), size_t { 2 });
        QCOMPARE(shares[0].replicas, 2);
        QCOMPARE(shares[0].workload.requests, 251);
        QCOMPARE(shares[1].workload.requests, 250);
        QCOMPARE(shares[0].workload.ratePerSecond, 2.0);
    }

    void countsThatCannotBeDealtAreRefused()
    {
        // 7 clients send equal numbers: 30 requests cannot be; 28 or 35 can.
        QVERIFY(errorOf(closedLoop(7, 30, 100, 10), 4)
                    .contains(QLatin1String("requests 30 is not a multiple of the 7 clients, each of which sends the "
                                            "same number of requests: 28 or 35 splits evenly")));
        // Even clients, but 10 requests over 4 replicas.
        QVERIFY(errorOf(closedLoop(8, 10, 100, 10), 4).contains(QLatin1String("8 or 12 splits evenly")));
        WorkloadSpec warm = closedLoop(8, 16, 100, 10);
        warm.warmupRequests = 3;
        QVERIFY(errorOf(warm, 4).contains(QLatin1String("warm-up requests 3")));
        QVERIFY(errorOf(closedLoop(0, 0, 100, 10), 2).contains(QLatin1String("expected at least one client")));
        WorkloadSpec trace;
        trace.arrival = serving::ArrivalKind::Trace;
        QVERIFY(errorOf(trace, 2).contains(QLatin1String("run.parallelism.dp to 1")));
    }

    void weightedPercentilesRepeatEachSample()
    {
        // 1 standing for two samples and 3 for one: {1, 1, 3}. Mean 5/3; p50 at position 1: 1; p90 at 1.8: 1 + 0.8 x 2.
        const serving::LatencyStats stats
            = serving::latencyStats(std::vector<serving::WeightedValue> { { 3, 1 }, { 1, 2 } });
        QVERIFY(near(stats.mean, 5.0 / 3.0, 1e-12));
        QCOMPARE(stats.p50, 1.0);
        QVERIFY(near(stats.p90, 2.6, 1e-12));
        QCOMPARE(stats.max, 3.0);
    }

    void replicasOfDifferentSharesAreSummarisedTogether()
    {
        // a = 2 ms, b = 10 us; prompts of 500, outputs of 20; 3 clients over 2 replicas, 2 requests each.
        // The replica of 1 client: TTFT a + 500 b = 7 ms, then 19 iterations of a + b: E2E 7 + 19 x 2.01 = 45.19 ms.
        // The replica of 2 clients: both prompts in one iteration, a + 1000 b = 12 ms, then 19 of a + 2 b: E2E
        // 12 + 19 x 2.02 = 50.38 ms; the clients stay in step, so each round is alike.
        const auto shares = serving::replicaShares(closedLoop(3, 6, 500, 20), 2);
        QCOMPARE(shares.size(), size_t { 2 });
        serving::EngineOptions options;
        options.maxNumSeqs = 256;
        options.maxNumBatchedTokens = 8192;
        options.blockSize = 16;
        options.kvBlocks = 1000;
        options.watermark = 0;
        AffineCost cost(2e-3, 1e-5);
        const serving::ServingTrace busy = serving::simulateServing(shares[0].workload, options, cost);
        const serving::ServingTrace quiet = serving::simulateServing(shares[1].workload, options, cost);
        const serving::ReplicaTraces traces { { &busy, 1 }, { &quiet, 1 } };
        const serving::ServingSummary summary = serving::summarise(traces, 8, {});
        QCOMPARE(summary.requests, 6);
        QCOMPARE(summary.replicas, 2);
        // TTFT: four of 12 ms, two of 7 ms.
        QVERIFY(near(summary.ttft.mean, (4 * 12e-3 + 2 * 7e-3) / 6, 1e-9));
        QVERIFY(near(summary.ttft.p50, 12e-3, 1e-9));
        QVERIFY(near(summary.ttft.max, 12e-3, 1e-9));
        // The busy replica ends last, after two rounds: 2 x 50.38 ms; 120 output tokens over it.
        QVERIFY(near(summary.durationSeconds, 2 * 50.38e-3, 1e-9));
        QVERIFY(near(summary.outputTokensPerSecond, 120 / (2 * 50.38e-3), 1e-9));
        QVERIFY(near(summary.outputTokensPerSecondPerGpu, 120 / (2 * 50.38e-3) / 8, 1e-9));
        QCOMPARE(summary.iterations, static_cast<int>(busy.iterations.size()));
        // Standing for three replicas instead, the quiet trace's requests count three times: 4 + 6.
        const serving::ReplicaTraces weighted { { &busy, 1 }, { &quiet, 3 } };
        const serving::ServingSummary three = serving::summarise(weighted, 8, {});
        QCOMPARE(three.requests, 10);
        QVERIFY(near(three.ttft.mean, (4 * 12e-3 + 6 * 7e-3) / 10, 1e-9));
        QVERIFY(near(three.ttft.p50, 7e-3, 1e-9)); // {7 x 6, 12 x 4}: position 4.5, between two of 7 ms
    }
};

QTEST_APPLESS_MAIN(TstReplicaShares)
#include "tst_replicashares.moc"
