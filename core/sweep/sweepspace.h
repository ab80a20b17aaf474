// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rapid::sweep {

/// One value of a sweep axis: the overrides it applies ("run.parallelism.tp=4") and how tables name it ("4").
struct AxisValue {
    std::string label;
    std::vector<std::string> assignments;
};

/// One dimension of the configuration space: a name (an override key, or "split" for parallelism splits) and the
/// values it takes.
struct SweepAxis {
    std::string name;
    std::vector<AxisValue> values;
};

/// Parses "KEY=VALUES" where VALUES is a comma list ("1,2,4,8", "full,selective"), an integer range "A..B" (step 1)
/// or a geometric range "A..B:xF" (A, A*F, ... up to B). Throws std::invalid_argument naming what is wrong.
SweepAxis parseSweepAxis(const std::string& specification);

/// Every way to split @p gpus GPUs over the parallel axes @p axes (e.g. {"tp", "pp", "dp"}): one value per ordered
/// factorisation whose product is @p gpus, each setting run.parallelism.<axis> for all of them. @p maxTp, when
/// positive, keeps tensor parallelism inside that many GPUs (a node's NVLink domain).
SweepAxis parallelSplits(int gpus, const std::vector<std::string>& axes, int maxTp = 0);

/// The Cartesian product of the axes, enumerated without materialising it: point i is mixed-radix i with the last
/// axis varying fastest.
class SweepSpace {
public:
    SweepSpace() = default;
    explicit SweepSpace(std::vector<SweepAxis> axes);

    const std::vector<SweepAxis>& axes() const { return m_axes; }
    /// Number of points (1 for no axes: the base scenario alone). Throws std::invalid_argument above 10^6.
    std::int64_t size() const { return m_size; }
    /// Index of each axis' value at point @p index.
    std::vector<int> coordinates(std::int64_t index) const;
    /// The overrides of point @p index, in axis order.
    std::vector<std::string> overrides(std::int64_t index) const;

private:
    std::vector<SweepAxis> m_axes;
    std::int64_t m_size = 1;
};

} // namespace rapid::sweep
