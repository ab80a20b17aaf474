// SPDX-License-Identifier: GPL-3.0-or-later
#include "structureevaluator.h"

namespace rapid::widgets {

Evaluation StructureEvaluator::evaluate(const config::Scenario& scenario) const
{
    Evaluation evaluation;
    evaluation.parameters = model::countParameters(scenario.model);
    evaluation.placement
        = parallel::placeRanks(scenario.hardware, scenario.run, scenario.locations, &evaluation.placementProblems);
    for (const config::NetworkDimension& dimension : scenario.hardware.cluster.dimensions) {
        evaluation.dimensionNames.push_back(dimension.name);
    }
    evaluation.hardwareGpus = scenario.hardware.cluster.totalGpus();
    evaluation.runGpus = scenario.run.parallelism.gpuCount();
    return evaluation;
}

} // namespace rapid::widgets
