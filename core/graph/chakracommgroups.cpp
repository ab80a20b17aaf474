// SPDX-License-Identifier: GPL-3.0-or-later
#include "chakracommgroups.h"

#include "graph/chakraerror.h"

#include <nlohmann/json.hpp>
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
    nlohmann::ordered_json document = nlohmann::ordered_json::object();
    for (const auto& [id, members] : groups) {
        document[id] = members;
    }
    return document.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

} // namespace rapid::graph
