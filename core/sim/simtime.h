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

/// The latest simulated time accepted: 10^17 ns, 3.2 years. Durations and event times stay at or below it, so the sum
/// of two never overflows the 64-bit count (9.2 x 10^18); a run that would pass it (a 10^22-byte transfer, a trace
/// node of 2^62 us) is refused with config::InputLimitError instead of wrapping to a wrong time.
inline constexpr TimeNs kMaxSimulatedTime = 100'000'000'000'000'000;

/// Throws config::InputLimitError for @p seconds beyond kMaxSimulatedTime (or not a number), naming @p what.
[[noreturn]] void throwBeyondTimeCeiling(double seconds, const char* what);

/// Seconds rounded to the nearest nanosecond; beyond the ceiling (or NaN) it throws config::InputLimitError.
inline TimeNs toNanoseconds(double seconds)
{
    const double nanoseconds = seconds * 1e9;
    if (!(std::abs(nanoseconds) <= static_cast<double>(kMaxSimulatedTime))) {
        throwBeyondTimeCeiling(seconds, "a duration");
    }
    return static_cast<TimeNs>(std::llround(nanoseconds));
}

/// @p time checked against the ceiling: the time of an event about to be scheduled.
inline TimeNs checkedEventTime(TimeNs time)
{
    if (time > kMaxSimulatedTime && time != kNever) {
        throwBeyondTimeCeiling(static_cast<double>(time) * 1e-9, "the simulated time");
    }
    return time;
}

inline double toSeconds(TimeNs time)
{
    return static_cast<double>(time) * 1e-9;
}

} // namespace rapid::sim
