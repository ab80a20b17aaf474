// SPDX-License-Identifier: GPL-3.0-or-later
// DOT text of Chakra traces: a 3-node graph against its expected text, and the filters (name, id range, predicate).
#include "graph/chakradot.h"

#include <QTest>

#include <sstream>

using namespace rapid;
using graph::ChakraAttribute;
using graph::ChakraNode;
using graph::ChakraNodeType;

namespace {

graph::ChakraTrace threeNodes()
{
    graph::ChakraTrace trace;
    trace.rank = 2;
    ChakraNode forward;
    forward.id = 1;
    forward.name = "layer0 \"fwd\" mb0";
    forward.type = ChakraNodeType::Compute;
    forward.durationMicros = 120;
    ChakraNode reduce;
    reduce.id = 2;
    reduce.name = "layer0 grad all-reduce";
    reduce.type = ChakraNodeType::Collective;
    reduce.dataDeps = { 1 };
    reduce.attributes = { ChakraAttribute::int64("comm_type", 0), ChakraAttribute::int64("comm_size", 1048576) };
    ChakraNode optimizer;
    optimizer.id = 7;
    optimizer.name = "optimizer";
    optimizer.type = ChakraNodeType::Compute;
    optimizer.durationMicros = 30;
    optimizer.dataDeps = { 2 };
    optimizer.ctrlDeps = { 1 };
    trace.nodes = { forward, reduce, optimizer };
    return trace;
}

std::string dot(const graph::ChakraTrace& trace, const graph::ChakraDotFilter& filter = {})
{
    std::ostringstream out;
    graph::writeChakraDot(out, trace, filter);
    return out.str();
}

} // namespace

class TstChakraDot : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void wholeGraph()
    {
        const std::string expected
            = "digraph \"rank 2\" {\n"
              "  node [shape=box, fontname=\"Helvetica\", fontsize=10];\n"
              "  edge [color=\"#555555\"];\n"
              "  n1 [label=\"layer0 \\\"fwd\\\" mb0\\nCOMP_NODE\\n120 us\"];\n"
              "  n2 [label=\"layer0 grad all-reduce\\nCOMM_COLL_NODE ALL_REDUCE 1048576 B\\n0 us\", "
              "shape=ellipse, style=filled, fillcolor=\"#f6c28b\"];\n"
              "  n7 [label=\"optimizer\\nCOMP_NODE\\n30 us\"];\n"
              "  n1 -> n2;\n"
              "  n2 -> n7;\n"
              "  n1 -> n7 [style=dashed];\n"
              "}\n";
        QCOMPARE(dot(threeNodes()), expected);
    }

    void filters()
    {
        graph::ChakraDotFilter byName;
        byName.nameContains = "layer0";
        const std::string named = dot(threeNodes(), byName);
        QVERIFY(named.find("n1 -> n2;") != std::string::npos);
        QVERIFY(named.find("n7") == std::string::npos); // neither the node nor its edges

        graph::ChakraDotFilter byIds;
        byIds.firstId = 2;
        byIds.lastId = 7;
        const std::string ranged = dot(threeNodes(), byIds);
        QVERIFY(ranged.find("  n1 ") == std::string::npos);
        QVERIFY(ranged.find("n2 -> n7;") != std::string::npos);
        QVERIFY(ranged.find("dashed") == std::string::npos);

        graph::ChakraDotFilter comm;
        comm.predicate = [](const ChakraNode& node) { return graph::isCommunication(node.type); };
        QCOMPARE(dot(threeNodes(), comm).find("->"), std::string::npos);
        QVERIFY(dot(threeNodes(), comm).find("  n2 [") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TstChakraDot)
#include "tst_chakradot.moc"
