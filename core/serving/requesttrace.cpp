// SPDX-License-Identifier: GPL-3.0-or-later
#include "requesttrace.h"

#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>

namespace rapid::serving {

namespace {

constexpr std::int64_t kMaxTokens = 10'000'000;

std::vector<std::string> fields(const std::string& line)
{
    std::vector<std::string> out;
    std::string field;
    std::istringstream stream(line);
    while (std::getline(stream, field, ',')) {
        const auto first = field.find_first_not_of(" \t\r");
        const auto last = field.find_last_not_of(" \t\r");
        out.push_back(first == std::string::npos ? std::string() : field.substr(first, last - first + 1));
    }
    return out;
}

} // namespace

std::vector<RequestSpec> parseRequestTrace(const std::string& text, const std::string& name)
{
    std::vector<RequestSpec> requests;
    std::istringstream stream(text);
    std::string line;
    bool header = false;
    for (int number = 1; std::getline(stream, line); ++number) {
        const auto fail = [&](const std::string& what) {
            throw RequestTraceError(name + ":" + std::to_string(number) + ": " + what);
        };
        if (line.find_first_not_of(" \t\r") == std::string::npos || line.front() == '#') {
            continue;
        }
        const std::vector<std::string> columns = fields(line);
        if (!header) {
            if (columns.size() < 3 || columns[0] != "arrival_s" || columns[1] != "input_tokens"
                || columns[2] != "output_tokens" || (columns.size() == 4 && columns[3] != "prefix_id")
                || columns.size() > 4) {
                fail("expected the header arrival_s,input_tokens,output_tokens[,prefix_id]");
            }
            header = true;
            continue;
        }
        if (columns.size() < 3 || columns.size() > 4) {
            fail("expected 3 or 4 comma-separated values, found " + std::to_string(columns.size()));
        }
        RequestSpec request;
        const std::string& arrival = columns[0];
        const auto [arrivalEnd, arrivalError]
            = std::from_chars(arrival.data(), arrival.data() + arrival.size(), request.arrivalSeconds);
        if (arrivalError != std::errc() || arrivalEnd != arrival.data() + arrival.size()
            || !std::isfinite(request.arrivalSeconds) || request.arrivalSeconds < 0) {
            fail("arrival_s \"" + arrival + "\" is not a number of seconds >= 0");
        }
        if (!requests.empty() && request.arrivalSeconds < requests.back().arrivalSeconds) {
            fail("arrival_s goes back in time (" + arrival + " after " + std::to_string(requests.back().arrivalSeconds)
                + ")");
        }
        const char* const names[] = { "input_tokens", "output_tokens" };
        std::int64_t* const targets[] = { &request.promptTokens, &request.outputTokens };
        for (int i = 0; i < 2; ++i) {
            const std::string& value = columns[static_cast<size_t>(i) + 1];
            const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), *targets[i]);
            if (error != std::errc() || end != value.data() + value.size() || *targets[i] < 1
                || *targets[i] > kMaxTokens) {
                fail(std::string(names[i]) + " \"" + value + "\" is not a whole number from 1 to 10000000");
            }
        }
        if (columns.size() == 4) {
            const std::string& id = columns[3];
            const auto [end, error] = std::from_chars(id.data(), id.data() + id.size(), request.prefixId);
            if (error != std::errc() || end != id.data() + id.size() || request.prefixId < 0) {
                fail("prefix_id \"" + id + "\" is not a whole number >= 0");
            }
        }
        requests.push_back(request);
    }
    if (!header) {
        throw RequestTraceError(name + ": empty; expected the header arrival_s,input_tokens,output_tokens");
    }
    if (requests.empty()) {
        throw RequestTraceError(name + ": no requests after the header");
    }
    return requests;
}

std::vector<RequestSpec> readRequestTrace(const std::string& path)
{
    std::ifstream file(path);
    if (!file) {
        throw RequestTraceError(path + ": cannot be opened");
    }
    std::ostringstream text;
    text << file.rdbuf();
    return parseRequestTrace(text.str(), path);
}

} // namespace rapid::serving
