// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "graph/chakrainspect.h"
#include "graph/chakratrace.h"

#include <filesystem>
#include <memory>
#include <optional>
#include <vector>

namespace rapid::widgets {

/// The comm-group file that belongs to the trace set at @p dirOrFile (a directory, one `.et` file or a prefix, as
/// graph::listChakraSet takes them): `comm_groups.json` in that directory or beside the files, which is where the
/// exporter writes it; nullopt when there is none.
std::optional<std::filesystem::path> commGroupsBeside(const std::filesystem::path& dirOrFile);

/// graph::inspectChakra of @p traces with the groups of @p commGroups (when given): the defects `rapid chakra
/// inspect` reports. Tens of milliseconds for the 3,664-node PyTorch sample, more for large sets: the graph view runs
/// it on a worker thread. Throws graph::ChakraError when the comm-group file cannot be read.
graph::ChakraInspection inspectTraceSet(const std::vector<std::shared_ptr<const graph::ChakraTrace>>& traces,
    const std::optional<std::filesystem::path>& commGroups);

} // namespace rapid::widgets
