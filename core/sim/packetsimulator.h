// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "network/topology.h"
#include "sim/flowprogram.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <vector>

namespace rapid::sim {

/// How the packet-level simulator cuts flows into packets.
struct PacketOptions {
    /// Bytes one full packet occupies on the wire, its header included (e.g. 4,096 B InfiniBand MTU, or 9,002 B for
    /// a 9,000-byte IP packet with its 2-byte point-to-point header).
    double packetBytes = 4096;
    /// Bytes of every packet that are header, not payload: a flow of B bytes sends ceil(B / (packetBytes -
    /// headerBytes)) packets, each carrying its header on every link.
    double headerBytes = 0;
    /// Largest run accepted, in packet-hops (one packet crossing one link: two events). The default, 5 x 10^7, is 4 to
    /// 16 s of simulation (measured 1.2 x 10^7 packet-hops/s for a lone 2-rank all-to-all, 3.2 x 10^6 for three
    /// concurrent collectives on a 64-GPU fat tree); beyond it the flow-level backend is the tool (messages of many
    /// packets). Checked before anything runs: config::InputLimitError.
    double maxPacketHops = 5e7;
};

/// What a packet-level run did. Times in seconds from the program's time zero.
struct PacketRun {
    std::vector<double> finishSeconds; ///< per program flow: when its last packet arrived
    double completionSeconds = 0; ///< latest finish
    std::vector<double> linkBytes; ///< per directed link of the topology: wire bytes sent (headers included)
    std::uint64_t packets = 0; ///< packets injected at their sources
    std::uint64_t events = 0;
};

/// Packet-level discrete-event simulation of a flow program: the fidelity of a packet simulator such as ns-3 for
/// transfers of few packets, where the fluid model's assumptions (bytes as a continuous stream, every flow served at
/// once) stop holding.
///
/// Each path of a flow (ECMP part or the whole route) is a stream of packets. Every directed link is an output port:
/// it sends one packet at a time at its bandwidth (health included), and the packets waiting for it are served by
/// self-clocked weighted fair queueing between streams (weight = the path's fraction of its flow, so a flow split
/// over four paths competes at a link like a quarter of a flow, as in the fluid model's max-min sharing); equal tags
/// go in arrival order. A packet is received whole before it is forwarded (store-and-forward) and reaches the next
/// node the link's latency after its last bit left. Queues are unbounded and nothing is dropped, as on the lossless
/// fabrics (NVLink, InfiniBand) collectives run on; there is no end-to-end congestion control. A flow finishes when
/// the last packet of every path has arrived; zero-byte paths send nothing and arrive after the path's latency; a
/// flow from a GPU to itself finishes when it starts. Dependencies and delays as in the fluid simulator.
///
/// Time is kept in integer picoseconds (one 4 KiB packet at 900 GB/s takes 4.55 ns, so nanoseconds would round
/// away percent-level error per hop). Throws SimulationCancelled when @p stop becomes true, std::invalid_argument for
/// packet sizes that leave no payload, config::InputLimitError for a program of more than options.maxPacketHops
/// packet-hops (checked before anything runs), and network::UnreachableError for flows without a path.
PacketRun simulatePackets(const FlowProgram& program, const network::Topology& topology, const PacketOptions& options,
    const std::atomic<bool>* stop = nullptr, const std::function<void(double)>& progress = {});

} // namespace rapid::sim
