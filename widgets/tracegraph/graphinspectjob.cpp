// SPDX-License-Identifier: GPL-3.0-or-later
#include "tracegraph/graphinspectjob.h"

#include "graph/chakracommgroups.h"

#include <system_error>

namespace rapid::widgets {

std::optional<std::filesystem::path> commGroupsBeside(const std::filesystem::path& dirOrFile)
{
    std::error_code error;
    const std::filesystem::path dir
        = std::filesystem::is_directory(dirOrFile, error) ? dirOrFile : dirOrFile.parent_path();
    std::filesystem::path file = dir / "comm_groups.json";
    if (std::filesystem::is_regular_file(file, error)) {
        return file;
    }
    return std::nullopt;
}

graph::ChakraInspection inspectTraceSet(const std::vector<std::shared_ptr<const graph::ChakraTrace>>& traces,
    const std::optional<std::filesystem::path>& commGroups)
{
    std::optional<graph::ChakraCommGroups> groups;
    if (commGroups) {
        groups = graph::readChakraCommGroups(*commGroups);
    }
    // inspectChakra takes the traces by value type; the view shares them with layouts, so the worker inspects copies.
    std::vector<graph::ChakraTrace> copies;
    copies.reserve(traces.size());
    for (const auto& trace : traces) {
        copies.push_back(*trace);
    }
    return graph::inspectChakra(copies, groups ? &*groups : nullptr);
}

} // namespace rapid::widgets
