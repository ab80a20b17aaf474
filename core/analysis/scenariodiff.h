// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/configloader.h"

#include <string>
#include <vector>

namespace rapid::analysis {

/// What @p other changes against @p reference, in the words a run is labelled with in a paper's legend: the model
/// or GPU when they differ, the GPU count, "tp4", "pp8", "dp16", "cp2", "ep8", "vpp2", "sp"/"no sp", "zero3",
/// "seq 8192", "mb 2", "gbs 1024", "recompute full", "fp8", "fa3", "eager"/"compiled", "batch 16", "prompt 2048",
/// "decode 256", "2 link faults", "1 straggler"; "other changes" when the documents differ elsewhere. Empty when the
/// two scenarios are the same.
std::vector<std::string> scenarioDifferences(const config::Scenario& reference, const config::Scenario& other);

/// scenarioDifferences() joined by spaces, or "same as the baseline" when nothing differs.
std::string differenceLabel(const config::Scenario& reference, const config::Scenario& other);

} // namespace rapid::analysis
