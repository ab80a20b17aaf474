// SPDX-License-Identifier: GPL-3.0-or-later
// What `rapid serve` prints: the summary of one load, a sweep's table, a disaggregated deployment's pools.
#pragma once

#include "serving/disaggregation.h"
#include "serving/servingsimulator.h"
#include "serving/servingsweep.h"

#include <optional>
#include <ostream>
#include <string>

namespace rapid::cli {

/// @p seconds in milliseconds with two decimals.
std::string msText(double seconds);

/// Prefill and decode workers of a disaggregated deployment, for the summary's wording.
struct PoolCounts {
    int prefillWorkers = 0;
    int decodeWorkers = 0;
};

/// The summary of one load; @p pools names a disaggregated deployment (its KV caches are on the "pools" line, and the
/// iterations traced are the first decode worker's).
void printSummary(std::ostream& out, const serving::ServingResult& result, std::optional<PoolCounts> pools);

/// The workload's random parts when it has any (gamma gaps, spread lengths): one "workload" line; else nothing.
void printWorkloadDraws(std::ostream& out, const serving::WorkloadSpec& workload);

/// The latency-throughput table of a load sweep, its Pareto points starred.
void printSweep(std::ostream& out, const serving::ServingSweep& sweep);

/// The pools and KV move of a disaggregated deployment, then its summary.
void printDisaggregated(
    std::ostream& out, const serving::DisaggregatedResult& result, int prefillWorkers, int decodeWorkers);

} // namespace rapid::cli
