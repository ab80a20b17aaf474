// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/configloader.h"
#include "parallel/stepplan.h"
#include "report/stepresult.h"
#include "sim/stepbackend.h"

#include <atomic>
#include <functional>
#include <memory>
#include <optional>

namespace rapid::analysis {

/// How a scenario is evaluated.
struct EvaluationOptions {
    sim::NetworkBackend backend = sim::NetworkBackend::Analytical;
    bool timeline = true; ///< training: fill TrainingResult::timeline
    const std::atomic<bool>* stop = nullptr; ///< cancels a long (congestion) evaluation: SimulationCancelled
    std::function<void(double)> progress; ///< fraction done of a long evaluation, now and then
};

/// One scenario's prediction: a training step or an inference request, with the plan it was costed from.
struct ScenarioEvaluation {
    std::optional<report::TrainingResult> training;
    std::optional<report::InferenceResult> inference;
    parallel::StepPlan plan;
    /// The backend it ran on; its topology() names the links of TrainingResult::linkUtilisation.
    std::shared_ptr<sim::StepBackend> backend;
};

/// Evaluates @p scenario on the chosen backend: what `rapid run`, the workbench's dashboard and its congestion run
/// show. Throws what the step model throws (network::UnreachableError for GPUs cut apart by faults,
/// sim::SimulationCancelled, std::invalid_argument for what the model cannot evaluate).
ScenarioEvaluation evaluateScenario(const config::Scenario& scenario, const EvaluationOptions& options = {});

} // namespace rapid::analysis
