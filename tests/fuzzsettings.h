// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <cstdlib>

namespace rapid::test {

/// The fuzz tests' seed: RAPID_FUZZ_SEED, else a fixed one, so every run of CI draws the same inputs.
inline std::uint64_t fuzzSeed()
{
    const char* text = std::getenv("RAPID_FUZZ_SEED");
    return text ? std::strtoull(text, nullptr, 10) : 20261125;
}

/// How long a fuzz test draws inputs: RAPID_FUZZ_SECONDS, else 15 s (the fuzz-long tests set 3,600).
inline double fuzzSeconds()
{
    const char* text = std::getenv("RAPID_FUZZ_SECONDS");
    return text ? std::atof(text) : 15.0;
}

} // namespace rapid::test
