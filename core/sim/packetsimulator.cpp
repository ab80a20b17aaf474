// SPDX-License-Identifier: GPL-3.0-or-later
#include "packetsimulator.h"

#include "config/diagnostic.h"
#include "sim/eventqueue.h"
#include "sim/flowsimulator.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <unordered_map>

namespace rapid::sim {

namespace {

using TimePs = std::int64_t;

constexpr double kPicosecondsPerSecond = 1e12;
constexpr TimePs kPicosecondsPerNanosecond = 1000;
/// Most path hops (streams x links) a run may hold: 40 bytes each, so about 2 GB.
constexpr std::size_t kMaxHopStates = 50'000'000;
// Measured on one core of the CI machine: a 10 GB two-rank all-to-all on hgx-a100-8gpu, 4.9 x 10^6 packet-hops in
// 0.42 s; three concurrent 810 MB collectives (direct algorithm) on dgx-h100-superpod's 64 GPUs, 5.26 x 10^7
// packet-hops in 16.6 s. The error message converts the budget with both.
constexpr double kPacketHopsPerSecond = 1.2e7;
constexpr double kContendedPacketHopsPerSecond = 3.2e6;
/// Events between two looks at the stop flag and two progress reports.
constexpr std::uint64_t kPollInterval = 1 << 16;

enum EventKind : std::uint32_t {
    FlowStart, ///< target: flow
    LinkFree, ///< target: directed link; it finished sending a packet
    PacketArrive, ///< target: hop; a packet sent on it reached the hop's far end
    StreamArrive, ///< target: stream; a zero-byte path's (empty) message arrived
    StreamSent, ///< target: stream; its last packet left the sender (the transmit end)
};

/// One path of one flow: a stream of packets.
struct Stream {
    int flow = 0;
    std::uint32_t firstHop = 0; ///< into the hop states
    std::uint32_t hopCount = 0;
    double weight = 1; ///< the path's fraction of its flow: its share at a fair-queued port
    std::int64_t packets = 0;
    std::int64_t delivered = 0;
    double fullWire = 0; ///< wire bytes of a full packet
    double lastWire = 0; ///< wire bytes of the last packet
    TimePs latency = 0; ///< sum of the path's link latencies
};

/// A stream at one link of its path: packets are numbered 0 .. packets-1 and cross every hop in order, so a hop's
/// queue is the contiguous range [sent, arrived).
struct Hop {
    int link = 0;
    std::int32_t stream = 0;
    std::int64_t arrived = 0;
    std::int64_t sent = 0;
    double lastTag = 0; ///< fair-queueing finish tag of the stream's last packet at this link
    bool queued = false; ///< the stream's head packet is in the link's waiting heap
};

/// A stream's head packet waiting for a link, ordered by finish tag; equal tags in a pseudo-random order.
struct Waiting {
    double tag = 0;
    std::uint64_t tie = 0;
    std::uint32_t hop = 0;
};

bool servedLater(const Waiting& a, const Waiting& b)
{
    return a.tag > b.tag || (a.tag == b.tag && (a.tie > b.tie || (a.tie == b.tie && a.hop > b.hop)));
}

/// SplitMix64's finaliser: a reproducible pseudo-random tie-breaker from a packet's identity.
std::uint64_t mix(std::uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

struct Port {
    double picosecondsPerByte = 0;
    TimePs latency = 0;
    double virtualTime = 0; ///< finish tag of the packet last sent (self-clocked fair queueing)
    bool busy = false;
    std::vector<Waiting> waiting; ///< a min-heap under servedLater
};

struct FlowState {
    std::uint32_t firstStream = 0;
    std::uint32_t streamCount = 0;
    std::uint32_t streamsLeft = 0;
    std::uint32_t streamsUnsent = 0; ///< streams whose last packet has not left the sender yet
    std::int32_t pendingDependencies = 0;
    TimePs delay = 0;
    TimePs finish = -1;
};

class PacketEngine {
public:
    PacketEngine(const FlowProgram& program, const network::Topology& topology, const PacketOptions& options)
        : m_program(program)
    {
        const double payload = options.packetBytes - options.headerBytes;
        if (!std::isfinite(options.packetBytes) || !(options.headerBytes >= 0) || !(payload > 0)) {
            throw std::invalid_argument("packets need a finite size larger than their header (packet "
                + std::to_string(options.packetBytes) + " B, header " + std::to_string(options.headerBytes) + " B)");
        }
        m_ports.resize(static_cast<size_t>(topology.linkCount()));
        for (int link = 0; link < topology.linkCount(); ++link) {
            const network::Link& l = topology.link(link);
            Port& port = m_ports[static_cast<size_t>(link)];
            port.picosecondsPerByte = l.failed() ? 0.0 : kPicosecondsPerSecond / l.effectiveBandwidth();
            port.latency = static_cast<TimePs>(std::llround(l.latencySeconds * kPicosecondsPerSecond));
        }
        m_linkBytes.assign(m_ports.size(), 0.0);
        m_maxPacketHops = options.maxPacketHops;
        buildStreams(topology, payload, options.headerBytes);
        buildDependants();
    }

    /// Adds @p hops packet-hops to the program's total; past options.maxPacketHops the run is refused before any
    /// state of that size is built.
    void checkPacketBudget(double hops)
    {
        m_packetHops += hops;
        if (m_packetHops > m_maxPacketHops) {
            char text[96];
            std::snprintf(text, sizeof text, "over %.3g packet-hops (the limit, %.3g, is %.0f to %.0f s of simulation)",
                m_packetHops, m_maxPacketHops, m_maxPacketHops / kPacketHopsPerSecond,
                m_maxPacketHops / kContendedPacketHopsPerSecond);
            throw config::InputLimitError(std::string("the transfer is too large to simulate packet by packet: ") + text
                + "; send fewer bytes, use larger packets, or the flow-level backend (--backend congestion)");
        }
    }

    PacketRun run(const std::atomic<bool>* stop, const std::function<void(double)>& progress)
    {
        for (size_t flow = 0; flow < m_flows.size(); ++flow) {
            if (m_flows[flow].pendingDependencies == 0) {
                schedule(m_flows[flow].delay, FlowStart, static_cast<std::int64_t>(flow));
            }
        }
        std::uint64_t events = 0;
        while (!m_queue.empty()) {
            const Event event = m_queue.pop();
            m_now = event.time;
            dispatch(event);
            if (++events % kPollInterval == 0) {
                if (stop && stop->load(std::memory_order_relaxed)) {
                    throw SimulationCancelled();
                }
                if (progress) {
                    progress(static_cast<double>(m_finishedFlows) / static_cast<double>(m_flows.size()));
                }
            }
        }
        PacketRun result;
        result.finishSeconds.reserve(m_flows.size());
        for (const FlowState& flow : m_flows) {
            if (flow.finish < 0) {
                throw std::logic_error("packet simulation ended with an unfinished flow");
            }
            const double seconds = static_cast<double>(flow.finish) / kPicosecondsPerSecond;
            result.finishSeconds.push_back(seconds);
            result.completionSeconds = std::max(result.completionSeconds, seconds);
        }
        result.linkBytes = std::move(m_linkBytes);
        result.packets = m_packets;
        result.events = events;
        return result;
    }

private:
    void buildStreams(const network::Topology& topology, double payload, double header)
    {
        const network::Router router(topology);
        std::unordered_map<std::uint64_t, std::vector<network::WeightedPath>> byPair;
        m_flows.resize(m_program.flows.size());
        for (size_t i = 0; i < m_program.flows.size(); ++i) {
            const FlowProgram::Flow& flow = m_program.flows[i];
            if (!(flow.bytes >= 0) || !std::isfinite(flow.bytes) || flow.delay < 0) {
                throw std::invalid_argument("a flow needs finite, non-negative bytes and delay");
            }
            std::vector<network::WeightedPath> chained;
            const std::vector<network::WeightedPath>* paths = nullptr;
            if (flow.chain >= 0) {
                chained = flowPaths(m_program, static_cast<int>(i), router);
                paths = &chained;
            } else {
                const std::uint64_t key
                    = (static_cast<std::uint64_t>(flow.src) << 32) | static_cast<std::uint32_t>(flow.dst);
                auto found = byPair.find(key);
                if (found == byPair.end()) {
                    found = byPair.emplace(key, flowPaths(m_program, static_cast<int>(i), router)).first;
                }
                paths = &found->second;
            }
            FlowState& state = m_flows[i];
            state.delay = flow.delay * kPicosecondsPerNanosecond;
            state.firstStream = static_cast<std::uint32_t>(m_streams.size());
            for (const network::WeightedPath& path : *paths) {
                addStream(static_cast<int>(i), path, flow.bytes * path.fraction, payload, header);
            }
            state.streamCount = static_cast<std::uint32_t>(m_streams.size()) - state.firstStream;
        }
    }

    void addStream(int flow, const network::WeightedPath& path, double bytes, double payload, double header)
    {
        Stream stream;
        stream.flow = flow;
        stream.firstHop = static_cast<std::uint32_t>(m_hops.size());
        stream.hopCount = static_cast<std::uint32_t>(path.links.size());
        stream.weight = path.fraction > 0 ? path.fraction : 1.0;
        if (bytes > 0 && !path.links.empty()) {
            // A relative tolerance keeps an exact multiple of the payload (computed through a fraction) from
            // gaining an empty packet.
            const double packets = std::max(1.0, std::ceil(bytes / payload * (1 - 1e-12)));
            checkPacketBudget(packets * static_cast<double>(path.links.size()));
            stream.packets = static_cast<std::int64_t>(packets);
            stream.fullWire = payload + header;
            stream.lastWire = bytes - static_cast<double>(stream.packets - 1) * payload + header;
        }
        // Checked while building: the stream and hop states of an oversized program would exhaust memory first.
        if (m_hops.size() + path.links.size() > kMaxHopStates) {
            throw config::InputLimitError("the collective is too large to simulate packet by packet (over "
                + std::to_string(kMaxHopStates)
                + " path hops); the flow-level backend simulates it (--backend congestion)");
        }
        const auto index = static_cast<std::int32_t>(m_streams.size());
        for (int link : path.links) {
            Hop hop;
            hop.link = link;
            hop.stream = index;
            m_hops.push_back(hop);
            stream.latency += m_ports[static_cast<size_t>(link)].latency;
        }
        m_streams.push_back(stream);
    }

    void buildDependants()
    {
        auto dependencies = [this](size_t flow, bool sent) {
            return sent ? m_program.sentDependenciesOf(static_cast<int>(flow))
                        : m_program.dependenciesOf(static_cast<int>(flow));
        };
        for (int kind = 0; kind < 2; ++kind) {
            const bool sent = kind == 1;
            std::vector<std::uint32_t>& start = sent ? m_sentDependantStart : m_dependantStart;
            std::vector<std::int32_t>& dependants = sent ? m_sentDependants : m_dependants;
            start.assign(m_program.flows.size() + 1, 0);
            for (size_t i = 0; i < m_program.flows.size(); ++i) {
                for (int dependency : dependencies(i, sent)) {
                    if (dependency < 0 || static_cast<size_t>(dependency) >= i) {
                        throw std::invalid_argument("flow " + std::to_string(i) + " depends on flow "
                            + std::to_string(dependency) + ", which does not come before it");
                    }
                    ++start[static_cast<size_t>(dependency) + 1];
                }
                m_flows[i].pendingDependencies += static_cast<std::int32_t>(dependencies(i, sent).size());
            }
            for (size_t i = 1; i < start.size(); ++i) {
                start[i] += start[i - 1];
            }
            dependants.assign(start.back(), 0);
            std::vector<std::uint32_t> fill(start.begin(), start.end() - 1);
            for (size_t i = 0; i < m_program.flows.size(); ++i) {
                for (int dependency : dependencies(i, sent)) {
                    dependants[fill[static_cast<size_t>(dependency)]++] = static_cast<std::int32_t>(i);
                }
            }
        }
    }

    /// Counts one dependency of each flow of @p dependants[begin, end) as met.
    void releaseDependants(const std::vector<std::int32_t>& dependants, std::uint32_t begin, std::uint32_t end)
    {
        for (std::uint32_t d = begin; d < end; ++d) {
            FlowState& dependant = m_flows[static_cast<size_t>(dependants[d])];
            if (--dependant.pendingDependencies == 0) {
                schedule(m_now + dependant.delay, FlowStart, dependants[d]);
            }
        }
    }

    void schedule(TimePs time, EventKind kind, std::int64_t target)
    {
        // Picoseconds reach the 64-bit limit at 106 days; 10^18 ps (11.6 days) leaves room for the sum of two.
        constexpr TimePs kMaxPacketTime = 1'000'000'000'000'000'000;
        if (time > kMaxPacketTime) {
            throwBeyondTimeCeiling(static_cast<double>(time) * 1e-12, "the packet simulation's time");
        }
        Event event;
        event.time = time;
        event.kind = kind;
        event.target = target;
        m_queue.push(event);
    }

    void dispatch(const Event& event)
    {
        switch (event.kind) {
        case FlowStart:
            startFlow(static_cast<size_t>(event.target));
            break;
        case LinkFree:
            m_ports[static_cast<size_t>(event.target)].busy = false;
            sendNext(static_cast<int>(event.target));
            break;
        case PacketArrive:
            packetArrived(static_cast<std::uint32_t>(event.target));
            break;
        case StreamArrive:
            streamDone(static_cast<size_t>(event.target));
            break;
        case StreamSent:
            streamSent(static_cast<size_t>(event.target));
            break;
        default:
            break;
        }
    }

    void startFlow(size_t flow)
    {
        const FlowState& state = m_flows[flow];
        m_flows[flow].streamsLeft = state.streamCount;
        m_flows[flow].streamsUnsent = state.streamCount + 1; // released below, once every stream is under way
        for (std::uint32_t s = state.firstStream; s < state.firstStream + state.streamCount; ++s) {
            Stream& stream = m_streams[s];
            if (stream.hopCount == 0) {
                streamSent(s);
                streamDone(s); // a GPU sending to itself
            } else if (stream.packets == 0) {
                streamSent(s);
                schedule(m_now + stream.latency, StreamArrive, s);
            } else {
                m_packets += static_cast<std::uint64_t>(stream.packets);
                m_hops[stream.firstHop].arrived = stream.packets; // the whole message is ready at the source
                enqueue(stream.firstHop);
            }
        }
        flowSentOnce(flow);
    }

    /// One of @p flow's streams (or startFlow's own hold) has sent its last packet; the last one releases the flows
    /// waiting for the flow's transmit end.
    void flowSentOnce(size_t flow)
    {
        if (--m_flows[flow].streamsUnsent == 0) {
            releaseDependants(m_sentDependants, m_sentDependantStart[flow], m_sentDependantStart[flow + 1]);
        }
    }

    void streamSent(size_t streamIndex) { flowSentOnce(static_cast<size_t>(m_streams[streamIndex].flow)); }

    double wireBytes(const Stream& stream, std::int64_t packet) const
    {
        return packet + 1 == stream.packets ? stream.lastWire : stream.fullWire;
    }

    /// Puts the head packet of @p hop's queue into its link's fair queue (if it has one and it is not there yet).
    void enqueue(std::uint32_t hopIndex)
    {
        Hop& hop = m_hops[hopIndex];
        if (hop.queued || hop.sent >= hop.arrived) {
            return;
        }
        const Stream& stream = m_streams[static_cast<size_t>(hop.stream)];
        Port& port = m_ports[static_cast<size_t>(hop.link)];
        const double tag = std::max(port.virtualTime, hop.lastTag) + wireBytes(stream, hop.sent) / stream.weight;
        // Equal tags are common (streams that became busy together); serving them in a fixed order (say, by GPU)
        // would make every port of the network pick the same streams first, so that all senders burst towards the
        // same receivers at once. Ports arbitrate round-robin from wherever their pointer happens to be, which a
        // pseudo-random order per packet and port models.
        const std::uint64_t tie
            = mix((static_cast<std::uint64_t>(hopIndex) << 24) ^ static_cast<std::uint64_t>(hop.sent));
        port.waiting.push_back({ tag, tie, hopIndex });
        std::push_heap(port.waiting.begin(), port.waiting.end(), servedLater);
        hop.queued = true;
        if (!port.busy) {
            sendNext(hop.link);
        }
    }

    /// Starts sending the waiting packet with the smallest finish tag on @p link, if the link is idle.
    void sendNext(int link)
    {
        Port& port = m_ports[static_cast<size_t>(link)];
        if (port.busy || port.waiting.empty()) {
            return;
        }
        std::pop_heap(port.waiting.begin(), port.waiting.end(), servedLater);
        const Waiting next = port.waiting.back();
        port.waiting.pop_back();
        Hop& hop = m_hops[next.hop];
        const Stream& stream = m_streams[static_cast<size_t>(hop.stream)];
        const double wire = wireBytes(stream, hop.sent);
        hop.queued = false;
        hop.lastTag = next.tag;
        ++hop.sent;
        port.virtualTime = next.tag;
        port.busy = true;
        m_linkBytes[static_cast<size_t>(link)] += wire;
        const TimePs transmit = static_cast<TimePs>(std::llround(wire * port.picosecondsPerByte));
        schedule(m_now + transmit, LinkFree, link);
        schedule(m_now + transmit + port.latency, PacketArrive, next.hop);
        if (next.hop == stream.firstHop && hop.sent == stream.packets) {
            schedule(m_now + transmit, StreamSent, hop.stream);
        }
        enqueue(next.hop); // the stream's next packet at this link, if it is already here
    }

    void packetArrived(std::uint32_t hopIndex)
    {
        const Hop& hop = m_hops[hopIndex];
        Stream& stream = m_streams[static_cast<size_t>(hop.stream)];
        if (hopIndex + 1 == stream.firstHop + stream.hopCount) {
            if (++stream.delivered == stream.packets) {
                streamDone(static_cast<size_t>(hop.stream));
            }
            return;
        }
        ++m_hops[hopIndex + 1].arrived;
        enqueue(hopIndex + 1);
    }

    void streamDone(size_t streamIndex)
    {
        const auto flow = static_cast<size_t>(m_streams[streamIndex].flow);
        FlowState& state = m_flows[flow];
        if (--state.streamsLeft > 0) {
            return;
        }
        state.finish = m_now;
        ++m_finishedFlows;
        releaseDependants(m_dependants, m_dependantStart[flow], m_dependantStart[flow + 1]);
    }

    const FlowProgram& m_program;
    std::vector<Port> m_ports;
    std::vector<Stream> m_streams;
    std::vector<Hop> m_hops;
    std::vector<FlowState> m_flows;
    std::vector<std::uint32_t> m_dependantStart; ///< CSR offsets into m_dependants, per flow
    std::vector<std::int32_t> m_dependants;
    std::vector<std::uint32_t> m_sentDependantStart; ///< the same for the flows waiting for a transmit end
    std::vector<std::int32_t> m_sentDependants;
    std::vector<double> m_linkBytes;
    QuaternaryHeapQueue m_queue;
    TimePs m_now = 0;
    std::uint64_t m_packets = 0;
    double m_packetHops = 0;
    double m_maxPacketHops = 0;
    std::size_t m_finishedFlows = 0;
};

} // namespace

PacketRun simulatePackets(const FlowProgram& program, const network::Topology& topology, const PacketOptions& options,
    const std::atomic<bool>* stop, const std::function<void(double)>& progress)
{
    PacketEngine engine(program, topology, options);
    return engine.run(stop, progress);
}

} // namespace rapid::sim
