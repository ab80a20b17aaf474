// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace rapid::config {

enum class PresetKind { Model, Gpu, Hardware, Run, Workspace };

/// Finds presets by name in one or more configs/ folders (models/, gpus/, hardware/, runs/, workspaces/).
class PresetLibrary {
public:
    explicit PresetLibrary(std::vector<std::string> configDirs);

    /// The usual search order: $RAPID_CONFIG_DIR, <dir of the executable>/../share/rapid-llm/configs, then the
    /// source tree's configs/ recorded at build time (so the build tree works without installing).
    static PresetLibrary standard(const std::string& executablePath = {});

    /// Resolves a reference: a value with '/' or ending in .yaml is a path (relative to @p baseDir when relative);
    /// anything else is a preset name looked up case-insensitively. Hardware names also find GPU presets.
    std::optional<std::string> resolve(
        PresetKind kind, const std::string& reference, const std::string& baseDir = {}) const;

    /// Preset names of one kind (file names without .yaml), sorted.
    std::vector<std::string> names(PresetKind kind) const;
    const std::vector<std::string>& configDirs() const { return m_dirs; }

private:
    std::vector<std::string> m_dirs;
};

const char* folderOf(PresetKind kind);

} // namespace rapid::config
