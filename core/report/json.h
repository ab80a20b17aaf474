// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>

namespace rapid::report {

/// @p text as a JSON string literal (quotes, backslashes and control characters escaped).
std::string jsonString(const std::string& text);

} // namespace rapid::report
