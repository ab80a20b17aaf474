// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "diagnostic.h"
#include "hardwarespec.h"
#include "modelspec.h"
#include "presetlibrary.h"
#include "runspec.h"
#include "sourcemap.h"

#include <memory>
#include <mutex>
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

/// One scenario's documents loaded many times with different overrides (a sweep): the same result as
/// ConfigLoader::loadTexts(model, hardware, run, base overrides + point overrides). Parsing is most of a load's
/// cost, so the model and hardware are read once and a point whose overrides all write to the run document only
/// reads that document again; any other point is loaded in full. load() may be called from several threads at once.
class ScenarioTemplate {
public:
    ScenarioTemplate(ConfigLoader loader, DocumentText model, DocumentText hardware, DocumentText run,
        std::vector<std::string> overrides = {});
    ~ScenarioTemplate();
    ScenarioTemplate(const ScenarioTemplate&) = delete;
    ScenarioTemplate& operator=(const ScenarioTemplate&) = delete;

    Scenario load(const std::vector<std::string>& overrides) const;

private:
    struct ReadOnce;
    const ReadOnce& readOnce() const;

    ConfigLoader m_loader;
    DocumentText m_model;
    DocumentText m_hardware;
    DocumentText m_run;
    std::vector<std::string> m_overrides;
    mutable std::once_flag m_readOnceFlag;
    mutable std::unique_ptr<ReadOnce> m_readOnce;
};

/// Checks that need two documents: tp divides the heads, the parallel degrees use every GPU of the hardware, the
/// GPU has the compute precision, the sequence fits the model's context, mapped network dimensions exist...
std::vector<Diagnostic> checkScenario(
    const ModelSpec& model, const HardwareSpec& hardware, const RunSpec& run, const SourceMap& locations);

} // namespace rapid::config
