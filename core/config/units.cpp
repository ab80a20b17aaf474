// SPDX-License-Identifier: GPL-3.0-or-later
#include "units.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace rapid::config {

namespace {

struct UnitName {
    const char* name;
    Dimension dimension;
    double scale;
};

// Spellings users write in YAML values. Matching is exact after removing spaces, so "GB/s" and "GiB/s" stay
// distinct and "Gb/s" (bits) is not confused with "GB/s" (bytes).
constexpr UnitName kUnitNames[] = {
    { "B", Dimension::Bytes, 1.0 },
    { "KB", Dimension::Bytes, 1e3 },
    { "kB", Dimension::Bytes, 1e3 },
    { "MB", Dimension::Bytes, 1e6 },
    { "GB", Dimension::Bytes, 1e9 },
    { "TB", Dimension::Bytes, 1e12 },
    { "KiB", Dimension::Bytes, 1024.0 },
    { "MiB", Dimension::Bytes, 1024.0 * 1024 },
    { "GiB", Dimension::Bytes, 1024.0 * 1024 * 1024 },
    { "TiB", Dimension::Bytes, 1024.0 * 1024 * 1024 * 1024 },
    { "ns", Dimension::Seconds, 1e-9 },
    { "us", Dimension::Seconds, 1e-6 },
    { "µs", Dimension::Seconds, 1e-6 },
    { "ms", Dimension::Seconds, 1e-3 },
    { "s", Dimension::Seconds, 1.0 },
    { "B/s", Dimension::BytesPerSecond, 1.0 },
    { "MB/s", Dimension::BytesPerSecond, 1e6 },
    { "GB/s", Dimension::BytesPerSecond, 1e9 },
    { "TB/s", Dimension::BytesPerSecond, 1e12 },
    { "GBps", Dimension::BytesPerSecond, 1e9 },
    { "TBps", Dimension::BytesPerSecond, 1e12 },
    { "MiB/s", Dimension::BytesPerSecond, 1024.0 * 1024 },
    { "GiB/s", Dimension::BytesPerSecond, 1024.0 * 1024 * 1024 },
    { "GiBps", Dimension::BytesPerSecond, 1024.0 * 1024 * 1024 },
    { "Gb/s", Dimension::BytesPerSecond, 1e9 / 8 },
    { "Gbps", Dimension::BytesPerSecond, 1e9 / 8 },
    { "Gbit/s", Dimension::BytesPerSecond, 1e9 / 8 },
    { "Tb/s", Dimension::BytesPerSecond, 1e12 / 8 },
    { "FLOP/s", Dimension::FlopsPerSecond, 1.0 },
    { "GFLOP/s", Dimension::FlopsPerSecond, 1e9 },
    { "GFLOPS", Dimension::FlopsPerSecond, 1e9 },
    { "GFLOPs", Dimension::FlopsPerSecond, 1e9 },
    { "TFLOP/s", Dimension::FlopsPerSecond, 1e12 },
    { "TFLOPS", Dimension::FlopsPerSecond, 1e12 },
    { "TFLOPs", Dimension::FlopsPerSecond, 1e12 },
    { "TOPS", Dimension::FlopsPerSecond, 1e12 },
    { "PFLOP/s", Dimension::FlopsPerSecond, 1e15 },
    { "PFLOPS", Dimension::FlopsPerSecond, 1e15 },
    { "PFLOPs", Dimension::FlopsPerSecond, 1e15 },
    { "Hz", Dimension::Hertz, 1.0 },
    { "kHz", Dimension::Hertz, 1e3 },
    { "MHz", Dimension::Hertz, 1e6 },
    { "GHz", Dimension::Hertz, 1e9 },
    { "W", Dimension::Watts, 1.0 },
    { "kW", Dimension::Watts, 1e3 },
    { "J", Dimension::Joules, 1.0 },
    { "mJ", Dimension::Joules, 1e-3 },
    { "uJ", Dimension::Joules, 1e-6 },
    { "nJ", Dimension::Joules, 1e-9 },
    { "pJ", Dimension::Joules, 1e-12 },
};

std::string trim(std::string_view text)
{
    size_t begin = 0;
    size_t end = text.size();
    while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) {
        ++begin;
    }
    while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) {
        --end;
    }
    return std::string(text.substr(begin, end - begin));
}

std::string examples(Dimension dimension)
{
    switch (dimension) {
    case Dimension::Bytes:
        return "\"80 GiB\" or \"40 MB\"";
    case Dimension::Seconds:
        return "\"700 ns\" or \"4 us\"";
    case Dimension::BytesPerSecond:
        return "\"3.35 TB/s\", \"900 GB/s\" or \"400 Gb/s\"";
    case Dimension::FlopsPerSecond:
        return "\"989 TFLOP/s\"";
    case Dimension::Hertz:
        return "\"1.41 GHz\"";
    case Dimension::Watts:
        return "\"700 W\"";
    case Dimension::Joules:
        return "\"0.5 pJ\"";
    case Dimension::Dimensionless:
        return "a plain number";
    }
    return {};
}

} // namespace

std::string describeDimension(Dimension dimension)
{
    switch (dimension) {
    case Dimension::Bytes:
        return "a size such as " + examples(dimension);
    case Dimension::Seconds:
        return "a time such as " + examples(dimension);
    case Dimension::BytesPerSecond:
        return "a bandwidth such as " + examples(dimension);
    case Dimension::FlopsPerSecond:
        return "a compute rate such as " + examples(dimension);
    case Dimension::Hertz:
        return "a frequency such as " + examples(dimension);
    case Dimension::Watts:
        return "a power such as " + examples(dimension);
    case Dimension::Joules:
        return "an energy such as " + examples(dimension);
    case Dimension::Dimensionless:
        return "a plain number";
    }
    return "a quantity";
}

const std::vector<KeyUnit>& keyUnits()
{
    static const std::vector<KeyUnit> units = {
        { "_B", Dimension::Bytes, 1.0 },
        { "_KB", Dimension::Bytes, 1e3 },
        { "_MB", Dimension::Bytes, 1e6 },
        { "_GB", Dimension::Bytes, 1e9 },
        { "_TB", Dimension::Bytes, 1e12 },
        { "_KiB", Dimension::Bytes, 1024.0 },
        { "_MiB", Dimension::Bytes, 1024.0 * 1024 },
        { "_GiB", Dimension::Bytes, 1024.0 * 1024 * 1024 },
        { "_TiB", Dimension::Bytes, 1024.0 * 1024 * 1024 * 1024 },
        { "_ns", Dimension::Seconds, 1e-9 },
        { "_us", Dimension::Seconds, 1e-6 },
        { "_ms", Dimension::Seconds, 1e-3 },
        { "_s", Dimension::Seconds, 1.0 },
        { "_GBps", Dimension::BytesPerSecond, 1e9 },
        { "_TBps", Dimension::BytesPerSecond, 1e12 },
        { "_GiBps", Dimension::BytesPerSecond, 1024.0 * 1024 * 1024 },
        { "_Gbps", Dimension::BytesPerSecond, 1e9 / 8 },
        { "_GFLOPs", Dimension::FlopsPerSecond, 1e9 },
        { "_TFLOPs", Dimension::FlopsPerSecond, 1e12 },
        { "_PFLOPs", Dimension::FlopsPerSecond, 1e15 },
        { "_MHz", Dimension::Hertz, 1e6 },
        { "_GHz", Dimension::Hertz, 1e9 },
        { "_W", Dimension::Watts, 1.0 },
        { "_pJ", Dimension::Joules, 1e-12 },
    };
    return units;
}

bool isRepresentable(double value)
{
    // Denormals lose precision and turn into infinities when divided into: 5e-324 GB/s is not a bandwidth.
    const int kind = std::fpclassify(value);
    return kind == FP_ZERO || (kind == FP_NORMAL && std::abs(value) >= 1e-300 && std::abs(value) <= 1e300);
}

std::optional<double> parseQuantity(std::string_view text, Dimension expected, std::string* why)
{
    const std::string trimmed = trim(text);
    double value = 0;
    const char* begin = trimmed.data();
    const char* end = trimmed.data() + trimmed.size();
    auto [ptr, ec] = std::from_chars(begin, end, value);
    if (ec != std::errc() || ptr == begin) {
        if (why) {
            *why = "expected " + describeDimension(expected) + ", got \"" + trimmed + "\"";
        }
        return std::nullopt;
    }
    if (!isRepresentable(value)) {
        if (why) {
            *why = "expected a finite number (zero, or between 1e-300 and 1e300 in magnitude), got \"" + trimmed + "\"";
        }
        return std::nullopt;
    }
    std::string unit;
    for (const char* p = ptr; p != end; ++p) {
        if (!std::isspace(static_cast<unsigned char>(*p))) {
            unit.push_back(*p);
        }
    }
    if (unit.empty()) {
        if (expected == Dimension::Dimensionless) {
            return value;
        }
        if (why) {
            *why = "\"" + trimmed + "\" has no unit; expected " + describeDimension(expected);
        }
        return std::nullopt;
    }
    for (const UnitName& candidate : kUnitNames) {
        if (unit == candidate.name) {
            if (candidate.dimension != expected) {
                if (why) {
                    *why = "unit \"" + unit + "\" is not right here; expected " + describeDimension(expected);
                }
                return std::nullopt;
            }
            const double scaled = value * candidate.scale;
            if (!isRepresentable(scaled)) {
                if (why) {
                    *why = "\"" + trimmed + "\" is beyond the range of numbers (1e-300 to 1e300 in base units)";
                }
                return std::nullopt;
            }
            return scaled;
        }
    }
    if (why) {
        *why = "unknown unit \"" + unit + "\"; expected " + describeDimension(expected);
    }
    return std::nullopt;
}

const char* keyUnitExample(Dimension dimension)
{
    switch (dimension) {
    case Dimension::Bytes:
        return "GiB";
    case Dimension::Seconds:
        return "ns";
    case Dimension::BytesPerSecond:
        return "GBps";
    case Dimension::FlopsPerSecond:
        return "TFLOPs";
    case Dimension::Hertz:
        return "GHz";
    case Dimension::Watts:
        return "W";
    case Dimension::Joules:
        return "pJ";
    case Dimension::Dimensionless:
        break;
    }
    return "";
}

std::string formatNumber(double value)
{
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%g", value);
    return buffer;
}

std::string formatQuantity(double siValue, Dimension dimension)
{
    struct Step {
        double scale;
        const char* name;
    };
    auto pick = [siValue](std::initializer_list<Step> steps) {
        const Step* chosen = steps.begin();
        for (const Step& step : steps) {
            if (std::fabs(siValue) >= step.scale) {
                chosen = &step;
            }
        }
        char buffer[64];
        std::snprintf(buffer, sizeof buffer, "%.3g %s", siValue / chosen->scale, chosen->name);
        return std::string(buffer);
    };
    switch (dimension) {
    case Dimension::Bytes:
        return pick({ { 1, "B" }, { 1024.0, "KiB" }, { 1048576.0, "MiB" }, { 1073741824.0, "GiB" },
            { 1099511627776.0, "TiB" } });
    case Dimension::Seconds:
        return pick({ { 1e-9, "ns" }, { 1e-6, "us" }, { 1e-3, "ms" }, { 1, "s" } });
    case Dimension::BytesPerSecond:
        return pick({ { 1, "B/s" }, { 1e6, "MB/s" }, { 1e9, "GB/s" }, { 1e12, "TB/s" } });
    case Dimension::FlopsPerSecond:
        return pick({ { 1, "FLOP/s" }, { 1e9, "GFLOP/s" }, { 1e12, "TFLOP/s" }, { 1e15, "PFLOP/s" } });
    case Dimension::Hertz:
        return pick({ { 1, "Hz" }, { 1e6, "MHz" }, { 1e9, "GHz" } });
    case Dimension::Watts:
        return pick({ { 1, "W" }, { 1e3, "kW" } });
    case Dimension::Joules:
        return pick({ { 1e-12, "pJ" }, { 1e-9, "nJ" }, { 1e-6, "uJ" }, { 1e-3, "mJ" }, { 1, "J" } });
    case Dimension::Dimensionless:
        return pick({ { 1, "" } });
    }
    return {};
}

} // namespace rapid::config
