// SPDX-License-Identifier: GPL-3.0-or-later
// Stragglers in inference: the requests of a data-parallel replica with slow GPUs (StepModel::inference).
#include "stepmodel.h"
#include "stepparts_p.h"

#include <numeric>

namespace rapid::sim {

using graph::TimeBreakdown;
using graph::TimeClass;

namespace {

double total(const TimeBreakdown& parts)
{
    return std::accumulate(parts.begin(), parts.end(), 0.0);
}

} // namespace

void StepModel::applyStragglers(report::InferenceResult& result, int steps) const
{
    // A replica with slow GPUs runs its compute slower, stage by stage (its tp group waits for the slowest member):
    // the prefill and every decode step pass each stage's layers once, so the compute of a replica scales by the
    // layer-weighted mean of its stage slowdowns. Collectives keep their time. Each replica serves its own batch:
    // latency is the slowest replica's, throughput the sum over replicas.
    const parallel::ShardingPlan& sharding = m_plan.sharding;
    const int layers = std::max(1, m_scenario.model.numLayers);
    auto factorOf = [&](const std::vector<double>& slowdowns) {
        double weighted = 0;
        for (size_t stage = 0; stage < sharding.stageShares.size() && stage < slowdowns.size(); ++stage) {
            weighted += slowdowns[stage] * sharding.stageShares[stage].layerCount();
        }
        return weighted / layers;
    };
    auto scaled = [](TimeBreakdown parts, double factor) {
        detail::slowGpuWork(parts, factor);
        return parts;
    };
    const double healthyE2e = result.e2eSeconds;
    const double tokensPerReplica = static_cast<double>(m_scenario.run.batch) * steps;
    double tokensPerSecond
        = (sharding.dataParallel - static_cast<double>(m_plan.slowReplicas.size())) * tokensPerReplica / healthyE2e;
    const report::InferenceResult healthy = result;
    for (const parallel::SlowReplica& slow : m_plan.slowReplicas) {
        const double factor = factorOf(slow.stageSlowdowns);
        const TimeBreakdown prefill = scaled(healthy.prefill, factor);
        const TimeBreakdown decode = scaled(healthy.decodeStep, factor);
        const double e2e = total(prefill) + total(decode) * (steps - 1);
        tokensPerSecond += tokensPerReplica / e2e;
        if (e2e > result.e2eSeconds) {
            result.prefill = prefill;
            result.decodeStep = decode;
            result.ttftSeconds = total(prefill);
            result.itlSeconds = total(decode);
            result.e2eSeconds = e2e;
            result.limitingStragglers = slow.slowGpus;
        }
    }
    if (!m_plan.slowReplicas.empty()) {
        result.tokensPerSecond = tokensPerSecond;
    }
}

} // namespace rapid::sim
