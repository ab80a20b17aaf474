// SPDX-License-Identifier: GPL-3.0-or-later
#include "structureevaluator.h"

#include "sim/stepmodel.h"

#include <sstream>

namespace rapid::widgets {

namespace {

std::string labelOf(const config::Scenario& scenario)
{
    const config::ParallelismSpec& parallelism = scenario.run.parallelism;
    std::ostringstream label;
    label << scenario.model.name << " · tp" << parallelism.tp << " pp" << parallelism.pp << " dp" << parallelism.dp
          << " cp" << parallelism.cp;
    if (scenario.run.mode == config::RunMode::Inference) {
        label << " · batch " << scenario.run.batch;
    } else {
        label << " · mb" << scenario.run.microBatch;
    }
    return label.str();
}

} // namespace

Evaluation StructureEvaluator::evaluate(const config::Scenario& scenario) const
{
    Evaluation evaluation;
    evaluation.label = labelOf(scenario);
    evaluation.inferenceMode = scenario.run.mode == config::RunMode::Inference;
    evaluation.parameters = model::countParameters(scenario.model);
    evaluation.placement
        = parallel::placeRanks(scenario.hardware, scenario.run, scenario.locations, &evaluation.placementProblems);
    for (const config::NetworkDimension& dimension : scenario.hardware.cluster.dimensions) {
        evaluation.dimensionNames.push_back(dimension.name);
    }
    evaluation.hardwareGpus = scenario.hardware.cluster.totalGpus();
    evaluation.runGpus = scenario.run.parallelism.gpuCount();
    // The memory estimate takes about 70 µs, so it runs on every edit. A failure there must not hide the structure
    // results, so it is caught here and shown inline rather than failing the whole evaluation.
    try {
        evaluation.memory = memory::estimateMemory(scenario.model, scenario.hardware.gpu, scenario.run);
    } catch (const std::exception& error) {
        evaluation.memoryProblem = error.what();
    }
    // The analytical step model runs off the GUI thread (EvaluationRunner); a scenario it cannot evaluate (an
    // unreachable pair after link faults, say) shows its message instead of a time, never a made-up number.
    if (evaluation.placementProblems.empty()) {
        try {
            sim::StepModel model(scenario);
            if (evaluation.inferenceMode) {
                evaluation.inference = model.inference();
            } else {
                evaluation.training = model.training(true);
            }
        } catch (const std::exception& error) {
            evaluation.timeProblem = error.what();
        }
    }
    return evaluation;
}

} // namespace rapid::widgets
