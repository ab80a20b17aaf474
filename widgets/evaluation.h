// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/diagnostic.h"
#include "model/modelstats.h"
#include "parallel/placement.h"

#include <string>
#include <vector>

namespace rapid::widgets {

/// What the workbench can show about a valid scenario. Only numbers core computes; there is no time prediction until
/// the performance model exists.
struct Evaluation {
    model::ParameterCounts parameters;
    parallel::Placement placement;
    std::vector<config::Diagnostic> placementProblems;
    std::vector<std::string> dimensionNames; ///< network dimensions, innermost first (names placement indices)
    int hardwareGpus = 0;
    int runGpus = 0; ///< tp*pp*dp*cp

    bool operator==(const Evaluation&) const = default;
};

} // namespace rapid::widgets
