// SPDX-License-Identifier: GPL-3.0-or-later
// The Chakra reader against every sample written by other tools (node counts from an independent frame walk and from
// the samples' README and manifest), the worked example of the format note, set discovery by rank, and clear errors
// with byte offsets for broken input.
#include "chakratestutils.h"

#include "graph/chakracollectivelibrary.h"
#include "graph/chakrareader.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace rapid;
using graph::ChakraAttributeType;
using graph::ChakraNodeType;

namespace {

std::string hexBytes(std::initializer_list<int> values)
{
    std::string bytes;
    for (const int value : values) {
        bytes.push_back(static_cast<char>(value));
    }
    return bytes;
}

} // namespace

class TstChakraReader : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void sampleSets_data()
    {
        QTest::addColumn<QString>("folder");
        QTest::addColumn<int>("ranks");
        QTest::addRow("microbench_allreduce_8npus") << QStringLiteral("microbench-allreduce-8npus") << 8;
        QTest::addRow("custom_ring_allreduce_8npus") << QStringLiteral("custom-ring-allreduce-8npus") << 8;
        QTest::addRow("llm_graph_16ranks") << QStringLiteral("llm-graph-16ranks") << 16;
        QTest::addRow("pytorch_kineto_trace") << QStringLiteral("pytorch-kineto-trace") << 1;
    }

    void sampleSets()
    {
        RAPID_REQUIRE_CHAKRA_SAMPLES();
        QFETCH(QString, folder);
        QFETCH(int, ranks);
        const auto traces = graph::readChakraDirectory(test::chakraSamples() / folder.toStdString());
        QCOMPARE(static_cast<int>(traces.size()), ranks);
        for (size_t i = 0; i < traces.size(); ++i) {
            QCOMPARE(traces[i].rank, static_cast<int>(i)); // sorted numerically: 2 before 10
            const auto frames = test::splitFrames(test::readBytes(traces[i].path));
            QVERIFY(frames);
            QCOMPARE(traces[i].nodes.size(), frames->size() - 1);
        }
    }

    void kinetoTraceAsReadmeStates()
    {
        RAPID_REQUIRE_CHAKRA_SAMPLES();
        const auto trace = graph::readChakraFile(test::chakraSamples() / "pytorch-kineto-trace" / "chakra.0.et");
        QCOMPARE(trace.nodes.size(), size_t { 3664 });
        size_t dataEdges = 0;
        size_t withInputs = 0;
        for (const graph::ChakraNode& node : trace.nodes) {
            dataEdges += node.dataDeps.size();
            withInputs += node.inputs.has_value();
        }
        QVERIFY2(dataEdges > 175000 && dataEdges < 190000, std::to_string(dataEdges).c_str()); // "~182k"
        QVERIFY(withInputs > 0);
        QCOMPARE(trace.nodes.front().id, std::uint64_t { 216 });
        QCOMPARE(trace.nodes.front().name, std::string("aten::flatten_dense_tensors(0)"));
        QVERIFY(trace.metadata.version.empty());
        QCOMPARE(trace.metadata.attributes.front().name, std::string("schema"));
        QCOMPARE(*trace.metadata.attributes.front().string(), std::string("1.0.1"));
    }

    void pytorchTracesNameTheirNcclKernels()
    {
        // The converted PyTorch trace's collectives are NCCL's kernels (five ncclKernel_AllReduce_RING_LL and two
        // ncclKernel_Broadcast_RING_LL nodes with comm_type; its c10d:: COMM_COLL_NODEs, without comm_type, are host
        // calls): a replay takes NCCL without being told. ASTRA-sim's microbenchmark names its node "all_reduce" and
        // the RAPID-LLM-style exporter's collectives are not kernels: neither says which library ran.
        RAPID_REQUIRE_CHAKRA_SAMPLES();
        const std::vector<graph::ChakraTrace> pytorch
            = { graph::readChakraFile(test::chakraSamples() / "pytorch-kineto-trace" / "chakra.0.et") };
        QVERIFY(!graph::recordedCollectiveLibrary(pytorch).has_value());
        QVERIFY(graph::kernelNamedCollectiveLibrary(pytorch) == network::CollectiveLibrary::Nccl);
        for (const char* folder : { "microbench-allreduce-8npus", "llm-graph-16ranks" }) {
            QVERIFY2(!graph::kernelNamedCollectiveLibrary(graph::readChakraDirectory(test::chakraSamples() / folder))
                          .has_value(),
                folder);
        }
    }

    void llmGraphCountsMatchManifest()
    {
        RAPID_REQUIRE_CHAKRA_SAMPLES();
        const auto folder = test::chakraSamples() / "llm-graph-16ranks";
        QFile manifestFile(QString::fromStdString((folder / "manifest.json").string()));
        QVERIFY(manifestFile.open(QIODevice::ReadOnly));
        const QJsonObject manifest = QJsonDocument::fromJson(manifestFile.readAll()).object();
        const QJsonObject ranks = manifest.value(QStringLiteral("ranks")).toObject();
        const auto traces = graph::readChakraDirectory(folder);
        QCOMPARE(traces.size(), size_t { 16 });
        for (const graph::ChakraTrace& trace : traces) {
            const QJsonArray expected = ranks.value(QString::number(trace.rank)).toArray();
            QCOMPARE(static_cast<qsizetype>(trace.nodes.size()), expected.size());
            size_t comp = 0;
            for (const auto& entry : expected) {
                comp += entry.toArray().at(0).toString() == QStringLiteral("COMP");
            }
            QCOMPARE(static_cast<size_t>(std::count_if(trace.nodes.begin(), trace.nodes.end(),
                         [](const graph::ChakraNode& node) { return node.type == ChakraNodeType::Compute; })),
                comp);
        }
    }

    void workedExampleOfTheFormatNote()
    {
        RAPID_REQUIRE_CHAKRA_SAMPLES();
        const auto trace
            = graph::readChakraFile(test::chakraSamples() / "microbench-allreduce-8npus" / "all_reduce.3.et");
        QCOMPARE(trace.rank, 3);
        QCOMPARE(trace.metadata.version, std::string("0.0.4"));
        QCOMPARE(trace.nodes.size(), size_t { 1 });
        const graph::ChakraNode& node = trace.nodes.front();
        QCOMPARE(node.id, std::uint64_t { 3 });
        QCOMPARE(node.name, std::string("all_reduce_8npus_1MB"));
        QCOMPARE(node.type, ChakraNodeType::Collective);
        QCOMPARE(node.attributes.size(), size_t { 3 });
        QCOMPARE(node.attributes[0].name, std::string("is_cpu_op"));
        QCOMPARE(node.attributes[0].type, ChakraAttributeType::Bool); // present although false
        QCOMPARE(node.attribute("comm_type")->type, ChakraAttributeType::Int64);
        QCOMPARE(*node.integerAttribute("comm_type"), std::int64_t { 0 }); // present although 0
        QCOMPARE(*node.integerAttribute("comm_size"), std::int64_t { 1048576 });
        // Rank 0's node has id 0, which is not on the wire at all.
        const auto first
            = graph::readChakraFile(test::chakraSamples() / "microbench-allreduce-8npus" / "all_reduce.0.et");
        QCOMPARE(first.nodes.front().id, std::uint64_t { 0 });
    }

    void unpackedRepeatedAndUnknownFields()
    {
        // Node: id 5 (08 05), ctrl_deps unpacked (20 01, 20 02), data_deps packed (2a 02 03 04), an unknown field
        // 15 varint (78 07), type COMP (18 04).
        const std::string node
            = hexBytes({ 0x08, 0x05, 0x20, 0x01, 0x20, 0x02, 0x2a, 0x02, 0x03, 0x04, 0x78, 0x07, 0x18, 0x04 });
        const std::string bytes = hexBytes({ 0x00, static_cast<int>(node.size()) }) + node;
        const auto trace = graph::parseChakraTrace(bytes);
        QCOMPARE(trace.nodes.size(), size_t { 1 });
        QCOMPARE(trace.nodes[0].id, std::uint64_t { 5 });
        QCOMPARE(trace.nodes[0].ctrlDeps, (std::vector<std::uint64_t> { 1, 2 }));
        QCOMPARE(trace.nodes[0].dataDeps, (std::vector<std::uint64_t> { 3, 4 }));
        QCOMPARE(trace.nodes[0].type, ChakraNodeType::Compute);
    }

    void brokenInput_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<qulonglong>("offset");
        QTest::addColumn<QString>("problem");
        auto raw = [](std::initializer_list<int> values) {
            const std::string bytes = hexBytes(values);
            return QByteArray(bytes.data(), static_cast<qsizetype>(bytes.size()));
        };
        QTest::addRow("empty") << QByteArray() << 0ull << QStringLiteral("empty file");
        QTest::addRow("gzip") << raw({ 0x1f, 0x8b, 0x08, 0x00 }) << 0ull << QStringLiteral("gzip");
        QTest::addRow("prefix_cut_off") << raw({ 0x00, 0x80 }) << 1ull << QStringLiteral("length prefix cut off");
        QTest::addRow("prefix_too_long") << raw({ 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 }) << 1ull
                                         << QStringLiteral("malformed length prefix");
        QTest::addRow("prefix_above_4GiB")
            << raw({ 0x00, 0xff, 0xff, 0xff, 0xff, 0x7f }) << 1ull << QStringLiteral("malformed length prefix");
        QTest::addRow("frame_beyond_end")
            << raw({ 0x00, 0x05, 0x08, 0x01 }) << 1ull << QStringLiteral("declares 5 bytes but only 2 remain");
        QTest::addRow("huge_frame_claim")
            << raw({ 0x00, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x08 }) << 1ull << QStringLiteral("but only 1 remain");
        QTest::addRow("bad_metadata") << raw({ 0x02, 0x0a, 0x05 }) << 0ull
                                      << QStringLiteral("not a valid GlobalMetadata");
        QTest::addRow("bad_node_wire_type")
            << raw({ 0x00, 0x02, 0x0f, 0x00 }) << 1ull << QStringLiteral("frame 1 (node 0)");
        QTest::addRow("node_string_overruns_frame")
            << raw({ 0x00, 0x03, 0x12, 0x09, 0x41 }) << 1ull << QStringLiteral("not a valid Node");
        QTest::addRow("invalid_utf8_name")
            << raw({ 0x00, 0x03, 0x12, 0x01, 0xff }) << 1ull << QStringLiteral("not a valid Node");
    }

    void brokenInput()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(qulonglong, offset);
        QFETCH(QString, problem);
        try {
            graph::parseChakraTrace(std::string_view(bytes.constData(), static_cast<size_t>(bytes.size())), "x.0.et");
            QFAIL("no ChakraError");
        } catch (const graph::ChakraError& error) {
            QCOMPARE(error.file(), std::string("x.0.et"));
            QCOMPARE(error.offset(), std::uint64_t { offset });
            QVERIFY2(error.problem().find(problem.toStdString()) != std::string::npos, error.what());
            QVERIFY(std::string(error.what()).starts_with("x.0.et: byte "));
        }
    }

    void rankFromFileName_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("rank");
        QTest::addRow("plain") << QStringLiteral("all_reduce.7.et") << 7;
        QTest::addRow("two_digits") << QStringLiteral("llm_graph.15.et") << 15;
        QTest::addRow("dotted_prefix") << QStringLiteral("a.b.3.et") << 3;
        QTest::addRow("no_rank") << QStringLiteral("trace.et") << -1;
        QTest::addRow("not_a_number") << QStringLiteral("trace.x1.et") << -1;
        QTest::addRow("other_extension") << QStringLiteral("trace.1.json") << -1;
    }

    void rankFromFileName()
    {
        QFETCH(QString, name);
        QFETCH(int, rank);
        QCOMPARE(graph::chakraRankFromFileName(name.toStdString()).value_or(-1), rank);
    }

    void directoryPrefixAndErrors()
    {
        QTemporaryDir dir;
        const std::filesystem::path root = dir.path().toStdString();
        const std::string minimal = hexBytes({ 0x00, 0x02, 0x18, 0x04 });
        for (const char* name : { "a.0.et", "a.1.et", "a.10.et", "b.0.et" }) {
            std::ofstream(root / name, std::ios::binary) << minimal;
        }
        QVERIFY_THROWS_EXCEPTION(graph::ChakraError, graph::readChakraDirectory(root)); // two prefixes
        const auto a = graph::readChakraDirectory(root / "a");
        QCOMPARE(a.size(), size_t { 3 });
        QCOMPARE(a[2].rank, 10);
        QCOMPARE(graph::readChakraDirectory(root / "b.0.et").size(), size_t { 1 });
        QVERIFY_THROWS_EXCEPTION(graph::ChakraError, graph::readChakraDirectory(root / "c"));
        QVERIFY_THROWS_EXCEPTION(graph::ChakraError, graph::readChakraFile(root / "missing.0.et"));
    }
};

QTEST_GUILESS_MAIN(TstChakraReader)
#include "tst_chakrareader.moc"
