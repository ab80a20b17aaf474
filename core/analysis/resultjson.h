// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "analysis/evaluation.h"
#include "memory/memorymodel.h"
#include "report/json.h"

namespace rapid::analysis {

/// The documented `rapid run --json` document (docs/json-output.md) of @p evaluation of @p scenario: scenario, GPUs,
/// placement, memory (@p memory, the estimate shown before the evaluation), then the training step (time, breakdown,
/// throughput, MFU, busiest links of a simulated network) or the inference request (TTFT, ITL, end-to-end,
/// throughput), and the energy when the GPU preset knows its power.
report::Json runResultJson(
    const config::Scenario& scenario, const ScenarioEvaluation& evaluation, const memory::MemoryEstimate& memory);

} // namespace rapid::analysis
