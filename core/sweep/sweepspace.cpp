// SPDX-License-Identifier: GPL-3.0-or-later
#include "sweepspace.h"

#include <charconv>
#include <functional>
#include <stdexcept>

namespace rapid::sweep {

namespace {

// Every point keeps a result row (about 200 bytes), and a point takes about a millisecond: 10^6 points are 200 MB
// and a quarter of an hour on a few cores, a sensible ceiling for one sweep.
constexpr std::int64_t kMaxPoints = 1'000'000;

std::string trimmed(const std::string& text)
{
    const auto begin = text.find_first_not_of(" \t");
    if (begin == std::string::npos) {
        return {};
    }
    return text.substr(begin, text.find_last_not_of(" \t") - begin + 1);
}

long long parseInteger(const std::string& text, const std::string& specification)
{
    long long value = 0;
    const std::string t = trimmed(text);
    const auto [end, error] = std::from_chars(t.data(), t.data() + t.size(), value);
    if (error != std::errc() || end != t.data() + t.size() || t.empty()) {
        throw std::invalid_argument("sweep axis \"" + specification + "\": \"" + t + "\" is not an integer");
    }
    return value;
}

/// Values of "A..B" or "A..B:xF".
std::vector<std::string> rangeValues(const std::string& values, const std::string& specification)
{
    const auto dots = values.find("..");
    const auto colon = values.find(':', dots);
    const long long first = parseInteger(values.substr(0, dots), specification);
    const long long last = parseInteger(
        values.substr(dots + 2, colon == std::string::npos ? std::string::npos : colon - dots - 2), specification);
    long long factor = 0;
    if (colon != std::string::npos) {
        const std::string step = trimmed(values.substr(colon + 1));
        if (step.size() < 2 || step[0] != 'x') {
            throw std::invalid_argument(
                "sweep axis \"" + specification + "\": a range step is written :xF (a factor), e.g. 1..64:x2");
        }
        factor = parseInteger(step.substr(1), specification);
        if (factor < 2) {
            throw std::invalid_argument("sweep axis \"" + specification + "\": the factor must be at least 2");
        }
        if (first < 1) {
            throw std::invalid_argument("sweep axis \"" + specification + "\": a geometric range starts at 1 or more");
        }
    }
    if (last < first) {
        throw std::invalid_argument("sweep axis \"" + specification + "\": the range ends before it starts");
    }
    std::vector<std::string> result;
    for (long long value = first;;) {
        result.push_back(std::to_string(value));
        if (static_cast<std::int64_t>(result.size()) > 1'000'000) {
            throw std::invalid_argument("sweep axis \"" + specification + "\": more than 10^6 values");
        }
        // The next value, unless it passes the end (checked before the step, which could overflow near 2^63).
        if (factor ? value > last / factor : value >= last) {
            break;
        }
        value = factor ? value * factor : value + 1;
    }
    return result;
}

} // namespace

SweepAxis parseSweepAxis(const std::string& specification)
{
    const auto equals = specification.find('=');
    if (equals == std::string::npos || equals == 0) {
        throw std::invalid_argument(
            "sweep axis \"" + specification + "\": expected KEY=VALUES, e.g. run.parallelism.tp=1,2,4,8");
    }
    SweepAxis axis;
    axis.name = trimmed(specification.substr(0, equals));
    const std::string values = trimmed(specification.substr(equals + 1));
    if (axis.name.empty() || values.empty()) {
        throw std::invalid_argument("sweep axis \"" + specification + "\": the key and the values must not be empty");
    }
    std::vector<std::string> items;
    if (values.find("..") != std::string::npos && values.find(',') == std::string::npos) {
        items = rangeValues(values, specification);
    } else {
        std::string::size_type start = 0;
        while (start <= values.size()) {
            const auto comma = values.find(',', start);
            const std::string item
                = trimmed(values.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
            if (item.empty()) {
                throw std::invalid_argument("sweep axis \"" + specification + "\": an empty value in the list");
            }
            items.push_back(item);
            if (comma == std::string::npos) {
                break;
            }
            start = comma + 1;
        }
    }
    for (const std::string& item : items) {
        axis.values.push_back({ item, { axis.name + "=" + item } });
    }
    return axis;
}

SweepAxis parallelSplits(int gpus, const std::vector<std::string>& axes, int maxTp)
{
    if (gpus < 1) {
        throw std::invalid_argument("parallel splits need at least one GPU");
    }
    if (axes.empty()) {
        throw std::invalid_argument("parallel splits need at least one axis (tp, pp, dp, cp, ep)");
    }
    SweepAxis result;
    result.name = "split";
    std::vector<int> degrees(axes.size(), 1);
    // Every ordered factorisation: the last axis takes what the others leave.
    std::function<void(size_t, int)> assign = [&](size_t axis, int remaining) {
        if (axis + 1 == axes.size()) {
            degrees[axis] = remaining;
            AxisValue value;
            for (size_t i = 0; i < axes.size(); ++i) {
                if (axes[i] == "tp" && maxTp > 0 && degrees[i] > maxTp) {
                    return;
                }
                value.label += (i ? " " : "") + axes[i] + std::to_string(degrees[i]);
                value.assignments.push_back("run.parallelism." + axes[i] + "=" + std::to_string(degrees[i]));
            }
            result.values.push_back(std::move(value));
            return;
        }
        for (int degree = 1; degree <= remaining; ++degree) {
            if (remaining % degree == 0) {
                degrees[axis] = degree;
                assign(axis + 1, remaining / degree);
            }
        }
    };
    assign(0, gpus);
    return result;
}

SweepSpace::SweepSpace(std::vector<SweepAxis> axes)
    : m_axes(std::move(axes))
{
    for (const SweepAxis& axis : m_axes) {
        if (axis.values.empty()) {
            throw std::invalid_argument("sweep axis \"" + axis.name + "\" has no values");
        }
        m_size *= static_cast<std::int64_t>(axis.values.size());
        if (m_size > kMaxPoints) {
            throw std::invalid_argument("the sweep has more than 10^6 points: narrow an axis");
        }
    }
}

std::vector<int> SweepSpace::coordinates(std::int64_t index) const
{
    if (index < 0 || index >= m_size) {
        throw std::out_of_range("sweep point " + std::to_string(index) + " outside 0.." + std::to_string(m_size - 1));
    }
    std::vector<int> result(m_axes.size(), 0);
    for (size_t i = m_axes.size(); i-- > 0;) {
        const auto radix = static_cast<std::int64_t>(m_axes[i].values.size());
        result[i] = static_cast<int>(index % radix);
        index /= radix;
    }
    return result;
}

std::vector<std::string> SweepSpace::overrides(std::int64_t index) const
{
    const std::vector<int> at = coordinates(index);
    std::vector<std::string> result;
    for (size_t i = 0; i < m_axes.size(); ++i) {
        const AxisValue& value = m_axes[i].values[static_cast<size_t>(at[i])];
        result.insert(result.end(), value.assignments.begin(), value.assignments.end());
    }
    return result;
}

} // namespace rapid::sweep
