// SPDX-License-Identifier: GPL-3.0-or-later
#include "format.h"

#include <cmath>
#include <cstdio>

namespace rapid::cli {

namespace {
std::string scaled(double value, const char* const* names, double base, int count, const char* format)
{
    int index = 0;
    while (index + 1 < count && std::fabs(value) >= base) {
        value /= base;
        ++index;
    }
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, format, value, names[index]);
    return buffer;
}
} // namespace

std::string formatCount(double count)
{
    static const char* const names[] = { "", "K", "M", "B", "T" };
    return scaled(count, names, 1000.0, 5, "%.2f %s");
}

std::string formatFlops(double flops)
{
    static const char* const names[] = { "FLOP", "KFLOP", "MFLOP", "GFLOP", "TFLOP", "PFLOP" };
    return scaled(flops, names, 1000.0, 6, "%.2f %s");
}

std::string formatBytes(double bytes)
{
    static const char* const names[] = { "B", "KiB", "MiB", "GiB", "TiB" };
    return scaled(bytes, names, 1024.0, 5, "%.2f %s");
}

} // namespace rapid::cli
