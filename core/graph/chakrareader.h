// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "graph/chakraerror.h"
#include "graph/chakratrace.h"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rapid::graph {

/// Parses the bytes of one Chakra ET file: a varint32 length-prefixed GlobalMetadata frame, then Node frames until
/// the end. Accepts packed and unpacked repeated fields, unknown fields, missing id/type and any attribute member.
/// Throws ChakraError (with @p name and the byte offset) on an empty, gzip-compressed, truncated or corrupted input;
/// never reads past @p bytes, and allocates at most in proportion to its size (a frame may not claim more bytes
/// than remain). The trace's rank is 0 and its path @p name.
ChakraTrace parseChakraTrace(std::string_view bytes, const std::string& name = "<memory>");

/// Reads one `.et` file (see parseChakraTrace). The rank comes from a `<prefix>.<rank>.et` file name, else 0.
/// Throws ChakraError, also when the file cannot be opened.
ChakraTrace readChakraFile(const std::filesystem::path& path);

/// The rank in a `<prefix>.<rank>.et` file name (no zero padding required), or nullopt.
std::optional<int> chakraRankFromFileName(const std::string& fileName);

/// The largest trace set readChakraDirectory reads into memory: 1 GiB of files. Decoded traces take 7-10 times their
/// files (measured: a 421 MiB set took 3.0 GB once read, 4.3 GB in `rapid chakra simulate`). inspectChakraFiles reads
/// any size file by file.
inline constexpr std::uintmax_t kMaxChakraSetBytes = std::uintmax_t(1) << 30;

/// The files of a set of per-rank traces, sorted by rank:
/// - a directory: every `<prefix>.<rank>.et` file in it (all must share one prefix, else ChakraError);
/// - a file: that file alone;
/// - a prefix as ASTRA-sim takes it (`dir/name` naming `dir/name.<rank>.et`): those files.
/// Ranks need not be contiguous (inspection reports gaps). Throws ChakraError if nothing matches.
std::vector<std::filesystem::path> listChakraSet(const std::filesystem::path& dirOrFile);

/// Reads the set listChakraSet names, sorted by rank, into memory. Throws ChakraError if nothing matches, the set is
/// above kMaxChakraSetBytes (inspectChakraFiles reads any size) or a file fails.
std::vector<ChakraTrace> readChakraDirectory(const std::filesystem::path& dirOrFile);

} // namespace rapid::graph
