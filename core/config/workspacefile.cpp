// SPDX-License-Identifier: GPL-3.0-or-later
#include "workspacefile.h"
#include "figurestyle_p.h"
#include "utf8.h"
#include "workspacefile_p.h"
#include "yamlnode_p.h"

#include "yamledit.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

namespace fs = std::filesystem;

namespace rapid::config {

using detail::isMapNode;
using detail::isNullNode;
using detail::isScalarNode;
using detail::isSequenceNode;

namespace {

std::string readFile(const std::string& path, DiagnosticSink& sink)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        sink.add({ path, 0, 0 }, {}, "cannot read the file");
        return {};
    }
    std::ostringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
}

std::vector<std::string> splitLines(const std::string& text)
{
    std::vector<std::string> lines;
    std::string line;
    std::istringstream in(text);
    while (std::getline(in, line)) {
        lines.push_back(line);
    }
    return lines;
}

bool startsDocument(const std::string& line, const std::string& key)
{
    return line.rfind(key + ":", 0) == 0;
}

std::string ensureNewline(std::string text)
{
    if (!text.empty() && text.back() != '\n') {
        text.push_back('\n');
    }
    return text;
}

/// A double-quoted YAML scalar: every byte survives (line breaks, tabs, carriage returns and other control
/// characters as escapes; UTF-8 passes through).
std::string doubleQuoted(const std::string& text)
{
    std::string quoted = "\"";
    for (const char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        switch (c) {
        case '"':
            quoted += "\\\"";
            break;
        case '\\':
            quoted += "\\\\";
            break;
        case '\n':
            quoted += "\\n";
            break;
        case '\t':
            quoted += "\\t";
            break;
        case '\r':
            quoted += "\\r";
            break;
        default:
            if (byte < 0x20 || byte == 0x7f) {
                char escape[5];
                std::snprintf(escape, sizeof escape, "\\x%02x", byte);
                quoted += escape;
            } else {
                quoted.push_back(c);
            }
        }
    }
    return quoted + "\"";
}

/// The header (`|`, `|-`, `|+`, with an indentation indicator when needed) and the content lines of @p text as a
/// literal block scalar whose lines start with @p indent.
std::string literalBlock(const std::string& text, const std::string& indent)
{
    size_t trailingBreaks = 0;
    while (trailingBreaks < text.size() && text[text.size() - 1 - trailingBreaks] == '\n') {
        ++trailingBreaks;
    }
    // Clip keeps exactly one final line break, strip none, keep all of them.
    const char* chomping = trailingBreaks == 0 ? "-" : trailingBreaks == 1 ? "" : "+";
    // The parser takes the indentation from the first line that is not empty; if that line starts with white space
    // of its own it would be taken as indentation, so the indentation is given explicitly.
    std::string header = "|";
    const size_t firstFilled = text.find_first_not_of('\n');
    if (firstFilled != std::string::npos && (text[firstFilled] == ' ' || text[firstFilled] == '\t')) {
        header += "2"; // relative to the key, which sits two columns left of the content
    }
    header += chomping;
    std::string body;
    size_t begin = 0;
    while (begin < text.size()) {
        size_t end = text.find('\n', begin);
        if (end == std::string::npos) {
            end = text.size();
        }
        // Empty lines stay empty (no trailing white space in the file); they read back as empty either way.
        if (end > begin) {
            body += indent;
            body.append(text, begin, end - begin);
        }
        body += '\n';
        begin = end + 1;
    }
    return header + "\n" + body;
}

bool readsBackAs(const std::string& scalarYaml, const std::string& text)
{
    try {
        const YAML::Node node = YAML::Load("k: " + scalarYaml);
        return isMapNode(node) && isScalarNode(node["k"]) && node["k"].Scalar() == text;
    } catch (const YAML::Exception&) {
        return false;
    }
}

/// "2025-03-01T14:30:00Z", optionally with a fraction of a second: the form pinned_at is written in.
bool isUtcTimestamp(const std::string& text)
{
    static const std::regex pattern(R"((\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?Z)");
    std::smatch match;
    if (!std::regex_match(text, match, pattern)) {
        return false;
    }
    const auto field = [&match](int index) { return std::stoi(match[index].str()); };
    return field(2) >= 1 && field(2) <= 12 && field(3) >= 1 && field(3) <= 31 && field(4) <= 23 && field(5) <= 59
        && field(6) <= 60;
}

} // namespace

bool PinnedRunDocuments::operator==(const PinnedRunDocuments& other) const
{
    return name == other.name && pinnedAt == other.pinnedAt && baseline == other.baseline
        && model.text == other.model.text && hardware.text == other.hardware.text && run.text == other.run.text
        && overrides == other.overrides && backend == other.backend;
}

const std::vector<std::string>& pinnedRunBackends()
{
    static const std::vector<std::string> names { "analytical", "congestion", "ideal" };
    return names;
}

bool WorkspaceDocuments::operator==(const WorkspaceDocuments& other) const
{
    return name == other.name && model.text == other.model.text && hardware.text == other.hardware.text
        && run.text == other.run.text && overrides == other.overrides && runs == other.runs && sweep == other.sweep
        && serving == other.serving && figureStyle == other.figureStyle;
}

std::string yamlBlockScalar(const std::string& key, const std::string& text, const std::string& indent)
{
    // The check is cheap next to writing a file, and it makes the promise of an exact round trip hold for any text:
    // whatever a literal block cannot carry is caught here rather than found after saving.
    // YAML allows no C0 control characters but tab and line feed in a block (a lenient reader may take them
    // anyway, another would refuse the file), and it folds carriage returns into line breaks.
    const bool printable = std::none_of(text.begin(), text.end(), [](char c) {
        const auto byte = static_cast<unsigned char>(c);
        return (byte < 0x20 && c != '\n' && c != '\t') || byte == 0x7f;
    });
    if (printable && readsBackAs(literalBlock(text, "  "), text)) {
        return key + ": " + literalBlock(text, indent);
    }
    return key + ": " + doubleQuoted(text) + "\n";
}

namespace detail {

std::string yamlDoubleQuoted(const std::string& text)
{
    return doubleQuoted(text);
}

std::vector<PinnedRunDocuments> readPinnedRuns(
    ReadContext& context, const YAML::Node& runs, const std::string& workspacePath)
{
    std::vector<PinnedRunDocuments> result;
    if (!runs.IsDefined() || isNullNode(runs)) {
        return result;
    }
    if (!isSequenceNode(runs)) {
        context.error("runs", runs,
            "expected a list of pinned runs (each with name, pinned_at, model, hardware and run), got "
                + describeNode(runs));
        return result;
    }
    const std::string baseDir = fs::path(workspacePath).parent_path().string();
    std::string baselinePath;
    for (size_t index = 0; index < runs.size(); ++index) {
        const std::string path = "runs[" + std::to_string(index) + "]";
        const YAML::Node node = runs[index];
        MapReader item(context, node, path);
        if (!item.valid()) {
            if (isNullNode(node)) {
                context.error(
                    path, node, "expected a pinned run (name, pinned_at, model, hardware and run), got nothing");
            }
            continue;
        }
        PinnedRunDocuments run;
        run.name = item.text("name", std::nullopt);
        if (item.has("name") && isScalarNode(item.node()["name"]) && run.name.empty()) {
            context.error(item.childPath("name"), item.node()["name"], "a pinned run needs a name");
        }
        run.pinnedAt = item.text("pinned_at", std::nullopt);
        if (item.has("pinned_at") && isScalarNode(item.node()["pinned_at"]) && !isUtcTimestamp(run.pinnedAt)) {
            context.error(item.childPath("pinned_at"), item.node()["pinned_at"],
                "expected the time the run was pinned as ISO-8601 UTC (like 2025-03-01T14:30:00Z), got \""
                    + run.pinnedAt + "\"");
        }
        std::vector<std::pair<std::string, std::string>> backends;
        for (const std::string& name : pinnedRunBackends()) {
            backends.emplace_back(name, name);
        }
        run.backend = item.choice("backend", backends, std::optional<std::string>(run.backend));
        run.baseline = item.boolean("baseline", false);
        if (run.baseline) {
            if (baselinePath.empty()) {
                baselinePath = path;
            } else {
                context.error(item.childPath("baseline"), item.node()["baseline"],
                    "only one run can be the baseline, and " + baselinePath + " already is");
            }
        }
        for (const auto& [key, document] : { std::pair<const char*, DocumentText*> { "model", &run.model },
                 { "hardware", &run.hardware }, { "run", &run.run } }) {
            const YAML::Node value = item.raw(key);
            const std::string what = std::string("the ") + key + " document the run was evaluated from, as text (" + key
                + ": | and the document indented below)";
            if (!value.IsDefined() || isNullNode(value)) {
                context.error(item.childPath(key), value.IsDefined() ? value : node,
                    "required key \"" + std::string(key) + "\" is missing; expected " + what);
            } else if (!isScalarNode(value)) {
                context.error(item.childPath(key), value, "expected " + what + ", got " + describeNode(value));
            } else {
                document->text = value.Scalar();
                document->sourceName = workspacePath;
                document->baseDir = baseDir;
            }
        }
        for (const auto& [itemPath, assignment] : item.list("overrides", false)) {
            if (!isScalarNode(assignment)) {
                context.error(itemPath, assignment, "expected \"key.path=value\", got " + describeNode(assignment));
                continue;
            }
            run.overrides.push_back(assignment.Scalar());
        }
        item.finish();
        result.push_back(std::move(run));
    }
    return result;
}

std::optional<SweepSettings> readSweepSettings(ReadContext& context, const YAML::Node& sweep)
{
    if (!sweep.IsDefined() || isNullNode(sweep)) {
        return std::nullopt;
    }
    MapReader reader(context, sweep, "sweep");
    if (!reader.valid()) {
        return std::nullopt;
    }
    SweepSettings settings;
    for (const auto& [itemPath, line] : reader.list("axes", false)) {
        if (!isScalarNode(line)) {
            context.error(itemPath, line, "expected an axis line \"KEY=VALUES\", got " + describeNode(line));
            continue;
        }
        settings.axes.push_back(line.Scalar());
    }
    settings.splits = reader.boolean("splits", true);
    if (reader.has("split_axes")) {
        settings.splitAxes.clear();
        for (const auto& [itemPath, axis] : reader.list("split_axes", false)) {
            const std::string word = isScalarNode(axis) ? axis.Scalar() : std::string();
            if (word != "tp" && word != "pp" && word != "dp" && word != "cp") {
                context.error(itemPath, axis, "expected one of tp, pp, dp or cp, got " + describeNode(axis));
                continue;
            }
            if (std::find(settings.splitAxes.begin(), settings.splitAxes.end(), word) == settings.splitAxes.end()) {
                settings.splitAxes.push_back(word);
            }
        }
    }
    settings.maxTp = static_cast<int>(reader.integer("max_tp", 0, 0, 1 << 20));
    reader.finish();
    return settings;
}

} // namespace detail

WorkspaceDocuments readWorkspaceDocuments(const std::string& reference, const PresetLibrary& library)
{
    DiagnosticSink sink;
    const auto path = library.resolve(PresetKind::Workspace, reference);
    if (!path) {
        sink.add({ reference, 0, 0 }, {}, "no such workspace file or preset");
        sink.throwIfAny();
    }
    const std::string text = readFile(*path, sink);
    sink.throwIfAny();
    if (const auto invalid = firstInvalidUtf8(text)) {
        const TextPosition at = positionOf(text, *invalid);
        sink.add({ *path, at.line, at.column }, {}, "a byte that is not UTF-8; a workspace is UTF-8 YAML text");
        sink.throwIfAny();
    }
    YAML::Node root;
    try {
        root = YAML::Load(text);
    } catch (const YAML::Exception& error) {
        sink.add({ *path, error.mark.line + 1, error.mark.column + 1 }, {}, "YAML syntax error: " + error.msg);
        sink.throwIfAny();
    }
    if (!isMapNode(root)) {
        sink.add({ *path, 1, 1 }, {}, "expected a workspace with name, model, hardware and run");
        sink.throwIfAny();
    }
    WorkspaceDocuments documents;
    documents.name = isScalarNode(root["name"]) ? root["name"].Scalar() : fs::path(*path).stem().stem().string();
    const std::vector<std::string> lines = splitLines(text);
    const std::string baseDir = fs::path(*path).parent_path().string();

    // Inline documents are cut out of the file by lines: from their root key to the next top-level key.
    std::vector<int> topLevelLines;
    for (auto it = root.begin(); it != root.end(); ++it) {
        topLevelLines.push_back(it->first.Mark().line);
    }
    std::sort(topLevelLines.begin(), topLevelLines.end());
    auto inlineText = [&](const std::string& key) {
        for (size_t i = 0; i < lines.size(); ++i) {
            if (!startsDocument(lines[i], key)) {
                continue;
            }
            size_t end = lines.size();
            for (int line : topLevelLines) {
                if (line > static_cast<int>(i)) {
                    end = static_cast<size_t>(line);
                    break;
                }
            }
            // Comment lines right above the next key belong to it.
            while (end > i + 1 && lines[end - 1].rfind('#', 0) == 0) {
                --end;
            }
            // Comment lines right above the root key (a preset's source note) belong to this document.
            size_t begin = i;
            while (begin > 0 && lines[begin - 1].rfind('#', 0) == 0 && lines[begin - 1].rfind("# RAPID-LLM", 0) != 0) {
                --begin;
            }
            std::string slice;
            for (size_t j = begin; j < end; ++j) {
                slice += lines[j] + "\n";
            }
            return slice;
        }
        return std::string();
    };
    const std::pair<const char*, PresetKind> parts[]
        = { { "model", PresetKind::Model }, { "hardware", PresetKind::Hardware }, { "run", PresetKind::Run } };
    for (const auto& [key, kind] : parts) {
        DocumentText& document = std::string(key) == "model" ? documents.model
            : std::string(key) == "hardware"                 ? documents.hardware
                                                             : documents.run;
        const YAML::Node value = root[key];
        if (isScalarNode(value)) {
            const auto referenced = library.resolve(kind, value.Scalar(), baseDir);
            if (!referenced) {
                sink.add({ *path, value.Mark().line + 1, value.Mark().column + 1 }, key,
                    "no " + std::string(key) + " preset or file named \"" + value.Scalar() + "\"");
                continue;
            }
            document.text = readFile(*referenced, sink);
            document.sourceName = *referenced;
            document.baseDir = fs::path(*referenced).parent_path().string();
        } else if (isMapNode(value)) {
            document.text = inlineText(key);
            document.sourceName = *path;
            document.baseDir = baseDir;
        } else {
            sink.add({ *path, 1, 1 }, key, "the workspace needs " + std::string(key) + " (a preset name or a mapping)");
        }
    }
    if (isSequenceNode(root["overrides"])) {
        for (const YAML::Node& item : root["overrides"]) {
            if (isScalarNode(item)) {
                documents.overrides.push_back(item.Scalar());
            }
        }
    }
    detail::Origins origins { *path, {}, {} };
    SourceMap unused;
    detail::ReadContext context { sink, origins, unused };
    const YAML::Node& constRoot = root;
    documents.runs = detail::readPinnedRuns(context, constRoot["runs"], *path);
    documents.sweep = detail::readSweepSettings(context, constRoot["sweep"]);
    documents.serving = detail::readServingSettings(context, constRoot["serving"]);
    documents.figureStyle = detail::readFigureStyleSection(context, constRoot["figure_style"], "figure_style");
    documents.results = detail::readSavedResults(context, constRoot["results"], *path);
    sink.throwIfAny();
    return documents;
}

namespace {

/// The hardware document as a workspace section. A GPU preset named as the hardware stands for one GPU and its text
/// is a `gpu:` document; a workspace has no `gpu:` key, so that text goes under `hardware:`, indented (a hardware
/// document whose gpu is that mapping: the same scenario). Any other text is already a `hardware:` document.
std::string hardwareSection(const std::string& text)
{
    std::istringstream lines(text);
    std::string line;
    bool gpuDocument = false;
    while (std::getline(lines, line)) {
        if (line.empty() || line.front() == '#') {
            continue;
        }
        gpuDocument = line.rfind("gpu:", 0) == 0;
        break;
    }
    if (!gpuDocument) {
        return ensureNewline(text);
    }
    std::string nested = "hardware:\n";
    lines.clear();
    lines.str(text);
    while (std::getline(lines, line)) {
        nested += (line.empty() ? "" : "  ") + line + "\n";
    }
    return nested;
}

} // namespace

std::string composeWorkspace(const WorkspaceDocuments& documents)
{
    std::string text = "# RAPID-LLM Workbench workspace: a model, a hardware and a run document (configs/README.md)\n";
    text += "name: " + yamlQuoted(documents.name) + "\n";
    text += ensureNewline(documents.model.text);
    text += hardwareSection(documents.hardware.text);
    text += ensureNewline(documents.run.text);
    if (!documents.overrides.empty()) {
        text += "overrides:\n";
        for (const std::string& assignment : documents.overrides) {
            text += "  - " + yamlQuoted(assignment) + "\n";
        }
    }
    if (const std::optional<SweepSettings>& sweep = documents.sweep) {
        text += "sweep:\n";
        if (!sweep->axes.empty()) {
            text += "  axes:\n";
            for (const std::string& line : sweep->axes) {
                text += "    - " + doubleQuoted(line) + "\n";
            }
        }
        text += std::string("  splits: ") + (sweep->splits ? "true" : "false") + "\n";
        text += "  split_axes: [";
        for (size_t i = 0; i < sweep->splitAxes.size(); ++i) {
            text += (i ? ", " : "") + sweep->splitAxes[i];
        }
        text += "]\n";
        if (sweep->maxTp > 0) {
            text += "  max_tp: " + std::to_string(sweep->maxTp) + "\n";
        }
    }
    if (documents.serving) {
        text += detail::composeServingSettings(*documents.serving);
    }
    if (documents.figureStyle) {
        text += composeFigureStyle(*documents.figureStyle);
    }
    if (!documents.runs.empty()) {
        text += "runs:\n";
        for (const PinnedRunDocuments& run : documents.runs) {
            // Names and overrides always quoted: a plain scalar would turn "null" or "yes" into something else.
            text += "  - name: " + doubleQuoted(run.name) + "\n";
            text += "    pinned_at: " + (isUtcTimestamp(run.pinnedAt) ? run.pinnedAt : doubleQuoted(run.pinnedAt))
                + "\n";
            if (run.baseline) {
                text += "    baseline: true\n";
            }
            if (run.backend != "analytical") {
                const auto& known = pinnedRunBackends();
                const bool plain = std::find(known.begin(), known.end(), run.backend) != known.end();
                text += "    backend: " + (plain ? run.backend : doubleQuoted(run.backend)) + "\n";
            }
            if (!run.overrides.empty()) {
                text += "    overrides:\n";
                for (const std::string& assignment : run.overrides) {
                    text += "      - " + doubleQuoted(assignment) + "\n";
                }
            }
            text += "    " + yamlBlockScalar("model", run.model.text, "      ");
            text += "    " + yamlBlockScalar("hardware", run.hardware.text, "      ");
            text += "    " + yamlBlockScalar("run", run.run.text, "      ");
        }
    }
    text += detail::composeSavedResults(documents.results);
    return text;
}

} // namespace rapid::config
