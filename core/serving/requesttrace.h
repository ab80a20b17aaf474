// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "servingspec.h"

#include <stdexcept>
#include <string>
#include <vector>

namespace rapid::serving {

/// A request trace that cannot be read: what() names the file and line ("trace.csv:12: ...").
class RequestTraceError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Reads a request trace in CSV: a header `arrival_s,input_tokens,output_tokens` (and optionally `prefix_id`, a whole
/// number: requests of one id share WorkloadSpec::sharedPrefixTokens prompt tokens for prefix caching), then one
/// request per line with its arrival in seconds from the start, non-decreasing, and its lengths as whole numbers >= 1
/// (at most 10^7). Blank lines and lines starting with '#' are skipped. Throws RequestTraceError naming @p name and the
/// line for anything else.
std::vector<RequestSpec> parseRequestTrace(const std::string& text, const std::string& name);
std::vector<RequestSpec> readRequestTrace(const std::string& path);

} // namespace rapid::serving
