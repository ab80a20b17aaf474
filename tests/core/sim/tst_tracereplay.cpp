// SPDX-License-Identifier: GPL-3.0-or-later
// Replaying Chakra traces on our backends: compute by duration and serialised per rank, collectives matched by
// group and issue order, eager sends, deadlocks named, and the samples of ../shared/chakra-samples replayed with
// closed-form checks where one exists.
#include "../network/networktestutils.h"
#include "graph/chakrareader.h"
#include "network/analyticalnetwork.h"
#include "sim/tracereplay.h"
#include "testutils.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <filesystem>

using namespace rapid;
using graph::ChakraAttribute;
using graph::ChakraNode;
using graph::ChakraNodeType;
using graph::ChakraTrace;

namespace {

ChakraNode computeNode(std::uint64_t id, std::uint64_t micros, std::vector<std::uint64_t> deps = {})
{
    ChakraNode node;
    node.id = id;
    node.name = "comp" + std::to_string(id);
    node.type = ChakraNodeType::Compute;
    node.durationMicros = micros;
    node.dataDeps = std::move(deps);
    return node;
}

ChakraNode allReduce(std::uint64_t id, std::int64_t bytes, std::vector<std::uint64_t> deps = {})
{
    ChakraNode node;
    node.id = id;
    node.name = "allreduce" + std::to_string(id);
    node.type = ChakraNodeType::Collective;
    node.dataDeps = std::move(deps);
    node.attributes = { ChakraAttribute::int64("comm_type", 0), ChakraAttribute::int64("comm_size", bytes) };
    return node;
}

ChakraNode message(bool send, std::uint64_t id, int peer, std::int64_t bytes, std::vector<std::uint64_t> deps = {})
{
    ChakraNode node;
    node.id = id;
    node.type = send ? ChakraNodeType::Send : ChakraNodeType::Recv;
    node.dataDeps = std::move(deps);
    node.attributes = { ChakraAttribute::int32(send ? "comm_dst" : "comm_src", peer),
        ChakraAttribute::int32("comm_tag", 7), ChakraAttribute::int64("comm_size", bytes) };
    return node;
}

ChakraTrace trace(int rank, std::vector<ChakraNode> nodes)
{
    ChakraTrace result;
    result.rank = rank;
    result.nodes = std::move(nodes);
    return result;
}

/// 4 GPUs on a switch, 100 GB/s per GPU link and no hop latency: closed forms stay simple.
config::HardwareSpec switch4()
{
    return test::hardware({ test::dimension("nvlink", config::NetworkKind::Switch, 4, 100, 0) });
}

} // namespace

class TestTraceReplay : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void computeRunsOneAtATimePerRank()
    {
        // Rank 0: two independent nodes of 10 and 20 us, then one of 5 us after both: 35 us, not 25.
        const std::vector<ChakraTrace> traces
            = { trace(0, { computeNode(1, 10), computeNode(2, 20), computeNode(3, 5, { 1, 2 }) }) };
        const sim::ReplayResult result = sim::replayChakra(traces, {}, switch4(), sim::NetworkBackend::Analytical);
        QCOMPARE(result.makespan, 35e-6);
        QCOMPARE(result.ranks.front().computeBusy, 35e-6);
        QCOMPARE(result.nodeTimes[0][2].finish, 35e-6);
    }

    void collectiveStartsWhenEveryMemberIssuedIt()
    {
        // Ranks 0-3 compute 10, 20, 30, 40 us, then all-reduce 8 MB: it starts at 40 us and takes the analytical
        // direct all-reduce on the switch, 2 * (3/4 * S / 100 GB/s) + launch = 120 us + 6.6 us.
        std::vector<ChakraTrace> traces;
        for (int rank = 0; rank < 4; ++rank) {
            traces.push_back(trace(
                rank, { computeNode(1, 10 * static_cast<std::uint64_t>(rank + 1)), allReduce(2, 8000000, { 1 }) }));
        }
        for (sim::NetworkBackend backend : { sim::NetworkBackend::Analytical, sim::NetworkBackend::Congestion }) {
            const sim::ReplayResult result = sim::replayChakra(traces, {}, switch4(), backend);
            const double expected = 40e-6 + 2 * 0.75 * 8e6 / 100e9 + network::kCollectiveLaunchSeconds;
            QVERIFY2(std::abs(result.makespan - expected) <= 4e-9, qPrintable(QString::number(result.makespan)));
            QCOMPARE(result.collectives, 1);
            // Rank 0 waited 30 us for the others: its collective node started (was issued) at 10 us.
            QCOMPARE(result.nodeTimes[0][1].start, 10e-6);
            QVERIFY(std::abs(result.ranks[0].exposedCommunication - (expected - 10e-6)) <= 4e-9);
        }
    }

    void sendsAreEagerAndReceivesWaitForTheirMessage()
    {
        // Rank 0 sends 1 MB to rank 1 at once (10 us at 100 GB/s + launch); rank 1 posts its receive after 50 us of
        // compute: the receive finishes at 50 us (the message is already there). The send finishes on arrival.
        const std::vector<ChakraTrace> traces = { trace(0, { message(true, 1, 1, 1000000) }),
            trace(1, { computeNode(1, 50), message(false, 2, 0, 1000000, { 1 }) }) };
        const sim::ReplayResult result = sim::replayChakra(traces, {}, switch4(), sim::NetworkBackend::Analytical);
        const double arrival = 1e6 / 100e9 + network::kCollectiveLaunchSeconds;
        QVERIFY(std::abs(result.nodeTimes[0][0].finish - arrival) <= 1e-9);
        QCOMPARE(result.nodeTimes[1][1].finish, 50e-6);
        QCOMPARE(result.pointToPoint, 1);
    }

    void timelineExportsAsChromeTrace()
    {
        // The compute-serialisation case: rank 0 runs 10 us, 20 us, then 5 us; a metadata node is left out.
        ChakraNode metadata;
        metadata.id = 9;
        metadata.type = ChakraNodeType::Metadata;
        const std::vector<ChakraTrace> traces
            = { trace(0, { computeNode(1, 10), computeNode(2, 20), computeNode(3, 5, { 1, 2 }), metadata }) };
        const sim::ReplayResult result = sim::replayChakra(traces, {}, switch4(), sim::NetworkBackend::Analytical);
        const QJsonDocument json
            = QJsonDocument::fromJson(QByteArray::fromStdString(sim::replayChromeTraceJson(traces, result)));
        QVERIFY(json.isObject());
        QList<QJsonObject> complete;
        for (const QJsonValue& value : json.object().value(QStringLiteral("traceEvents")).toArray()) {
            if (value.toObject().value(QStringLiteral("ph")).toString() == QStringLiteral("X")) {
                complete.append(value.toObject());
            }
        }
        QCOMPARE(complete.size(), 3);
        // Node 3 is ready at 30 us (both parents done) and runs 5 us; times are in microseconds.
        QCOMPARE(complete[2].value(QStringLiteral("ts")).toDouble(), 30.0);
        QCOMPARE(complete[2].value(QStringLiteral("dur")).toDouble(), 5.0);
        QCOMPARE(complete[2].value(QStringLiteral("pid")).toInt(), 1);
        QCOMPARE(complete[2].value(QStringLiteral("name")).toString(), QStringLiteral("comp3"));
    }

    void groupsMatchByIssueOrder()
    {
        // Groups {0,1} and {2,3} each all-reduce; rank 0's group finishes without waiting for the other.
        const graph::ChakraCommGroups groups = { { "1", { 0, 1 } }, { "2", { 2, 3 } } };
        std::vector<ChakraTrace> traces;
        for (int rank = 0; rank < 4; ++rank) {
            ChakraNode coll = allReduce(2, 4000000, { 1 });
            coll.attributes.push_back(ChakraAttribute::text("pg_name", rank < 2 ? "1" : "2"));
            traces.push_back(trace(rank, { computeNode(1, rank < 2 ? 1 : 100), coll }));
        }
        const sim::ReplayResult result = sim::replayChakra(traces, groups, switch4(), sim::NetworkBackend::Analytical);
        QCOMPARE(result.collectives, 2);
        // A 2-member direct all-reduce: 2 * (1/2 * S / B) + launch after 1 us.
        const double group1 = 1e-6 + 4e6 / 100e9 + network::kCollectiveLaunchSeconds;
        QVERIFY(std::abs(result.ranks[0].finish - group1) <= 1e-9);
        QVERIFY(result.ranks[2].finish > 100e-6);
    }

    void deadlocksNameTheStuckNodes()
    {
        // Rank 1 never issues the all-reduce rank 0 waits in.
        const std::vector<ChakraTrace> traces = { trace(0, { allReduce(5, 1000) }), trace(1, { computeNode(1, 1) }) };
        try {
            sim::replayChakra(traces, {}, switch4(), sim::NetworkBackend::Analytical);
            QFAIL("a deadlock was not reported");
        } catch (const sim::ReplayDeadlock& error) {
            const std::string text = error.what();
            QVERIFY2(text.find("rank 0 node 5") != std::string::npos, error.what());
            QVERIFY2(text.find("1 of 2 members") != std::string::npos, error.what());
        }
        // A rank outside the network is an input error.
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
            sim::replayChakra({ trace(9, { computeNode(1, 1) }) }, {}, switch4(), sim::NetworkBackend::Analytical));
    }

    void microbenchmarkSampleMatchesTheClosedForm()
    {
        // ASTRA-sim's 8-rank 1 MiB all-reduce on an 8-GPU ring of 100 GB/s, 1 us per hop: the ring all-reduce
        // 2 * 7/8 * S / B + 14 hops + launch, on both backends.
        const std::vector<ChakraTrace> traces
            = graph::readChakraDirectory(std::string(RAPID_SHARED_DIR) + "/chakra-samples/microbench-allreduce-8npus");
        const config::HardwareSpec ring
            = test::hardware({ test::dimension("ring", config::NetworkKind::Ring, 8, 100, 1000) });
        const double expected = 2 * 7.0 / 8 * 1048576 / 100e9 + 14e-6 + network::kCollectiveLaunchSeconds;
        for (sim::NetworkBackend backend : { sim::NetworkBackend::Analytical, sim::NetworkBackend::Congestion }) {
            const sim::ReplayResult result = sim::replayChakra(traces, {}, ring, backend);
            QVERIFY2(std::abs(result.makespan - expected) <= 14e-9, qPrintable(QString::number(result.makespan)));
        }
    }

    void sixteenRankSampleReplaysOnItsTorus()
    {
        // The RAPID-LLM-style 16-rank training step with its comm groups and network (tests/data/chakra).
        const std::string dir = std::string(RAPID_SHARED_DIR) + "/chakra-samples/llm-graph-16ranks";
        const std::vector<ChakraTrace> traces = graph::readChakraDirectory(dir);
        const graph::ChakraCommGroups groups = graph::readChakraCommGroups(dir + "/comm_groups.json");
        const config::HardwareSpec hardware = test::projectLoader().loadHardware(
            std::string(RAPID_TEST_DATA_DIR) + "/chakra/llm-graph-16ranks-hardware.yaml");
        const sim::ReplayResult analytical
            = sim::replayChakra(traces, groups, hardware, sim::NetworkBackend::Analytical);
        const sim::ReplayResult congestion
            = sim::replayChakra(traces, groups, hardware, sim::NetworkBackend::Congestion);
        QCOMPARE(analytical.ranks.size(), size_t { 16 });
        QCOMPARE(analytical.collectives, congestion.collectives);
        QCOMPARE(analytical.pointToPoint, congestion.pointToPoint);
        // Every rank's compute is the sum of its durations (serialised), whatever the network.
        for (size_t t = 0; t < traces.size(); ++t) {
            double sum = 0;
            for (const ChakraNode& node : traces[t].nodes) {
                if (node.type == ChakraNodeType::Compute) {
                    sum += static_cast<double>(node.durationMicros) * 1e-6;
                }
            }
            QVERIFY(std::abs(analytical.ranks[t].computeBusy - sum) <= 1e-6 * sum);
            QVERIFY(analytical.ranks[t].finish >= sum);
        }
        qInfo("llm-graph-16ranks: makespan %.6g s analytical, %.6g s congestion; %d collectives, %d messages",
            analytical.makespan, congestion.makespan, analytical.collectives, analytical.pointToPoint);
        QVERIFY(congestion.makespan >= analytical.makespan * (1 - 1e-6));
    }
};

QTEST_APPLESS_MAIN(TestTraceReplay)
#include "tst_tracereplay.moc"
