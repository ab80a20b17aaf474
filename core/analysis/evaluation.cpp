// SPDX-License-Identifier: GPL-3.0-or-later
#include "evaluation.h"

#include "sim/stepmodel.h"

namespace rapid::analysis {

ScenarioEvaluation evaluateScenario(const config::Scenario& scenario, const EvaluationOptions& options)
{
    ScenarioEvaluation evaluation;
    evaluation.backend = sim::makeStepBackend(options.backend, scenario.hardware);
    sim::StepModel model(scenario, evaluation.backend);
    model.setStopFlag(options.stop);
    if (options.progress) {
        model.setProgressCallback(options.progress);
    }
    if (scenario.run.mode == config::RunMode::Inference) {
        evaluation.inference = model.inference();
    } else {
        evaluation.training = model.training(options.timeline);
    }
    evaluation.plan = model.plan();
    return evaluation;
}

} // namespace rapid::analysis
