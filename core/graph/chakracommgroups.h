// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace rapid::graph {

/// Communicator groups as ASTRA-sim's `--comm-group-configuration` JSON gives them: group id (the `pg_name`
/// attribute's text, a decimal integer) -> member ranks in ring order.
using ChakraCommGroups = std::map<std::string, std::vector<int>>;

/// Reads a comm-group JSON file (`{"1": [0, 4, 8, 12], ...}`). Throws ChakraError if it cannot be read or is not an
/// object of integer lists.
ChakraCommGroups readChakraCommGroups(const std::filesystem::path& path);

/// Writes @p groups in the same JSON form (group ids in map order). Used by the exporter.
std::string chakraCommGroupsJson(const ChakraCommGroups& groups);

} // namespace rapid::graph
