// SPDX-License-Identifier: GPL-3.0-or-later
#include "stepbackend.h"

#include "network/analyticalnetwork.h"
#include "sim/congestionstepbackend.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <tuple>

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

/// With link faults the SPMD replicas of a group are no longer alike and every rank waits for its own group, so the
/// step waits for the slowest. Each replica is costed alone (the analytical network has no contention between
/// groups); a replica slower than the representative is remembered, so the result can say which group set the time.
class FaultyReplicaBackend final : public StepBackend {
public:
    explicit FaultyReplicaBackend(std::shared_ptr<network::AnalyticalNetwork> network)
        : m_network(std::move(network))
    {
    }

    double collectiveSeconds(const network::CollectiveRequest& request) override
    {
        network::CollectiveRequest replica = request;
        replica.replicaOffsets.clear();
        const double representative = m_network->time(replica).seconds;
        double slowest = representative;
        int slowestOffset = 0;
        for (int offset : request.replicaOffsets) {
            for (size_t i = 0; i < request.gpus.size(); ++i) {
                replica.gpus[i] = request.gpus[i] + offset;
            }
            if (const double seconds = m_network->time(replica).seconds; seconds > slowest) {
                slowest = seconds;
                slowestOffset = offset;
            }
        }
        if (slowest > representative * (1 + 1e-9)) {
            remember(request, slowestOffset, slowest, representative);
        }
        return slowest;
    }
    bool simulatesReplicas() const override { return true; }

    std::vector<report::FaultLimitedGroup> faultLimitedGroups() const override
    {
        std::vector<report::FaultLimitedGroup> groups;
        for (const auto& [key, group] : m_slowGroups) {
            groups.push_back(group);
        }
        std::sort(groups.begin(), groups.end(), [](const auto& a, const auto& b) {
            return a.seconds - a.representativeSeconds > b.seconds - b.representativeSeconds;
        });
        return groups;
    }

private:
    void remember(const network::CollectiveRequest& request, int offset, double slowest, double representative)
    {
        auto [found, added] = m_slowGroups.try_emplace({ request.kind, request.gpus, request.bytes });
        if (!added) {
            return;
        }
        report::FaultLimitedGroup& group = found->second;
        char size[48];
        std::snprintf(size, sizeof size, " of %.4g MB", request.bytes / 1e6);
        group.collective = network::toString(request.kind) + std::string(size);
        group.representative = request.gpus;
        for (int gpu : request.gpus) {
            group.gpus.push_back(gpu + offset);
        }
        group.seconds = slowest;
        group.representativeSeconds = representative;
    }

    std::shared_ptr<network::AnalyticalNetwork> m_network;
    std::map<std::tuple<network::CollectiveKind, std::vector<int>, double>, report::FaultLimitedGroup> m_slowGroups;
};

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
    return std::make_shared<FaultyReplicaBackend>(network);
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
