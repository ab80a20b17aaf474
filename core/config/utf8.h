// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace rapid::config {

/// The offset of the first byte of @p text that does not begin a well-formed UTF-8 sequence (Unicode 15, table 3-7:
/// no overlong forms, no surrogates, nothing above U+10FFFF, no truncated sequence), or nothing when all of it is
/// UTF-8. YAML documents are Unicode text; a name with stray bytes would reach JSON output and the workbench garbled.
std::optional<std::size_t> firstInvalidUtf8(std::string_view text);

/// Line and column (1-based, columns in bytes) of byte @p offset of @p text.
struct TextPosition {
    int line = 1;
    int column = 1;
};
TextPosition positionOf(std::string_view text, std::size_t offset);

} // namespace rapid::config
