// SPDX-License-Identifier: GPL-3.0-or-later
// Wrong inputs of many kinds: each must give an error naming file:line:column and the key path, and say what is
// expected. Lines and columns below are counted by hand in the test documents (1-based).
#include "config/utf8.h"
#include "testutils.h"

#include <QTest>

#include <algorithm>
#include <optional>
#include <tuple>

using namespace rapid;

namespace {

// A valid model document; tests replace one line to break it. Line numbers: 1 "model:", 2 name, 3 num_layers...
const std::string kModel = "model:\n" // 1
                           "  name: Tiny\n" // 2
                           "  num_layers: 4\n" // 3
                           "  hidden_size: 256\n" // 4
                           "  num_heads: 8\n" // 5
                           "  num_kv_heads: 4\n" // 6
                           "  ffn_size: 1024\n" // 7
                           "  ffn_gated: true\n" // 8
                           "  activation: silu\n" // 9
                           "  norm: rmsnorm\n" // 10
                           "  vocab_size: 1000\n" // 11
                           "  tied_embeddings: false\n" // 12
                           "  position_embedding: rope\n" // 13
                           "  max_context: 4096\n"; // 14

const std::string kGpu = "gpu:\n" // 1
                         "  name: TestGPU\n" // 2
                         "  sm_count: 4\n" // 3
                         "  clock_GHz: 1.0\n" // 4
                         "  tensor_TFLOPs: {bf16: 100}\n" // 5
                         "  vector_fp32_TFLOPs: 10\n" // 6
                         "  hbm:\n" // 7
                         "    capacity_GiB: 16\n" // 8
                         "    bandwidth_GBps: 1000\n" // 9
                         "  l2:\n" // 10
                         "    size_MiB: 8\n" // 11
                         "    bandwidth_GBps: 4000\n" // 12
                         "  shared_memory_per_sm_KiB: 100\n" // 13
                         "  kernel_launch_us: 4\n"; // 14

const std::string kHardware = "hardware:\n" // 1
                              "  name: Two nodes\n" // 2
                              "  gpu: gpu.yaml\n" // 3
                              "  cluster:\n" // 4
                              "    gpus_per_node: 4\n" // 5
                              "    network:\n" // 6
                              "      - name: nvlink\n" // 7
                              "        kind: switch\n" // 8
                              "        size: 4\n" // 9
                              "        link_bandwidth_GBps: 300\n" // 10
                              "        latency_ns: 300\n" // 11
                              "      - name: ib\n" // 12
                              "        kind: fat-tree\n" // 13
                              "        size: 2\n" // 14
                              "        link_bandwidth_GBps: 25\n" // 15
                              "        latency_ns: 700\n" // 16
                              "        tiers: 1\n" // 17
                              "        switch_radix: 8\n"; // 18

const std::string kRun = "run:\n" // 1
                         "  mode: training\n" // 2
                         "  training:\n" // 3
                         "    global_batch: 8\n" // 4
                         "    micro_batch: 1\n" // 5
                         "    seq_length: 1024\n" // 6
                         "  parallelism:\n" // 7
                         "    tp: 4\n" // 8
                         "    pp: 1\n" // 9
                         "    dp: 2\n" // 10
                         "    schedule: 1f1b\n"; // 11

std::string replaceLine(const std::string& text, int line, const std::string& replacement)
{
    std::string result;
    int current = 1;
    size_t start = 0;
    while (start <= text.size()) {
        const size_t end = text.find('\n', start);
        const std::string content = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
        if (end == std::string::npos && content.empty()) {
            break;
        }
        result += (current == line ? replacement : content) + "\n";
        ++current;
        if (end == std::string::npos) {
            break;
        }
        start = end + 1;
    }
    return result;
}

} // namespace

class TstConfigErrors : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void validScenarioLoads();
    void reportsFileLineColumnAndKey_data();
    void reportsFileLineColumnAndKey();
    void reportsEveryProblemOfADocument();
    void unknownPresetListsTheAlternatives();
    void precisionTheGpuLacksListsWhatItHas();
    void blockScaledFormatsOnlyWhereTheyExist_data();
    void blockScaledFormatsOnlyWhereTheyExist();
    void aKeyThatCannotBeReadIsReportedOnce();
    void expertWeightsTakeAWeightOnlyFormat();
    void theSharedExpertOverlapNeedsSharedExpertsAndAllToAlls();
    void theCombinedOneFOneBIsMegatronsWithItsRules();
    void theCollectiveLibraryIsNcclOrCustom();
    void memoryLatenciesComeTogetherAndInOrder();
    void streamSharesScaleWithTheDatasheetBandwidth();
    void bytesThatAreNotUtf8AreRefusedWhereTheyAre();
    void slidingWindowPatternNeedsAWindow();
    void loraOptionsNameTheirKey();
};

void TstConfigErrors::loraOptionsNameTheirKey()
{
    // LoRA on a MoE model (its grouped expert adapters are not modelled), a LoRA dropout without adapters, and
    // Liger-Kernel outside PyTorch FSDP: each the key's own error.
    const std::tuple<const char*, const char*, std::vector<std::string>, const char*> cases[] = {
        { "mixtral-8x7b", "automodel-fsdp2-train", { "run.training.lora_rank=16" }, "run.training.lora_rank" },
        { "llama-3.1-8b", "automodel-fsdp2-train", { "run.training.lora_dropout=0.1" }, "run.training.lora_dropout" },
        { "llama-3.1-8b", "megatron-gpt-train", { "run.liger_kernel=true" }, "run.liger_kernel" },
    };
    for (const auto& [model, run, overrides, key] : cases) {
        const auto diagnostics = test::expectConfigError(
            [&] { test::projectLoader().loadScenario(model, "hgx-h100-8gpu", run, overrides); });
        QVERIFY2(
            std::any_of(diagnostics.begin(), diagnostics.end(), [&](const auto& d) { return d.keyPath == key; }), key);
    }
    const config::Scenario lora
        = test::projectLoader().loadScenario("llama-3.1-8b", "hgx-h100-8gpu", "automodel-fsdp2-train",
            { "run.training.lora_rank=16", "run.training.lora_targets=all_linear", "run.training.lora_dropout=0.1" });
    QCOMPARE(lora.run.loraRank, 16);
    QCOMPARE(lora.run.loraTargets, config::LoraTargets::AllLinear);
    QCOMPARE(lora.run.loraDropout, 0.1);
}

void TstConfigErrors::slidingWindowPatternNeedsAWindow()
{
    // A full-attention pattern without a window, or one that leaves no layer full, is the pattern key's error.
    const std::vector<std::vector<std::string>> cases { { "model.full_attention_every=2" },
        { "model.sliding_window=4096", "model.full_attention_every=33" } };
    for (const auto& overrides : cases) {
        const auto diagnostics = test::expectConfigError([&] {
            test::projectLoader().loadScenario("llama-3.1-8b", "hgx-h100-8gpu", "torchtitan-llama3-train", overrides);
        });
        QCOMPARE(diagnostics.size(), size_t(1));
        QCOMPARE(diagnostics.front().keyPath, std::string("model.full_attention_every"));
    }
    const config::Scenario windowed = test::projectLoader().loadScenario("llama-3.1-8b", "hgx-h100-8gpu",
        "torchtitan-llama3-train", { "model.sliding_window=4096", "model.full_attention_every=2" });
    QCOMPARE(windowed.model.windowedLayerShare(), 0.5);
}

void TstConfigErrors::bytesThatAreNotUtf8AreRefusedWhereTheyAre()
{
    // The table of well-formed UTF-8 sequences (Unicode 15, table 3-7), each case by hand: the offset of the first
    // byte that does not begin a well-formed sequence.
    const std::pair<std::string, std::optional<size_t>> cases[] = {
        { "plain ASCII", std::nullopt },
        { "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80", std::nullopt }, // é, €, an emoji: 2, 3, 4 bytes
        { "\xEF\xBF\xBF\xF4\x8F\xBF\xBF", std::nullopt }, // U+FFFF and U+10FFFF, the largest of 3 and 4 bytes
        { "ab\x80", 2 }, // a continuation byte with no lead
        { "\xC0\xAF", 0 }, // an overlong '/'
        { "x\xE0\x80\xAF", 1 }, // an overlong 3-byte form
        { "\xED\xA0\x80", 0 }, // a surrogate (U+D800)
        { "\xF4\x90\x80\x80", 0 }, // above U+10FFFF
        { "\xF5\x80\x80\x80", 0 }, // no lead byte above F4
        { "ok \xE2\x82", 3 }, // a sequence cut short at the end
        { "\xC3 ", 0 }, // a lead byte followed by ASCII
    };
    for (const auto& [text, expected] : cases) {
        QCOMPARE(config::firstInvalidUtf8(text), expected);
    }
    QCOMPARE(config::positionOf("ab\ncd\nef", 7).line, 3);
    QCOMPARE(config::positionOf("ab\ncd\nef", 7).column, 2);

    // In a document: the stray byte of "Ti\xC3 ny" is line 2, column 11 (after "  name: Ti").
    QTemporaryDir dir;
    const config::ConfigLoader loader = test::projectLoader();
    const std::string hardware = test::writeFile(dir, "hardware.yaml", kHardware);
    test::writeFile(dir, "gpu.yaml", kGpu);
    const std::string run = test::writeFile(dir, "run.yaml", kRun);
    const std::string model = test::writeFile(dir, "model.yaml", replaceLine(kModel, 2, "  name: Ti\xC3 ny"));
    const auto inDocument = test::expectConfigError([&] { loader.loadScenario(model, hardware, run); });
    QCOMPARE(inDocument.size(), size_t { 1 });
    QCOMPARE(inDocument[0].location.line, 2);
    QCOMPARE(inDocument[0].location.column, 11);
    QVERIFY(inDocument[0].message.find("not UTF-8 (0xC3)") != std::string::npos);

    // In an override: named by its key.
    const std::string tidyModel = test::writeFile(dir, "tidy.yaml", kModel);
    const auto inOverride
        = test::expectConfigError([&] { loader.loadScenario(tidyModel, hardware, run, { "model.name=\xFF" }); });
    QCOMPARE(inOverride.size(), size_t { 1 });
    QCOMPARE(inOverride[0].keyPath, std::string("model.name"));
    QVERIFY(inOverride[0].message.find("not UTF-8 (0xFF)") != std::string::npos);
}

void TstConfigErrors::memoryLatenciesComeTogetherAndInOrder()
{
    // The GEMM model's latency bound needs both latencies (an L2 miss pays the DRAM one, a hit the L2 one), and a
    // miss passes through L2, so the DRAM latency cannot be the shorter.
    QTemporaryDir dir;
    const config::ConfigLoader loader = test::projectLoader();
    auto load = [&](const std::string& hbmLatency, const std::string& l2Latency) {
        // Line 9 is hbm's bandwidth, line 12 l2's (one further down once hbm has gained a line).
        std::string gpu = replaceLine(kGpu, 9, "    bandwidth_GBps: 1000" + hbmLatency);
        gpu = replaceLine(gpu, hbmLatency.empty() ? 12 : 13, "    bandwidth_GBps: 4000" + l2Latency);
        test::writeFile(dir, "gpu.yaml", gpu);
        return loader.loadScenario(test::writeFile(dir, "model.yaml", kModel),
            test::writeFile(dir, "hardware.yaml", kHardware), test::writeFile(dir, "run.yaml", kRun));
    };
    const config::Scenario both = load("\n    latency_ns: 400", "\n    latency_ns: 200");
    QCOMPARE(both.hardware.gpu.hbmLatencySeconds, 400e-9);
    QCOMPARE(both.hardware.gpu.l2LatencySeconds, 200e-9);
    QCOMPARE(load("", "").hardware.gpu.hbmLatencySeconds, 0.0); // neither: no latency bound

    struct Case {
        std::string hbm;
        std::string l2;
        std::string key;
        std::string text;
    };
    const Case cases[] = {
        { "\n    latency_ns: 400", "", "hardware.gpu.l2", "together (l2.latency_ns is missing)" },
        { "", "\n    latency_ns: 200", "hardware.gpu.hbm", "together (hbm.latency_ns is missing)" },
        { "\n    latency_ns: 400", "\n    latency_ns: 500", "hardware.gpu.l2", "cannot exceed hbm.latency_ns" },
        { "\n    latency_ns: 1000000", "\n    latency_ns: 200", "hardware.gpu.hbm.latency_ns",
            "1 ms is out of range; expected more than 0 ns and at most 100 us" },
    };
    for (const Case& c : cases) {
        const auto diagnostics = test::expectConfigError([&] { load(c.hbm, c.l2); });
        QCOMPARE(diagnostics.size(), size_t(1));
        QCOMPARE(QString::fromStdString(diagnostics.front().keyPath), QString::fromStdString(c.key));
        QVERIFY(QString::fromStdString(diagnostics.front().location.source).endsWith(QStringLiteral("gpu.yaml")));
        QVERIFY2(diagnostics.front().message.find(c.text) != std::string::npos, diagnostics.front().toString().c_str());
    }
}

void TstConfigErrors::streamSharesScaleWithTheDatasheetBandwidth()
{
    // The measured stream rates are shares of the datasheet bandwidth, so a what-if on that bandwidth carries them
    // along (H100 SXM5: Dot 3.18 and Triad 2.97 of 3.35 TB/s, shares 0.949 and 0.887); a share above 1 would be a
    // stream faster than the memory.
    const config::ConfigLoader loader = test::projectLoader();
    const config::GpuSpec h100 = loader.loadHardware("H100-SXM5-80GB").gpu;
    QCOMPARE(h100.achievedHbmRead(), 3.35e12 * 0.949);
    QCOMPARE(h100.achievedHbmReadWrite(), 3.35e12 * 0.887);
    const config::GpuSpec faster
        = loader.loadHardware("H100-SXM5-80GB", { "hardware.gpu.hbm.bandwidth_GBps=6700" }).gpu;
    QCOMPARE(faster.achievedHbmRead(), 2 * h100.achievedHbmRead());
    const auto diagnostics = test::expectConfigError(
        [&] { loader.loadHardware("H100-SXM5-80GB", { "hardware.gpu.efficiency.hbm_read=1.05" }); });
    QCOMPARE(diagnostics.size(), size_t(1));
    QCOMPARE(diagnostics.front().keyPath, std::string("hardware.gpu.efficiency.hbm_read"));
    QVERIFY2(diagnostics.front().message.find("from 0.01 to 1") != std::string::npos,
        diagnostics.front().toString().c_str());
}

void TstConfigErrors::validScenarioLoads()
{
    QTemporaryDir dir;
    const config::ConfigLoader loader = test::projectLoader();
    test::writeFile(dir, "gpu.yaml", kGpu);
    const config::Scenario scenario = loader.loadScenario(test::writeFile(dir, "model.yaml", kModel),
        test::writeFile(dir, "hardware.yaml", kHardware), test::writeFile(dir, "run.yaml", kRun));
    QCOMPARE(scenario.model.headDim, 32); // 256 / 8
    QCOMPARE(scenario.hardware.cluster.totalGpus(), 8);
    QCOMPARE(scenario.hardware.gpu.hbmCapacityBytes, 16.0 * 1073741824.0);
    QCOMPARE(scenario.hardware.cluster.dimensions[1].linkBandwidth, 25e9);
    QCOMPARE(scenario.run.microBatchesPerStep(), 4); // 8 / (1 * dp 2)
}

void TstConfigErrors::reportsFileLineColumnAndKey_data()
{
    QTest::addColumn<QString>("document"); // which file is broken: model, gpu, hardware, run
    QTest::addColumn<int>("line");
    QTest::addColumn<QString>("replacement");
    QTest::addColumn<QString>("expectedFile");
    QTest::addColumn<int>("expectedLine");
    QTest::addColumn<int>("expectedColumn");
    QTest::addColumn<QString>("expectedKey");
    QTest::addColumn<QString>("expectedText");

    // Unknown key: reported at the key itself (line 3, column 3), with the near miss suggested.
    QTest::addRow("unknown_key_typo") << "model" << 3 << "  num_layer: 4"
                                      << "model.yaml" << 3 << 3 << "model.num_layer"
                                      << "did you mean \"num_layers\"";
    // Wrong type: at the value, column 16 = after "  hidden_size: ".
    QTest::addRow("wrong_type_integer") << "model" << 4 << "  hidden_size: big"
                                        << "model.yaml" << 4 << 16 << "model.hidden_size"
                                        << "expected a whole number";
    // Missing field: reported at the mapping that lacks it (line 2, column 3: the first key of model).
    QTest::addRow("missing_field") << "model" << 11 << "  # vocab_size removed"
                                   << "model.yaml" << 2 << 3 << "model.vocab_size"
                                   << "required key \"vocab_size\"";
    // Bad enum value: lists the accepted words.
    QTest::addRow("bad_choice") << "model" << 10 << "  norm: batchnorm"
                                << "model.yaml" << 10 << 9 << "model.norm"
                                << "layernorm or rmsnorm";
    // A unit of the wrong dimension: a size where a bandwidth is expected.
    QTest::addRow("wrong_unit_dimension") << "gpu" << 9 << "    bandwidth: \"3 TB\""
                                          << "gpu.yaml" << 9 << 16 << "hardware.gpu.hbm.bandwidth"
                                          << "expected a bandwidth";
    // A quantity key without a unit suffix needs a unit string.
    QTest::addRow("missing_unit") << "gpu" << 9 << "    bandwidth: 1000"
                                  << "gpu.yaml" << 9 << 16 << "hardware.gpu.hbm.bandwidth"
                                  << "has no unit";
    // Out of range where zero is allowed: the bound says "at least 0", not the tiny negative the schema keeps
    // (column 21 = after "  kernel_launch_us: ").
    QTest::addRow("negative_where_zero_allowed") << "gpu" << 14 << "  kernel_launch_us: -2"
                                                 << "gpu.yaml" << 14 << 21 << "hardware.gpu.kernel_launch_us"
                                                 << "-2 us is out of range; expected at least 0 ns and at most 1 s";
    // Out of range: a link fault health above 1 (line 20, column 35 = after `    - {link: "ib:0-s1.0", health: `).
    QTest::addRow("health_out_of_range")
        << "hardware" << 18 << "        switch_radix: 8\n  faults:\n    - {link: \"ib:0-s1.0\", health: 1.5}"
        << "hardware.yaml" << 20 << 35 << "hardware.faults[0].health"
        << "expected a number from 0 to 1";
    // A link id naming an endpoint that does not exist.
    QTest::addRow("link_outside_dimension")
        << "hardware" << 18 << "        switch_radix: 8\n  faults:\n    - {link: \"ib:7-s1.0\", health: 0}"
        << "hardware.yaml" << 20 << 14 << "hardware.faults[0].link"
        << "endpoint 7 is outside 0..1";
    // A copy of a dimension that does not exist: the ib fat tree is replicated once per NVLink endpoint (4 rails).
    QTest::addRow("link_copy_outside_cluster")
        << "hardware" << 18 << "        switch_radix: 8\n  faults:\n    - {link: \"ib@4:0-s1.0\", health: 0}"
        << "hardware.yaml" << 20 << 14 << "hardware.faults[0].link"
        << "has 4 copies (0..3)";
    // Cross-document: tp must divide the model's heads (8 heads, tp 3).
    QTest::addRow("tp_does_not_divide_heads") << "run" << 8 << "    tp: 3"
                                              << "run.yaml" << 8 << 9 << "run.parallelism.tp"
                                              << "must divide the model's num_heads";
    // Cross-document: tp*pp*dp*cp = 4*1*4 = 16 GPUs on an 8-GPU cluster; reported at the parallelism mapping.
    QTest::addRow("gpu_count_mismatch") << "run" << 10 << "    dp: 4"
                                        << "run.yaml" << 8 << 5 << "run.parallelism"
                                        << "has 8";
    // Syntax error: an unclosed flow sequence; yaml-cpp reports where it noticed.
    QTest::addRow("yaml_syntax_error") << "run" << 11 << "    schedule: [1f1b"
                                       << "run.yaml" << 12 << 1 << ""
                                       << "YAML syntax error";
    // A key given twice.
    QTest::addRow("duplicate_key") << "run" << 11 << "    pp: 2"
                                   << "run.yaml" << 11 << 5 << "run.parallelism.pp"
                                   << "given twice";
    // Batch arithmetic: 8 sequences cannot be split into micro-batches of 3 on 2 data-parallel ranks.
    QTest::addRow("batch_not_divisible") << "run" << 5 << "    micro_batch: 3"
                                         << "run.yaml" << 4 << 19 << "run.training.global_batch"
                                         << "multiple of micro_batch*dp";
    // A denormal is not a bandwidth: refused where it enters (it used to make every step time infinite).
    QTest::addRow("denormal_bandwidth") << "gpu" << 9 << "    bandwidth_GBps: 5e-324"
                                        << "gpu.yaml" << 9 << 21 << "hardware.gpu.hbm.bandwidth_GBps"
                                        << "expected a finite number";
    // A rate below the physical floor (1 MB/s): 1e-200 GB/s is a normal double but no link.
    QTest::addRow("bandwidth_below_floor")
        << "hardware" << 10 << "        link_bandwidth_GBps: 1e-200"
        << "hardware.yaml" << 10 << 30 << "hardware.cluster.network[0].link_bandwidth_GBps"
        << "expected more than 1 MB/s";
    // A tensor rate below 1 GFLOP/s.
    QTest::addRow("tensor_rate_below_floor") << "gpu" << 5 << "  tensor_TFLOPs: {bf16: 1e-20}"
                                             << "gpu.yaml" << 5 << 25 << "hardware.gpu.tensor_TFLOPs.bf16"
                                             << "out of range";
    // Shared memory no GEMM tile fits in (the GEMM model's smallest CTA tile needs 18 KiB).
    QTest::addRow("shared_memory_below_floor") << "gpu" << 13 << "  shared_memory_per_sm_KiB: 3"
                                               << "gpu.yaml" << 13 << 29 << "hardware.gpu.shared_memory_per_sm_KiB"
                                               << "expected more than 32 KiB";
    // A fat tree too small for its endpoints: one tier of 8 ports, 16 endpoints.
    QTest::addRow("fat_tree_too_small") << "hardware" << 14 << "        size: 16"
                                        << "hardware.yaml" << 18 << 23 << "hardware.cluster.network[1].switch_radix"
                                        << "holds at most 8 endpoints, not 16";
    // A GPU document appended to a hardware document (the workbench once wrote one): either root alone is valid, both
    // would ignore one GPU, so the second root is the error.
    QTest::addRow("hardware_and_gpu_roots") << "hardware" << 18 << "        switch_radix: 8\ngpu:\n  name: Other"
                                            << "hardware.yaml" << 19 << 1 << "gpu"
                                            << "not both";
    // A model shape beyond 10^15 parameters: 2^24 wide with 8 + 4 heads of 2^21 is 3.4 x 10^15 in attention alone.
    QTest::addRow("model_too_large") << "model" << 4 << "  hidden_size: 16777216"
                                     << "model.yaml" << 4 << 16 << "model.hidden_size"
                                     << "at most 10^15 are modelled";
    // The GPU lacks the compute precision.
    QTest::addRow("precision_missing_on_gpu") << "run" << 11 << "    schedule: 1f1b\n  precision: {compute: fp8}"
                                              << "run.yaml" << 12 << 24 << "run.precision.compute"
                                              << "no fp8 tensor rate";
}

void TstConfigErrors::reportsFileLineColumnAndKey()
{
    QFETCH(QString, document);
    QFETCH(int, line);
    QFETCH(QString, replacement);
    QFETCH(QString, expectedFile);
    QFETCH(int, expectedLine);
    QFETCH(int, expectedColumn);
    QFETCH(QString, expectedKey);
    QFETCH(QString, expectedText);

    QTemporaryDir dir;
    auto text = [&](const char* name, const std::string& original) {
        return document == QLatin1String(name) ? replaceLine(original, line, replacement.toStdString()) : original;
    };
    test::writeFile(dir, "gpu.yaml", text("gpu", kGpu));
    const std::string model = test::writeFile(dir, "model.yaml", text("model", kModel));
    const std::string hardware = test::writeFile(dir, "hardware.yaml", text("hardware", kHardware));
    const std::string run = test::writeFile(dir, "run.yaml", text("run", kRun));
    const config::ConfigLoader loader = test::projectLoader();
    const auto diagnostics = test::expectConfigError([&] { loader.loadScenario(model, hardware, run); });
    QVERIFY(!diagnostics.empty());
    const config::Diagnostic& first = diagnostics.front();
    const std::string expectedPath = dir.filePath(expectedFile).toStdString();
    QCOMPARE(QString::fromStdString(first.location.source), QString::fromStdString(expectedPath));
    QCOMPARE(first.location.line, expectedLine);
    QCOMPARE(first.location.column, expectedColumn);
    QCOMPARE(QString::fromStdString(first.keyPath), expectedKey);
    QVERIFY2(QString::fromStdString(first.message).contains(expectedText), first.message.c_str());
    // The one-line form the CLI prints starts with file:line:column.
    const std::string prefix = expectedPath + ":" + std::to_string(expectedLine) + ":" + std::to_string(expectedColumn);
    QVERIFY2(first.toString().rfind(prefix, 0) == 0, first.toString().c_str());
    QVERIFY(first.toString().find('\n') == std::string::npos);
}

void TstConfigErrors::reportsEveryProblemOfADocument()
{
    QTemporaryDir dir;
    std::string model = replaceLine(kModel, 3, "  num_layers: -4");
    model = replaceLine(model, 9, "  activation: swishy");
    model = replaceLine(model, 12, "  tied_embeddings: maybe");
    const config::ConfigLoader loader = test::projectLoader();
    const auto diagnostics
        = test::expectConfigError([&] { loader.loadModel(test::writeFile(dir, "model.yaml", model)); });
    QCOMPARE(diagnostics.size(), size_t(3));
    QCOMPARE(diagnostics[0].location.line, 3);
    QCOMPARE(diagnostics[1].location.line, 9);
    QCOMPARE(diagnostics[2].location.line, 12);
}

void TstConfigErrors::unknownPresetListsTheAlternatives()
{
    const config::ConfigLoader loader = test::projectLoader();
    const auto diagnostics = test::expectConfigError([&] { loader.loadModel("llama-9"); });
    QCOMPARE(diagnostics.size(), size_t(1));
    QVERIFY(diagnostics[0].message.find("no model preset named \"llama-9\"") != std::string::npos);
    QVERIFY(diagnostics[0].message.find("llama-3.1-70b") != std::string::npos);
}

void TstConfigErrors::precisionTheGpuLacksListsWhatItHas()
{
    // FP8 on an A100 (no FP8 tensor cores): an error at the key, naming the precisions the GPU does have, never a
    // silent fallback to another rate.
    const config::ConfigLoader loader = test::projectLoader();
    const auto diagnostics = test::expectConfigError([&] {
        loader.loadScenario("llama-2-7b", "hgx-a100-8gpu", "llama-2-7b-train-4xa100",
            { "run.parallelism.dp=8", "run.training.global_batch=128", "run.precision.compute=fp8" });
    });
    QCOMPARE(diagnostics.size(), size_t(1));
    QCOMPARE(diagnostics[0].keyPath, std::string("run.precision.compute"));
    QVERIFY2(diagnostics[0].message.find("no fp8 tensor rate") != std::string::npos, diagnostics[0].message.c_str());
    QVERIFY2(diagnostics[0].message.find("tf32, bf16, fp16") != std::string::npos, diagnostics[0].message.c_str());
}

void TstConfigErrors::blockScaledFormatsOnlyWhereTheyExist_data()
{
    QTest::addColumn<QString>("hardware");
    QTest::addColumn<QString>("run");
    QTest::addColumn<QStringList>("overrides");
    QTest::addColumn<QString>("expectedKey");
    QTest::addColumn<QString>("expectedText");
    const QStringList w4a4
        = { QStringLiteral("run.precision.compute=nvfp4"), QStringLiteral("run.precision.weights=nvfp4") };
    // No FP4 tensor cores before Blackwell: the precisions the H100 has are named.
    QTest::addRow("h100") << "h100-sxm5-80gb"
                          << "llama-serve-a100" << w4a4 << "run.precision.compute"
                          << "no nvfp4 tensor rate in its preset; expected one it has: fp32, tf32, bf16, fp16, fp8";
    // NVFP4 GEMMs without NVFP4 weights, and NVFP4 weights under bf16 GEMMs.
    QTest::addRow("compute_only") << "b200"
                                  << "llama-serve-a100" << QStringList { QStringLiteral("run.precision.compute=nvfp4") }
                                  << "run.precision.weights"
                                  << "both nvfp4, or neither";
    QTest::addRow("weights_only") << "b200"
                                  << "llama-serve-a100" << QStringList { QStringLiteral("run.precision.weights=nvfp4") }
                                  << "run.precision.compute"
                                  << "both nvfp4, or neither";
    // Only weights and GEMM operands exist in NVFP4 here.
    QTest::addRow("kv_cache") << "b200"
                              << "llama-serve-a100"
                              << (QStringList(w4a4) << QStringLiteral("run.precision.kv_cache=nvfp4"))
                              << "run.precision.kv_cache"
                              << "expected fp32, bf16, fp16 or fp8 here";
    // MXFP8 (blockwise FP8 scaling) on a Hopper GPU.
    QTest::addRow("mxfp8_on_hopper") << "h100-sxm5-80gb"
                                     << "llama-serve-a100"
                                     << QStringList { QStringLiteral("run.precision.compute=fp8"),
                                            QStringLiteral("run.precision.fp8_scaling=blockwise") }
                                     << "run.precision.fp8_scaling"
                                     << "needs Blackwell's block-scaled tensor cores";
    // Static FP8 scales are an inference checkpoint's.
    QTest::addRow("static_fp8_training") << "hgx-h100-8gpu"
                                         << "torchtitan-llama3-train"
                                         << QStringList { QStringLiteral("run.precision.compute=fp8"),
                                                QStringLiteral("run.precision.fp8_scaling=static") }
                                         << "run.precision.fp8_scaling"
                                         << "for a training run";
    // Training in NVFP4 is not modelled.
    QTest::addRow("training") << "hgx-b200-8gpu"
                              << "torchtitan-llama3-train" << w4a4 << "run.precision.compute"
                              << "not for training";
    // Int4 is AWQ's and GPTQ's weight-only storage: no GEMM computes in it, nothing else is stored in it, the GEMMs
    // that read it multiply in 16 bits, and only inference is modelled.
    QTest::addRow("int4_compute") << "a100-sxm4-80gb"
                                  << "llama-serve-a100" << QStringList { QStringLiteral("run.precision.compute=int4") }
                                  << "run.precision.compute"
                                  << "int4 is a weight-only format";
    QTest::addRow("int4_kv_cache") << "a100-sxm4-80gb"
                                   << "llama-serve-a100"
                                   << QStringList { QStringLiteral("run.precision.weights=int4"),
                                          QStringLiteral("run.precision.kv_cache=int4") }
                                   << "run.precision.kv_cache"
                                   << "int4 is modelled for the weights of inference";
    QTest::addRow("int4_under_fp8") << "h100-sxm5-80gb"
                                    << "llama-serve-a100"
                                    << QStringList { QStringLiteral("run.precision.compute=fp8"),
                                           QStringLiteral("run.precision.weights=int4") }
                                    << "run.precision.compute"
                                    << "expected compute bf16 or fp16, got fp8";
    QTest::addRow("int4_training") << "hgx-h100-8gpu"
                                   << "torchtitan-llama3-train"
                                   << QStringList { QStringLiteral("run.precision.weights=int4") }
                                   << "run.precision.weights"
                                   << "not for training";
    // MXFP4 (gpt-oss's experts) is weight-only storage too, and expert_weights needs routed experts.
    QTest::addRow("mxfp4_compute") << "h100-sxm5-80gb"
                                   << "llama-serve-a100"
                                   << QStringList { QStringLiteral("run.precision.compute=mxfp4") }
                                   << "run.precision.compute"
                                   << "mxfp4 is a weight-only format";
    QTest::addRow("mxfp4_kv_cache") << "h100-sxm5-80gb"
                                    << "llama-serve-a100"
                                    << QStringList { QStringLiteral("run.precision.kv_cache=mxfp4") }
                                    << "run.precision.kv_cache"
                                    << "mxfp4 is modelled for the weights of inference";
    QTest::addRow("expert_weights_without_experts")
        << "h100-sxm5-80gb"
        << "llama-serve-a100" << QStringList { QStringLiteral("run.precision.expert_weights=mxfp4") }
        << "run.precision.expert_weights"
        << "has no routed experts";
    // In training too it is that one error: the format stores nothing without experts, so no training error follows.
    QTest::addRow("expert_weights_without_experts_training")
        << "hgx-h100-8gpu"
        << "torchtitan-llama3-train" << QStringList { QStringLiteral("run.precision.expert_weights=mxfp4") }
        << "run.precision.expert_weights"
        << "has no routed experts";
    QTest::addRow("expert_compute_without_experts")
        << "b200"
        << "llama-serve-a100" << QStringList { QStringLiteral("run.precision.expert_compute=fp8") }
        << "run.precision.expert_compute"
        << "has no routed experts";
}

void TstConfigErrors::blockScaledFormatsOnlyWhereTheyExist()
{
    QFETCH(QString, hardware);
    QFETCH(QString, run);
    QFETCH(QStringList, overrides);
    QFETCH(QString, expectedKey);
    QFETCH(QString, expectedText);
    std::vector<std::string> assignments;
    for (const QString& assignment : overrides) {
        assignments.push_back(assignment.toStdString());
    }
    const config::ConfigLoader loader = test::projectLoader();
    const auto diagnostics = test::expectConfigError(
        [&] { loader.loadScenario("llama-3.1-8b", hardware.toStdString(), run.toStdString(), assignments); });
    QCOMPARE(diagnostics.size(), size_t(1));
    QCOMPARE(QString::fromStdString(diagnostics[0].keyPath), expectedKey);
    QVERIFY2(QString::fromStdString(diagnostics[0].message).contains(expectedText), diagnostics[0].message.c_str());
}

void TstConfigErrors::expertWeightsTakeAWeightOnlyFormat()
{
    // gpt-oss-20b (MXFP4 experts, bf16 elsewhere): a format that is neither weight-only nor the weights' own, MXFP4
    // experts under FP8 GEMMs on Hopper, an expert math without a tensor-core kind, and MXFP4 experts or expert math
    // in training are each one located error; bf16 GEMMs for serving load, and on Blackwell fp8 expert math too.
    const config::ConfigLoader loader = test::projectLoader();
    struct Case {
        const char* hardware;
        const char* run;
        std::vector<std::string> assignments;
        const char* key;
        const char* text;
    };
    const Case cases[] = {
        { "h100-sxm5-80gb", "llama-serve-a100", { "run.precision.expert_weights=fp8" }, "run.precision.expert_weights",
            "expected int4 or mxfp4" },
        { "h100-sxm5-80gb", "llama-serve-a100", { "run.precision.compute=fp8", "run.precision.expert_weights=mxfp4" },
            "run.precision.compute",
            "mxfp4 weights are multiplied in 16 bits (W4A16) except by fp8 expert compute on Blackwell (MXFP8 x "
            "MXFP4), and H100-SXM5-80GB is hopper; expected compute bf16 or fp16, got fp8" },
        // MXFP8 x MXFP4 is a Blackwell MMA: on Hopper the experts' fp8 math is named, not the run's bf16 compute.
        { "h100-sxm5-80gb", "llama-serve-a100",
            { "run.precision.expert_compute=fp8", "run.precision.expert_weights=mxfp4" },
            "run.precision.expert_compute", "is hopper" },
        { "b200", "llama-serve-a100", { "run.precision.expert_compute=int8" }, "run.precision.expert_compute",
            "expected bf16, fp16 or fp8" },
        // Beside MXFP4 experts too it is that one error, not a second about the experts' format.
        { "b200", "llama-serve-a100", { "run.precision.expert_compute=int8", "run.precision.expert_weights=mxfp4" },
            "run.precision.expert_compute", "expected bf16, fp16 or fp8" },
        { "hgx-h100-8gpu", "torchtitan-llama3-train", { "run.precision.expert_weights=mxfp4" },
            "run.precision.expert_weights", "not for training" },
        { "hgx-h100-8gpu", "torchtitan-llama3-train", { "run.precision.expert_compute=fp8" },
            "run.precision.expert_compute", "modelled for inference" },
    };
    for (const Case& c : cases) {
        const auto diagnostics
            = test::expectConfigError([&] { loader.loadScenario("gpt-oss-20b", c.hardware, c.run, c.assignments); });
        QCOMPARE(diagnostics.size(), size_t(1));
        QCOMPARE(diagnostics[0].keyPath, std::string(c.key));
        QVERIFY2(diagnostics[0].message.find(c.text) != std::string::npos, diagnostics[0].message.c_str());
    }
    const config::Scenario served = loader.loadScenario(
        "gpt-oss-20b", "h100-sxm5-80gb", "llama-serve-a100", { "run.precision.expert_weights=mxfp4" });
    QCOMPARE(served.run.precision.routedExpertWeights(), config::Precision::Mxfp4);
    QCOMPARE(served.run.precision.weights, config::Precision::Bf16);
    // TensorRT-LLM's gpt-oss on Blackwell: MXFP8 activations into the MXFP4 experts, bf16 elsewhere.
    const config::Scenario blackwell = loader.loadScenario("gpt-oss-20b", "b200", "llama-serve-a100",
        { "run.precision.expert_weights=mxfp4", "run.precision.expert_compute=fp8",
            "run.precision.fp8_scaling=blockwise" });
    QCOMPARE(blackwell.run.precision.routedExpertCompute(), config::Precision::Fp8);
    QCOMPARE(blackwell.run.precision.compute, config::Precision::Bf16);
}

void TstConfigErrors::theSharedExpertOverlapNeedsSharedExpertsAndAllToAlls()
{
    // Mixtral has no shared expert, and without ep > 1 there is no all-to-all to run one beside: each is named.
    const config::ConfigLoader loader = test::projectLoader();
    for (const std::vector<std::string>& assignments :
        { std::vector<std::string> { "run.parallelism.dp=8", "run.parallelism.ep=2" },
            std::vector<std::string> { "run.parallelism.dp=8", "model.moe.shared_experts=1" } }) {
        std::vector<std::string> all = assignments;
        all.push_back("run.parallelism.ep_shared_expert_overlap=true");
        const auto diagnostics = test::expectConfigError(
            [&] { loader.loadScenario("mixtral-8x7b", "hgx-a100-8gpu", "llama-2-7b-train-4xa100", all); });
        QCOMPARE(diagnostics.size(), size_t(1));
        QCOMPARE(diagnostics[0].keyPath, std::string("run.parallelism.ep_shared_expert_overlap"));
        QVERIFY2(diagnostics[0].message.find("ep > 1 and a model with shared experts") != std::string::npos,
            diagnostics[0].message.c_str());
    }
    // With both it loads.
    QVERIFY(loader
                .loadScenario("mixtral-8x7b", "hgx-a100-8gpu", "llama-2-7b-train-4xa100",
                    { "run.parallelism.dp=8", "run.parallelism.ep=2", "model.moe.shared_experts=1",
                        "run.parallelism.ep_shared_expert_overlap=true" })
                .run.parallelism.expertSharedOverlap);
}

void TstConfigErrors::theCombinedOneFOneBIsMegatronsWithItsRules()
{
    // Megatron-Core's TransformerConfig refuses --overlap-moe-expert-parallel-comm without expert parallelism, with
    // full recomputation, beside --moe-shared-expert-overlap, and with pp > 1 but no virtual stages; and
    // --delay-wgrad-compute without it; the dispatcher's SM count without an overlap or beyond the GPU. Each is named
    // with what is expected.
    const config::ConfigLoader loader = test::projectLoader();
    const std::vector<std::string> base = { "run.framework=megatron", "run.parallelism.dp=8", "run.parallelism.ep=8",
        "run.training.recompute=none", "run.parallelism.ep_a2a_overlap=true" };
    struct Case {
        std::vector<std::string> extra;
        const char* key;
        const char* text;
    };
    const Case cases[] = {
        { { "run.parallelism.ep=1" }, "run.parallelism.ep_a2a_overlap", "expert parallelism" },
        { { "run.framework=pytorch-fsdp" }, "run.parallelism.ep_a2a_overlap", "run.framework: megatron" },
        { { "run.training.recompute=full" }, "run.parallelism.ep_a2a_overlap", "without full recomputation" },
        { { "model.moe.shared_experts=1", "run.parallelism.ep_shared_expert_overlap=true" },
            "run.parallelism.ep_a2a_overlap", "exclude each other" },
        { { "run.parallelism.dp=4", "run.parallelism.ep=4", "run.parallelism.pp=2", "run.parallelism.schedule=1f1b" },
            "run.parallelism.ep_a2a_overlap", "interleaved" },
        { { "run.parallelism.ep_a2a_overlap=false", "run.parallelism.ep_delay_wgrad=true" },
            "run.parallelism.ep_delay_wgrad", "ep_a2a_overlap: true" },
        // The dispatcher's SMs matter only beside compute, and must leave the A100's 108 SMs some to compute on.
        { { "run.parallelism.ep_a2a_overlap=false", "run.parallelism.ep_comm_sms=24" }, "run.parallelism.ep_comm_sms",
            "ep_a2a_overlap or ep_shared_expert_overlap" },
        { { "run.parallelism.ep_comm_sms=108" }, "run.parallelism.ep_comm_sms", "expected 1 to 107" },
        { { "run.parallelism.ep_comm_sms=0" }, "run.parallelism.ep_comm_sms", "" },
    };
    for (const Case& c : cases) {
        std::vector<std::string> all = base;
        all.insert(all.end(), c.extra.begin(), c.extra.end());
        const auto diagnostics = test::expectConfigError(
            [&] { loader.loadScenario("mixtral-8x7b", "hgx-a100-8gpu", "llama-2-7b-train-4xa100", all); });
        QVERIFY(!diagnostics.empty());
        QCOMPARE(diagnostics[0].keyPath, std::string(c.key));
        QVERIFY2(diagnostics[0].message.find(c.text) != std::string::npos, diagnostics[0].message.c_str());
    }
    std::vector<std::string> delayed = base;
    delayed.push_back("run.parallelism.ep_delay_wgrad=true");
    delayed.push_back("run.parallelism.ep_comm_sms=107");
    const config::Scenario ok
        = loader.loadScenario("mixtral-8x7b", "hgx-a100-8gpu", "llama-2-7b-train-4xa100", delayed);
    QVERIFY(ok.run.parallelism.expertAllToAllOverlap && ok.run.parallelism.delayWeightGradients);
    QCOMPARE(ok.run.parallelism.expertCommSms, 107);
}

void TstConfigErrors::theCollectiveLibraryIsNcclOrCustom()
{
    // Training reduces with NCCL, serving with the engines' own kernels, unless the run says otherwise.
    const config::ConfigLoader loader = test::projectLoader();
    QCOMPARE(loader.loadScenario("llama-2-7b", "hgx-a100-8gpu", "llama-2-7b-train-4xa100", { "run.parallelism.dp=8" })
                 .run.parallelism.collectives,
        config::CollectiveImplementation::Nccl);
    QCOMPARE(loader.loadScenario("llama-2-7b", "a100-sxm4-80gb", "llama-serve-a100", {}).run.parallelism.collectives,
        config::CollectiveImplementation::Custom);
    QCOMPARE(
        loader.loadScenario("llama-2-7b", "a100-sxm4-80gb", "llama-serve-a100", { "run.parallelism.collectives=nccl" })
            .run.parallelism.collectives,
        config::CollectiveImplementation::Nccl);
    // Anything else names the key and the two words.
    const auto diagnostics = test::expectConfigError([&] {
        loader.loadScenario("llama-2-7b", "a100-sxm4-80gb", "llama-serve-a100", { "run.parallelism.collectives=mpi" });
    });
    QCOMPARE(diagnostics.size(), size_t(1));
    QCOMPARE(diagnostics[0].keyPath, std::string("run.parallelism.collectives"));
    QVERIFY2(diagnostics[0].message.find("nccl") != std::string::npos
            && diagnostics[0].message.find("custom") != std::string::npos,
        diagnostics[0].message.c_str());
}

void TstConfigErrors::aKeyThatCannotBeReadIsReportedOnce()
{
    // "1e30" is not a whole number: that is the problem, not what the cross-checks make of the fallback value.
    const config::ConfigLoader loader = test::projectLoader();
    const auto diagnostics
        = test::expectConfigError([&] { loader.loadModel("llama-2-7b", { "model.hidden_size=1e30" }); });
    QCOMPARE(diagnostics.size(), size_t(1));
    QCOMPARE(diagnostics[0].keyPath, std::string("model.hidden_size"));
    QVERIFY2(
        diagnostics[0].message.find("expected a whole number") != std::string::npos, diagnostics[0].message.c_str());

    // A network size of 0 is refused; the GPU-count checks do not go on with the stand-in size and blame
    // gpus_per_node for a count of GPUs nobody wrote.
    const auto network = test::expectConfigError(
        [&] { loader.loadHardware("hgx-h100-8gpu", { "hardware.cluster.network[0].size=0" }); });
    QCOMPARE(network.size(), size_t(1));
    QCOMPARE(network[0].keyPath, std::string("hardware.cluster.network[0].size"));
}

QTEST_GUILESS_MAIN(TstConfigErrors)
#include "tst_configerrors.moc"
