// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "layerentry_p.h"
#include "layershape_p.h"
#include "loraadapters.h"

#include "config/runspec.h"

#include <vector>

namespace rapid::model::detail {

/// With run.loraRank > 0: freezes every parameter of a training layer's @p entries and puts an adapter beside each
/// GEMM (the sum of x's two gradients before it, the adapter's kernels after it). Nothing without LoRA.
void addLoraAdapters(std::vector<Entry>& entries, const config::RunSpec& run, const Shape& shape);

/// The adapter's entries of @p linear (a GEMM entry on this GPU's shard), in forward order: the backward-only sum of
/// x's gradients first, then lora_A, the scale, lora_B, the dropout and the add.
std::vector<Entry> loraEntries(const Entry& linear, const config::RunSpec& run, const Shape& shape);

} // namespace rapid::model::detail
