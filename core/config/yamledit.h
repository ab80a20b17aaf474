// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace rapid::config {

/// Sets the value at @p keyPath ("run.parallelism.tp", "hardware.cluster.network[1].size") in YAML @p text and
/// returns the new text. An existing scalar is replaced in place, so comments, key order and layout survive (the
/// workbench's form edits rely on this); a missing key is appended after the last entry of its mapping (before the
/// blank and comment lines that follow it); anything else (a missing parent, replacing a mapping) rewrites the
/// document. @p valueYaml is a YAML value ("4", "true", "\"1.5 TB/s\"", "[1, 2]"). Returns std::nullopt with the
/// reason in @p why when the text does not parse or the path cannot exist.
std::optional<std::string> setYamlValue(
    const std::string& text, const std::string& keyPath, const std::string& valueYaml, std::string* why = nullptr);

/// Replaces the list at @p keyPath, a key of a top-level mapping ("hardware.faults"), by @p items (each one YAML
/// value, e.g. "{link: \"ib:3-s1.0\", health: 0.5}") written as a block list, editing only those lines: an existing
/// block or flow list is replaced where it stands, a missing one goes after the mapping's last line, no items remove
/// the key. Comments, key order and layout of everything else stay as written. std::nullopt for layouts this does not
/// cover (a flow mapping as the parent, anchors or tags on the list, a deeper path): use setYamlValue for those.
std::optional<std::string> replaceYamlListInPlace(
    const std::string& text, const std::string& keyPath, const std::vector<std::string>& items);

/// Whether @p text is YAML that setYamlValue can edit: it parses and its root is a mapping (or empty). The reason
/// when not is written to @p why.
bool yamlEditable(const std::string& text, std::string* why = nullptr);

/// The scalar text at @p keyPath, if the text parses and holds a scalar there.
std::optional<std::string> yamlScalarAt(const std::string& text, const std::string& keyPath);

/// The 0-based line of the value at @p keyPath (a scalar's own line, where its key stands too), if the text parses
/// and holds one there.
std::optional<int> yamlLineAt(const std::string& text, const std::string& keyPath);

/// Quotes @p text as a YAML scalar when a plain scalar would change its meaning (": ", "#", leading symbols...).
std::string yamlQuoted(const std::string& text);

} // namespace rapid::config
