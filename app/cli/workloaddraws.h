// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "arguments.h"

#include "serving/servingspec.h"

#include <vector>

namespace rapid::cli {

/// @p options followed by the workload's random parts: gamma gaps of open-loop arrivals, spread lengths and the pool
/// of distinct prompts.
std::vector<Arguments::Option> withWorkloadDrawOptions(std::vector<Arguments::Option> options);

/// Reads those options into @p workload (its seed, lengths and shared prefix already read). Throws UsageError naming
/// the option for a value out of range or a combination that does not exist (spreads or a pool with --trace, a pool
/// with --shared-prefix, a burstiness without --rate).
void readWorkloadDraws(const Arguments& arguments, serving::WorkloadSpec& workload);

} // namespace rapid::cli
