// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

namespace rapid::sim {

/// Simulated time in integer nanoseconds. Integers keep event order exact and runs reproducible: two events never
/// compare equal by accident of floating-point rounding, and a 64-bit count of ns covers 292 years.
using TimeNs = std::int64_t;

inline constexpr TimeNs kNever = std::numeric_limits<TimeNs>::max();

/// Seconds rounded to the nearest nanosecond.
inline TimeNs toNanoseconds(double seconds)
{
    return static_cast<TimeNs>(std::llround(seconds * 1e9));
}

inline double toSeconds(TimeNs time)
{
    return static_cast<double>(time) * 1e-9;
}

} // namespace rapid::sim
