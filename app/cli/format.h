// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "report/json.h"
#include <cstdint>

#include <string>

namespace rapid::cli {

/// 70553706496 -> "70.55 B"; 131072 -> "131.07 K". Parameter-style counts with two decimals.
std::string formatCount(double count);
/// FLOPs with an SI prefix ("140.2 GFLOP").
std::string formatFlops(double flops);
/// Bytes with a binary prefix ("320 KiB").
std::string formatBytes(double bytes);

} // namespace rapid::cli
