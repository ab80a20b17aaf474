// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <string>

namespace rapid::config {

/// Sets the value at @p keyPath ("run.parallelism.tp", "hardware.cluster.network[1].size") in YAML @p text and
/// returns the new text. An existing scalar is replaced in place, so comments, key order and layout survive (the
/// workbench's form edits rely on this); a missing key is inserted beside its siblings; anything else (a missing
/// parent, replacing a mapping) rewrites the document. @p valueYaml is a YAML value ("4", "true", "\"1.5 TB/s\"",
/// "[1, 2]"). Returns std::nullopt with the reason in @p why when the text does not parse or the path cannot exist.
std::optional<std::string> setYamlValue(
    const std::string& text, const std::string& keyPath, const std::string& valueYaml, std::string* why = nullptr);

/// Whether @p text is YAML that setYamlValue can edit: it parses and its root is a mapping (or empty). The reason
/// when not is written to @p why.
bool yamlEditable(const std::string& text, std::string* why = nullptr);

/// The scalar text at @p keyPath, if the text parses and holds a scalar there.
std::optional<std::string> yamlScalarAt(const std::string& text, const std::string& keyPath);

/// Quotes @p text as a YAML scalar when a plain scalar would change its meaning (": ", "#", leading symbols...).
std::string yamlQuoted(const std::string& text);

} // namespace rapid::config
