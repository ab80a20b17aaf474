// SPDX-License-Identifier: GPL-3.0-or-later
// Finds function bodies in C++ source text and measures them (the lint_function_length check and its test).
#pragma once

#include <string>
#include <vector>

namespace rapid::lint {

/// One function definition: its name and the lines from its signature's first line to its closing brace.
struct FunctionSpan {
    std::string name;
    int firstLine = 0; ///< 1-based
    int lastLine = 0;
    int lines() const { return lastLine - firstLine + 1; }
};

/// The function definitions of @p source (namespace and class scope; lambdas and local blocks count as part of the
/// function that holds them). Comments, string and character literals (raw strings too) and preprocessor lines are
/// skipped, so braces inside them do not count.
std::vector<FunctionSpan> findFunctions(const std::string& source);

} // namespace rapid::lint
