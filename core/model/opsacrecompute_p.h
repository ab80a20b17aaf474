// SPDX-License-Identifier: GPL-3.0-or-later
// Internal to core/model: what torchtitan's per-op selective activation checkpointing re-runs of one layer.
#pragma once

#include "operator.h"

#include <vector>

namespace rapid::model {

/// The recompute pass (phase Recompute) of one training layer under config::Recompute::OpSac, from the layer's
/// forward operators (layeroperators.cpp's order). The rule and its source are in opsacrecompute.cpp.
std::vector<Operator> opSacRecompute(const std::vector<Operator>& forward);

} // namespace rapid::model
