// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "graph/chakratrace.h"

#include <filesystem>
#include <string>
#include <vector>

namespace rapid::graph {

/// The bytes of a Chakra ET file for @p trace: varint32 length + GlobalMetadata, then one frame per node in order.
/// Messages are encoded as the official encoders do (field-number order, packed repeated scalars, zero-valued plain
/// fields omitted, every present attribute member written even when 0 or false), so write -> read -> write is
/// byte-identical. The writer is faithful: it does not repair the trace (use inspectChakra for ASTRA-sim checks).
/// Throws std::invalid_argument if an attribute's value alternative does not match its type.
std::string serializeChakraTrace(const ChakraTrace& trace);

/// Writes serializeChakraTrace(@p trace) to @p path (uncompressed). Throws std::runtime_error on I/O failure.
void writeChakraFile(const std::filesystem::path& path, const ChakraTrace& trace);

/// Writes `<directory>/<prefix>.<rank>.et` for each trace (ranks from ChakraTrace::rank), creating the directory.
/// Returns the paths written, in the order of @p traces.
std::vector<std::filesystem::path> writeChakraDirectory(
    const std::filesystem::path& directory, const std::string& prefix, const std::vector<ChakraTrace>& traces);

} // namespace rapid::graph
