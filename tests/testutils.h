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
