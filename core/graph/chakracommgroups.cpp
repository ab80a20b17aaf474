// SPDX-License-Identifier: GPL-3.0-or-later
#include "chakracommgroups.h"

#include "graph/chakraerror.h"

#include <yaml-cpp/yaml.h>

namespace rapid::graph {

ChakraCommGroups readChakraCommGroups(const std::filesystem::path& path)
{
    // JSON is YAML, and core already reads YAML with yaml-cpp.
    YAML::Node root;
    try {
        root = YAML::LoadFile(path.string());
    } catch (const YAML::Exception& error) {
        throw ChakraError(path.string(), 0, std::string("not a comm-group JSON file: ") + error.what());
    }
    if (!root.IsMap()) {
        throw ChakraError(path.string(), 0, "a comm-group file is a JSON object: group id -> list of ranks");
    }
    ChakraCommGroups groups;
    for (const auto& entry : root) {
        const std::string id = entry.first.as<std::string>();
        if (!entry.second.IsSequence()) {
            throw ChakraError(path.string(), 0, "group \"" + id + "\": expected a list of ranks");
        }
        std::vector<int>& members = groups[id];
        for (const YAML::Node& rank : entry.second) {
            try {
                members.push_back(rank.as<int>());
            } catch (const YAML::Exception&) {
                throw ChakraError(path.string(), 0, "group \"" + id + "\": ranks must be integers");
            }
        }
    }
    return groups;
}

std::string chakraCommGroupsJson(const ChakraCommGroups& groups)
{
    std::string text = "{";
    bool first = true;
    for (const auto& [id, members] : groups) {
        text += (first ? "\n  \"" : ",\n  \"") + id + "\": [";
        first = false;
        for (size_t i = 0; i < members.size(); ++i) {
            text += (i ? ", " : "") + std::to_string(members[i]);
        }
        text += "]";
    }
    text += first ? "}\n" : "\n}\n";
    return text;
}

} // namespace rapid::graph
