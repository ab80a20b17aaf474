// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <vector>

namespace rapid::cli {

/// "0-7,16,24-31" -> the listed ranks (GPU indices) in the order given. A list that is not indices and ranges, a range
/// that runs backwards or an index of 2^20 or more (the most GPUs rapid models) is a UsageError naming --@p option.
std::vector<int> parseRankList(const std::string& text, const std::string& option);

/// Ascending ranks as compact ranges: {0, 1, 2, 5, 7, 8} -> "0-2,5,7-8".
std::string rankRanges(const std::vector<int>& ranks);

} // namespace rapid::cli
