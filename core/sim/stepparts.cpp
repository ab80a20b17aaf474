// SPDX-License-Identifier: GPL-3.0-or-later
#include "stepparts_p.h"

#include "network/analyticalnetwork.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace rapid::sim::detail {

using graph::TimeBreakdown;
using graph::TimeClass;

double sum(const TimeBreakdown& parts)
{
    return std::accumulate(parts.begin(), parts.end(), 0.0);
}

void add(TimeBreakdown& into, const TimeBreakdown& parts, double times)
{
    for (size_t i = 0; i < into.size(); ++i) {
        into[i] += times * parts[i];
    }
}

double& at(TimeBreakdown& parts, TimeClass timeClass)
{
    return parts[static_cast<size_t>(timeClass)];
}

double mfuPeak(const config::GpuSpec& gpu, const config::PrecisionSpec& precision)
{
    const auto rate = [&gpu](config::Precision of) {
        return gpu.tensorPeak(of) > 0 ? gpu.tensorPeak(of) : gpu.tensorPeak(config::Precision::Bf16);
    };
    // The fastest rate any of the step's GEMMs runs at (the routed experts may have math of their own).
    const double fastest
        = std::max({ rate(precision.compute), rate(precision.activations), rate(precision.routedExpertCompute()) });
    return fastest * std::max(1.0, gpu.effectiveClockScale());
}

double exposed(double communication, double hideable)
{
    return std::max(0.0, communication - hideable);
}

namespace {

/// @p sms of @p gpu's SMs as a share, at most half (a preset with very few SMs still computes).
double cappedSmShare(int sms, const config::GpuSpec& gpu)
{
    return std::min(0.5, static_cast<double>(sms) / std::max(1, gpu.smCount));
}

} // namespace

double collectiveSmShare(const config::GpuSpec& gpu)
{
    return cappedSmShare(network::kCollectiveCtas, gpu);
}

double expertCollectiveSmShare(const config::GpuSpec& gpu, const config::ParallelismSpec& parallelism)
{
    // DeepEP runs its dispatch and combine kernels on 20 SMs unless told otherwise (deepseek-ai/DeepEP,
    // deep_ep/buffer.py, Buffer.num_sms; Megatron-Core's "historical default 20" of moe_deepep_num_sms).
    constexpr int kDeepEpSms = 20;
    if (parallelism.expertCommSms > 0) {
        if (parallelism.expertCommSms >= gpu.smCount) {
            throw std::logic_error("ep_comm_sms reached the model at or above the GPU's SM count");
        }
        return static_cast<double>(parallelism.expertCommSms) / gpu.smCount;
    }
    if (parallelism.expertDispatcher == config::ExpertDispatcher::DeepEp) {
        return cappedSmShare(kDeepEpSms, gpu);
    }
    return collectiveSmShare(gpu);
}

void slowGpuWork(TimeBreakdown& parts, double factor)
{
    const double hostBound = sum(parts); // the host's dispatch time where a host-dispatch wait is charged
    double others = 0;
    for (int i = 0; i < graph::kTimeClassCount; ++i) {
        const auto timeClass = static_cast<TimeClass>(i);
        double& seconds = parts[static_cast<size_t>(i)];
        if (graph::isGpuWork(timeClass)) {
            seconds *= factor;
        }
        others += timeClass == TimeClass::HostDispatch ? 0.0 : seconds;
    }
    // The host issues as fast as before: the GPU waits for it only as far as the slower GPU's work falls short of it.
    double& wait = at(parts, TimeClass::HostDispatch);
    wait = wait > 0 ? std::max(0.0, hostBound - others) : 0.0;
}

std::vector<graph::StageCost> withComputeSlowdown(
    std::vector<graph::StageCost> stages, const std::vector<double>& slowdowns)
{
    for (size_t stage = 0; stage < stages.size() && stage < slowdowns.size(); ++stage) {
        // A co-scheduled pair keeps the collectives it hid at the healthy rate (an approximation: a slower GPU's
        // longer compute would hide more of them).
        for (auto* chunks : { &stages[stage].chunks, &stages[stage].coScheduled }) {
            for (graph::ChunkCost& chunk : *chunks) {
                slowGpuWork(chunk.forward, slowdowns[stage]);
                slowGpuWork(chunk.backward, slowdowns[stage]);
            }
        }
        stages[stage].optimizerSeconds *= slowdowns[stage];
    }
    return stages;
}

parallel::PlannedCollective part(parallel::PlannedCollective collective, double share)
{
    collective.bytes *= share;
    return collective;
}

std::optional<parallel::PlannedCollective> part(std::optional<parallel::PlannedCollective> collective, double share)
{
    if (collective) {
        collective->bytes *= share;
    }
    return collective;
}

std::pair<std::vector<model::Operator>, std::vector<model::Operator>> splitByPhase(
    const std::vector<model::Operator>& ops)
{
    std::pair<std::vector<model::Operator>, std::vector<model::Operator>> result;
    for (const model::Operator& op : ops) {
        (op.phase == model::Phase::Forward ? result.first : result.second).push_back(op);
    }
    return result;
}

} // namespace rapid::sim::detail
