// SPDX-License-Identifier: GPL-3.0-or-later
#include "shardedunits.h"

#include <algorithm>
#include <stdexcept>

namespace rapid::sim {

double exposedUnitGathers(std::span<const double> unitCompute, double unitGather, double besideEachUnit,
    bool firstGatherExposed, double collectiveSmShare)
{
    if (!(collectiveSmShare >= 0 && collectiveSmShare < 1)) {
        throw std::invalid_argument("sharded units: the collectives' share of the SMs must be in [0, 1)");
    }
    if (unitCompute.empty() || unitGather <= 0) {
        return 0;
    }
    const double beside = std::max(0.0, besideEachUnit);
    double exposed = firstGatherExposed ? unitGather : 0.0;
    for (size_t i = 1; i < unitCompute.size(); ++i) {
        const double hideable = std::max(0.0, unitCompute[i - 1] - beside);
        const double wait = std::max(0.0, unitGather - hideable);
        exposed += std::max(wait, collectiveContention(unitCompute[i - 1], unitGather + beside, collectiveSmShare));
    }
    return exposed;
}

double collectiveContention(double compute, double collectives, double collectiveSmShare)
{
    if (!(collectiveSmShare >= 0 && collectiveSmShare < 1)) {
        throw std::invalid_argument("collective contention: the collectives' share of the SMs must be in [0, 1)");
    }
    if (compute <= 0 || collectives <= 0) {
        return 0;
    }
    return collectiveSmShare * std::min(collectives, compute / (1 - collectiveSmShare));
}

double besideCompute(double compute, double collectives, double collectiveSmShare)
{
    return std::max(
        std::max(0.0, collectives - compute), collectiveContention(compute, collectives, collectiveSmShare));
}

double prefetchedGatherDelay(
    std::span<const double> unitCompute, std::span<const double> unitGather, double headStart, double collectiveSmShare)
{
    if (unitCompute.size() != unitGather.size()) {
        throw std::invalid_argument("prefetched gathers: one gather per compute unit is needed");
    }
    if (unitGather.empty()) {
        return 0;
    }
    double delay = std::max(0.0, unitGather[0] - std::max(0.0, headStart));
    for (size_t i = 1; i < unitGather.size(); ++i) {
        const double compute = std::max(0.0, unitCompute[i - 1]);
        delay += besideCompute(compute, unitGather[i], collectiveSmShare);
    }
    return delay;
}

} // namespace rapid::sim
