// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "servingsimulator.h"

#include "report/json.h"

#include <iosfwd>

namespace rapid::serving {

/// The summary of a serving simulation as JSON (seconds, tokens per second; schema in docs/serving.md).
report::Json servingJson(const ServingResult& result);

/// The figures of one summary (what servingJson writes besides the engine).
report::Json servingSummaryJson(const ServingSummary& summary);

/// The engine's knobs as used and the KV bytes per token per GPU.
report::Json engineJson(const EngineOptions& options, const KvCapacity& capacity);

/// One CSV row per request of the simulated replica: id, arrival, lengths, TTFT, ITL, end-to-end, preemptions.
void writeRequestCsv(std::ostream& out, const ServingTrace& trace);
/// One CSV row per engine iteration of the simulated replica (a disaggregated trace: decode worker 0's): when it
/// ended, the KV-cache blocks in use and in all, the requests running, waiting and swapped out, the tokens it computed
/// and the preemptions so far.
void writeIterationCsv(std::ostream& out, const ServingTrace& trace);

} // namespace rapid::serving
