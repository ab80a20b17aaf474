// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "compute/operatortiming.h"
#include "config/configloader.h"
#include "config/diagnostic.h"
#include "memory/memorymodel.h"
#include "model/modelstats.h"
#include "model/operator.h"
#include "parallel/placement.h"
#include "report/stepresult.h"
#include "sim/stepbackend.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace rapid::widgets {

/// One operator of one transformer layer, timed on the scenario's GPU (the "Operators" tab).
struct OperatorRow {
    std::string name; ///< "attention.qkv_projection", "mlp.down_projection.dw", ...
    model::Phase phase = model::Phase::Forward;
    std::string shape; ///< kind and shape: "Gemm 8192x8192x1280", "FlashAttention b1 h8/1 s8192x8192 d128"
    double flops = 0;
    double bytes = 0; ///< HBM bytes read + written, as the timing model counts them
    double seconds = 0;
    compute::OperatorBound bound = compute::OperatorBound::Compute;
};

/// What the workbench can show about a valid scenario. Only numbers core computes: a field stays empty until a
/// model fills it, and the panels then say so instead of showing a made-up number.
struct Evaluation {
    std::string label; ///< "Llama-3.1-70B · tp8 pp4 dp2 cp1 · mb1": names a pinned run
    /// The scenario evaluated, shared (evaluations are copied into pinned runs): what a comparison says differs.
    std::shared_ptr<const config::Scenario> scenario;
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
    /// The network model the time figures come from: analytical as evaluated; congestion for a run pinned while the
    /// dashboard showed the Topology tab's congestion step (training then holds that step).
    sim::NetworkBackend backend = sim::NetworkBackend::Analytical;
    std::optional<report::InferenceResult> inference; ///< see training
    std::string timeProblem; ///< why no time prediction could be made, when the step model failed
    /// One transformer layer's operators (training: forward, recompute and backward; inference: prefill) timed by
    /// compute::OperatorTimer on hardware.gpu; empty with operatorProblem set when they could not be built or timed.
    std::vector<OperatorRow> operators;
    std::string operatorProblem;
    // No operator==: report::TrainingResult and InferenceResult have none (yet), and nothing compares evaluations.
};

} // namespace rapid::widgets
