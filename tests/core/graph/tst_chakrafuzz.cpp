// SPDX-License-Identifier: GPL-3.0-or-later
// Mutation test of the Chakra reader: thousands of truncated and corrupted versions of the sample files (seeded RNG,
// so failures reproduce). Every outcome must be a parsed trace or a ChakraError pointing inside the input; parsed
// traces must survive inspection and re-serialisation. A crash, hang or any other exception fails the test.
#include "chakratestutils.h"

#include "graph/chakrainspect.h"
#include "graph/chakrareader.h"
#include "graph/chakrawriter.h"

#include <QTest>

#include <random>

using namespace rapid;

namespace {

struct Outcomes {
    int parsed = 0;
    int rejected = 0;
};

std::string mutate(const std::string& original, std::mt19937_64& rng)
{
    std::string bytes = original;
    auto position = [&rng](size_t size) { return std::uniform_int_distribution<size_t>(0, size ? size - 1 : 0)(rng); };
    auto randomByte = [&rng]() { return static_cast<char>(std::uniform_int_distribution<int>(0, 255)(rng)); };
    switch (std::uniform_int_distribution<int>(0, 5)(rng)) {
    case 0: // truncate anywhere
        bytes.resize(std::uniform_int_distribution<size_t>(0, bytes.size())(rng));
        break;
    case 1: // flip a few bits
        for (int i = std::uniform_int_distribution<int>(1, 8)(rng); i > 0 && !bytes.empty(); --i) {
            bytes[position(bytes.size())] ^= static_cast<char>(1 << std::uniform_int_distribution<int>(0, 7)(rng));
        }
        break;
    case 2: // overwrite a few bytes
        for (int i = std::uniform_int_distribution<int>(1, 8)(rng); i > 0 && !bytes.empty(); --i) {
            bytes[position(bytes.size())] = randomByte();
        }
        break;
    case 3: // insert random bytes
        bytes.insert(position(bytes.size() + 1), std::string(std::uniform_int_distribution<size_t>(1, 6)(rng), '\0'));
        for (int i = 0; i < 6 && !bytes.empty(); ++i) {
            bytes[position(bytes.size())] = randomByte();
        }
        break;
    case 4: // delete a run
        if (!bytes.empty()) {
            const size_t at = position(bytes.size());
            bytes.erase(at, std::uniform_int_distribution<size_t>(1, 16)(rng));
        }
        break;
    default: // corrupt a length-prefix-looking byte: set the continuation bit
        if (!bytes.empty()) {
            bytes[position(std::min<size_t>(bytes.size(), 64))] |= static_cast<char>(0x80);
        }
        break;
    }
    return bytes;
}

void exercise(const std::string& bytes, Outcomes& outcomes)
{
    try {
        graph::ChakraTrace trace = graph::parseChakraTrace(bytes, "fuzz.0.et");
        ++outcomes.parsed;
        const graph::ChakraInspection inspection = graph::inspectChakra({ trace });
        QCOMPARE(inspection.ranks.size(), size_t { 1 });
        // What was read can be written and read back unchanged.
        const std::string written = graph::serializeChakraTrace(trace);
        QCOMPARE(graph::parseChakraTrace(written).nodes, trace.nodes);
    } catch (const graph::ChakraError& error) {
        ++outcomes.rejected;
        QVERIFY2(error.offset() <= bytes.size(), error.what());
    }
}

} // namespace

class TstChakraFuzz : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void mutatedSamples_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("iterations");
        QTest::addRow("microbench_rank3") << QStringLiteral("microbench-allreduce-8npus/all_reduce.3.et") << 3000;
        QTest::addRow("custom_ring_rank0")
            << QStringLiteral("custom-ring-allreduce-8npus/custom_allreduce.0.et") << 1500;
        QTest::addRow("llm_graph_rank0") << QStringLiteral("llm-graph-16ranks/llm_graph.0.et") << 1500;
        QTest::addRow("pytorch_kineto") << QStringLiteral("pytorch-kineto-trace/chakra.0.et") << 40;
    }

    void mutatedSamples()
    {
        RAPID_REQUIRE_CHAKRA_SAMPLES();
        QFETCH(QString, file);
        QFETCH(int, iterations);
        const std::string original = test::readBytes(test::chakraSamples() / file.toStdString());
        QVERIFY(!original.empty());
        std::mt19937_64 rng(0x5eed'c4a7'0000'0007ull ^ std::hash<std::string> {}(file.toStdString()));
        Outcomes outcomes;
        for (int i = 0; i < iterations; ++i) {
            exercise(mutate(original, rng), outcomes);
            if (QTest::currentTestFailed()) {
                qWarning("failed at iteration %d", i);
                return;
            }
        }
        qInfo("%s: %d parsed, %d rejected with ChakraError", qPrintable(file), outcomes.parsed, outcomes.rejected);
        QCOMPARE(outcomes.parsed + outcomes.rejected, iterations);
        QVERIFY(outcomes.rejected > 0);
    }

    void everyTruncationOfASmallFile()
    {
        RAPID_REQUIRE_CHAKRA_SAMPLES();
        const std::string original
            = test::readBytes(test::chakraSamples() / "custom-ring-allreduce-8npus" / "custom_allreduce.1.et");
        Outcomes outcomes;
        for (size_t length = 0; length < original.size(); length += 7) {
            exercise(original.substr(0, length), outcomes);
        }
        QVERIFY(outcomes.rejected > 0);
    }

    void randomBytes()
    {
        std::mt19937_64 rng(42);
        Outcomes outcomes;
        for (int i = 0; i < 2000; ++i) {
            std::string bytes(std::uniform_int_distribution<size_t>(0, 200)(rng), '\0');
            for (char& byte : bytes) {
                byte = static_cast<char>(std::uniform_int_distribution<int>(0, 255)(rng));
            }
            exercise(bytes, outcomes);
            if (QTest::currentTestFailed()) {
                return;
            }
        }
        QCOMPARE(outcomes.parsed + outcomes.rejected, 2000);
    }
};

QTEST_GUILESS_MAIN(TstChakraFuzz)
#include "tst_chakrafuzz.moc"
