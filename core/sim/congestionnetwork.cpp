// SPDX-License-Identifier: GPL-3.0-or-later
#include "congestionnetwork.h"

#include "sim/collectiveflows.h"
#include "sim/flowsimulator.h"

#include <algorithm>
#include <stdexcept>

namespace rapid::sim {

CongestionNetwork::CongestionNetwork(const config::HardwareSpec& hardware, CongestionOptions options)
    : m_options(options)
    , m_analytical(hardware, network::AnalyticalOptions { options.launchSeconds })
    , m_topology(std::make_shared<network::Topology>(hardware))
    , m_routes(std::make_shared<RouteCache>(m_topology, options.packetBytes))
{
}

std::vector<int> CongestionNetwork::appendFlows(
    FlowProgram& program, const network::CollectiveRequest& request, int tag, int after)
{
    std::vector<network::CollectivePhase> phases;
    m_analytical.time(request, &phases);
    const TimeNs launch = after >= 0 ? 0 : toNanoseconds(m_options.launchSeconds);
    std::vector<int> last
        = decomposeCollective(program, *m_routes, m_analytical.axes(), request, phases, launch, tag, after);
    for (int offset : request.replicaOffsets) {
        if (offset == 0) {
            continue;
        }
        network::CollectiveRequest replica = request;
        replica.replicaOffsets.clear();
        for (int& gpu : replica.gpus) {
            gpu += offset;
            if (gpu < 0 || gpu >= m_topology->gpuCount()) {
                throw std::invalid_argument("replica offset " + std::to_string(offset) + " moves GPU "
                    + std::to_string(gpu - offset) + " outside the network");
            }
        }
        // Replicas are congruent groups: the same phases apply (their lines shift with them).
        const std::vector<int> ends
            = decomposeCollective(program, *m_routes, m_analytical.axes(), replica, phases, launch, tag, after);
        last.insert(last.end(), ends.begin(), ends.end());
    }
    return last;
}

FlowProgram CongestionNetwork::program(std::span<const network::CollectiveRequest> requests)
{
    FlowProgram program;
    for (size_t i = 0; i < requests.size(); ++i) {
        if (requests[i].gpus.size() >= 2 && requests[i].bytes >= 0) {
            appendFlows(program, requests[i], static_cast<int>(i));
        }
    }
    return program;
}

FlowProgram CongestionNetwork::checkedProgram(std::span<const network::CollectiveRequest> requests)
{
    for (const network::CollectiveRequest& request : requests) {
        m_analytical.time(request); // validates GPUs, bytes and reachability with the analytical model's messages
    }
    return program(requests);
}

namespace {

/// Each request's completion (its latest flow, by tag) and the makespan, from every flow's finish in seconds.
template <typename FinishSeconds>
void collectCompletions(
    CongestionRun& result, const FlowProgram& flows, size_t requestCount, FinishSeconds&& finishSeconds)
{
    result.seconds.assign(requestCount, 0.0);
    for (size_t i = 0; i < flows.flows.size(); ++i) {
        const auto tag = static_cast<size_t>(flows.flows[i].tag);
        result.seconds[tag] = std::max(result.seconds[tag], finishSeconds(i));
        result.makespan = std::max(result.makespan, result.seconds[tag]);
    }
}

} // namespace

CongestionRun CongestionNetwork::run(
    std::span<const network::CollectiveRequest> requests, const std::atomic<bool>* stop)
{
    const FlowProgram flows = checkedProgram(requests);
    FlowSimulator simulator(*m_routes);
    const std::vector<FlowId> ids = addProgram(simulator, flows);
    simulator.run(stop);
    CongestionRun result;
    collectCompletions(
        result, flows, requests.size(), [&](size_t i) { return toSeconds(simulator.finishTime(ids[i])); });
    result.linkBytes = simulator.linkBytes();
    result.flows = simulator.flowCount();
    result.events = simulator.eventsProcessed();
    result.rateRecomputations = simulator.rateRecomputations();
    return result;
}

CongestionRun CongestionNetwork::runPackets(
    std::span<const network::CollectiveRequest> requests, const PacketOptions& options, const std::atomic<bool>* stop)
{
    const FlowProgram flows = checkedProgram(requests);
    PacketRun packets = simulatePackets(flows, *m_topology, options, stop);
    CongestionRun result;
    collectCompletions(result, flows, requests.size(), [&](size_t i) { return packets.finishSeconds[i]; });
    result.linkBytes = std::move(packets.linkBytes);
    result.flows = flows.size();
    result.events = packets.events;
    result.packets = packets.packets;
    return result;
}

double CongestionNetwork::time(const network::CollectiveRequest& request)
{
    if (request.gpus.size() < 2) {
        return m_analytical.time(request).seconds;
    }
    const auto key = std::make_tuple(static_cast<int>(request.kind), request.bytes, request.gpus,
        request.replicaOffsets, request.algorithm ? static_cast<int>(*request.algorithm) : -1, request.outerAxisShare,
        static_cast<int>(request.library));
    auto found = m_memo.find(key);
    if (found != m_memo.end()) {
        return found->second;
    }
    const network::CollectiveRequest requests[] = { request };
    const double seconds = run(requests).makespan;
    m_memo.emplace(key, seconds);
    return seconds;
}

std::function<double(const network::CollectiveRequest&)> congestionCost(const config::HardwareSpec& hardware)
{
    auto network = std::make_shared<CongestionNetwork>(hardware);
    return [network](const network::CollectiveRequest& request) { return network->time(request); };
}

} // namespace rapid::sim
