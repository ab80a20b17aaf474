// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/hardwarespec.h"
#include "network/collective.h"
#include "network/linkload.h"
#include "report/json.h"
#include "sim/congestionnetwork.h"

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rapid::analysis {

/// How a collective what-if is timed: the closed form, or its flows simulated on the explicit topology.
enum class CollectiveBackend {
    Analytical, ///< network::AnalyticalNetwork, an idle network
    Congestion, ///< flow level, max-min fair link sharing (sim::CongestionNetwork::run)
    Packet, ///< packet level, store-and-forward, fair-queued ports (sim::CongestionNetwork::runPackets)
};
const char* toString(CollectiveBackend backend);
/// "analytical", "congestion" or "packet".
std::optional<CollectiveBackend> parseCollectiveBackend(std::string_view name);

/// One or several concurrent collectives on a hardware's network (faults included).
struct CollectiveWhatIf {
    config::HardwareSpec hardware;
    std::vector<network::CollectiveRequest> requests;
    CollectiveBackend backend = CollectiveBackend::Analytical;
    sim::CongestionOptions congestion; ///< flow level: store-and-forward packet size (0: cut-through)
    sim::PacketOptions packets; ///< packet level: packet and header size
};

/// What the what-if gave: `rapid collective`'s report and the workbench's Collective box.
struct CollectiveWhatIfResult {
    CollectiveBackend backend = CollectiveBackend::Analytical;
    /// Per request. The analytical time names the algorithm (the simulated backends run the same one) and its
    /// bottleneck link; the simulated backends replace seconds and bandwidths by the simulation's.
    std::vector<network::CollectiveTime> times;
    sim::CongestionRun run; ///< simulated backends: flows, events, packets, makespan, bytes per link
    std::vector<double> linkUtilisation; ///< simulated backends: per directed link over the makespan
    std::vector<network::LinkUse> busiestLinks; ///< simulated backends: every link that carried, busiest first
    double wallSeconds = 0; ///< of the simulation
    /// Simulated backends: the network the flows ran on (its topology names the links; it writes the flow program).
    std::shared_ptr<sim::CongestionNetwork> network;

    bool simulated() const { return backend != CollectiveBackend::Analytical; }
};

/// The result as JSON (docs/json-output.md, `rapid collective --json`): the first collective's fields at the top level
/// (single-collective scripts read these), every collective, and with a simulated backend the simulation's counts and
/// every link that carried traffic, busiest first.
report::Json collectiveResultJson(const CollectiveWhatIf& whatIf, const CollectiveWhatIfResult& result);

/// Ranks as ranges: "0-7,16" ("-" for none).
std::string describeRanks(const std::vector<int>& ranks);

/// Times @p whatIf. Throws std::invalid_argument for requests the network cannot run, network::UnreachableError when
/// faults cut members apart, sim::SimulationCancelled when @p stop becomes true.
CollectiveWhatIfResult runCollectiveWhatIf(const CollectiveWhatIf& whatIf, const std::atomic<bool>* stop = nullptr);

/// The largest buffer per rank a what-if takes: 1 PiB, far above any GPU's memory. The simulators count bytes and
/// nanoseconds in 64-bit integers; beyond this a result would overflow them and mean nothing.
constexpr double kMaxCollectiveBytes = 1125899906842624.0; // 2^50
/// The largest packet: 1 MiB, above any fabric's MTU (InfiniBand 4 KiB, Ethernet jumbo frames 9 KiB).
constexpr double kMaxPacketBytes = 1048576.0;
/// Throws std::invalid_argument naming the first size of @p whatIf out of range (runCollectiveWhatIf calls it).
void checkCollectiveWhatIf(const CollectiveWhatIf& whatIf);

} // namespace rapid::analysis
