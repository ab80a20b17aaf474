// SPDX-License-Identifier: GPL-3.0-or-later
#include "stepbackend.h"

#include "network/analyticalnetwork.h"
#include "sim/congestionstepbackend.h"

namespace rapid::sim {

namespace {

/// The analytical backend: every collective in closed form, the step as a critical-path DAG.
class AnalyticalBackend final : public StepBackend {
public:
    explicit AnalyticalBackend(CollectiveCost cost)
        : m_cost(std::move(cost))
    {
    }
    double collectiveSeconds(const network::CollectiveRequest& request) override { return m_cost(request); }

private:
    CollectiveCost m_cost;
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
    }
    return "?";
}

std::vector<NetworkBackend> networkBackends()
{
    return { NetworkBackend::Analytical, NetworkBackend::Congestion };
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
    if (!cost) {
        auto network = std::make_shared<network::AnalyticalNetwork>(hardware);
        cost = [network](const network::CollectiveRequest& request) { return network->time(request).seconds; };
    }
    return std::make_shared<AnalyticalBackend>(std::move(cost));
}

std::shared_ptr<StepBackend> makeStepBackend(NetworkBackend backend, const config::HardwareSpec& hardware)
{
    switch (backend) {
    case NetworkBackend::Congestion:
        return std::make_shared<CongestionStepBackend>(hardware);
    case NetworkBackend::Analytical:
        break;
    }
    return makeAnalyticalBackend(hardware);
}

} // namespace rapid::sim
