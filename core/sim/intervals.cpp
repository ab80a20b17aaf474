// SPDX-License-Identifier: GPL-3.0-or-later
#include "intervals.h"

#include <algorithm>

namespace rapid::sim {

double unionLength(std::vector<std::pair<double, double>> intervals)
{
    std::sort(intervals.begin(), intervals.end());
    double total = 0;
    double start = 0;
    double end = -1;
    for (const auto& [a, b] : intervals) {
        if (a > end) {
            total += std::max(0.0, end - start);
            start = a;
            end = b;
        } else {
            end = std::max(end, b);
        }
    }
    return total + std::max(0.0, end - start);
}

double uncoveredLength(std::vector<std::pair<double, double>> covered, std::vector<std::pair<double, double>> removed)
{
    std::sort(covered.begin(), covered.end());
    std::sort(removed.begin(), removed.end());
    // Merge `covered` into disjoint intervals, then subtract `removed` with two pointers.
    std::vector<std::pair<double, double>> merged;
    for (const auto& interval : covered) {
        if (!merged.empty() && interval.first <= merged.back().second) {
            merged.back().second = std::max(merged.back().second, interval.second);
        } else {
            merged.push_back(interval);
        }
    }
    double total = 0;
    size_t r = 0;
    for (auto [a, b] : merged) {
        while (r < removed.size() && removed[r].second <= a) {
            ++r;
        }
        double cursor = a;
        for (size_t k = r; k < removed.size() && removed[k].first < b; ++k) {
            if (removed[k].first > cursor) {
                total += removed[k].first - cursor;
            }
            cursor = std::max(cursor, removed[k].second);
        }
        if (cursor < b) {
            total += b - cursor;
        }
    }
    return total;
}

} // namespace rapid::sim
