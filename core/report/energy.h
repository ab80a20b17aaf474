// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/hardwarespec.h"
#include "graph/executiongraph.h"

namespace rapid::report {

/// Energy of one training step or one inference request batch, all GPUs of the job together. First-order two-state
/// power model from the GPU preset's power figures: a GPU draws its TDP while its compute stream runs kernels
/// (operator classes and the optimizer) and its idle power otherwise (pipeline bubble, waiting, exposed
/// communication — NCCL kernels are counted as idle, so communication-heavy steps are a lower bound). Every GPU and
/// every second of the step is counted: the whole step's compute, not one layer's. Zero when the preset gives no TDP.
/// Network switches and NICs are not included.
struct EnergyEstimate {
    double joules = 0;
    double busyJoules = 0; ///< the part above idle: (TDP - idle) x compute-busy GPU-seconds
    double averageWattsPerGpu = 0;
    double joulesPerToken = 0; ///< per token trained (training) or per output token (inference)

    bool known() const { return joules > 0; }
    bool operator==(const EnergyEstimate&) const = default;
};

/// Seconds of @p parts that keep the compute stream busy: every operator class and the optimizer, not the exposed
/// communication classes.
double computeBusySeconds(const graph::TimeBreakdown& parts);

/// The two-state model: @p gpus GPUs for @p seconds, of which @p busyGpuSeconds GPU-seconds computing in total,
/// producing @p tokens tokens.
EnergyEstimate estimateEnergy(
    const config::GpuSpec& gpu, int gpus, double seconds, double busyGpuSeconds, double tokens);

} // namespace rapid::report
