// SPDX-License-Identifier: GPL-3.0-or-later
#include "workspacefile.h"
#include "yamlnode_p.h"

#include "yamledit.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
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

} // namespace

bool WorkspaceDocuments::operator==(const WorkspaceDocuments& other) const
{
    return name == other.name && model.text == other.model.text && hardware.text == other.hardware.text
        && run.text == other.run.text && overrides == other.overrides;
}

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
    sink.throwIfAny();
    return documents;
}

std::string composeWorkspace(const WorkspaceDocuments& documents)
{
    std::string text = "# RAPID-LLM Workbench workspace: a model, a hardware and a run document (configs/README.md)\n";
    text += "name: " + yamlQuoted(documents.name) + "\n";
    text += ensureNewline(documents.model.text);
    text += ensureNewline(documents.hardware.text);
    text += ensureNewline(documents.run.text);
    if (!documents.overrides.empty()) {
        text += "overrides:\n";
        for (const std::string& assignment : documents.overrides) {
            text += "  - " + yamlQuoted(assignment) + "\n";
        }
    }
    return text;
}

} // namespace rapid::config
