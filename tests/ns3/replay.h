// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "flowprogram.h"

#include <cstdint>
#include <string>
#include <vector>

namespace flowreplay {

/// How a device queue orders packets. Fair and Fifo send pure ACKs first; DropTail is ns-3's plain FIFO.
enum class QueueDiscipline { Fair, Fifo, DropTail };

struct ReplayOptions {
    std::uint32_t mtu = 9000; ///< IP MTU of every device; TCP segments carry mtu - 40 payload bytes
    std::string tcp = "ns3::TcpNewReno"; ///< congestion control (an ns-3 TcpCongestionOps TypeId name)
    double windowBdp = 4; ///< receive window of a connection in bandwidth-delay products of its path
    std::uint32_t queuePackets = 0; ///< device queue capacity; 0 = large enough that no packet is ever dropped
    QueueDiscipline queue = QueueDiscipline::Fair;
    double minRtoUs = 200000; ///< TCP minimum retransmission timeout
    double delAckTimeoutUs = 20; ///< delayed-ACK timeout (an ACK goes out at least every second segment)
    std::uint32_t initialCwnd = 10; ///< segments; 0 = the flow's share of one bandwidth-delay product of the path
    double maxSimulatedSeconds = 3600; ///< safety stop
};

struct FlowTiming {
    int id = 0;
    double startNs = 0; ///< when its bytes start leaving the source (ready + delay)
    double finishNs = -1; ///< when its last byte arrived; -1 if it never finished
};

struct ReplayResult {
    double completionNs = 0; ///< latest finish, relative to the program's time zero
    std::vector<FlowTiming> flows;
    bool complete = true; ///< every flow finished
    double setupNs = 0; ///< simulated time spent opening the connections before time zero
    std::uint64_t events = 0; ///< ns-3 events executed (connection setup included)
    double wallSeconds = 0; ///< Simulator::Run
    int connections = 0;
    std::uint64_t drops = 0; ///< packets dropped by device queues
    std::uint64_t fastRetransmits = 0; ///< TCP entries into fast recovery
    std::uint64_t timeouts = 0; ///< TCP retransmission timeouts
    std::vector<std::string> warnings;
};

/// Builds the network of @p program in ns-3 (one node per program node, one point-to-point channel per pair of
/// opposite links), opens one TCP connection per (path, chain of ordered flows), then replays the flows. Runs the
/// global ns-3 simulator: call once per process. Throws ParseError (naming the line) for programs ns-3 cannot
/// represent (opposite links with different latencies) and std::runtime_error for bad options.
ReplayResult replay(const FlowProgram& program, const ReplayOptions& options);

} // namespace flowreplay
