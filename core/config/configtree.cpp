// SPDX-License-Identifier: GPL-3.0-or-later
#include "configtree_p.h"
#include "figurestyle_p.h"
#include "utf8.h"
#include "workspacefile_p.h"
#include "yamlnode_p.h"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace rapid::config::detail {

namespace {

std::string hexByte(char byte)
{
    static const char kDigits[] = "0123456789ABCDEF";
    const auto value = static_cast<unsigned char>(byte);
    return std::string("0x") + kDigits[value >> 4] + kDigits[value & 0xF];
}

std::string describeKind(PresetKind kind)
{
    switch (kind) {
    case PresetKind::Model:
        return "model";
    case PresetKind::Gpu:
        return "GPU";
    case PresetKind::Hardware:
        return "hardware";
    case PresetKind::Run:
        return "run";
    case PresetKind::Workspace:
        return "workspace";
    }
    return "";
}

std::string joinNames(const std::vector<std::string>& names)
{
    std::string text;
    for (const std::string& name : names) {
        text += (text.empty() ? "" : ", ") + name;
    }
    return text;
}

std::string dirOf(const std::string& path)
{
    return fs::path(path).parent_path().string();
}

/// "bandwidth", "bandwidth_GBps" and "bandwidth_TBps" are one quantity: an override in one spelling replaces the
/// others instead of giving the quantity twice.
void removeOtherSpellings(YAML::Node& map, const std::string& key)
{
    auto baseOf = [](const std::string& name) {
        for (const KeyUnit& unit : keyUnits()) {
            if (name.size() > unit.suffix.size()
                && name.compare(name.size() - unit.suffix.size(), unit.suffix.size(), unit.suffix) == 0) {
                return name.substr(0, name.size() - unit.suffix.size());
            }
        }
        return name;
    };
    const std::string base = baseOf(key);
    std::vector<std::string> others;
    for (auto it = map.begin(); it != map.end(); ++it) {
        if (isScalarNode(it->first)) {
            const std::string name = it->first.Scalar();
            if (name != key && baseOf(name) == base && (name == base || name.size() > base.size())) {
                others.push_back(name);
            }
        }
    }
    for (const std::string& name : others) {
        map.remove(name);
    }
}

} // namespace

ConfigTree::ConfigTree(const PresetLibrary& library, DiagnosticSink& sink)
    : m_library(library)
    , m_sink(sink)
{
}

YAML::Node ConfigTree::parse(const std::string& text, const std::string& sourceName, bool isFile)
{
    std::string content = text;
    if (isFile) {
        std::ifstream in(text, std::ios::binary);
        if (!in) {
            m_sink.add({ sourceName, 0, 0 }, {}, "cannot read the file");
            return {};
        }
        std::ostringstream buffer;
        buffer << in.rdbuf();
        content = buffer.str();
    }
    if (content.find('\0') != std::string::npos) {
        m_sink.add({ sourceName, 1, 1 }, {}, "the file contains NUL bytes; expected YAML text");
        return {};
    }
    if (const auto invalid = firstInvalidUtf8(content)) {
        const TextPosition at = positionOf(content, *invalid);
        m_sink.add({ sourceName, at.line, at.column }, {},
            "a byte that is not UTF-8 (" + hexByte(content[*invalid]) + "); YAML documents are UTF-8 text");
        return {};
    }
    try {
        return YAML::Load(content);
    } catch (const YAML::Exception& error) {
        const SourceLocation where { sourceName, error.mark.is_null() ? 0 : error.mark.line + 1,
            error.mark.is_null() ? 0 : error.mark.column + 1 };
        m_sink.add(where, {}, "YAML syntax error: " + error.msg);
    }
    return {};
}

void ConfigTree::takeDocument(const std::string& key, const YAML::Node& document, const std::string& sourceName)
{
    // Registered first, so that even an empty document's errors name its file.
    m_origins.subtreeSources.emplace_back(key, sourceName);
    if (!document.IsDefined() || isNullNode(document)) {
        return; // parse errors were reported; an empty document is reported by the reader
    }
    if (!isMapNode(document)) {
        m_sink.add(Origins { sourceName, {}, {} }.locate(key, document), key,
            "expected a document with the root key \"" + key + ":\", got " + describeNode(document));
        return;
    }
    YAML::Node body;
    bool found = false;
    for (auto it = document.begin(); it != document.end(); ++it) {
        const std::string name = isScalarNode(it->first) ? it->first.Scalar() : std::string();
        if (found && key == "hardware" && (name == key || name == "gpu")) {
            // Both roots: one of the two GPUs would be silently ignored.
            m_sink.add(Origins { sourceName, {}, {} }.locate(name, it->first), name,
                "a hardware document has one root key: \"hardware:\", or \"gpu:\" for one GPU without a network, "
                "not both");
        } else if (name == key) {
            body = it->second;
            found = true;
        } else if (key == "hardware" && name == "gpu") {
            // A GPU preset used as hardware: one GPU, no network.
            YAML::Node hardware(YAML::NodeType::Map);
            hardware["gpu"] = it->second;
            body = hardware;
            found = true;
        } else {
            m_sink.add(Origins { sourceName, {}, {} }.locate(name, it->first), name,
                "unexpected root key \"" + name + "\"; a " + key + " document has the single root key \"" + key
                    + ":\"");
        }
    }
    if (!found) {
        m_sink.add({ sourceName, 1, 1 }, key, "the document has no root key \"" + key + ":\"");
        return;
    }
    m_root[key] = body;
    if (key == "hardware") {
        m_gpuBaseDir = dirOf(sourceName);
    }
}

void ConfigTree::addReference(const std::string& key, PresetKind kind, const std::string& reference,
    const std::string& baseDir, const SourceLocation& where)
{
    const auto path = m_library.resolve(kind, reference, baseDir);
    if (!path) {
        const bool looksLikePath
            = reference.find('/') != std::string::npos || reference.find(".y") != std::string::npos;
        m_sink.add(where, key,
            looksLikePath ? "no such file \"" + reference + "\""
                          : "no " + describeKind(kind) + " preset named \"" + reference
                    + "\"; presets: " + joinNames(m_library.names(kind)));
        return;
    }
    takeDocument(key, parse(*path, *path, true), *path);
}

void ConfigTree::addText(
    const std::string& key, const std::string& text, const std::string& sourceName, const std::string& baseDir)
{
    takeDocument(key, parse(text, sourceName, false), sourceName);
    if (key == "hardware") {
        m_gpuBaseDir = baseDir;
    }
}

void ConfigTree::addWorkspace(const std::string& reference)
{
    const auto path = m_library.resolve(PresetKind::Workspace, reference);
    if (!path) {
        m_sink.add({ reference, 0, 0 }, {},
            "no such workspace file or preset; presets: " + joinNames(m_library.names(PresetKind::Workspace)));
        return;
    }
    const YAML::Node document = parse(*path, *path, true);
    if (!document.IsDefined() || isNullNode(document)) {
        if (m_sink.empty()) {
            m_sink.add({ *path, 1, 1 }, {}, "the workspace is empty; expected name, model, hardware and run");
        }
        return;
    }
    Origins origins { *path, {}, {} };
    SourceMap unused;
    ReadContext context { m_sink, origins, unused };
    MapReader reader(context, document, {});
    if (!reader.valid()) {
        return;
    }
    m_workspaceName = reader.text("name", fs::path(*path).stem().string());
    const std::string baseDir = dirOf(*path);
    const std::pair<const char*, PresetKind> parts[]
        = { { "model", PresetKind::Model }, { "hardware", PresetKind::Hardware }, { "run", PresetKind::Run } };
    for (const auto& [key, kind] : parts) {
        const YAML::Node value = reader.raw(key);
        if (!value.IsDefined() || isNullNode(value)) {
            m_sink.add(origins.locate(key, document), key,
                std::string("required key \"") + key
                    + "\" is missing; expected a preset name, a path or an "
                      "inline mapping");
        } else if (isScalarNode(value)) {
            addReference(key, kind, value.Scalar(), baseDir, origins.locate(key, value));
        } else if (isMapNode(value)) {
            m_root[key] = value;
            m_origins.subtreeSources.emplace_back(key, *path);
            if (std::string(key) == "hardware") {
                m_gpuBaseDir = baseDir;
            }
        } else {
            context.error(key, value, "expected a preset name, a path or a mapping, got " + describeNode(value));
        }
    }
    std::vector<std::pair<std::string, SourceLocation>> overrides;
    for (const auto& [itemPath, item] : reader.list("overrides", false)) {
        if (!isScalarNode(item)) {
            context.error(itemPath, item, "expected \"key.path=value\", got " + describeNode(item));
            continue;
        }
        overrides.emplace_back(item.Scalar(), origins.locate(itemPath, item));
    }
    // Runs pinned and results kept by the workbench play no part in the scenario; they are checked so a damaged list is
    // reported here rather than when the workbench opens the file.
    readPinnedRuns(context, reader.raw("runs"), *path);
    readSweepSettings(context, reader.raw("sweep"));
    readServingSettings(context, reader.raw("serving"));
    readFigureStyleSection(context, reader.raw("figure_style"), "figure_style");
    readSavedResults(context, reader.raw("results"), *path);
    reader.finish();
    expandGpuReference();
    for (const auto& [assignment, where] : overrides) {
        applyOverride(assignment, where);
    }
}

void ConfigTree::expandGpuReference()
{
    const YAML::Node& constRoot = m_root;
    if (!isMapNode(constRoot["hardware"])) {
        return;
    }
    YAML::Node hardware = m_root["hardware"];
    const YAML::Node& constHardware = hardware;
    const YAML::Node gpu = constHardware["gpu"];
    if (!isScalarNode(gpu)) {
        return;
    }
    const std::string reference = gpu.Scalar();
    const SourceLocation where = m_origins.locate("hardware.gpu", gpu);
    const auto path = m_library.resolve(PresetKind::Gpu, reference, m_gpuBaseDir);
    if (!path) {
        m_sink.add(where, "hardware.gpu",
            "no GPU preset named \"" + reference + "\"; presets: " + joinNames(m_library.names(PresetKind::Gpu)));
        return;
    }
    const YAML::Node document = parse(*path, *path, true);
    if (!isMapNode(document) || !document["gpu"].IsDefined()) {
        if (document.IsDefined()) {
            m_sink.add({ *path, 1, 1 }, "hardware.gpu", "a GPU preset has the single root key \"gpu:\"");
        }
        return;
    }
    hardware["gpu"] = document["gpu"];
    m_origins.subtreeSources.emplace_back("hardware.gpu", *path);
}

void ConfigTree::applyOverrides(const std::vector<std::string>& assignments)
{
    for (const std::string& assignment : assignments) {
        const std::string source = "--set " + assignment;
        const size_t equals = assignment.find('=');
        applyOverride(assignment, { source, 1, static_cast<int>(equals == std::string::npos ? 1 : equals + 2) });
    }
}

namespace {

/// One step of a key path: a key, or a list selector by index or by the item's name.
struct PathStep {
    std::string key;
    bool selector = false;
    std::string selectorText;
};

/// Splits "a.b[2].c[name]" into @p steps; false for an unclosed '['.
bool splitKeyPath(const std::string& keyPath, std::vector<PathStep>& steps)
{
    std::string current;
    for (size_t i = 0; i < keyPath.size(); ++i) {
        const char c = keyPath[i];
        if (c == '.' || c == '[') {
            if (!current.empty()) {
                steps.push_back({ current, false, {} });
            }
            current.clear();
        }
        if (c == '[') {
            const size_t close = keyPath.find(']', i);
            if (close == std::string::npos) {
                return false;
            }
            steps.push_back({ {}, true, keyPath.substr(i + 1, close - i - 1) });
            i = close;
        } else if (c != '.') {
            current.push_back(c);
        }
    }
    if (!current.empty()) {
        steps.push_back({ current, false, {} });
    }
    return true;
}

} // namespace

void ConfigTree::applyOverride(const std::string& assignment, const SourceLocation& where)
{
    const size_t equals = assignment.find('=');
    if (equals == std::string::npos || equals == 0) {
        m_sink.add(where, {}, "expected KEY=VALUE such as run.parallelism.tp=4, got \"" + assignment + "\"");
        return;
    }
    const std::string keyPath = assignment.substr(0, equals);
    const std::string valueText = assignment.substr(equals + 1);
    if (const auto invalid = firstInvalidUtf8(assignment)) {
        m_sink.add(where, firstInvalidUtf8(keyPath) ? std::string() : keyPath,
            "a byte that is not UTF-8 (" + hexByte(assignment[*invalid]) + ") in \"KEY=VALUE\"; expected UTF-8 text");
        return;
    }
    // An empty value is most often a shell variable that expanded to nothing; read as YAML it would be null, and an
    // optional key would silently fall back to its default. An explicit "null" still clears a key.
    if (valueText.find_first_not_of(" \t") == std::string::npos) {
        m_sink.add(where, keyPath,
            "no value after '='; expected KEY=VALUE such as run.parallelism.tp=4 (KEY=null clears an optional key)");
        return;
    }
    YAML::Node value;
    try {
        value = YAML::Load(valueText);
    } catch (const YAML::Exception& error) {
        m_sink.add(where, keyPath, "the value is not valid YAML: " + error.msg);
        return;
    }
    if (!value.IsDefined()) {
        value = YAML::Node(YAML::NodeType::Null);
    }

    std::vector<PathStep> steps;
    if (!splitKeyPath(keyPath, steps)) {
        m_sink.add(where, keyPath, "unclosed '[' in the key path");
        return;
    }
    if (steps.empty() || steps.front().selector) {
        m_sink.add(where, keyPath, "the key path must start with model, hardware or run");
        return;
    }
    const YAML::Node& constRoot = m_root;
    if (!constRoot[steps.front().key].IsDefined() || isNullNode(constRoot[steps.front().key])) {
        const std::string& first = steps.front().key;
        m_sink.add(where, keyPath,
            first == "model" || first == "hardware" || first == "run"
                ? "there is no " + first + " document to override here"
                : "unknown document \"" + first + "\"; key paths start with model, hardware or run");
        return;
    }

    YAML::Node node;
    node.reset(m_root);
    std::string normalized;
    for (size_t i = 0; i < steps.size(); ++i) {
        const PathStep& step = steps[i];
        const bool last = i + 1 == steps.size();
        if (!step.selector) {
            if (!isMapNode(node)) {
                m_sink.add(where, keyPath, "\"" + normalized + "\" is " + describeNode(node) + ", not a mapping");
                return;
            }
            normalized += (normalized.empty() ? "" : ".") + step.key;
            if (last) {
                removeOtherSpellings(node, step.key);
                node[step.key] = value;
                break;
            }
            const YAML::Node& constNode = node;
            if (!constNode[step.key].IsDefined() || isNullNode(constNode[step.key])) {
                node[step.key] = YAML::Node(YAML::NodeType::Map);
            }
            YAML::Node next = node[step.key];
            node.reset(next);
            continue;
        }
        if (!isSequenceNode(node)) {
            m_sink.add(where, keyPath, "\"" + normalized + "\" is " + describeNode(node) + ", not a list");
            return;
        }
        size_t index = node.size();
        const std::string& selector = step.selectorText;
        if (!selector.empty() && selector.find_first_not_of("0123456789") == std::string::npos) {
            index = selector.size() < 9 ? std::stoul(selector) : node.size();
        } else {
            for (size_t j = 0; j < node.size(); ++j) {
                const YAML::Node item = node[j];
                const YAML::Node& constItem = item;
                if (isMapNode(constItem) && isScalarNode(constItem["name"]) && constItem["name"].Scalar() == selector) {
                    index = j;
                }
            }
        }
        if (index >= node.size()) {
            m_sink.add(where, keyPath,
                "\"" + normalized + "\" has no item [" + selector + "] (it has " + std::to_string(node.size())
                    + " items; select by index or by name)");
            return;
        }
        normalized += "[" + std::to_string(index) + "]";
        if (last) {
            node[index] = value;
            break;
        }
        YAML::Node next = node[index];
        node.reset(next);
    }
    m_origins.overrides.emplace_back(normalized, where);
    if (normalized == "hardware.gpu" && isScalarNode(value)) {
        expandGpuReference(); // a GPU preset by name replaces the whole GPU, as in the hardware document
    }
}

} // namespace rapid::config::detail
