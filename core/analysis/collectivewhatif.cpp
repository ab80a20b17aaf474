// SPDX-License-Identifier: GPL-3.0-or-later
#include "collectivewhatif.h"

#include "network/analyticalnetwork.h"

#include <chrono>

namespace rapid::analysis {

const char* toString(CollectiveBackend backend)
{
    switch (backend) {
    case CollectiveBackend::Analytical:
        return "analytical";
    case CollectiveBackend::Congestion:
        return "congestion";
    case CollectiveBackend::Packet:
        return "packet";
    }
    return "?";
}

std::optional<CollectiveBackend> parseCollectiveBackend(std::string_view name)
{
    for (CollectiveBackend backend :
        { CollectiveBackend::Analytical, CollectiveBackend::Congestion, CollectiveBackend::Packet }) {
        if (name == toString(backend)) {
            return backend;
        }
    }
    return std::nullopt;
}

CollectiveWhatIfResult runCollectiveWhatIf(const CollectiveWhatIf& whatIf, const std::atomic<bool>* stop)
{
    CollectiveWhatIfResult result;
    result.backend = whatIf.backend;
    const network::AnalyticalNetwork analytical(whatIf.hardware);
    for (const network::CollectiveRequest& request : whatIf.requests) {
        result.times.push_back(analytical.time(request));
    }
    if (!result.simulated()) {
        return result;
    }
    result.network = std::make_shared<sim::CongestionNetwork>(whatIf.hardware, whatIf.congestion);
    const auto start = std::chrono::steady_clock::now();
    result.run = whatIf.backend == CollectiveBackend::Packet
        ? result.network->runPackets(whatIf.requests, whatIf.packets, stop)
        : result.network->run(whatIf.requests, stop);
    result.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    for (size_t i = 0; i < whatIf.requests.size(); ++i) {
        const network::CollectiveRequest& request = whatIf.requests[i];
        network::CollectiveTime& time = result.times[i];
        time.seconds = result.run.seconds[i];
        time.algorithmBandwidth = time.seconds > 0 ? request.bytes / time.seconds : 0;
        time.busBandwidth = time.algorithmBandwidth
            * network::busBandwidthFactor(request.kind, static_cast<int>(request.gpus.size()));
    }
    const network::Topology& topology = result.network->topology();
    result.linkUtilisation = network::linkUtilisation(topology, result.run.linkBytes, result.run.makespan);
    result.busiestLinks = network::busiestLinks(topology, result.run.linkBytes, result.run.makespan);
    return result;
}

} // namespace rapid::analysis
