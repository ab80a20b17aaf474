// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/hardwarespec.h"
#include "network/analyticalnetwork.h"
#include "network/collective.h"
#include "network/topology.h"
#include "sim/flowprogram.h"
#include "sim/packetsimulator.h"
#include "sim/routecache.h"

#include <atomic>
#include <map>
#include <memory>
#include <span>
#include <vector>

namespace rapid::sim {

struct CongestionOptions {
    double launchSeconds = network::kCollectiveLaunchSeconds; ///< per collective, as the analytical backend
    /// Store-and-forward packet size in bytes (see RouteCache); 0, the default, is cut-through switching.
    double packetBytes = 0;
};

/// What a run of concurrent collectives did.
struct CongestionRun {
    std::vector<double> seconds; ///< per request: completion time from the common start (launch included)
    double makespan = 0; ///< seconds until the last flow finished
    std::vector<double> linkBytes; ///< per directed link: bytes carried
    int flows = 0;
    std::uint64_t events = 0;
    std::uint64_t rateRecomputations = 0;
    std::uint64_t packets = 0; ///< packet-level runs: packets injected
};

/// The congestion-aware backend: collectives decomposed into point-to-point flows (collectiveflows.h, with the
/// algorithm the analytical backend chooses), simulated flow by flow on the explicit topology with max-min fair link
/// sharing (FlowSimulator), degraded and failed links included (routes avoid failed links; unreachable pairs raise
/// network::UnreachableError naming them).
///
/// time() of one collective on an otherwise idle network equals the analytical backend's up to nanosecond rounding
/// wherever the analytical closed form is exact; they differ where flows contend (replicas sharing links,
/// oversubscribed uplinks, reroutes around failures). Not thread-safe: one per thread (copies share only immutable
/// state).
class CongestionNetwork {
public:
    /// Throws std::invalid_argument for invalid dimensions or faults naming links that do not exist.
    explicit CongestionNetwork(const config::HardwareSpec& hardware, CongestionOptions options = {});

    /// Runs @p requests concurrently from time zero (each with its SPMD replicas, see replicaOffsets). Throws
    /// SimulationCancelled when @p stop becomes true.
    CongestionRun run(std::span<const network::CollectiveRequest> requests, const std::atomic<bool>* stop = nullptr);
    /// The same flows as run(), simulated packet by packet (simulatePackets) instead of as fluid flows: the fidelity
    /// of a packet-level simulator for messages of a few packets per path. The route cache's store-and-forward term
    /// is not used (every packet is forwarded whole). Throws SimulationCancelled when @p stop becomes true.
    CongestionRun runPackets(std::span<const network::CollectiveRequest> requests, const PacketOptions& options,
        const std::atomic<bool>* stop = nullptr);
    /// Completion time of one request and its replicas, memoised by request.
    double time(const network::CollectiveRequest& request);
    /// The flows run() would simulate, tagged by request index.
    FlowProgram program(std::span<const network::CollectiveRequest> requests);
    /// Appends the flows of @p request and of each of its SPMD replicas (all decomposed with the phases the analytical
    /// backend chose for the request: replicas are congruent groups) to @p program, tagged @p tag. Flows that wait for
    /// nothing pay the launch cost; with @p after (a program index) they wait for that flow instead. Returns the
    /// indices of the last flows (when all have finished, so has the collective with its replicas).
    std::vector<int> appendFlows(
        FlowProgram& program, const network::CollectiveRequest& request, int tag, int after = -1);

    const network::Topology& topology() const { return *m_topology; }
    const network::AnalyticalNetwork& analytical() const { return m_analytical; }
    RouteCache& routes() { return *m_routes; }

private:
    /// program(@p requests), after checking each request with the analytical model (its error messages).
    FlowProgram checkedProgram(std::span<const network::CollectiveRequest> requests);

    CongestionOptions m_options;
    network::AnalyticalNetwork m_analytical;
    std::shared_ptr<const network::Topology> m_topology;
    std::shared_ptr<RouteCache> m_routes;
    std::map<std::tuple<int, double, std::vector<int>, std::vector<int>, int, double, int>, double> m_memo;
};

/// A sim::CollectiveCost (stepmodel.h) backed by a CongestionNetwork of @p hardware.
std::function<double(const network::CollectiveRequest&)> congestionCost(const config::HardwareSpec& hardware);

} // namespace rapid::sim
