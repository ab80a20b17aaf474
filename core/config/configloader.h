// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "diagnostic.h"
#include "hardwarespec.h"
#include "modelspec.h"
#include "presetlibrary.h"
#include "runspec.h"
#include "sourcemap.h"

#include <string>
#include <vector>

namespace rapid::config {

/// The text of one document as an editor holds it. sourceName appears in error messages; baseDir resolves
/// relative references (a GPU given as a path).
struct DocumentText {
    std::string text;
    std::string sourceName;
    std::string baseDir;
};

/// Model, hardware and run of one evaluation, checked against each other.
struct Scenario {
    std::string name;
    ModelSpec model;
    HardwareSpec hardware;
    RunSpec run;
    SourceMap locations; ///< where every key was written, by key path ("run.parallelism.tp")
};

/// Loads the YAML documents described in configs/README.md into typed specs. Every entry point throws ConfigError
/// listing all problems found (file:line:column, key path, what is expected) and never crashes on bad input.
/// Overrides are "key.path=value" strings applied before reading (see configs/README.md).
class ConfigLoader {
public:
    explicit ConfigLoader(PresetLibrary library);

    ModelSpec loadModel(const std::string& reference, const std::vector<std::string>& overrides = {}) const;
    HardwareSpec loadHardware(const std::string& reference, const std::vector<std::string>& overrides = {}) const;
    RunSpec loadRun(const std::string& reference, const std::vector<std::string>& overrides = {}) const;

    /// Three references (preset names or paths), overrides, then the checks across documents.
    Scenario loadScenario(const std::string& model, const std::string& hardware, const std::string& run,
        const std::vector<std::string>& overrides = {}) const;
    /// A workspace file (`*.rapid.yaml`) or workspace preset name.
    Scenario loadWorkspace(const std::string& reference, const std::vector<std::string>& overrides = {}) const;
    /// Documents held in memory (the workbench's editors).
    Scenario loadTexts(const DocumentText& model, const DocumentText& hardware, const DocumentText& run,
        const std::vector<std::string>& overrides = {}) const;

    const PresetLibrary& library() const { return m_library; }

private:
    PresetLibrary m_library;
};

/// Checks that need two documents: tp divides the heads, the parallel degrees use every GPU of the hardware, the
/// GPU has the compute precision, the sequence fits the model's context, mapped network dimensions exist...
std::vector<Diagnostic> checkScenario(
    const ModelSpec& model, const HardwareSpec& hardware, const RunSpec& run, const SourceMap& locations);

} // namespace rapid::config
