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

void checkCollectiveWhatIf(const CollectiveWhatIf& whatIf)
{
    for (const network::CollectiveRequest& request : whatIf.requests) {
        if (!(request.bytes >= 0) || request.bytes > kMaxCollectiveBytes) {
            throw std::invalid_argument("collective size " + std::to_string(request.bytes)
                + " B per rank is out of range; expected 0 to 1 PiB");
        }
    }
    for (double packet : { whatIf.congestion.packetBytes, whatIf.packets.packetBytes }) {
        if (!(packet >= 0) || packet > kMaxPacketBytes) {
            throw std::invalid_argument(
                "packet size " + std::to_string(packet) + " B is out of range; expected at most 1 MiB");
        }
    }
}

CollectiveWhatIfResult runCollectiveWhatIf(const CollectiveWhatIf& whatIf, const std::atomic<bool>* stop)
{
    checkCollectiveWhatIf(whatIf);
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

std::string describeRanks(const std::vector<int>& ranks)
{
    if (ranks.empty()) {
        return "-";
    }
    std::string text;
    size_t i = 0;
    while (i < ranks.size()) {
        size_t j = i;
        while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) {
            ++j;
        }
        text += (text.empty() ? "" : ",") + std::to_string(ranks[i]);
        if (j > i) {
            text += "-" + std::to_string(ranks[j]);
        }
        i = j + 1;
    }
    return text;
}

report::Json collectiveResultJson(const CollectiveWhatIf& whatIf, const CollectiveWhatIfResult& result)
{
    const std::vector<network::CollectiveRequest>& requests = whatIf.requests;
    const network::CollectiveTime& first = result.times.front();
    report::Json document = { { "hardware", whatIf.hardware.name }, { "backend", toString(whatIf.backend) },
        { "op", network::toString(requests.front().kind) }, { "bytes", requests.front().bytes },
        { "ranks", requests.front().gpus.size() }, { "time_s", first.seconds },
        { "algorithm", network::toString(first.algorithm) }, { "algorithm_bandwidth_Bps", first.algorithmBandwidth },
        { "bus_bandwidth_Bps", first.busBandwidth }, { "bottleneck_link", first.bottleneckLink } };
    report::Json collectives = report::Json::array();
    for (size_t i = 0; i < requests.size(); ++i) {
        collectives.push_back({ { "op", network::toString(requests[i].kind) }, { "bytes", requests[i].bytes },
            { "gpus", describeRanks(requests[i].gpus) }, { "time_s", result.times[i].seconds },
            { "algorithm", network::toString(result.times[i].algorithm) },
            { "algorithm_bandwidth_Bps", result.times[i].algorithmBandwidth } });
    }
    document["collectives"] = collectives;
    if (!result.simulated()) {
        return document;
    }
    document["makespan_s"] = result.run.makespan;
    document["flows"] = result.run.flows;
    document["events"] = result.run.events;
    document["wall_s"] = result.wallSeconds;
    if (whatIf.backend == CollectiveBackend::Packet) {
        document["packets"] = result.run.packets;
    }
    report::Json links = report::Json::array();
    const network::Topology& topology = result.network->topology();
    for (const network::LinkUse& use : result.busiestLinks) {
        const network::Link& link = topology.link(use.link);
        links.push_back({ { "id", use.id }, { "link", use.link }, { "from", link.from }, { "to", link.to },
            { "bytes", use.bytes }, { "utilisation", use.utilisation } });
    }
    document["links"] = links;
    return document;
}

} // namespace rapid::analysis
