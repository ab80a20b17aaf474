// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>

namespace rapid::config {

/// Where a preset's value comes from, as its YAML text says in comments (presets name the source of every figure):
/// the comment block directly above the key at @p keyPath and a comment after its value on the same line; else the
/// header paragraph that starts with the key's name ("# clock_GHz: the dense tensor peaks ..."); else, when
/// @p headerSourceFallback, the header's "Source:" paragraph. '#' marks are removed and a paragraph's lines joined.
/// Empty when nothing documents the value (or the text does not parse).
std::string presetValueSource(const std::string& yaml, const std::string& keyPath, bool headerSourceFallback);

} // namespace rapid::config
