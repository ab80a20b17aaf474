// SPDX-License-Identifier: GPL-3.0-or-later
#include "shardedunits.h"

#include <algorithm>

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

} // namespace rapid::sim
