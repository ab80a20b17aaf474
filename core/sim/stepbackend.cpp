// SPDX-License-Identifier: GPL-3.0-or-later
#include "stepbackend.h"

#include "network/analyticalnetwork.h"
#include "sim/congestionstepbackend.h"

#include <algorithm>

namespace rapid::sim {

namespace {

/// The analytical backend: every collective in closed form, the step as a critical-path DAG.
class AnalyticalBackend final : public StepBackend {
public:
    explicit AnalyticalBackend(CollectiveCost cost, bool costsReplicas = false)
        : m_cost(std::move(cost))
        , m_costsReplicas(costsReplicas)
    {
    }
    double collectiveSeconds(const network::CollectiveRequest& request) override { return m_cost(request); }
    bool simulatesReplicas() const override { return m_costsReplicas; }

private:
    CollectiveCost m_cost;
    bool m_costsReplicas = false;
};

/// The slowest of a collective's SPMD replicas on the analytical network: with faulty links the groups are no longer
/// alike, and every rank waits for its own group, so the step waits for the slowest. Each replica is costed alone
/// (the analytical network has no contention between groups).
double slowestReplicaSeconds(const network::AnalyticalNetwork& network, const network::CollectiveRequest& request)
{
    network::CollectiveRequest replica = request;
    replica.replicaOffsets.clear();
    double slowest = network.time(replica).seconds;
    for (int offset : request.replicaOffsets) {
        for (size_t i = 0; i < request.gpus.size(); ++i) {
            replica.gpus[i] = request.gpus[i] + offset;
        }
        slowest = std::max(slowest, network.time(replica).seconds);
    }
    return slowest;
}

/// The ideal network: every collective takes no time (no launch either), so the step shows what compute and the
/// pipeline schedule cost alone: the upper bound any network improvement can reach.
class IdealBackend final : public StepBackend {
public:
    double collectiveSeconds(const network::CollectiveRequest&) override { return 0.0; }
    const char* name() const override { return "ideal"; }
};

} // namespace

StepExecution StepBackend::executeTraining(const TrainingStepInput& input)
{
    StepExecution execution;
    execution.schedule = executeGraph(input.graph);
    return execution;
}

const char* toString(NetworkBackend backend)
{
    switch (backend) {
    case NetworkBackend::Analytical:
        return "analytical";
    case NetworkBackend::Congestion:
        return "congestion";
    case NetworkBackend::Ideal:
        return "ideal";
    }
    return "?";
}

const char* describe(NetworkBackend backend)
{
    switch (backend) {
    case NetworkBackend::Analytical:
        return "closed-form collectives on the topology with its faults; the default";
    case NetworkBackend::Congestion:
        return "every group's collectives simulated flow by flow with max-min fair link sharing";
    case NetworkBackend::Ideal:
        return "an infinitely fast network where every collective is free: the bound compute and the pipeline set";
    }
    return "?";
}

std::string networkBackendChoices()
{
    const std::vector<NetworkBackend> backends = networkBackends();
    std::string text;
    for (size_t i = 0; i < backends.size(); ++i) {
        text += (i == 0 ? "" : i + 1 == backends.size() ? " or " : ", ") + std::string(toString(backends[i]));
    }
    return text;
}

std::vector<NetworkBackend> networkBackends()
{
    return { NetworkBackend::Analytical, NetworkBackend::Congestion, NetworkBackend::Ideal };
}

std::optional<NetworkBackend> parseNetworkBackend(std::string_view name)
{
    for (NetworkBackend backend : networkBackends()) {
        if (name == toString(backend)) {
            return backend;
        }
    }
    return std::nullopt;
}

std::shared_ptr<StepBackend> makeAnalyticalBackend(const config::HardwareSpec& hardware, CollectiveCost cost)
{
    if (cost) {
        return std::make_shared<AnalyticalBackend>(std::move(cost));
    }
    auto network = std::make_shared<network::AnalyticalNetwork>(hardware);
    if (hardware.faults.empty()) {
        // Healthy: every replica of a group is alike by symmetry; the representative's time is everyone's.
        return std::make_shared<AnalyticalBackend>(
            [network](const network::CollectiveRequest& request) { return network->time(request).seconds; });
    }
    return std::make_shared<AnalyticalBackend>(
        [network](const network::CollectiveRequest& request) { return slowestReplicaSeconds(*network, request); },
        true);
}

std::shared_ptr<StepBackend> makeStepBackend(NetworkBackend backend, const config::HardwareSpec& hardware)
{
    switch (backend) {
    case NetworkBackend::Congestion:
        return std::make_shared<CongestionStepBackend>(hardware);
    case NetworkBackend::Ideal:
        return std::make_shared<IdealBackend>();
    case NetworkBackend::Analytical:
        break;
    }
    return makeAnalyticalBackend(hardware);
}

} // namespace rapid::sim
