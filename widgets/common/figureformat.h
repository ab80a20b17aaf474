// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

#include <optional>

namespace rapid::widgets {

constexpr double kBytesPerGiB = 1024.0 * 1024.0 * 1024.0;

/// "74.2 GiB": memory sizes as the GPU data sheets and nvidia-smi speak of them.
QString formatGiB(double bytes);
/// "1.23 s", "45.6 ms", "812 µs": a duration with the unit that keeps three significant digits readable.
QString formatSeconds(double seconds);
/// "12,345 tok/s"
QString formatTokensPerSecond(double tokensPerSecond);
/// "41.3 %"
QString formatPercent(double fraction);
/// Relative change of @p current against @p baseline in percent; empty when the baseline is zero (no ratio).
std::optional<double> relativeChange(double current, double baseline);
/// "+12.3%", "−4.0%", "±0.0%"; typographic minus so the sign lines up with the plus.
QString formatDelta(double percent);

} // namespace rapid::widgets
