// SPDX-License-Identifier: GPL-3.0-or-later
#include "energy.h"

#include <algorithm>

namespace rapid::report {

double computeBusySeconds(const graph::TimeBreakdown& parts)
{
    double busy = 0;
    for (int i = 0; i < graph::kTimeClassCount; ++i) {
        if (graph::isGpuWork(static_cast<graph::TimeClass>(i))) {
            busy += parts[static_cast<size_t>(i)];
        }
    }
    return busy;
}

EnergyEstimate estimateEnergy(
    const config::GpuSpec& gpu, int gpus, double seconds, double busyGpuSeconds, double tokens)
{
    EnergyEstimate estimate;
    if (gpu.tdpWatts <= 0 || gpus <= 0 || seconds <= 0) {
        return estimate;
    }
    // A GPU cannot compute for longer than the step lasts.
    const double busy = std::clamp(busyGpuSeconds, 0.0, gpus * seconds);
    const double idle = std::max(0.0, gpu.idleWatts);
    estimate.busyJoules = (gpu.tdpWatts - idle) * busy;
    estimate.joules = idle * gpus * seconds + estimate.busyJoules;
    estimate.averageWattsPerGpu = estimate.joules / (gpus * seconds);
    estimate.joulesPerToken = tokens > 0 ? estimate.joules / tokens : 0;
    return estimate;
}

} // namespace rapid::report
