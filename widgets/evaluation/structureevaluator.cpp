// SPDX-License-Identifier: GPL-3.0-or-later
#include "evaluation/structureevaluator.h"
#include "config/attentionkernel.h"

#include "analysis/evaluation.h"
#include "compute/operatortimer.h"
#include "model/layeroperators.h"
#include "parallel/shardingplan.h"

#include <iterator>
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

std::string shapeOf(const model::Operator& op)
{
    std::ostringstream shape;
    shape << model::toString(op.kind);
    switch (op.kind) {
    case model::OperatorKind::Gemm:
        shape << ' ' << op.gemm.m << "x" << op.gemm.k << "x" << op.gemm.n;
        if (op.gemm.batch > 1) {
            shape << " (batch " << op.gemm.batch << ")";
        }
        break;
    case model::OperatorKind::FlashAttention:
    case model::OperatorKind::NaiveAttention:
    case model::OperatorKind::DecodeAttention:
        shape << " b" << op.attention.batch << " h" << op.attention.heads << "/" << op.attention.kvHeads << " q"
              << op.attention.queryLength << " k" << op.attention.keyLength << " d" << op.attention.headDimQk;
        break;
    default:
        break;
    }
    return shape.str();
}

/// One transformer layer of the scenario (an MoE layer when the model has experts), each operator timed on the
/// scenario's GPU. Throws what the operator builders or the timer throw.
std::vector<OperatorRow> operatorRows(const config::Scenario& scenario)
{
    const bool moeLayer = scenario.model.moe.has_value();
    const model::LayerSharding sharding = parallel::layerSharding(scenario.run);
    std::vector<model::Operator> ops;
    if (scenario.run.mode == config::RunMode::Inference) {
        ops = model::prefillLayer(scenario.model, scenario.run, sharding, moeLayer);
    } else {
        ops = model::trainingForward(scenario.model, scenario.run, sharding, moeLayer);
        std::vector<model::Operator> backward
            = model::trainingBackward(scenario.model, scenario.run, sharding, moeLayer);
        ops.insert(ops.end(), std::make_move_iterator(backward.begin()), std::make_move_iterator(backward.end()));
    }
    compute::OperatorTimer timer(
        scenario.hardware.gpu, config::resolvedAttentionKernel(scenario.run, scenario.hardware.gpu));
    std::vector<OperatorRow> rows;
    rows.reserve(ops.size());
    for (const model::Operator& op : ops) {
        const compute::OperatorTime time = timer.time(op);
        rows.push_back({ op.name, op.phase, shapeOf(op), time.flops, time.bytes, time.seconds, time.bound });
    }
    return rows;
}

} // namespace

Evaluation StructureEvaluator::evaluate(const config::Scenario& scenario) const
{
    Evaluation evaluation;
    evaluation.label = labelOf(scenario);
    evaluation.scenario = std::make_shared<const config::Scenario>(scenario);
    evaluation.inferenceMode = scenario.run.mode == config::RunMode::Inference;
    evaluation.parameters = model::countParameters(scenario.model);
    evaluation.placement
        = parallel::placeRanks(scenario.hardware, scenario.run, scenario.locations, &evaluation.placementProblems);
    for (const config::NetworkDimension& dimension : scenario.hardware.cluster.dimensions) {
        evaluation.dimensionNames.push_back(dimension.name);
    }
    evaluation.hardwareGpus = scenario.hardware.cluster.totalGpus();
    evaluation.runGpus = scenario.run.parallelism.gpuCount();
    // One layer's operators: a few dozen closed forms and memoised GEMM estimates, cheap enough for every edit.
    try {
        evaluation.operators = operatorRows(scenario);
    } catch (const std::exception& error) {
        evaluation.operatorProblem = error.what();
    }
    // The analytical step model runs off the GUI thread (EvaluationRunner); a scenario it cannot evaluate (an
    // unreachable pair after link faults, say) shows its message instead of a time, never a made-up number.
    if (!evaluation.placementProblems.empty()) {
        // Said where the step time would be, so "—" never stands there without its reason.
        evaluation.timeProblem = "the ranks cannot be placed: " + evaluation.placementProblems.front().toString();
    } else {
        try {
            analysis::ScenarioEvaluation result = analysis::evaluateScenario(scenario);
            evaluation.training = std::move(result.training);
            evaluation.inference = std::move(result.inference);
        } catch (const std::exception& error) {
            evaluation.timeProblem = error.what();
        }
    }
    // The step model's results carry the memory estimate; without them it is computed on its own (about 70 µs), and
    // a failure there is shown inline rather than hiding the other results.
    if (evaluation.training) {
        evaluation.memory = evaluation.training->memory;
    } else if (evaluation.inference) {
        evaluation.memory = evaluation.inference->memory;
    } else {
        try {
            evaluation.memory = memory::estimateMemory(scenario.model, scenario.hardware.gpu, scenario.run);
        } catch (const std::exception& error) {
            evaluation.memoryProblem = error.what();
        }
    }
    return evaluation;
}

} // namespace rapid::widgets
