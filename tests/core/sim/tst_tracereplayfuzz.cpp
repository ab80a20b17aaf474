// SPDX-License-Identifier: GPL-3.0-or-later
// Random and hostile trace sets (dangling, self and cyclic dependencies, peers outside the job, self-sends, unknown
// node and collective types, absurd sizes, groups that do not exist or leave ranks out) must replay or be refused
// with an exception that says why, on both backends, never crash or hang. Runs under ASan+UBSan in CI (label fuzz).
#include "../network/networktestutils.h"
#include "network/router.h"
#include "sim/flowsimulator.h"
#include "sim/tracereplay.h"

#include <QTest>

#include <random>

using namespace rapid;
using graph::ChakraAttribute;
using graph::ChakraNode;
using graph::ChakraNodeType;

namespace {

/// A hostile set mixes everything; a tame one keeps ranks, types and peers plausible (compute, memory and metadata
/// nodes with random dependencies, and the same all-reduces on every rank), so that replays also run to the end.
std::vector<graph::ChakraTrace> randomTraces(std::mt19937& random, bool hostile)
{
    auto pick = [&](int n) { return static_cast<int>(random() % static_cast<unsigned>(n)); };
    if (!hostile) {
        const int ranks = 1 + pick(6);
        const int collectives = pick(3);
        std::vector<graph::ChakraTrace> traces(static_cast<size_t>(ranks));
        for (int r = 0; r < ranks; ++r) {
            graph::ChakraTrace& trace = traces[static_cast<size_t>(r)];
            trace.rank = r;
            const int nodes = 1 + pick(30);
            for (int i = 0; i < nodes; ++i) {
                ChakraNode node;
                node.id = static_cast<std::uint64_t>(i);
                const ChakraNodeType types[] = { ChakraNodeType::Compute, ChakraNodeType::MemLoad,
                    ChakraNodeType::Metadata, ChakraNodeType::Invalid };
                node.type = types[pick(4)];
                node.durationMicros = static_cast<std::uint64_t>(pick(1000));
                if (i > 0 && pick(2)) {
                    node.dataDeps.push_back(static_cast<std::uint64_t>(pick(i)));
                }
                trace.nodes.push_back(std::move(node));
            }
            for (int c = 0; c < collectives; ++c) {
                ChakraNode node;
                node.id = static_cast<std::uint64_t>(nodes + c);
                node.type = ChakraNodeType::Collective;
                node.dataDeps.push_back(static_cast<std::uint64_t>(pick(nodes + c)));
                node.attributes = { ChakraAttribute::int64("comm_type", c % 2 ? 7 : 0),
                    ChakraAttribute::int64("comm_size", 1 << (10 + c)) };
                trace.nodes.push_back(std::move(node));
            }
        }
        return traces;
    }
    const int ranks = 1 + pick(6);
    std::vector<graph::ChakraTrace> traces(static_cast<size_t>(ranks));
    for (int r = 0; r < ranks; ++r) {
        graph::ChakraTrace& trace = traces[static_cast<size_t>(r)];
        trace.rank = pick(10) == 0 ? pick(12) : r; // now and then a duplicate or out-of-network rank
        const int nodes = pick(30);
        for (int i = 0; i < nodes; ++i) {
            ChakraNode node;
            node.id = static_cast<std::uint64_t>(pick(8) == 0 ? pick(40) : i);
            const int type = pick(10);
            node.type = static_cast<ChakraNodeType>(type < 9 ? type % 8 : 42);
            node.durationMicros = static_cast<std::uint64_t>(pick(4) == 0 ? 0 : pick(1000));
            for (int d = pick(3); d > 0; --d) {
                (pick(2) ? node.dataDeps : node.ctrlDeps).push_back(static_cast<std::uint64_t>(pick(i + 3)));
            }
            const std::int64_t sizes[] = { 0, 1, 1 << 20, -5, std::int64_t { 1 } << 50 };
            node.attributes.push_back(ChakraAttribute::int64("comm_type", pick(12) - 1));
            node.attributes.push_back(ChakraAttribute::int64("comm_size", sizes[pick(5)]));
            node.attributes.push_back(ChakraAttribute::int32("comm_src", pick(9) - 1));
            node.attributes.push_back(ChakraAttribute::int32("comm_dst", pick(9) - 1));
            node.attributes.push_back(ChakraAttribute::int32("comm_tag", pick(3)));
            if (pick(3) == 0) {
                node.attributes.push_back(ChakraAttribute::text("pg_name", std::to_string(pick(4))));
            }
            if (pick(5) == 0) {
                node.attributes.push_back(ChakraAttribute::int64("num_ops", pick(1000000)));
                node.attributes.push_back(ChakraAttribute::int64("tensor_size", pick(1000000)));
            }
            trace.nodes.push_back(std::move(node));
        }
    }
    return traces;
}

} // namespace

class TestTraceReplayFuzz : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void hostileTracesAreReplayedOrRefused()
    {
        const config::HardwareSpec hardware
            = test::hardware({ test::dimension("ring", config::NetworkKind::Ring, 8, 50, 500) });
        const graph::ChakraCommGroups groups = { { "1", { 0, 1 } }, { "2", { 2, 3, 9 } } };
        std::mt19937 random(20261122);
        int replayed = 0;
        int refused = 0;
        for (int round = 0; round < 1500; ++round) {
            const std::vector<graph::ChakraTrace> traces = randomTraces(random, round % 2 == 0);
            for (sim::NetworkBackend backend : { sim::NetworkBackend::Analytical, sim::NetworkBackend::Congestion }) {
                try {
                    const sim::ReplayResult result = sim::replayChakra(traces, groups, hardware, backend);
                    QVERIFY(result.makespan >= 0);
                    ++replayed;
                } catch (const sim::ReplayDeadlock& error) {
                    QVERIFY(std::string(error.what()).find("rank") != std::string::npos);
                    ++refused;
                } catch (const network::UnreachableError&) {
                    ++refused;
                } catch (const std::invalid_argument& error) {
                    QVERIFY(std::string(error.what()).size() > 10);
                    ++refused;
                }
            }
        }
        qInfo("%d replayed, %d refused with a reason", replayed, refused);
        QVERIFY(replayed > 100);
        QVERIFY(refused > 100);
    }
};

QTEST_APPLESS_MAIN(TestTraceReplayFuzz)
#include "tst_tracereplayfuzz.moc"
