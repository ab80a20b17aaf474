// SPDX-License-Identifier: GPL-3.0-or-later
#include "ranklist.h"

#include "arguments.h"

#include "config/checkedmath.h"

#include <charconv>
#include <string_view>

namespace rapid::cli {

namespace {

int parseRank(std::string_view text, const std::string& whole, const std::string& option)
{
    int value = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || ptr != text.data() + text.size() || text.empty() || value < 0) {
        throw UsageError("--" + option + " \"" + whole + "\": expected GPU indices and ranges such as 0-7,16,24-31");
    }
    if (value >= config::kMaxGpus) {
        throw UsageError(
            "--" + option + " \"" + whole + "\": " + std::to_string(value) + " is beyond the 2^20 GPUs rapid models");
    }
    return value;
}

} // namespace

std::vector<int> parseRankList(const std::string& text, const std::string& option)
{
    std::vector<int> ranks;
    size_t start = 0;
    while (start <= text.size()) {
        const size_t comma = std::min(text.find(',', start), text.size());
        const std::string_view item = std::string_view(text).substr(start, comma - start);
        const size_t dash = item.find('-');
        if (dash == std::string_view::npos) {
            ranks.push_back(parseRank(item, text, option));
        } else {
            const int first = parseRank(item.substr(0, dash), text, option);
            const int last = parseRank(item.substr(dash + 1), text, option);
            if (last < first) {
                throw UsageError("--" + option + " \"" + text + "\": a range must not run backwards");
            }
            for (int rank = first; rank <= last; ++rank) {
                ranks.push_back(rank);
            }
        }
        start = comma + 1;
    }
    return ranks;
}

std::string rankRanges(const std::vector<int>& ranks)
{
    std::string text;
    for (size_t i = 0; i < ranks.size();) {
        size_t j = i;
        while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) {
            ++j;
        }
        text += (text.empty() ? "" : ",") + std::to_string(ranks[i]) + (j > i ? "-" + std::to_string(ranks[j]) : "");
        i = j + 1;
    }
    return text;
}

} // namespace rapid::cli
