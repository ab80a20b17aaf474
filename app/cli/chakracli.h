// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "arguments.h"

#include "graph/chakracommgroups.h"

#include <filesystem>
#include <optional>
#include <string>

namespace rapid::cli {

/// The communicator groups of a trace set: --comm-groups FILE, else comm_groups.json beside the traces when @p input
/// is a directory holding one, else none. @p origin (optional) receives the file read. Throws graph::ChakraError for
/// a file that cannot be read.
std::optional<graph::ChakraCommGroups> chakraCommGroupsFor(
    const Arguments& arguments, const std::filesystem::path& input, std::string* origin = nullptr);

} // namespace rapid::cli
