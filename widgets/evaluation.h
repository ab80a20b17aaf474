// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/diagnostic.h"
#include "memory/memorymodel.h"
#include "model/modelstats.h"
#include "parallel/placement.h"
#include "report/stepresult.h"

#include <optional>
#include <string>
#include <vector>

namespace rapid::widgets {

/// What the workbench can show about a valid scenario. Only numbers core computes: a field stays empty until a
/// model fills it, and the panels then say so instead of showing a made-up number.
struct Evaluation {
    std::string label; ///< "Llama-3.1-70B · tp8 pp4 dp2 cp1 · mb1": names a pinned run
    bool inferenceMode = false; ///< the run's mode: which of training/inference a time prediction would fill
    model::ParameterCounts parameters;
    parallel::Placement placement;
    std::vector<config::Diagnostic> placementProblems;
    std::vector<std::string> dimensionNames; ///< network dimensions, innermost first (names placement indices)
    int hardwareGpus = 0;
    int runGpus = 0; ///< tp*pp*dp*cp
    std::optional<memory::MemoryEstimate> memory;
    std::string memoryProblem; ///< why memory is empty (the estimate threw), shown inline
    std::optional<report::TrainingResult> training; ///< filled by the performance model (sim::StepModel)
    std::optional<report::InferenceResult> inference; ///< see training
    std::string timeProblem; ///< why no time prediction could be made, when the step model failed
    // No operator==: report::TrainingResult and InferenceResult have none (yet), and nothing compares evaluations.
};

} // namespace rapid::widgets
