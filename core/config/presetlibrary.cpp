// SPDX-License-Identifier: GPL-3.0-or-later
#include "presetlibrary.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <system_error>

#ifndef RAPID_SOURCE_CONFIG_DIR
#define RAPID_SOURCE_CONFIG_DIR ""
#endif

namespace fs = std::filesystem;

namespace rapid::config {

const char* folderOf(PresetKind kind)
{
    switch (kind) {
    case PresetKind::Model:
        return "models";
    case PresetKind::Gpu:
        return "gpus";
    case PresetKind::Hardware:
        return "hardware";
    case PresetKind::Run:
        return "runs";
    case PresetKind::Workspace:
        return "workspaces";
    }
    return "";
}

namespace {
std::string lower(std::string text)
{
    std::transform(
        text.begin(), text.end(), text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return text;
}

bool endsWith(const std::string& text, const std::string& suffix)
{
    return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}
} // namespace

PresetLibrary::PresetLibrary(std::vector<std::string> configDirs)
    : m_dirs(std::move(configDirs))
{
}

PresetLibrary PresetLibrary::standard(const std::string& executablePath)
{
    std::vector<std::string> dirs;
    if (const char* env = std::getenv("RAPID_CONFIG_DIR"); env && *env) {
        dirs.emplace_back(env);
    }
    std::error_code error;
    fs::path exe = executablePath.empty() ? fs::read_symlink("/proc/self/exe", error) : fs::path(executablePath);
    if (!exe.empty()) {
        const fs::path installed = exe.parent_path() / ".." / "share" / "rapid-llm" / "configs";
        if (fs::is_directory(installed, error)) {
            dirs.push_back(fs::weakly_canonical(installed, error).string());
        }
    }
    if (std::string(RAPID_SOURCE_CONFIG_DIR).size() > 0) {
        dirs.emplace_back(RAPID_SOURCE_CONFIG_DIR);
    }
    return PresetLibrary(std::move(dirs));
}

std::optional<std::string> PresetLibrary::resolve(
    PresetKind kind, const std::string& reference, const std::string& baseDir) const
{
    std::error_code error;
    if (reference.find('/') != std::string::npos || endsWith(reference, ".yaml") || endsWith(reference, ".yml")) {
        fs::path path(reference);
        if (path.is_relative() && !baseDir.empty()) {
            path = fs::path(baseDir) / path;
        }
        if (fs::is_regular_file(path, error)) {
            return path.lexically_normal().string();
        }
        return std::nullopt;
    }
    const std::string wanted = lower(reference);
    std::vector<PresetKind> kinds = { kind };
    if (kind == PresetKind::Hardware) {
        kinds.push_back(PresetKind::Gpu);
    }
    for (PresetKind searched : kinds) {
        for (const std::string& dir : m_dirs) {
            const fs::path folder = fs::path(dir) / folderOf(searched);
            if (!fs::is_directory(folder, error)) {
                continue;
            }
            for (const auto& entry : fs::directory_iterator(folder, error)) {
                const std::string stem = entry.path().stem().string();
                const std::string name = endsWith(stem, ".rapid") ? stem.substr(0, stem.size() - 6) : stem;
                if (entry.is_regular_file(error) && (lower(name) == wanted || lower(stem) == wanted)) {
                    return entry.path().string();
                }
            }
        }
    }
    return std::nullopt;
}

std::vector<std::string> PresetLibrary::names(PresetKind kind) const
{
    std::set<std::string> names;
    std::error_code error;
    for (const std::string& dir : m_dirs) {
        const fs::path folder = fs::path(dir) / folderOf(kind);
        if (!fs::is_directory(folder, error)) {
            continue;
        }
        for (const auto& entry : fs::directory_iterator(folder, error)) {
            const std::string file = entry.path().filename().string();
            if (endsWith(file, ".rapid.yaml")) {
                names.insert(file.substr(0, file.size() - 11));
            } else if (endsWith(file, ".yaml")) {
                names.insert(file.substr(0, file.size() - 5));
            }
        }
    }
    return { names.begin(), names.end() };
}

} // namespace rapid::config
