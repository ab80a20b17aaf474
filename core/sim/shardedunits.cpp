// SPDX-License-Identifier: GPL-3.0-or-later
#include "shardedunits.h"

#include <algorithm>
#include <stdexcept>

namespace rapid::sim {

double exposedUnitGathers(
    std::span<const double> unitCompute, double unitGather, double besideEachUnit, bool firstGatherExposed)
{
    if (unitCompute.empty() || unitGather <= 0) {
        return 0;
    }
    double exposed = firstGatherExposed ? unitGather : 0.0;
    for (size_t i = 1; i < unitCompute.size(); ++i) {
        const double hideable = std::max(0.0, unitCompute[i - 1] - std::max(0.0, besideEachUnit));
        exposed += std::max(0.0, unitGather - hideable);
    }
    return exposed;
}

double prefetchedGatherDelay(std::span<const double> unitCompute, std::span<const double> unitGather, double headStart)
{
    if (unitCompute.size() != unitGather.size()) {
        throw std::invalid_argument("prefetched gathers: one gather per compute unit is needed");
    }
    if (unitGather.empty()) {
        return 0;
    }
    double delay = std::max(0.0, unitGather[0] - std::max(0.0, headStart));
    for (size_t i = 1; i < unitGather.size(); ++i) {
        delay += std::max(0.0, unitGather[i] - std::max(0.0, unitCompute[i - 1]));
    }
    return delay;
}

} // namespace rapid::sim
