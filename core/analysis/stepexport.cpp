// SPDX-License-Identifier: GPL-3.0-or-later
#include "stepexport.h"

namespace rapid::analysis {

sim::ChakraExportSummary exportStepTraces(const config::Scenario& scenario, const std::string& directory,
    sim::ChakraDetail detail, const std::atomic<bool>* stop, const std::function<void(double)>& progress,
    sim::NetworkBackend backend, const std::vector<int>& onlyRanks)
{
    sim::StepModel model(scenario, backend);
    return sim::writeStepChakraTraces(directory, model, detail, stop, progress, onlyRanks);
}

std::vector<graph::ChakraTrace> stepTraces(const config::Scenario& scenario)
{
    sim::StepModel model(scenario);
    return sim::stepChakraTraces(model);
}

} // namespace rapid::analysis
