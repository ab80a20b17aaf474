// SPDX-License-Identifier: GPL-3.0-or-later
// Internal to core/config: assembles one YAML tree {model, hardware, run} from files, texts and presets, with the
// origin of every subtree, and applies "key.path=value" overrides to it.
#pragma once

#include "presetlibrary.h"
#include "yamlreader_p.h"

namespace rapid::config::detail {

class ConfigTree {
public:
    ConfigTree(const PresetLibrary& library, DiagnosticSink& sink);

    /// Parses @p path and takes its root key @p key ("model", "hardware", "run") into the tree.
    /// @p where is where the reference was written (for "no such preset" errors).
    void addReference(const std::string& key, PresetKind kind, const std::string& reference, const std::string& baseDir,
        const SourceLocation& where);
    /// Parses text holding one document with root key @p key.
    void addText(
        const std::string& key, const std::string& text, const std::string& sourceName, const std::string& baseDir);
    /// Loads a workspace file: name, model, hardware, run (inline or references) and its overrides.
    void addWorkspace(const std::string& path);
    /// Replaces a GPU given by preset name under hardware.gpu by the preset's mapping.
    void expandGpuReference();
    /// Applies one "key.path=value" override; @p where is where it was written.
    void applyOverride(const std::string& assignment, const SourceLocation& where);
    void applyOverrides(const std::vector<std::string>& assignments);

    const YAML::Node& root() const { return m_root; }
    const Origins& origins() const { return m_origins; }
    const std::string& workspaceName() const { return m_workspaceName; }

private:
    YAML::Node parse(const std::string& text, const std::string& sourceName, bool isFile);
    void takeDocument(const std::string& key, const YAML::Node& document, const std::string& sourceName);

    const PresetLibrary& m_library;
    DiagnosticSink& m_sink;
    YAML::Node m_root { YAML::NodeType::Map };
    Origins m_origins;
    std::string m_gpuBaseDir;
    std::string m_workspaceName;
};

} // namespace rapid::config::detail
