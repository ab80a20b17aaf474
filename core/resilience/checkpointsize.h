// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/modelspec.h"
#include "config/runspec.h"

namespace rapid::resilience {

/// Bytes of one checkpoint of a training run's model state, one copy whatever the data-parallel replication (each
/// shard written once, as Megatron's distributed checkpoint and torch.distributed.checkpoint write it): per parameter
/// the weights at their precision, the optimizer-precision master copy when kept, and Adam's two moments.
double checkpointBytes(const config::ModelSpec& model, const config::RunSpec& run);

} // namespace rapid::resilience
