// SPDX-License-Identifier: GPL-3.0-or-later
// Inspection of Chakra traces: each defect kind on a small hand-made trace set (with the node ids it must name),
// the critical path, and the samples (clean where they should be, the kineto trace's dangling control deps found).
#include "chakratestutils.h"

#include "graph/chakrainspect.h"
#include "graph/chakrareader.h"
#include "graph/chakrawriter.h"
#include "report/chakrainspectreport.h"

#include <QTemporaryDir>
#include <QTest>

#include <sstream>

using namespace rapid;
using graph::ChakraAttribute;
using graph::ChakraDefectKind;
using graph::ChakraNode;
using graph::ChakraNodeType;
using graph::ChakraTrace;

namespace {

ChakraNode comp(std::uint64_t id, std::uint64_t micros, std::vector<std::uint64_t> deps = {})
{
    ChakraNode node;
    node.id = id;
    node.name = "comp" + std::to_string(id);
    node.type = ChakraNodeType::Compute;
    node.durationMicros = micros;
    node.dataDeps = std::move(deps);
    return node;
}

ChakraNode p2p(std::uint64_t id, bool send, int peer, int tag, std::int64_t size)
{
    ChakraNode node;
    node.id = id;
    node.name = send ? "send" : "recv";
    node.type = send ? ChakraNodeType::Send : ChakraNodeType::Recv;
    node.attributes = { ChakraAttribute::int32(send ? "comm_dst" : "comm_src", peer),
        ChakraAttribute::int32("comm_tag", tag), ChakraAttribute::int64("comm_size", size) };
    return node;
}

ChakraNode collective(
    std::uint64_t id, graph::ChakraCollective type, std::int64_t size, std::vector<std::uint64_t> deps)
{
    ChakraNode node;
    node.id = id;
    node.name = "coll";
    node.type = ChakraNodeType::Collective;
    node.dataDeps = std::move(deps);
    node.attributes = { ChakraAttribute::int64("comm_type", static_cast<std::int64_t>(type)),
        ChakraAttribute::int64("comm_size", size) };
    return node;
}

ChakraTrace rank(int r, std::vector<ChakraNode> nodes)
{
    ChakraTrace trace;
    trace.rank = r;
    trace.nodes = std::move(nodes);
    return trace;
}

std::vector<graph::ChakraDefect> defectsOf(const graph::ChakraInspection& inspection, ChakraDefectKind kind)
{
    std::vector<graph::ChakraDefect> found;
    for (const graph::ChakraDefect& defect : inspection.defects) {
        if (defect.kind == kind) {
            found.push_back(defect);
        }
    }
    return found;
}

} // namespace

class TstChakraInspect : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void countsAndCriticalPath()
    {
        // 1 -> 2 -> 4 and 1 -> 3 -> 4 (ctrl); the path through 3 is longer.
        ChakraNode four = comp(4, 1, { 2 });
        four.ctrlDeps = { 3 };
        const auto inspection = graph::inspectChakra({ rank(0,
            { comp(1, 10), comp(2, 5, { 1 }), comp(3, 20, { 1 }), four,
                collective(5, graph::ChakraCollective::AllReduce, 1024, { 4 }) }) });
        QVERIFY(inspection.defects.empty());
        const graph::ChakraRankReport& report = inspection.ranks.front();
        QCOMPARE(report.nodeCount, size_t { 5 });
        QCOMPARE(report.nodesByType[static_cast<size_t>(ChakraNodeType::Compute)], size_t { 4 });
        QCOMPARE(report.nodesByType[static_cast<size_t>(ChakraNodeType::Collective)], size_t { 1 });
        QCOMPARE(report.dataEdges, size_t { 4 });
        QCOMPARE(report.ctrlEdges, size_t { 1 });
        QCOMPARE(report.criticalPathMicros, std::uint64_t { 31 });
        QCOMPARE(report.criticalPath, (std::vector<std::uint64_t> { 1, 3, 4, 5 }));
        QCOMPARE(report.collectives.size(), size_t { 1 });
        QCOMPARE(report.collectives[0].commSize, std::uint64_t { 1024 });
        QCOMPARE(report.collectives[0].count, size_t { 1 });
    }

    void missingDependency()
    {
        ChakraNode dangling = comp(2, 1);
        dangling.ctrlDeps = { 99 };
        const auto inspection = graph::inspectChakra({ rank(0, { comp(1, 1), dangling }) });
        const auto defects = defectsOf(inspection, ChakraDefectKind::MissingDependency);
        QCOMPARE(defects.size(), size_t { 1 });
        QCOMPARE(defects[0].nodeIds, std::vector<std::uint64_t> { 2 });
        QVERIFY(defects[0].message.find("99") != std::string::npos);
    }

    void cycle()
    {
        // 1 -> 2 -> 3 -> 2, and 4 depends on itself; 5 only waits behind the cycle.
        const auto inspection = graph::inspectChakra(
            { rank(0, { comp(1, 1), comp(2, 1, { 1, 3 }), comp(3, 1, { 2 }), comp(4, 1, { 4 }), comp(5, 1, { 3 }) }) });
        const auto defects = defectsOf(inspection, ChakraDefectKind::Cycle);
        QCOMPARE(defects.size(), size_t { 2 });
        QCOMPARE(defects[0].nodeIds, (std::vector<std::uint64_t> { 2, 3 }));
        QCOMPARE(defects[1].nodeIds, std::vector<std::uint64_t> { 4 });
        QCOMPARE(inspection.ranks[0].criticalPath, std::vector<std::uint64_t> { 1 });
        QVERIFY(defectsOf(graph::inspectChakra({ rank(0, { comp(1, 1, { 2 }), comp(2, 1, { 1 }) }) }),
                    ChakraDefectKind::NoRootNode)
                    .size()
            == 1);
    }

    void unmatchedSendAndRecv()
    {
        // Rank 0 sends tag 7 and tag 8 to rank 1; rank 1 receives tag 7 only, and tag 9 with a different size.
        const auto inspection = graph::inspectChakra({ rank(0, { p2p(1, true, 1, 7, 64), p2p(2, true, 1, 8, 64) }),
            rank(1, { p2p(5, false, 0, 7, 64), p2p(6, false, 0, 9, 32) }) });
        const auto sends = defectsOf(inspection, ChakraDefectKind::UnmatchedSend);
        const auto recvs = defectsOf(inspection, ChakraDefectKind::UnmatchedRecv);
        QCOMPARE(sends.size(), size_t { 1 });
        QCOMPARE(sends[0].rank, 0);
        QCOMPARE(sends[0].nodeIds, std::vector<std::uint64_t> { 2 });
        QCOMPARE(recvs.size(), size_t { 1 });
        QCOMPARE(recvs[0].rank, 1);
        QCOMPARE(recvs[0].nodeIds, std::vector<std::uint64_t> { 6 });
        // A send to a rank with no file says so.
        const auto lonely = graph::inspectChakra({ rank(0, { p2p(1, true, 3, 0, 8) }) });
        QVERIFY(defectsOf(lonely, ChakraDefectKind::UnmatchedSend)[0].message.find("has no file") != std::string::npos);
    }

    void collectiveOrder()
    {
        using C = graph::ChakraCollective;
        // Rank 0: all-reduce then all-gather; rank 1 issues them the other way round (by dependency timing).
        const auto inspection = graph::inspectChakra({
            rank(0, { comp(1, 10), collective(2, C::AllReduce, 100, {}), collective(3, C::AllGather, 50, { 1 }) }),
            rank(1, { comp(1, 10), collective(2, C::AllReduce, 100, { 1 }), collective(3, C::AllGather, 50, {}) }),
        });
        const auto defects = defectsOf(inspection, ChakraDefectKind::CollectiveOrderMismatch);
        QCOMPARE(defects.size(), size_t { 1 });
        QCOMPARE(defects[0].rank, 1);
        QCOMPARE(defects[0].nodeIds, std::vector<std::uint64_t> { 3 });
        // Same order, different size: also a mismatch. Same everything: clean.
        QCOMPARE(defectsOf(graph::inspectChakra({ rank(0, { collective(1, C::AllReduce, 100, {}) }),
                               rank(1, { collective(1, C::AllReduce, 101, {}) }) }),
                     ChakraDefectKind::CollectiveOrderMismatch)
                     .size(),
            size_t { 1 });
        QVERIFY(graph::inspectChakra(
            { rank(0, { collective(1, C::AllReduce, 100, {}) }), rank(1, { collective(9, C::AllReduce, 100, {}) }) })
                    .defects.empty());
    }

    void attributesAndTypes()
    {
        ChakraNode coll = collective(1, graph::ChakraCollective::Gather, 8, {});
        coll.attributes.push_back({ "comm_priority", {}, graph::ChakraAttributeType::Double, 1.0 });
        coll.attributes.push_back({ "mystery", {}, graph::ChakraAttributeType::Int64, std::int64_t { 1 } });
        coll.attributes.push_back({ "empty", {}, graph::ChakraAttributeType::None, std::monostate {} });
        coll.attributes.push_back(ChakraAttribute::boolean("is_cpu_op", true));
        ChakraNode send = p2p(2, true, 1, 0, 8);
        send.attributes.erase(send.attributes.begin() + 1); // no comm_tag
        ChakraNode odd = comp(3, 0);
        odd.type = static_cast<ChakraNodeType>(42);
        const auto inspection = graph::inspectChakra({ rank(0, { coll, send, odd, comp(3, 0) }), rank(2, {}) });
        auto only = [&inspection](ChakraDefectKind kind) {
            const auto defects = defectsOf(inspection, kind);
            return defects.size() == 1 ? defects[0].nodeIds : std::vector<std::uint64_t> { 999 };
        };
        QCOMPARE(only(ChakraDefectKind::UnsupportedCollective), std::vector<std::uint64_t> { 1 });
        QCOMPARE(only(ChakraDefectKind::AttributeWrongType), std::vector<std::uint64_t> { 1 });
        QCOMPARE(only(ChakraDefectKind::UnknownAttribute), std::vector<std::uint64_t> { 1 });
        QCOMPARE(only(ChakraDefectKind::AttributeWithoutValue), std::vector<std::uint64_t> { 1 });
        QCOMPARE(only(ChakraDefectKind::CpuCommunication), std::vector<std::uint64_t> { 1 });
        QCOMPARE(only(ChakraDefectKind::MissingAttribute), std::vector<std::uint64_t> { 2 });
        QCOMPARE(only(ChakraDefectKind::UnknownNodeType), std::vector<std::uint64_t> { 3 });
        QCOMPARE(only(ChakraDefectKind::DuplicateId), std::vector<std::uint64_t> { 3 });
        QCOMPARE(defectsOf(inspection, ChakraDefectKind::MissingRank).size(), size_t { 1 }); // rank 1
        QCOMPARE(inspection.ranks[0].unknownTypeNodes, size_t { 1 });
    }

    void durationsBeyondTheCeilingAreDefectsAndSumsSaturate()
    {
        // Two chained nodes of 2^63 us each: the sum wraps a 64-bit count; the schedule saturates instead, and each
        // node above 10^14 us (the simulator's time ceiling) is a defect, as `rapid chakra simulate` refuses it.
        const std::uint64_t huge = std::uint64_t(1) << 63;
        const auto inspection
            = graph::inspectChakra({ rank(0, { comp(1, huge), comp(2, huge, { 1 }), comp(3, 100'000'000'000'000) }) });
        const auto defects = defectsOf(inspection, ChakraDefectKind::DurationBeyondCeiling);
        QCOMPARE(defects.size(), size_t { 1 });
        QCOMPARE(defects[0].nodeIds, (std::vector<std::uint64_t> { 1, 2 })); // 10^14 us exactly is accepted
        QCOMPARE(inspection.ranks[0].criticalPathMicros, UINT64_MAX);
        QCOMPARE(inspection.ranks[0].totalDurationMicros, UINT64_MAX);
    }

    void communicatorGroups()
    {
        const graph::ChakraCommGroups groups = { { "1", { 0, 1 } } };
        ChakraNode inGroup = collective(1, graph::ChakraCollective::AllReduce, 8, {});
        inGroup.attributes.push_back(ChakraAttribute::text("pg_name", "1"));
        ChakraNode unknown = collective(2, graph::ChakraCollective::AllReduce, 8, {});
        unknown.attributes.push_back(ChakraAttribute::text("pg_name", "5"));
        const auto inspection = graph::inspectChakra(
            { rank(0, { inGroup }), rank(1, { inGroup }), rank(2, { inGroup, unknown }) }, &groups);
        const auto defects = defectsOf(inspection, ChakraDefectKind::UnknownGroup);
        QCOMPARE(defects.size(), size_t { 2 }); // rank 2 not a member of "1"; group "5" unknown
        QCOMPARE(defects[0].rank, 2);
        QVERIFY(defectsOf(inspection, ChakraDefectKind::CollectiveOrderMismatch).empty());
    }

    void inspectingFilesOneByOneFindsWhatInspectingTheWholeSetFinds()
    {
        using C = graph::ChakraCollective;
        // Group "1" = ranks 0, 1, 3 (2 is missing from the set); rank 3 issues its group's collectives in another
        // order, rank 1 issues nothing in it; rank 0's send to 1 has no receive; a collective without pg_name on 0
        // and 4 only; rank 4 issues in group "9", which is not in the file.
        auto grouped = [](ChakraNode node, const char* group) {
            node.attributes.push_back(ChakraAttribute::text("pg_name", group));
            return node;
        };
        const std::vector<ChakraTrace> traces {
            rank(0,
                { grouped(collective(1, C::AllReduce, 100, {}), "1"),
                    grouped(collective(2, C::AllGather, 50, { 1 }), "1"), p2p(3, true, 1, 7, 64),
                    collective(4, C::AllReduce, 8, {}) }),
            rank(1, { comp(1, 5) }),
            rank(3,
                { grouped(collective(1, C::AllGather, 50, {}), "1"),
                    grouped(collective(2, C::AllReduce, 100, { 1 }), "1") }),
            rank(4, { collective(1, C::AllReduce, 8, {}), grouped(collective(2, C::AllReduce, 8, { 1 }), "9") }),
        };
        const graph::ChakraCommGroups groups { { "1", { 0, 1, 2, 3 } } };
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        graph::writeChakraDirectory(dir.path().toStdString(), "set", traces);
        const std::vector<ChakraTrace> read = graph::readChakraDirectory(dir.path().toStdString());
        const graph::ChakraInspection whole = graph::inspectChakra(read, &groups);
        // Rank 1 (nothing), rank 3 (other order), rank 1 and 3 without the unnamed collective, the lonely send, the
        // missing rank 2, the unknown group "9".
        QCOMPARE(defectsOf(whole, ChakraDefectKind::CollectiveOrderMismatch).size(), size_t { 4 });
        QCOMPARE(defectsOf(whole, ChakraDefectKind::UnmatchedSend).size(), size_t { 1 });
        QCOMPARE(defectsOf(whole, ChakraDefectKind::MissingRank).size(), size_t { 1 });
        QCOMPARE(defectsOf(whole, ChakraDefectKind::UnknownGroup).size(), size_t { 1 });
        const auto files = graph::listChakraSet(dir.path().toStdString());
        for (const unsigned threads : { 1u, 2u, 3u }) {
            QVERIFY(graph::inspectChakraFiles(files, &groups, threads) == whole);
        }
        QVERIFY(graph::inspectChakraFiles(files, nullptr, 2) == graph::inspectChakra(read));
    }

    void samples_data()
    {
        QTest::addColumn<QString>("folder");
        QTest::addColumn<int>("errors");
        QTest::addRow("microbench_allreduce_8npus") << QStringLiteral("microbench-allreduce-8npus") << 0;
        QTest::addRow("custom_ring_allreduce_8npus") << QStringLiteral("custom-ring-allreduce-8npus") << 0;
        QTest::addRow("llm_graph_16ranks") << QStringLiteral("llm-graph-16ranks") << 0;
        QTest::addRow("pytorch_kineto_trace") << QStringLiteral("pytorch-kineto-trace") << -1; // some
    }

    void samples()
    {
        RAPID_REQUIRE_CHAKRA_SAMPLES();
        QFETCH(QString, folder);
        QFETCH(int, errors);
        const auto path = test::chakraSamples() / folder.toStdString();
        const auto traces = graph::readChakraDirectory(path);
        std::optional<graph::ChakraCommGroups> groups;
        if (std::filesystem::exists(path / "comm_groups.json")) {
            groups = graph::readChakraCommGroups(path / "comm_groups.json");
        }
        const auto inspection = graph::inspectChakra(traces, groups ? &*groups : nullptr);
        // Inspected straight from the files, file by file on one or two threads: the same inspection.
        for (const unsigned threads : { 1u, 2u }) {
            QVERIFY(graph::inspectChakraFiles(graph::listChakraSet(path), groups ? &*groups : nullptr, threads)
                == inspection);
        }
        std::ostringstream text;
        report::writeChakraInspectionText(text, inspection);
        std::ostringstream json;
        report::writeChakraInspectionJson(json, inspection);
        QVERIFY(json.str().find("\"defects\"") != std::string::npos);
        const size_t found = inspection.count(graph::ChakraSeverity::Error);
        if (errors >= 0) {
            QVERIFY2(found == static_cast<size_t>(errors), text.str().c_str());
        } else {
            QVERIFY(!defectsOf(inspection, ChakraDefectKind::MissingDependency).empty());
        }
        for (const graph::ChakraRankReport& report : inspection.ranks) {
            QVERIFY(report.criticalPathMicros <= report.totalDurationMicros);
        }
    }
};

QTEST_GUILESS_MAIN(TstChakraInspect)
#include "tst_chakrainspect.moc"
