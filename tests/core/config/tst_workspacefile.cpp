// SPDX-License-Identifier: GPL-3.0-or-later
// A workspace read into three texts, composed into one self-contained file and read back, gives the same scenario;
// pinned runs survive the same trip with their texts byte for byte, and a damaged runs list is reported by place.
#include "config/workspacefile.h"
#include "config/yamledit.h"
#include "sim/stepbackend.h"
#include "testutils.h"

#include <QTest>

using namespace rapid;

namespace {

/// The preset workspace plus two runs pinned from it: one the baseline, one with an override.
config::WorkspaceDocuments workspaceWithRuns()
{
    config::WorkspaceDocuments documents
        = config::readWorkspaceDocuments("llama-3.1-70b-64xh100", test::projectPresets());
    config::PinnedRunDocuments first;
    first.name = "tp8 baseline";
    first.pinnedAt = "2025-03-01T14:30:00Z";
    first.baseline = true;
    first.model = documents.model;
    first.hardware = documents.hardware;
    first.run = documents.run;
    config::PinnedRunDocuments second = first;
    second.name = "null"; // a plain scalar would read back as nothing
    second.pinnedAt = "2025-03-01T14:31:07.250Z";
    second.baseline = false;
    second.overrides = { "run.training.micro_batch=2" };
    documents.runs = { first, second };
    return documents;
}

QString qs(const std::string& text)
{
    return QString::fromStdString(text);
}

/// The workbench's reader and the loader behind `rapid run --workspace` both report exactly one problem of the
/// workspace file @p path, at @p keyPath on @p line, saying @p message.
void expectOneProblemAt(const std::string& path, const QString& keyPath, int line, const QString& message)
{
    const auto fromReader
        = test::expectConfigError([&] { config::readWorkspaceDocuments(path, test::projectPresets()); });
    const auto fromLoader = test::expectConfigError([&] { test::projectLoader().loadWorkspace(path); });
    for (const auto* diagnostics : { &fromReader, &fromLoader }) {
        QCOMPARE(diagnostics->size(), size_t(1));
        const config::Diagnostic& diagnostic = diagnostics->front();
        QCOMPARE(qs(diagnostic.keyPath), keyPath);
        QCOMPARE(qs(diagnostic.location.source), qs(path));
        QCOMPARE(diagnostic.location.line, line);
        QVERIFY2(qs(diagnostic.message).contains(message), diagnostic.toString().c_str());
    }
}

/// A workspace whose @p section (the text after its `section:` line, which is line 5) is damaged: one problem at
/// @p keyPath and @p line, from the reader and the loader alike.
void expectDamagedSectionAt(
    const std::string& section, const QString& text, const QString& keyPath, int line, const QString& message)
{
    QTemporaryDir dir;
    const std::string path = test::writeFile(dir, "damaged.rapid.yaml",
        "name: damaged\n"
        "model: llama-2-7b\n"
        "hardware: hgx-a100-8gpu\n"
        "run: {mode: inference, inference: {batch: 1, prompt_length: 8, decode_length: 8}, parallelism: {tp: 8}}\n"
            + section + ":\n" + text.toStdString());
    expectOneProblemAt(path, keyPath, line, message);
}

} // namespace

class TstWorkspaceFile : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void roundTripsThroughOneFile();
    void oneGpuHardwareIsSavedAsHardware();
    void keepsCommentsOfInlineDocuments();
    void workspaceWithoutRunsIsWrittenAsBefore();
    void runsRoundTripWithCommentsAndBaseline();
    void runTextsRoundTripExactly_data();
    void runTextsRoundTripExactly();
    void runBackendRoundTrips();
    void handWrittenRunsAreRead();
    void damagedRunsAreReportedByPlace_data();
    void damagedRunsAreReportedByPlace();
    void sweepSettingsRoundTrip();
    void servingSettingsRoundTrip();
    void damagedServingIsReportedByPlace_data();
    void damagedServingIsReportedByPlace();
    void damagedSweepIsReportedByPlace_data();
    void damagedSweepIsReportedByPlace();
    void savedResultsRoundTrip();
    void damagedResultIsReportedByPlace();
};

void TstWorkspaceFile::roundTripsThroughOneFile()
{
    const config::PresetLibrary library = test::projectPresets();
    const config::ConfigLoader loader(library);
    const config::WorkspaceDocuments documents = config::readWorkspaceDocuments("llama-3.1-70b-64xh100", library);
    QVERIFY(documents.model.text.find("model:") != std::string::npos);
    QVERIFY(documents.hardware.text.find("hardware:") != std::string::npos);

    QTemporaryDir dir;
    const std::string path = test::writeFile(dir, "saved.rapid.yaml", config::composeWorkspace(documents));
    const config::Scenario fromPreset = loader.loadWorkspace("llama-3.1-70b-64xh100");
    const config::Scenario fromSaved = loader.loadWorkspace(path);
    QVERIFY(fromSaved.model == fromPreset.model);
    QVERIFY(fromSaved.hardware == fromPreset.hardware);
    QVERIFY(fromSaved.run == fromPreset.run);
    QCOMPARE(fromSaved.name, fromPreset.name);
    const config::Scenario fromTexts = loader.loadTexts(documents.model, documents.hardware, documents.run);
    QVERIFY(fromTexts.run == fromPreset.run);

    // Reading the saved file gives back exactly the texts that were written.
    const config::WorkspaceDocuments reread = config::readWorkspaceDocuments(path, library);
    QCOMPARE(QString::fromStdString(reread.model.text), QString::fromStdString(documents.model.text));
    QCOMPARE(QString::fromStdString(reread.hardware.text), QString::fromStdString(documents.hardware.text));
    QCOMPARE(QString::fromStdString(reread.run.text), QString::fromStdString(documents.run.text));
    QCOMPARE(config::composeWorkspace(reread), config::composeWorkspace(documents));
}

void TstWorkspaceFile::oneGpuHardwareIsSavedAsHardware()
{
    // A workspace whose hardware is a GPU preset (one GPU): its hardware text is the preset's `gpu:` document. Saved
    // (and autosaved) it must load again as the same scenario; it once wrote a root `gpu:` key that neither reader
    // accepts ("the workspace needs hardware"), and a restore after a crash lost the edits.
    const config::PresetLibrary library = test::projectPresets();
    const config::ConfigLoader loader(library);
    QTemporaryDir dir;
    const std::string original = test::writeFile(dir, "one-gpu.rapid.yaml",
        "name: One GPU\nmodel: llama-3.1-8b\nhardware: h100-sxm5-80gb\nrun: llama-3.1-8b-decode-1gpu\n");
    const config::WorkspaceDocuments documents = config::readWorkspaceDocuments(original, library);
    QVERIFY(documents.hardware.text.find("gpu:") != std::string::npos);
    const std::string saved = test::writeFile(dir, "saved.rapid.yaml", config::composeWorkspace(documents));
    const config::Scenario before = loader.loadWorkspace(original);
    const config::Scenario after = loader.loadWorkspace(saved);
    QVERIFY(after.hardware == before.hardware);
    QCOMPARE(after.hardware.cluster.totalGpus(), 1);
    QVERIFY(after.model == before.model);
    // The workbench's reader takes it too, and writing it again changes nothing.
    const config::WorkspaceDocuments reread = config::readWorkspaceDocuments(saved, library);
    QCOMPARE(qs(config::composeWorkspace(reread)), qs(config::composeWorkspace(documents)));
}

void TstWorkspaceFile::keepsCommentsOfInlineDocuments()
{
    QTemporaryDir dir;
    const std::string path = test::writeFile(dir, "w.rapid.yaml",
        "name: inline\n"
        "model: llama-2-7b\n"
        "hardware: hgx-a100-8gpu\n"
        "# how we split it\n"
        "run:\n"
        "  mode: inference  # serve\n"
        "  inference: {batch: 1, prompt_length: 200, decode_length: 200}\n"
        "  parallelism: {tp: 8}\n"
        "overrides:\n"
        "  - run.inference.batch=4\n");
    const config::WorkspaceDocuments documents = config::readWorkspaceDocuments(path, test::projectPresets());
    QCOMPARE(QString::fromStdString(documents.run.text),
        QStringLiteral("# how we split it\nrun:\n  mode: inference  # serve\n"
                       "  inference: {batch: 1, prompt_length: 200, decode_length: 200}\n"
                       "  parallelism: {tp: 8}\n"));
    QCOMPARE(documents.overrides, std::vector<std::string> { "run.inference.batch=4" });
    QCOMPARE(test::projectLoader().loadWorkspace(path).run.batch, 4);
}

void TstWorkspaceFile::workspaceWithoutRunsIsWrittenAsBefore()
{
    const config::WorkspaceDocuments documents
        = config::readWorkspaceDocuments("llama-3.1-70b-64xh100", test::projectPresets());
    QVERIFY(documents.runs.empty());
    const std::string text = config::composeWorkspace(documents);
    QVERIFY(text.find("runs:") == std::string::npos);
    QCOMPARE(qs(text),
        qs("# RAPID-LLM Workbench workspace: a model, a hardware and a run document (configs/README.md)\n"
           "name: "
            + config::yamlQuoted(documents.name) + "\n" + documents.model.text + documents.hardware.text
            + documents.run.text));
}

void TstWorkspaceFile::runsRoundTripWithCommentsAndBaseline()
{
    const config::PresetLibrary library = test::projectPresets();
    const config::WorkspaceDocuments documents = workspaceWithRuns();
    QVERIFY(documents.runs[0].run.text.find("# Source: illustrative example") != std::string::npos);
    const std::string text = config::composeWorkspace(documents);
    // Readable in the file: literal blocks, the baseline flag on its run only.
    QVERIFY(text.find("runs:\n  - name: \"tp8 baseline\"\n    pinned_at: 2025-03-01T14:30:00Z\n    baseline: true\n")
        != std::string::npos);
    QVERIFY(text.find("    model: |\n      ") != std::string::npos);
    QVERIFY(text.find("      # Source: illustrative example") != std::string::npos);
    QVERIFY(text.find("    overrides:\n      - \"run.training.micro_batch=2\"\n") != std::string::npos);

    QTemporaryDir dir;
    const std::string path = test::writeFile(dir, "runs.rapid.yaml", text);
    const config::WorkspaceDocuments reread = config::readWorkspaceDocuments(path, library);
    QVERIFY(reread == documents);
    QCOMPARE(reread.runs.size(), size_t(2));
    QCOMPARE(qs(reread.runs[1].name), QStringLiteral("null"));
    QVERIFY(reread.runs[0].baseline);
    QVERIFY(!reread.runs[1].baseline);
    QCOMPARE(qs(reread.runs[1].pinnedAt), QStringLiteral("2025-03-01T14:31:07.250Z"));
    QCOMPARE(qs(reread.runs[0].run.text), qs(documents.run.text)); // comments byte for byte
    QCOMPARE(qs(reread.runs[0].run.sourceName), qs(path));
    QCOMPARE(qs(config::composeWorkspace(reread)), qs(text));

    // The workspace's own documents are unaffected by the runs after them, and the loader accepts the list.
    QCOMPARE(qs(reread.run.text), qs(documents.run.text));
    const config::Scenario scenario = test::projectLoader().loadWorkspace(path);
    QCOMPARE(scenario.run.parallelism.tp, 8);
    // A run's texts evaluate to the same scenario as the workspace they were pinned from.
    const config::Scenario pinned
        = test::projectLoader().loadTexts(reread.runs[0].model, reread.runs[0].hardware, reread.runs[0].run);
    QVERIFY(pinned.run == scenario.run);
}

void TstWorkspaceFile::runTextsRoundTripExactly_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("written"); // how the run's model line starts in the file

    QTest::addRow("comments_and_final_newline")
        << QStringLiteral("# note\nmodel:\n  name: x  # why\n") << QStringLiteral("model: |\n");
    QTest::addRow("no_final_newline") << QStringLiteral("model:\n  name: x") << QStringLiteral("model: |-\n");
    QTest::addRow("several_final_newlines")
        << QStringLiteral("model:\n  name: x\n\n\n") << QStringLiteral("model: |+\n");
    QTest::addRow("trailing_spaces") << QStringLiteral("model:   \n  name: x \n") << QStringLiteral("model: |\n");
    QTest::addRow("whitespace_only_lines")
        << QStringLiteral("model:\n   \n\t\n  name: x\n") << QStringLiteral("model: |\n");
    QTest::addRow("whitespace_only_last_line")
        << QStringLiteral("model:\n  name: x\n   ") << QStringLiteral("model: |-\n");
    QTest::addRow("indented_first_line") << QStringLiteral("  # indented\nmodel: {}\n")
                                         << QStringLiteral("model: |2\n");
    QTest::addRow("leading_empty_lines_then_indented")
        << QStringLiteral("\n\n    deep\nshallow\n") << QStringLiteral("model: |2\n");
    QTest::addRow("tab_first") << QStringLiteral("\tmodel: x\n") << QStringLiteral("model: |2\n");
    QTest::addRow("document_markers") << QStringLiteral("---\nmodel: {}\n...\n") << QStringLiteral("model: |\n");
    QTest::addRow("quotes_and_backslashes")
        << QStringLiteral("model: {name: \"a\\\\b\"} # 'q'\n") << QStringLiteral("model: |\n");
    QTest::addRow("unicode") << QStringLiteral("model:\n  name: Übermodell · µ\n") << QStringLiteral("model: |\n");
    QTest::addRow("empty") << QString() << QStringLiteral("model: |-\n");
    QTest::addRow("only_newlines") << QStringLiteral("\n\n") << QStringLiteral("model: ");
    // Line ends a literal block would normalise: written quoted with escapes instead.
    QTest::addRow("crlf") << QStringLiteral("model:\r\n  name: x\r\n") << QStringLiteral("model: \"model:\\r\\n");
    QTest::addRow("control_character") << QStringLiteral("model: \x01\n")
                                       << QStringLiteral("model: \"model: \\x01\\n\"\n");
}

void TstWorkspaceFile::runTextsRoundTripExactly()
{
    QFETCH(QString, text);
    QFETCH(QString, written);
    config::WorkspaceDocuments documents = workspaceWithRuns();
    documents.runs[1].model.text = text.toStdString();
    documents.runs[1].hardware.text = text.toStdString() + "# hardware\n";
    const std::string composed = config::composeWorkspace(documents);
    const std::string runsPart = composed.substr(composed.find("\nruns:\n"));
    const std::string secondRun = runsPart.substr(runsPart.find("  - name: \"null\""));
    QVERIFY2(secondRun.find("    " + written.toStdString()) != std::string::npos, composed.c_str());

    QTemporaryDir dir;
    const std::string path = test::writeFile(dir, "tricky.rapid.yaml", composed);
    const config::WorkspaceDocuments reread = config::readWorkspaceDocuments(path, test::projectPresets());
    QCOMPARE(reread.runs.size(), size_t(2));
    QCOMPARE(qs(reread.runs[1].model.text), text);
    QCOMPARE(qs(reread.runs[1].hardware.text), text + QStringLiteral("# hardware\n"));
    QVERIFY(reread == documents);
    QCOMPARE(qs(config::composeWorkspace(reread)), qs(composed));
}

void TstWorkspaceFile::runBackendRoundTrips()
{
    // #18: a run pinned from the congestion step came back as an analytical one after save and reopen, because the
    // file did not say which network model its figures came from.
    config::WorkspaceDocuments documents = workspaceWithRuns();
    documents.runs[1].backend = "congestion";
    const std::string text = config::composeWorkspace(documents);
    const std::string firstRun = text.substr(text.find("  - name: \"tp8 baseline\""));
    const std::string secondRun = text.substr(text.find("  - name: \"null\""));
    QVERIFY(secondRun.find("    backend: congestion\n") != std::string::npos);
    // The default is not written: a workspace of analytical runs reads as it did before the key existed.
    QVERIFY(firstRun.substr(0, firstRun.find("  - name: \"null\"")).find("backend:") == std::string::npos);

    QTemporaryDir dir;
    const std::string path = test::writeFile(dir, "backend.rapid.yaml", text);
    const config::WorkspaceDocuments reread = config::readWorkspaceDocuments(path, test::projectPresets());
    QCOMPARE(reread.runs.size(), size_t(2));
    QCOMPARE(qs(reread.runs[0].backend), QStringLiteral("analytical"));
    QCOMPARE(qs(reread.runs[1].backend), QStringLiteral("congestion"));
    QVERIFY(reread == documents);
    QCOMPARE(qs(config::composeWorkspace(reread)), qs(text));
    // The loader behind `rapid run --workspace` accepts the key as well.
    QCOMPARE(test::projectLoader().loadWorkspace(path).run.parallelism.tp, 8);
    // Another backend is another run.
    documents.runs[1].backend = "ideal";
    QVERIFY(!(reread == documents));

    // The file's words are the names `rapid run --backend` takes, no more and no fewer.
    std::vector<std::string> simNames;
    for (const sim::NetworkBackend backend : sim::networkBackends()) {
        simNames.emplace_back(sim::toString(backend));
    }
    QCOMPARE(config::pinnedRunBackends(), simNames);
}

void TstWorkspaceFile::handWrittenRunsAreRead()
{
    QTemporaryDir dir;
    const std::string path = test::writeFile(dir, "hand.rapid.yaml",
        "name: hand\n"
        "model: llama-2-7b\n"
        "hardware: hgx-a100-8gpu\n"
        "run:\n"
        "  mode: inference\n"
        "  inference: {batch: 1, prompt_length: 200, decode_length: 200}\n"
        "  parallelism: {tp: 8}\n"
        "runs:\n"
        "  # runs written by hand are fine too\n"
        "  - name: old preset\n"
        "    pinned_at: 2024-12-31T23:59:59Z\n"
        "    model: |\n"
        "      model: no-such-model-preset\n"
        "    hardware: |\n"
        "      hardware: hgx-a100-8gpu\n"
        "    run: \"run:\\n  mode: inference\\n\"\n"
        "    baseline: yes\n");
    const config::WorkspaceDocuments documents = config::readWorkspaceDocuments(path, test::projectPresets());
    QCOMPARE(documents.runs.size(), size_t(1));
    const config::PinnedRunDocuments& run = documents.runs.front();
    QCOMPARE(qs(run.name), QStringLiteral("old preset"));
    QCOMPARE(qs(run.pinnedAt), QStringLiteral("2024-12-31T23:59:59Z"));
    QVERIFY(run.baseline);
    QCOMPARE(qs(run.model.text), QStringLiteral("model: no-such-model-preset\n"));
    QCOMPARE(qs(run.run.text), QStringLiteral("run:\n  mode: inference\n"));
    QVERIFY(run.overrides.empty());
    // The run's documents are not checked when the workspace is read: a preset that went away spoils only the run.
    QCOMPARE(test::projectLoader().loadWorkspace(path).run.parallelism.tp, 8);
}

void TstWorkspaceFile::damagedRunsAreReportedByPlace_data()
{
    QTest::addColumn<QString>("runs");
    QTest::addColumn<QString>("keyPath");
    QTest::addColumn<int>("line"); // of the workspace file below, where the runs start on line 6
    QTest::addColumn<QString>("message");

    const QString good = QStringLiteral("  - name: good\n    pinned_at: 2025-01-01T00:00:00Z\n"
                                        "    model: |\n      model: {}\n    hardware: |\n      hardware: {}\n"
                                        "    run: |\n      run: {}\n");
    QTest::addRow("not_a_list") << QStringLiteral("  name: x\n") << QStringLiteral("runs") << 6
                                << QStringLiteral("expected a list of pinned runs");
    QTest::addRow("second_run_without_name")
        << good + QStringLiteral("  - pinned_at: 2025-01-01T00:00:00Z\n    model: m\n    hardware: h\n    run: r\n")
        << QStringLiteral("runs[1].name") << 14 << QStringLiteral("required key \"name\" is missing");
    QTest::addRow("empty_name") << QString(good).replace(QStringLiteral("name: good"), QStringLiteral("name: \"\""))
                                << QStringLiteral("runs[0].name") << 6 << QStringLiteral("needs a name");
    QTest::addRow("local_time") << QString(good).replace(QStringLiteral("00:00:00Z"), QStringLiteral("00:00:00"))
                                << QStringLiteral("runs[0].pinned_at") << 7 << QStringLiteral("ISO-8601 UTC");
    QTest::addRow("two_baselines") << QStringLiteral("  - name: a\n    pinned_at: 2025-01-01T00:00:00Z\n"
                                                     "    baseline: true\n    model: m\n    hardware: h\n    run: r\n"
                                                     "  - name: b\n    pinned_at: 2025-01-01T00:00:00Z\n"
                                                     "    baseline: true\n    model: m\n    hardware: h\n    run: r\n")
                                   << QStringLiteral("runs[1].baseline") << 14
                                   << QStringLiteral("only one run can be the baseline, and runs[0] already is");
    QTest::addRow("document_as_mapping") << QString(good).replace(
        QStringLiteral("hardware: |\n      hardware: {}"), QStringLiteral("hardware:\n      x: 1"))
                                         << QStringLiteral("runs[0].hardware") << 11
                                         << QStringLiteral("as text (hardware: |");
    QTest::addRow("missing_document") << QString(good).replace(QStringLiteral("    run: |\n      run: {}\n"), QString())
                                      << QStringLiteral("runs[0].run") << 6
                                      << QStringLiteral("required key \"run\" is missing");
    QTest::addRow("unknown_key") << good + QStringLiteral("    colour: red\n") << QStringLiteral("runs[0].colour") << 14
                                 << QStringLiteral("unknown key \"colour\"");
    QTest::addRow("unknown_backend") << good + QStringLiteral("    backend: packet\n")
                                     << QStringLiteral("runs[0].backend") << 14
                                     << QStringLiteral("expected one of analytical, congestion or ideal, got");
    QTest::addRow("override_not_text") << good + QStringLiteral("    overrides:\n      - {a: 1}\n")
                                       << QStringLiteral("runs[0].overrides[0]") << 15
                                       << QStringLiteral("expected \"key.path=value\"");
}

void TstWorkspaceFile::damagedRunsAreReportedByPlace()
{
    QFETCH(QString, runs);
    QFETCH(QString, keyPath);
    QFETCH(int, line);
    QFETCH(QString, message);
    expectDamagedSectionAt("runs", runs, keyPath, line, message);
}

void TstWorkspaceFile::sweepSettingsRoundTrip()
{
    const config::PresetLibrary library = test::projectPresets();
    config::WorkspaceDocuments documents = workspaceWithRuns();
    config::SweepSettings sweep;
    sweep.axes = { "run.training.micro_batch=1,2,4", "hardware.gpu.hbm.bandwidth_GBps=1000..4000:x2",
        "run.name=\"a: b\" # not a comment", "" };
    sweep.splits = false;
    sweep.splitAxes = { "tp", "cp" };
    sweep.maxTp = 4;
    documents.sweep = sweep;
    const std::string text = config::composeWorkspace(documents);
    QVERIFY(text.find("sweep:\n  axes:\n    - \"run.training.micro_batch=1,2,4\"\n") != std::string::npos);
    QVERIFY(text.find("  splits: false\n  split_axes: [tp, cp]\n  max_tp: 4\n") != std::string::npos);
    QTemporaryDir dir;
    const std::string path = test::writeFile(dir, "sweep.rapid.yaml", text);
    const config::WorkspaceDocuments reread = config::readWorkspaceDocuments(path, library);
    QVERIFY(reread.sweep.has_value());
    QVERIFY(*reread.sweep == sweep);
    QVERIFY(reread == documents);
    QCOMPARE(qs(config::composeWorkspace(reread)), qs(text));
    // The section plays no part in the scenario, and the loader accepts it.
    QCOMPARE(test::projectLoader().loadWorkspace(path).run.parallelism.tp, 8);
    // Defaults: splits over tp, pp and dp with the node's GPUs as the largest tp.
    const std::string minimal = test::writeFile(dir, "minimal.rapid.yaml",
        "name: minimal\nmodel: llama-2-7b\nhardware: hgx-a100-8gpu\n"
        "run: {mode: inference, inference: {batch: 1, prompt_length: 8, decode_length: 8}, parallelism: {tp: 8}}\n"
        "sweep:\n  axes: [\"run.inference.batch=1,2\"]\n");
    const config::WorkspaceDocuments defaults = config::readWorkspaceDocuments(minimal, library);
    QVERIFY(defaults.sweep.has_value());
    QCOMPARE(defaults.sweep->axes, std::vector<std::string> { "run.inference.batch=1,2" });
    QVERIFY(defaults.sweep->splits);
    QCOMPARE(defaults.sweep->splitAxes, (std::vector<std::string> { "tp", "pp", "dp" }));
    QCOMPARE(defaults.sweep->maxTp, 0);
}

void TstWorkspaceFile::servingSettingsRoundTrip()
{
    const config::PresetLibrary library = test::projectPresets();
    config::WorkspaceDocuments documents = workspaceWithRuns();
    config::ServingSettings serving;
    serving.load = config::ServingSettings::Load::Rate;
    serving.loads = "0.5, 2,8 # as typed";
    serving.inputTokens = 3000;
    serving.outputTokens = 150;
    serving.requests = 400;
    serving.burstiness = 0.25;
    serving.inputTokensStddev = 300.5;
    serving.outputTokensStddev = 40;
    serving.promptPool = 100;
    serving.engine = "sglang";
    serving.ttftSloMilliseconds = 250.5;
    serving.itlSloMilliseconds = 0.1;
    serving.prefillWorkers = 2;
    serving.decodeWorkers = 6;
    serving.prefillTp = 4;
    serving.hostMilliseconds = 2.5;
    serving.hostPerRequestMilliseconds = 0.125;
    serving.overlapHost = true;
    serving.capacityPolicy = "guaranteed-no-evict";
    serving.preemption = "swap";
    serving.swapSpaceGiB = 16.5;
    serving.maxNumSeqs = 48;
    serving.maxNumBatchedTokens = 2048;
    serving.chunkedPrefill = false;
    serving.blockSize = 32;
    serving.maxPrefillTokens = 4096;
    serving.gpuMemoryUtilization = 0.85;
    serving.batching = "prefill-first";
    serving.overlapScheduler = "off";
    serving.speculativeTokens = 3;
    serving.acceptance = 0.75;
    serving.draft = "ngram";
    serving.draftLayers = 2;
    documents.serving = serving;
    const std::string text = config::composeWorkspace(documents);
    QVERIFY2(
        text.find("serving:\n  load: rate\n  loads: \"0.5, 2,8 # as typed\"\n") != std::string::npos, text.c_str());
    QVERIFY(text.find("  requests: 400\n  burstiness: 0.25\n  input_tokens_stddev: 300.5\n  output_tokens_stddev: 40\n"
                      "  prompt_pool: 100\n  engine: \"sglang\"\n  ttft_slo_ms: 250.5\n  itl_slo_ms: 0.1\n")
        != std::string::npos);
    QVERIFY(text.find("  host_time_ms: 2.5\n  host_time_per_request_ms: 0.125\n  overlap_host: true\n"
                      "  capacity_policy: \"guaranteed-no-evict\"\n  preemption: \"swap\"\n  swap_space_GiB: 16.5\n")
        != std::string::npos);
    QVERIFY(text.find("  max_num_seqs: 48\n  max_num_batched_tokens: 2048\n  chunked_prefill: false\n  block_size: 32\n"
                      "  max_prefill_tokens: 4096\n  gpu_memory_utilization: 0.85\n  batching: \"prefill-first\"\n"
                      "  overlap_scheduler: \"off\"\n  speculative_tokens: 3\n  acceptance: 0.75\n  draft: \"ngram\"\n"
                      "  draft_layers: 2\n")
        != std::string::npos);
    QTemporaryDir dir;
    const std::string path = test::writeFile(dir, "serving.rapid.yaml", text);
    const config::WorkspaceDocuments reread = config::readWorkspaceDocuments(path, library);
    QVERIFY(reread.serving.has_value());
    QVERIFY(*reread.serving == serving);
    QVERIFY(reread == documents);
    QCOMPARE(qs(config::composeWorkspace(reread)), qs(text));
    // The section plays no part in the scenario, and the loader accepts it.
    QCOMPARE(test::projectLoader().loadWorkspace(path).run.parallelism.tp, 8);
    // Keys left out take the defaults: clients 1 to 64, the run's lengths, vLLM, no SLOs, aggregated.
    const std::string minimal = test::writeFile(dir, "minimal.rapid.yaml",
        "name: minimal\nmodel: llama-2-7b\nhardware: hgx-a100-8gpu\n"
        "run: {mode: inference, inference: {batch: 1, prompt_length: 8, decode_length: 8}, parallelism: {tp: 8}}\n"
        "serving:\n  engine: TRTLLM\n");
    const config::WorkspaceDocuments defaults = config::readWorkspaceDocuments(minimal, library);
    QVERIFY(defaults.serving.has_value());
    config::ServingSettings expected;
    expected.engine = "trtllm";
    QVERIFY(*defaults.serving == expected);
    QCOMPARE(defaults.serving->loads, std::string("1, 2, 4, 8, 16, 32, 64"));
    // An acceptance not given stays not given (it has no default): no key is written for it.
    QCOMPARE(defaults.serving->acceptance, -1.0);
    QVERIFY(config::composeWorkspace(defaults).find("acceptance") == std::string::npos);
    // The acceptance given as the drafts' mean length instead: kept as given, and read back the same.
    config::WorkspaceDocuments byLength = documents;
    byLength.serving->acceptance = -1;
    byLength.serving->acceptanceLength = 2.5;
    const std::string lengthText = config::composeWorkspace(byLength);
    QVERIFY2(
        lengthText.find("  speculative_tokens: 3\n  acceptance_length: 2.5\n  draft: \"ngram\"\n") != std::string::npos,
        lengthText.c_str());
    const config::WorkspaceDocuments lengthReread
        = config::readWorkspaceDocuments(test::writeFile(dir, "length.rapid.yaml", lengthText), library);
    QVERIFY(lengthReread == byLength);
}

void TstWorkspaceFile::damagedServingIsReportedByPlace_data()
{
    QTest::addColumn<QString>("serving");
    QTest::addColumn<QString>("keyPath");
    QTest::addColumn<int>("line"); // of the workspace file below, where the serving section starts on line 6
    QTest::addColumn<QString>("message");
    QTest::addRow("not_a_mapping") << QStringLiteral("  - 1\n") << QStringLiteral("serving") << 6
                                   << QStringLiteral("expected a mapping");
    QTest::addRow("unknown_engine") << QStringLiteral("  engine: tgi\n") << QStringLiteral("serving.engine") << 6
                                    << QStringLiteral("expected one of vllm, trtllm or sglang, got \"tgi\"");
    QTest::addRow("unknown_load") << QStringLiteral("  load: users\n") << QStringLiteral("serving.load") << 6
                                  << QStringLiteral("users");
    QTest::addRow("negative_tokens") << QStringLiteral("  engine: vllm\n  input_tokens: -5\n")
                                     << QStringLiteral("serving.input_tokens") << 7 << QStringLiteral("-5");
    QTest::addRow("too_many_workers") << QStringLiteral("  prefill_workers: 5000\n")
                                      << QStringLiteral("serving.prefill_workers") << 6 << QStringLiteral("5000");
    QTest::addRow("slo_not_a_number") << QStringLiteral("  itl_slo_ms: fast\n") << QStringLiteral("serving.itl_slo_ms")
                                      << 6 << QStringLiteral("fast");
    QTest::addRow("negative_host_time") << QStringLiteral("  host_time_ms: -2\n")
                                        << QStringLiteral("serving.host_time_ms") << 6 << QStringLiteral("-2");
    QTest::addRow("overlap_not_a_boolean")
        << QStringLiteral("  overlap_host: sometimes\n") << QStringLiteral("serving.overlap_host") << 6
        << QStringLiteral("sometimes");
    QTest::addRow("unknown_capacity_policy")
        << QStringLiteral("  capacity_policy: fcfs\n") << QStringLiteral("serving.capacity_policy") << 6
        << QStringLiteral(
               "expected one of auto, max-utilization, guaranteed-no-evict or new-token-ratio, got \"fcfs\"");
    QTest::addRow("unknown_preemption") << QStringLiteral("  preemption: evict\n")
                                        << QStringLiteral("serving.preemption") << 6
                                        << QStringLiteral("expected one of recompute or swap, got \"evict\"");
    QTest::addRow("swap_space_beyond_any_host")
        << QStringLiteral("  swap_space_GiB: 1e9\n") << QStringLiteral("serving.swap_space_GiB") << 6
        << QStringLiteral("1e9");
    QTest::addRow("block_too_large") << QStringLiteral("  block_size: 5000\n") << QStringLiteral("serving.block_size")
                                     << 6 << QStringLiteral("5000");
    QTest::addRow("memory_share_below_a_percent")
        << QStringLiteral("  gpu_memory_utilization: 0.005\n") << QStringLiteral("serving.gpu_memory_utilization") << 6
        << QStringLiteral("expected 0 (the engine's default) or a share from 0.01 to 1, got 0.005");
    QTest::addRow("memory_share_above_one")
        << QStringLiteral("  gpu_memory_utilization: 1.5\n") << QStringLiteral("serving.gpu_memory_utilization") << 6
        << QStringLiteral("1.5");
    QTest::addRow("unknown_batching") << QStringLiteral("  batching: eager\n") << QStringLiteral("serving.batching")
                                      << 6
                                      << QStringLiteral("expected one of auto, mixed or prefill-first, got \"eager\"");
    QTest::addRow("unknown_overlap_scheduler")
        << QStringLiteral("  overlap_scheduler: yes\n") << QStringLiteral("serving.overlap_scheduler") << 6
        << QStringLiteral("expected one of auto, on or off, got \"yes\"");
    QTest::addRow("too_many_drafts") << QStringLiteral("  speculative_tokens: 17\n")
                                     << QStringLiteral("serving.speculative_tokens") << 6 << QStringLiteral("17");
    QTest::addRow("acceptance_above_one")
        << QStringLiteral("  acceptance: 1.2\n") << QStringLiteral("serving.acceptance") << 6 << QStringLiteral("1.2");
    QTest::addRow("acceptance_both_ways")
        << QStringLiteral("  speculative_tokens: 3\n  acceptance: 0.5\n  acceptance_length: 2\n")
        << QStringLiteral("serving.acceptance_length") << 8
        << QStringLiteral("give acceptance or acceptance_length, not both");
    // Three drafts yield at most four tokens per verification (three accepted and the verifying pass's own).
    QTest::addRow("length_beyond_the_drafts")
        << QStringLiteral("  speculative_tokens: 3\n  acceptance_length: 4.5\n")
        << QStringLiteral("serving.acceptance_length") << 7
        << QStringLiteral("expected at most speculative_tokens + 1 = 4 (tokens per verification), got 4.5");
    QTest::addRow("length_below_one") << QStringLiteral("  acceptance_length: 0.5\n")
                                      << QStringLiteral("serving.acceptance_length") << 6 << QStringLiteral("0.5");
    // rapid serve's ranges: --burstiness 0.01 to 1000, the lengths' deviations 0 to 1e7 tokens.
    QTest::addRow("burstiness_zero") << QStringLiteral("  burstiness: 0\n") << QStringLiteral("serving.burstiness") << 6
                                     << QStringLiteral("0");
    QTest::addRow("burstiness_not_a_number") << QStringLiteral("  burstiness: bursty\n")
                                             << QStringLiteral("serving.burstiness") << 6 << QStringLiteral("bursty");
    QTest::addRow("negative_spread") << QStringLiteral("  output_tokens_stddev: -3\n")
                                     << QStringLiteral("serving.output_tokens_stddev") << 6 << QStringLiteral("-3");
    QTest::addRow("spread_too_wide") << QStringLiteral("  input_tokens_stddev: 1e9\n")
                                     << QStringLiteral("serving.input_tokens_stddev") << 6 << QStringLiteral("1e9");
    QTest::addRow("pool_too_large") << QStringLiteral("  prompt_pool: 2000000\n")
                                    << QStringLiteral("serving.prompt_pool") << 6 << QStringLiteral("2000000");
    QTest::addRow("unknown_draft") << QStringLiteral("  draft: medusa\n") << QStringLiteral("serving.draft") << 6
                                   << QStringLiteral("expected one of head or ngram, got \"medusa\"");
    QTest::addRow("no_draft_layer") << QStringLiteral("  draft_layers: 0\n") << QStringLiteral("serving.draft_layers")
                                    << 6 << QStringLiteral("0");
    QTest::addRow("unknown_key") << QStringLiteral("  loads: \"1\"\n  colour: red\n")
                                 << QStringLiteral("serving.colour") << 7 << QStringLiteral("unknown key \"colour\"");
}

void TstWorkspaceFile::damagedServingIsReportedByPlace()
{
    QFETCH(QString, serving);
    QFETCH(QString, keyPath);
    QFETCH(int, line);
    QFETCH(QString, message);
    expectDamagedSectionAt("serving", serving, keyPath, line, message);
}

void TstWorkspaceFile::damagedSweepIsReportedByPlace_data()
{
    QTest::addColumn<QString>("sweep");
    QTest::addColumn<QString>("keyPath");
    QTest::addColumn<int>("line"); // of the workspace file below, where the sweep section starts on line 6
    QTest::addColumn<QString>("message");
    QTest::addRow("not_a_mapping") << QStringLiteral("  - a=1\n") << QStringLiteral("sweep") << 6
                                   << QStringLiteral("expected a mapping");
    QTest::addRow("axes_not_a_list") << QStringLiteral("  axes: a=1\n") << QStringLiteral("sweep.axes") << 6
                                     << QStringLiteral("expected a list");
    QTest::addRow("axis_as_mapping") << QStringLiteral("  axes:\n    - a=1\n    - {a: 1}\n")
                                     << QStringLiteral("sweep.axes[1]") << 8
                                     << QStringLiteral("expected an axis line \"KEY=VALUES\"");
    QTest::addRow("unknown_split_axis") << QStringLiteral("  split_axes: [tp, ep]\n")
                                        << QStringLiteral("sweep.split_axes[1]") << 6
                                        << QStringLiteral("expected one of tp, pp, dp or cp");
    QTest::addRow("negative_max_tp") << QStringLiteral("  splits: true\n  max_tp: -2\n")
                                     << QStringLiteral("sweep.max_tp") << 7 << QStringLiteral("-2");
    QTest::addRow("splits_not_boolean") << QStringLiteral("  splits: often\n") << QStringLiteral("sweep.splits") << 6
                                        << QStringLiteral("often");
    QTest::addRow("unknown_key") << QStringLiteral("  axes: []\n  colour: red\n") << QStringLiteral("sweep.colour") << 7
                                 << QStringLiteral("unknown key \"colour\"");
}

void TstWorkspaceFile::damagedSweepIsReportedByPlace()
{
    QFETCH(QString, sweep);
    QFETCH(QString, keyPath);
    QFETCH(int, line);
    QFETCH(QString, message);
    expectDamagedSectionAt("sweep", sweep, keyPath, line, message);
}

void TstWorkspaceFile::savedResultsRoundTrip()
{
    config::WorkspaceDocuments documents = workspaceWithRuns();
    // One result of the workspace's own documents (no texts written), one from an earlier version of them.
    config::SavedResult current { "resilience.goodput", "0123abcd", std::nullopt, "{\"steps\": [1, 2.5e-7]}" };
    config::ResultDocuments earlier { documents.model, documents.hardware, documents.run,
        { "run.training.micro_batch=2" } };
    earlier.run.text += "# edited since\n";
    config::SavedResult stale { "resilience.fault_study", "null", earlier, "{\n  \"rows\": []\n}" };
    documents.results = { current, stale };
    const std::string text = config::composeWorkspace(documents);
    QVERIFY(text.find("results:\n  - view: \"resilience.goodput\"\n    fingerprint: \"0123abcd\"\n    data: |-\n")
        != std::string::npos);
    QTemporaryDir dir;
    const std::string path = test::writeFile(dir, "results.rapid.yaml", text);
    const config::WorkspaceDocuments reread = config::readWorkspaceDocuments(path, test::projectPresets());
    QCOMPARE(reread.results.size(), size_t { 2 });
    QVERIFY(!reread.results[0].documents);
    QCOMPARE(qs(reread.results[0].data), qs(current.data));
    // "null" stays the text "null", and the earlier documents come back byte for byte.
    QCOMPARE(qs(reread.results[1].fingerprint), QStringLiteral("null"));
    QVERIFY(reread.results[1].documents && *reread.results[1].documents == earlier);
    QCOMPARE(qs(reread.results[1].documents->run.text), qs(earlier.run.text));
    QVERIFY(reread == documents);
    QCOMPARE(qs(config::composeWorkspace(reread)), qs(text));
    // The loader accepts the section and takes no notice of it.
    QCOMPARE(test::projectLoader().loadWorkspace(path).run.parallelism.tp, 8);
}

void TstWorkspaceFile::damagedResultIsReportedByPlace()
{
    QTemporaryDir dir;
    const std::string path = test::writeFile(dir, "damaged.rapid.yaml",
        "name: damaged\n"
        "model: llama-2-7b\n"
        "hardware: hgx-a100-8gpu\n"
        "run: {mode: inference, inference: {batch: 1, prompt_length: 8, decode_length: 8}, parallelism: {tp: 8}}\n"
        "results:\n"
        "  - view: resilience.goodput\n"
        "    fingerprint: abc\n"
        "    data: \"{}\"\n"
        "  - view: resilience.criticality\n"
        "    data: \"{}\"\n");
    expectOneProblemAt(path, QStringLiteral("results[1].fingerprint"), 9, QStringLiteral("required key"));
}

QTEST_GUILESS_MAIN(TstWorkspaceFile)
#include "tst_workspacefile.moc"
