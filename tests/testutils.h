// SPDX-License-Identifier: GPL-3.0-or-later
// Helpers shared by the tests: the project's presets, temporary files, and a check that a ConfigError names the
// expected place.
#pragma once

#include "config/configloader.h"
#include "config/diagnostic.h"

#include <QTemporaryDir>
#include <QTest>

#include <fstream>
#include <string>

namespace rapid::test {

/// The source tree's configs/ folder (independent of the environment).
inline config::PresetLibrary projectPresets()
{
    return config::PresetLibrary({ RAPID_SOURCE_CONFIG_DIR });
}

inline config::ConfigLoader projectLoader()
{
    return config::ConfigLoader(projectPresets());
}

/// Llama-2-7B training on one 8-GPU A100 node (sequence 2048) with @p overrides after those: the small scenario the
/// step model's and step plan's hand-derived byte counts are written for.
inline config::Scenario llama7bOn8(const std::vector<std::string>& overrides)
{
    std::vector<std::string> all = { "hardware.cluster.network[0].size=8", "run.training.seq_length=2048" };
    all.insert(all.end(), overrides.begin(), overrides.end());
    return projectLoader().loadScenario("llama-2-7b", "hgx-a100-8gpu", "llama-2-7b-train-4xa100", all);
}

/// Writes @p text to @p name inside @p dir and returns the full path.
inline std::string writeFile(const QTemporaryDir& dir, const std::string& name, const std::string& text)
{
    const std::string path = dir.filePath(QString::fromStdString(name)).toStdString();
    std::ofstream out(path, std::ios::binary);
    out << text;
    return path;
}

/// Runs @p load, expects a ConfigError and returns its diagnostics (empty, with a test failure, if none was thrown).
template <typename Load> std::vector<config::Diagnostic> expectConfigError(Load&& load)
{
    try {
        load();
    } catch (const config::ConfigError& error) {
        return error.diagnostics();
    } catch (const std::exception& error) {
        QTest::qFail(("unexpected exception type: " + std::string(error.what())).c_str(), __FILE__, __LINE__);
        return {};
    }
    QTest::qFail("expected a ConfigError, but loading succeeded", __FILE__, __LINE__);
    return {};
}

} // namespace rapid::test
