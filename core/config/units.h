// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rapid::config {

/// Physical dimension of a configuration quantity. Every quantity is stored in SI base units
/// (bytes, seconds, bytes per second, FLOP per second, hertz, watts, joules).
enum class Dimension {
    Bytes, ///< B; decimal (kB, MB, GB, TB) = 10^3n, binary (KiB, MiB, GiB, TiB) = 2^10n
    Seconds, ///< s; ns, us, ms, s
    BytesPerSecond, ///< B/s; GB/s means 1e9 B/s, GiB/s means 2^30 B/s; Gbps/Gb/s are bits
    FlopsPerSecond, ///< FLOP/s; TFLOP/s = 1e12 (TFLOPS and TFLOPs accepted)
    Hertz, ///< Hz; MHz, GHz
    Watts, ///< W; kW
    Joules, ///< J; pJ, nJ, uJ, mJ
    Dimensionless,
};

/// Name of the dimension as used in error messages ("a size in bytes such as \"80 GiB\"").
std::string describeDimension(Dimension dimension);

/// A unit suffix in a key name (`_GBps`, `_ns`, `_GiB`, `_TFLOPs`, `_GHz`, `_W`, `_pJ`...) and what it means.
struct KeyUnit {
    std::string suffix; ///< the suffix including the underscore, e.g. "_GBps"
    Dimension dimension;
    double scale; ///< SI base units per unit, e.g. 1e9 for GBps
};

/// True for zero and for normal numbers between 1e-300 and 1e300 in magnitude: what a configuration value may be.
/// NaN, infinities and denormals are refused where numbers enter, so no later division turns them into infinities.
bool isRepresentable(double value);

/// Parses "1.5 TB/s", "80 GiB", "700 ns", "1.41 GHz" into SI base units of the expected dimension.
/// Returns std::nullopt with a human reason in @p why when the text has no number, an unknown unit,
/// or a unit of another dimension.
std::optional<double> parseQuantity(std::string_view text, Dimension expected, std::string* why);

/// The units a key for @p dimension may carry as a suffix (for messages and for key lookup).
const std::vector<KeyUnit>& keyUnits();

/// The suffix a key typically uses for @p dimension, without the underscore ("GBps", "ns", "GiB").
const char* keyUnitExample(Dimension dimension);

/// Formats a number compactly ("0.5", "1e+06") for messages.
std::string formatNumber(double value);

/// Formats a value in SI base units with a readable unit ("1.50 TB/s", "80 GiB").
std::string formatQuantity(double siValue, Dimension dimension);

} // namespace rapid::config
