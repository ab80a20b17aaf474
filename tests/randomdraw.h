// SPDX-License-Identifier: GPL-3.0-or-later
// Drawing helpers the property tests share (seeded std::mt19937, so a failing draw reproduces).
#pragma once

#include <algorithm>
#include <random>
#include <vector>

namespace rapid::test {

/// One of @p choices, uniformly.
template <typename T> const T& pick(std::mt19937& random, const std::vector<T>& choices)
{
    return choices[std::uniform_int_distribution<size_t>(0, choices.size() - 1)(random)];
}

/// The divisors of @p n up to @p atMost, ascending: the parallel degrees a GPU count splits into.
inline std::vector<int> divisorsOf(int n, int atMost)
{
    std::vector<int> result;
    for (int d = 1; d <= std::min(n, atMost); ++d) {
        if (n % d == 0) {
            result.push_back(d);
        }
    }
    return result;
}

} // namespace rapid::test
