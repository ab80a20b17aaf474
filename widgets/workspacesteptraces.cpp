// SPDX-License-Identifier: GPL-3.0-or-later
#include "workspacesteptraces.h"

#include "graph/chakraexport.h"
#include "graph/inferencerequest.h"
#include "graph/trainingstep.h"
#include "sim/stepmodel.h"

namespace rapid::widgets {

std::vector<graph::ChakraTrace> workspaceStepTraces(const config::Scenario& scenario)
{
    sim::StepModel model(scenario);
    const config::RunSpec& run = scenario.run;
    const bool training = run.mode == config::RunMode::Training;
    const graph::ExecutionGraph graph = training ? graph::buildTrainingStep(run, model.trainingStageCosts())
                                                 : graph::buildInferenceRequest(model.inferenceRequestCosts());
    graph::ChakraExportOptions options;
    options.commBytes = [&graph](graph::NodeId id) { return static_cast<std::uint64_t>(graph.node(id).bytes); };
    options.dataParallelCollective
        = run.parallelism.zeroStage >= 1 ? graph::ChakraCollective::ReduceScatter : graph::ChakraCollective::AllReduce;
    return graph::exportExecutionGraph(graph, options);
}

} // namespace rapid::widgets
