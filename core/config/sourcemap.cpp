// SPDX-License-Identifier: GPL-3.0-or-later
#include "sourcemap.h"

namespace rapid::config {

void SourceMap::record(const std::string& keyPath, SourceLocation location)
{
    m_locations[keyPath] = std::move(location);
}

SourceLocation SourceMap::locate(const std::string& keyPath) const
{
    std::string path = keyPath;
    while (!path.empty()) {
        auto found = m_locations.find(path);
        if (found != m_locations.end()) {
            return found->second;
        }
        const size_t cut = path.find_last_of(".[");
        if (cut == std::string::npos) {
            break;
        }
        path.resize(cut);
    }
    return {};
}

void SourceMap::merge(const SourceMap& other)
{
    for (const auto& [path, location] : other.m_locations) {
        m_locations[path] = location;
    }
}

} // namespace rapid::config
