// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "diagnostic.h"

#include <map>
#include <string>

namespace rapid::config {

/// Where each key of a loaded document was written, by dotted key path ("run.parallelism.tp").
/// Lets checks that span documents (tp must divide the model's heads) point at the offending line.
class SourceMap {
public:
    void record(const std::string& keyPath, SourceLocation location);
    /// The location of @p keyPath, or of its nearest recorded parent, or an empty location.
    SourceLocation locate(const std::string& keyPath) const;
    bool contains(const std::string& keyPath) const { return m_locations.count(keyPath) != 0; }
    void merge(const SourceMap& other);

private:
    std::map<std::string, SourceLocation> m_locations;
};

} // namespace rapid::config
