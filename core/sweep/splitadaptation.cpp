// SPDX-License-Identifier: GPL-3.0-or-later
#include "splitadaptation.h"

#include <string>

namespace rapid::sweep {

namespace {

/// The degrees of a split value: the base's, with its assignments "run.parallelism.<axis>=<n>" applied.
config::ParallelismSpec degreesOf(const AxisValue& value, const config::ParallelismSpec& base)
{
    config::ParallelismSpec parallel = base;
    const std::string prefix = "run.parallelism.";
    for (const std::string& assignment : value.assignments) {
        const auto equals = assignment.find('=');
        if (assignment.rfind(prefix, 0) != 0 || equals == std::string::npos) {
            continue;
        }
        const std::string axis = assignment.substr(prefix.size(), equals - prefix.size());
        const int degree = std::stoi(assignment.substr(equals + 1));
        if (axis == "tp") {
            parallel.tp = degree;
        } else if (axis == "pp") {
            parallel.pp = degree;
        } else if (axis == "dp") {
            parallel.dp = degree;
        } else if (axis == "cp") {
            parallel.cp = degree;
        } else if (axis == "ep") {
            parallel.ep = degree;
        }
    }
    return parallel;
}

/// Micro-batches per step of @p run with @p dp replicas.
int microBatches(config::RunSpec run, int dp)
{
    run.parallelism.dp = dp;
    return run.microBatchesPerStep();
}

} // namespace

void adaptSplits(SweepAxis& splits, const config::ModelSpec& model, const config::RunSpec& base)
{
    const config::ParallelismSpec& baseParallel = base.parallelism;
    const bool interleaved = baseParallel.schedule == config::PipelineSchedule::Interleaved;
    for (AxisValue& value : splits.values) {
        const config::ParallelismSpec parallel = degreesOf(value, baseParallel);
        if (!baseParallel.mapping.empty()) {
            value.assignments.push_back("run.parallelism.mapping={}");
        }
        if (!baseParallel.layersPerStage.empty() && parallel.pp != baseParallel.pp) {
            value.assignments.push_back("run.parallelism.layers_per_stage=[]");
        }
        if (!interleaved) {
            continue;
        }
        int virtualStages = 1;
        const int micro = base.mode == config::RunMode::Training ? microBatches(base, parallel.dp) : 0;
        if (base.mode != config::RunMode::Training || (micro > 0 && micro % parallel.pp == 0)) {
            for (int v = baseParallel.virtualStages; v >= 2; --v) {
                if (static_cast<long long>(parallel.pp) * v <= model.numLayers) {
                    virtualStages = v;
                    break;
                }
            }
        }
        if (virtualStages == baseParallel.virtualStages) {
            continue;
        }
        if (virtualStages == 1) {
            value.assignments.push_back("run.parallelism.schedule=1f1b");
            value.assignments.push_back("run.parallelism.virtual_stages=1");
            value.label += " 1f1b";
        } else {
            value.assignments.push_back("run.parallelism.virtual_stages=" + std::to_string(virtualStages));
            value.label += " v" + std::to_string(virtualStages);
        }
    }
}

} // namespace rapid::sweep
