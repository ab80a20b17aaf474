// SPDX-License-Identifier: GPL-3.0-or-later
#include "chakracli.h"

namespace rapid::cli {

std::optional<graph::ChakraCommGroups> chakraCommGroupsFor(
    const Arguments& arguments, const std::filesystem::path& input, std::string* origin)
{
    std::filesystem::path path;
    if (auto given = arguments.value("comm-groups")) {
        path = *given;
    } else if (std::error_code error; std::filesystem::is_directory(input, error)
               && std::filesystem::is_regular_file(input / "comm_groups.json", error)) {
        path = input / "comm_groups.json";
    } else {
        return std::nullopt;
    }
    if (origin) {
        *origin = path.string();
    }
    return graph::readChakraCommGroups(path);
}

} // namespace rapid::cli
