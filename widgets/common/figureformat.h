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
/// "12,345 tok/s", "59.8k tok/s", "0.031 tok/s" (see formatRate)
QString formatTokensPerSecond(double tokensPerSecond);
/// "12,345", "3.1", "0.031": a rate whole from ten up and to two significant digits below, so that a very slow
/// throughput never reads as zero.
QString formatRate(double rate);
/// "1.00 T", "350 B", "12.5 M", "1954": a count to three significant digits with the short-scale suffix (K
/// thousand, M million, B billion, T trillion) that keeps its integer part below 1000 (tokens, steps); whole counts
/// below 10,000 in full.
QString formatShortCount(double count);
/// The count @p text gives: a number with an optional suffix of formatShortCount's (any case; G is taken as B), which
/// multiplies it; none multiplies by @p unit. Empty when it is not such a text (white space allowed around).
std::optional<double> parseCount(const QString& text, double unit = 1);
/// "41.3 %"
QString formatPercent(double fraction);
/// Relative change of @p current against @p baseline in percent; empty when the baseline is zero (no ratio).
std::optional<double> relativeChange(double current, double baseline);
/// "+12.3%", "−4.0%", "±0.0%"; typographic minus so the sign lines up with the plus.
QString formatDelta(double percent);

} // namespace rapid::widgets
