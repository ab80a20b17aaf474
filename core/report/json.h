// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <nlohmann/json.hpp>

#include <iosfwd>
#include <stdexcept>
#include <string>

namespace rapid::report {

/// A JSON document whose keys keep the order they were written in (the documented schemas list them in that order).
using Json = nlohmann::ordered_json;

/// A document that would hold NaN or infinity: JSON cannot say them, and writing null instead would be a silent wrong
/// number. what() names the key path ("breakdown_s.attention").
class NonFiniteJson : public std::domain_error {
public:
    explicit NonFiniteJson(const std::string& path);
};

/// Throws NonFiniteJson for the first number in @p document that is not finite.
void checkFinite(const Json& document);

/// @p document as text: @p indent spaces per level (-1: one line), after checkFinite. Strings that are not valid UTF-8
/// are written with U+FFFD for the invalid bytes instead of failing.
std::string jsonText(const Json& document, int indent = 2);

/// Writes jsonText(@p document) and a newline to @p out.
void writeJson(std::ostream& out, const Json& document, int indent = 2);

} // namespace rapid::report
