// SPDX-License-Identifier: GPL-3.0-or-later
// Internal to core/model: what torchtitan's per-op selective activation checkpointing re-runs of one layer.
#pragma once

#include "operator.h"

#include "config/runspec.h"

#include <vector>

namespace rapid::model {

/// What torchtitan's save list leaves to the recompute when the linears are torchao's Float8Linear
/// (opsacrecompute.cpp says why).
struct OpSacFloat8 {
    bool scaledMm = false; ///< the linears run aten._scaled_mm, which the list does not name: every one is recomputed
    double castShare = 1; ///< of an FP8 cast's forward bytes, the share the recompute moves again
};

/// The torchao float8 side of the recompute for a run of @p compute precision and @p scaling, activations of
/// @p activationBytes per element, its linears torchao's when @p torchaoFloat8.
OpSacFloat8 opSacFloat8(
    bool torchaoFloat8, config::Precision compute, config::Fp8Scaling scaling, double activationBytes);

/// The recompute pass (phase Recompute) of one training layer under config::Recompute::OpSac, from the layer's
/// forward operators (layeroperators.cpp's order). The rule and its source are in opsacrecompute.cpp.
std::vector<Operator> opSacRecompute(const std::vector<Operator>& forward, const OpSacFloat8& float8 = {});

} // namespace rapid::model
