// SPDX-License-Identifier: GPL-3.0-or-later
#include "replay.h"

#include <ns3/boolean.h>
#include <ns3/config.h>
#include <ns3/data-rate.h>
#include <ns3/inet-socket-address.h>
#include <ns3/internet-stack-helper.h>
#include <ns3/ipv4-route.h>
#include <ns3/ipv4-routing-helper.h>
#include <ns3/ipv4-routing-protocol.h>
#include <ns3/ipv4.h>
#include <ns3/node-container.h>
#include <ns3/nstime.h>
#include <ns3/output-stream-wrapper.h>
#include <ns3/point-to-point-helper.h>
#include <ns3/point-to-point-net-device.h>
#include <ns3/queue-size.h>
#include <ns3/queue.h>
#include <ns3/simulator.h>
#include <ns3/socket.h>
#include <ns3/tcp-socket-factory.h>
#include <ns3/tcp-socket-state.h>
#include <ns3/traffic-control-layer.h>
#include <ns3/type-id.h>
#include <ns3/uinteger.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <queue>
#include <stdexcept>
#include <unordered_map>

namespace flowreplay {

namespace {

using ns3::Ptr;

/// Destination-address routing over explicit tables: every connection has its own source and destination alias
/// address, so "route by destination" pins each connection to exactly one path (data towards the destination alias,
/// ACKs back towards the source alias). A hash lookup per packet instead of Ipv4StaticRouting's linear scan over
/// thousands of host routes.
class PinnedRouting : public ns3::Ipv4RoutingProtocol {
public:
    static ns3::TypeId GetTypeId()
    {
        static ns3::TypeId tid = ns3::TypeId("flowreplay::PinnedRouting")
                                     .SetParent<ns3::Ipv4RoutingProtocol>()
                                     .SetGroupName("Internet")
                                     .AddConstructor<PinnedRouting>();
        return tid;
    }

    /// Packets to @p destination leave through @p device towards @p gateway (the far end of the link).
    void addRoute(
        ns3::Ipv4Address destination, Ptr<ns3::NetDevice> device, ns3::Ipv4Address gateway, ns3::Ipv4Address source)
    {
        Ptr<ns3::Ipv4Route> route = ns3::Create<ns3::Ipv4Route>();
        route->SetDestination(destination);
        route->SetGateway(gateway);
        route->SetSource(source);
        route->SetOutputDevice(device);
        m_routes[destination.Get()] = Entry { route, false };
    }

    /// @p address belongs to this node.
    void addLocal(ns3::Ipv4Address address) { m_routes[address.Get()] = Entry { nullptr, true }; }

    Ptr<ns3::Ipv4Route> RouteOutput(
        Ptr<ns3::Packet>, const ns3::Ipv4Header& header, Ptr<ns3::NetDevice>, ns3::Socket::SocketErrno& error) override
    {
        auto it = m_routes.find(header.GetDestination().Get());
        if (it == m_routes.end() || it->second.local) {
            error = ns3::Socket::ERROR_NOROUTETOHOST;
            return nullptr;
        }
        error = ns3::Socket::ERROR_NOTERROR;
        return it->second.route;
    }

    bool RouteInput(Ptr<const ns3::Packet> packet, const ns3::Ipv4Header& header, Ptr<const ns3::NetDevice> device,
        UnicastForwardCallback forward, MulticastForwardCallback, LocalDeliverCallback deliver,
        ErrorCallback error) override
    {
        auto it = m_routes.find(header.GetDestination().Get());
        if (it == m_routes.end()) {
            if (!error.IsNull()) {
                error(packet, header, ns3::Socket::ERROR_NOROUTETOHOST);
            }
            return false;
        }
        if (it->second.local) {
            deliver(packet, header, static_cast<uint32_t>(m_ipv4->GetInterfaceForDevice(device)));
        } else {
            forward(it->second.route, packet, header);
        }
        return true;
    }

    void NotifyInterfaceUp(uint32_t) override { }
    void NotifyInterfaceDown(uint32_t) override { }
    void NotifyAddAddress(uint32_t, ns3::Ipv4InterfaceAddress) override { }
    void NotifyRemoveAddress(uint32_t, ns3::Ipv4InterfaceAddress) override { }
    void SetIpv4(Ptr<ns3::Ipv4> ipv4) override { m_ipv4 = ipv4; }

    void PrintRoutingTable(Ptr<ns3::OutputStreamWrapper> stream, ns3::Time::Unit) const override
    {
        std::ostream& out = *stream->GetStream();
        for (const auto& [destination, entry] : m_routes) {
            out << ns3::Ipv4Address(destination);
            if (entry.local) {
                out << " local\n";
            } else {
                out << " via " << entry.route->GetGateway() << "\n";
            }
        }
    }

protected:
    void DoDispose() override
    {
        m_routes.clear();
        m_ipv4 = nullptr;
        ns3::Ipv4RoutingProtocol::DoDispose();
    }

private:
    struct Entry {
        Ptr<ns3::Ipv4Route> route;
        bool local = false;
    };
    std::unordered_map<uint32_t, Entry> m_routes;
    Ptr<ns3::Ipv4> m_ipv4;
};

class PinnedRoutingHelper : public ns3::Ipv4RoutingHelper {
public:
    PinnedRoutingHelper* Copy() const override { return new PinnedRoutingHelper(*this); }
    Ptr<ns3::Ipv4RoutingProtocol> Create(Ptr<ns3::Node>) const override { return ns3::CreateObject<PinnedRouting>(); }
};

constexpr uint32_t kHeaderBytes = 40; // IPv4 + TCP without options (timestamps are off)
constexpr uint32_t kPppBytes = 2; // the point-to-point device's PPP header, serialised with every packet

/// Address plan. Each connection c has a source alias (11.0.0.0 + c) and a destination alias (12.0.0.0 + c); the
/// physical interfaces are numbered in 10.0.0.0/8, one /30 per channel.
constexpr uint32_t kInterfaceBase = 10u << 24;
constexpr uint32_t kSourceAliasBase = 11u << 24;
constexpr uint32_t kDestinationAliasBase = 12u << 24;
constexpr uint8_t kSourceAliasFirstOctet = 11;

/// The device queue. Pure ACKs go first (FIFO among themselves): data only flows from the client to the server of a
/// connection, so a packet addressed to a source alias is an ACK (or the SYN-ACK). Without that, a link direction full
/// of one flow's data delays the ACKs of the flow going the other way by the whole queue, which cuts that flow's
/// rate once its window no longer covers the inflated round trip (TCP's ACK compression, an artefact of end-to-end
/// ACKs that neither the fluid model nor credit-based GPU fabrics have). ACKs still take their time on the wire.
///
/// Data packets are served either FIFO or, by default, by self-clocked weighted fair queueing (SCFQ, Golestani 1994)
/// over connections, each weighted by its share of its flow (the path fraction): the round-robin arbitration between
/// queue pairs of a NIC and between ports of a switch, which FIFO order (one connection's whole burst before the
/// next) does not reproduce.
class ReplayQueue : public ns3::Queue<ns3::Packet> {
public:
    static ns3::TypeId GetTypeId()
    {
        // The "<Packet>" suffix: PointToPointHelper::SetQueue appends it to a type name that lacks one.
        static ns3::TypeId tid = ns3::TypeId("flowreplay::ReplayQueue<Packet>")
                                     .SetParent<ns3::Queue<ns3::Packet>>()
                                     .SetGroupName("Network")
                                     .AddConstructor<ReplayQueue>();
        return tid;
    }

    /// @p weights: per connection (indexed by connection number); nullptr = FIFO data.
    /// @p seed varies the order in which connections with equal finish tags are served from queue to queue.
    void setWeights(const std::vector<double>* weights, uint64_t seed)
    {
        m_weights = weights;
        m_seed = seed;
        m_classOf.assign(weights->size(), -1);
    }

    bool Enqueue(Ptr<ns3::Packet> packet) override
    {
        // The device has already added its 2-byte PPP header; the IPv4 destination is at bytes 16..19 of the IP header.
        uint8_t head[kPppBytes + 20];
        if (packet->CopyData(head, sizeof head) != sizeof head) {
            return false;
        }
        const uint8_t* destination = head + kPppBytes + 16;
        Iterator inserted;
        if (!DoEnqueue(GetContainer().end(), packet, inserted)) {
            return false;
        }
        if (destination[0] == kSourceAliasFirstOctet) {
            m_acks.push_back(inserted);
            return true;
        }
        if (!m_weights) {
            m_fifo.push_back(inserted);
            return true;
        }
        const uint32_t connection = (uint32_t(destination[1]) << 16) | (uint32_t(destination[2]) << 8) | destination[3];
        if (connection >= m_classOf.size()) {
            m_fifo.push_back(inserted); // not a connection of the program (cannot happen)
            return true;
        }
        int& index = m_classOf[connection];
        if (index < 0) {
            index = static_cast<int>(m_classes.size());
            const double weight = std::max((*m_weights)[connection], 1e-9);
            m_classes.push_back(Class { {}, 0, 1.0 / weight, mix(m_seed ^ connection) });
        }
        Class& queued = m_classes[static_cast<size_t>(index)];
        queued.lastTag = std::max(m_virtualTime, queued.lastTag) + packet->GetSize() * queued.inverseWeight;
        queued.packets.push_back({ inserted, queued.lastTag });
        if (queued.packets.size() == 1) {
            m_order.push({ queued.lastTag, queued.rank, index });
        }
        return true;
    }

    Ptr<ns3::Packet> Dequeue() override { return take(false); }
    Ptr<ns3::Packet> Remove() override { return take(true); }
    Ptr<const ns3::Packet> Peek() const override
    {
        if (!m_acks.empty()) {
            return *m_acks.front();
        }
        if (!m_fifo.empty()) {
            return *m_fifo.front();
        }
        return m_order.empty() ? nullptr : *m_classes[static_cast<size_t>(m_order.top().index)].packets.front().first;
    }

private:
    struct Class {
        std::deque<std::pair<ConstIterator, double>> packets; ///< with their finish tags
        double lastTag = 0;
        double inverseWeight = 1;
        uint64_t rank = 0; ///< breaks ties between equal tags
    };
    struct Head {
        double tag;
        uint64_t rank;
        int index;
        bool operator>(const Head& other) const { return tag != other.tag ? tag > other.tag : rank > other.rank; }
    };

    /// SplitMix64's finaliser: a fixed pseudo-random permutation.
    static uint64_t mix(uint64_t x)
    {
        x += 0x9e3779b97f4a7c15ULL;
        x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
        x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
        return x ^ (x >> 31);
    }

    Ptr<ns3::Packet> take(bool drop)
    {
        ConstIterator position;
        if (!m_acks.empty()) {
            position = m_acks.front();
            m_acks.pop_front();
        } else if (!m_fifo.empty()) {
            position = m_fifo.front();
            m_fifo.pop_front();
        } else {
            if (m_order.empty()) {
                return nullptr;
            }
            const int index = m_order.top().index;
            m_order.pop();
            Class& queued = m_classes[static_cast<size_t>(index)];
            position = queued.packets.front().first;
            m_virtualTime = queued.packets.front().second;
            queued.packets.pop_front();
            if (!queued.packets.empty()) {
                m_order.push({ queued.packets.front().second, queued.rank, index });
            }
        }
        return drop ? DoRemove(position) : DoDequeue(position);
    }

    const std::vector<double>* m_weights = nullptr;
    std::deque<ConstIterator> m_acks;
    std::deque<ConstIterator> m_fifo;
    std::vector<int> m_classOf; ///< per connection of the program: its index in m_classes, -1 before its first packet
    std::vector<Class> m_classes;
    uint64_t m_seed = 0;
    /// Head-of-line finish tag of every backlogged class, smallest first. Equal tags (connections that became
    /// backlogged together with equal weights) go in a pseudo-random order that differs between queues: served in
    /// connection order, every sender would address the same receiver at the same moment, a synchronised incast that
    /// neither a fluid model nor real NICs (which do not share one ordering) have.
    std::priority_queue<Head, std::vector<Head>, std::greater<>> m_order;
    double m_virtualTime = 0; ///< finish tag of the last packet served
};

constexpr uint16_t kPort = 4000;
constexpr uint32_t kMinSendBufferBytes = 1u << 20;
constexpr uint32_t kMaxSendBufferBytes = 64u << 20;
constexpr uint32_t kMaxWindowBytes = 1u << 30; // the largest window TCP window scaling can advertise
constexpr uint32_t kLossyWindowBytes = 64u << 20;

/// A physical link: the two directions of the program that join the same nodes, as one ns-3 point-to-point channel.
/// Each device transmits at its own direction's bandwidth.
struct Channel {
    int a = 0;
    int b = 0;
    double rateAB = 0; ///< bytes/s
    double rateBA = 0;
    std::int64_t latencyNs = 0;
    Ptr<ns3::PointToPointNetDevice> deviceA;
    Ptr<ns3::PointToPointNetDevice> deviceB;
    ns3::Ipv4Address addressA;
    ns3::Ipv4Address addressB;
    std::uint64_t queueA = 16; ///< packets the A->B device queue must hold so that nothing is dropped
    std::uint64_t queueB = 16;
};

/// Where a directed link of the program lives: a channel and the side it leaves from.
struct Placement {
    int channel = 0;
    bool fromA = true;
};

struct Pending {
    int sub = 0;
    std::uint64_t bytes = 0;
};

/// One TCP connection pinned to one path; carries the sub-transfers of a chain of flows that are ordered by the
/// dependency graph (so they never compete with each other).
struct Connection {
    std::vector<int> links;
    int src = 0;
    int dst = 0;
    int lastFlow = -1;
    double largestFraction = 0; ///< of the flows it carries: sets its share of a flow's window
    ns3::Ipv4Address srcAlias;
    ns3::Ipv4Address dstAlias;
    std::uint32_t windowBytes = 0;
    std::uint32_t sendBufferBytes = 0;
    std::uint32_t initialCwnd = 10; ///< segments
    double bdpBytes = 0; ///< bottleneck bandwidth x round trip of the path
    Ptr<ns3::Socket> client;
    Ptr<ns3::Socket> server;
    Ptr<ns3::Socket> listener;
    std::deque<Pending> toSend;
    std::deque<Pending> toReceive;
};

/// The part of a flow that travels one path.
struct Sub {
    int flow = 0;
    int connection = -1; ///< -1: zero bytes, no packets
    std::uint64_t bytes = 0;
    std::int64_t latencyNs = 0;
};

struct FlowState {
    int depsLeft = 0;
    int subsLeft = 0;
    double startNs = -1;
    double finishNs = -1;
    std::vector<int> subs;
    std::vector<int> dependants;
    std::vector<int> queuedBehind; ///< flows queued behind this one on its connections (released when it starts)
};

double nowNs()
{
    return ns3::Simulator::Now().ToDouble(ns3::Time::NS);
}

class Replayer {
public:
    Replayer(const FlowProgram& program, const ReplayOptions& options)
        : m_program(program)
        , m_options(options)
        , m_segment(options.mtu - kHeaderBytes)
    {
    }

    ReplayResult run()
    {
        configureTcp();
        buildChannels();
        planConnections();
        buildNetwork();
        installRoutes();
        openConnections();
        if (m_connections.empty()) {
            ns3::Simulator::ScheduleNow([this] { startProgram(); });
        }
        ns3::Simulator::Stop(ns3::Seconds(m_options.maxSimulatedSeconds));
        const auto wallStart = std::chrono::steady_clock::now();
        ns3::Simulator::Run();
        m_result.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
        m_result.events = ns3::Simulator::GetEventCount();
        ns3::Simulator::Destroy();

        m_result.connections = static_cast<int>(m_connections.size());
        for (size_t f = 0; f < m_flows.size(); ++f) {
            FlowTiming timing;
            timing.id = static_cast<int>(f);
            timing.startNs = m_flows[f].startNs < 0 ? -1 : m_flows[f].startNs - m_zeroNs;
            timing.finishNs = m_flows[f].finishNs < 0 ? -1 : m_flows[f].finishNs - m_zeroNs;
            if (timing.finishNs < 0) {
                m_result.complete = false;
            } else {
                m_result.completionNs = std::max(m_result.completionNs, timing.finishNs);
            }
            m_result.flows.push_back(timing);
        }
        return std::move(m_result);
    }

private:
    void configureTcp()
    {
        using namespace ns3;
        TypeId congestion;
        if (!TypeId::LookupByNameFailSafe(m_options.tcp, &congestion)) {
            throw std::runtime_error("unknown TCP congestion control \"" + m_options.tcp
                + "\"; expected an ns-3 type such as ns3::TcpNewReno, ns3::TcpCubic or ns3::TcpLinuxReno");
        }
        Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(congestion));
        Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(m_segment));
        Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(2));
        Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(MicroSeconds(m_options.delAckTimeoutUs)));
        Config::SetDefault("ns3::TcpSocket::TcpNoDelay", BooleanValue(true));
        Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
        Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MicroSeconds(m_options.minRtoUs)));
        Config::SetDefault("ns3::TcpSocketBase::ClockGranularity", TimeValue(MicroSeconds(1)));
    }

    /// Pairs the program's directed links into channels: the i-th a->b link with the i-th b->a link of equal latency.
    void buildChannels()
    {
        const std::vector<Link>& links = m_program.links;
        m_placement.resize(links.size());
        std::map<std::pair<int, int>, std::deque<int>> waiting; // (from, to) -> links without their reverse yet
        for (size_t i = 0; i < links.size(); ++i) {
            const Link& link = links[i];
            std::deque<int>& reverse = waiting[{ link.to, link.from }];
            auto match = std::find_if(reverse.begin(), reverse.end(),
                [&](int j) { return links[static_cast<size_t>(j)].latencyNs == link.latencyNs; });
            if (match == reverse.end() && !reverse.empty()) {
                const Link& other = links[static_cast<size_t>(reverse.front())];
                throw ParseError(m_program.fileName + ":" + std::to_string(link.line) + ": link "
                    + std::to_string(link.id) + " has latency " + std::to_string(link.latencyNs)
                    + " ns but its reverse, link " + std::to_string(other.id) + " (line " + std::to_string(other.line)
                    + "), has " + std::to_string(other.latencyNs)
                    + " ns; an ns-3 point-to-point channel has one propagation delay");
            }
            if (match == reverse.end()) {
                waiting[{ link.from, link.to }].push_back(static_cast<int>(i));
                continue;
            }
            const Link& first = links[static_cast<size_t>(*match)];
            Channel channel;
            channel.a = first.from;
            channel.b = first.to;
            channel.rateAB = first.bandwidth;
            channel.rateBA = link.bandwidth;
            channel.latencyNs = link.latencyNs;
            m_placement[static_cast<size_t>(*match)] = { static_cast<int>(m_channels.size()), true };
            m_placement[i] = { static_cast<int>(m_channels.size()), false };
            m_channels.push_back(channel);
            reverse.erase(match);
        }
        for (const auto& [ends, lonely] : waiting) {
            for (int i : lonely) {
                const Link& link = links[static_cast<size_t>(i)];
                Channel channel;
                channel.a = link.from;
                channel.b = link.to;
                channel.rateAB = link.bandwidth;
                channel.rateBA = link.bandwidth;
                channel.latencyNs = link.latencyNs;
                m_placement[static_cast<size_t>(i)] = { static_cast<int>(m_channels.size()), true };
                m_channels.push_back(channel);
                m_result.warnings.push_back("link " + std::to_string(link.id) + " (line " + std::to_string(link.line)
                    + ") has no reverse link; its ACKs travel an unlisted reverse direction of the same bandwidth");
            }
        }
        if (m_channels.size() >= (1u << 22)) {
            throw std::runtime_error("more than 4M physical links");
        }
    }

    Channel& channelOf(int link)
    {
        return m_channels[static_cast<size_t>(m_placement[static_cast<size_t>(link)].channel)];
    }
    Ptr<ns3::PointToPointNetDevice> outDevice(int link)
    {
        return m_placement[static_cast<size_t>(link)].fromA ? channelOf(link).deviceA : channelOf(link).deviceB;
    }
    Ptr<ns3::PointToPointNetDevice> inDevice(int link)
    {
        return m_placement[static_cast<size_t>(link)].fromA ? channelOf(link).deviceB : channelOf(link).deviceA;
    }
    ns3::Ipv4Address outAddress(int link)
    {
        return m_placement[static_cast<size_t>(link)].fromA ? channelOf(link).addressA : channelOf(link).addressB;
    }
    ns3::Ipv4Address inAddress(int link)
    {
        return m_placement[static_cast<size_t>(link)].fromA ? channelOf(link).addressB : channelOf(link).addressA;
    }
    double reverseRate(int link)
    {
        return m_placement[static_cast<size_t>(link)].fromA ? channelOf(link).rateBA : channelOf(link).rateAB;
    }

    /// True when flow @p g is an ancestor of flow @p f in the dependency graph (g must finish before f is ready).
    /// Gives up (false: the caller then opens another connection, which is always safe) after a bounded search.
    bool isAncestor(int g, int f)
    {
        if (g < 0 || g >= f) {
            return false;
        }
        ++m_stamp;
        std::vector<int> stack { f };
        int budget = 4096;
        while (!stack.empty() && budget-- > 0) {
            const int at = stack.back();
            stack.pop_back();
            for (int dep : m_program.flows[static_cast<size_t>(at)].deps) {
                if (dep == g) {
                    return true;
                }
                if (dep > g && m_seen[static_cast<size_t>(dep)] != m_stamp) {
                    m_seen[static_cast<size_t>(dep)] = m_stamp;
                    stack.push_back(dep);
                }
            }
        }
        return false;
    }

    /// The connection that carries part of one of the flows @p ahead along exactly @p links, or -1.
    int connectionOnPath(const std::vector<int>& ahead, const std::vector<int>& links) const
    {
        for (int before : ahead) {
            for (int s : m_flows[static_cast<size_t>(before)].subs) {
                const int c = m_subs[static_cast<size_t>(s)].connection;
                if (c >= 0 && m_connections[static_cast<size_t>(c)].links == links) {
                    return c;
                }
            }
        }
        return -1;
    }

    /// Splits every flow over its paths and gives each part a connection: a later flow reuses a connection of the
    /// same path when the connection's previous flow is one of its ancestors; otherwise it gets its own.
    void planConnections()
    {
        const size_t flowCount = m_program.flows.size();
        m_flows.resize(flowCount);
        m_seen.assign(flowCount, 0);
        std::map<std::vector<int>, std::vector<int>> byPath;
        for (size_t f = 0; f < flowCount; ++f) {
            const Flow& flow = m_program.flows[f];
            FlowState& state = m_flows[f];
            state.depsLeft = static_cast<int>(flow.deps.size() + flow.afterSent.size());
            for (int dep : flow.deps) {
                m_flows[static_cast<size_t>(dep)].dependants.push_back(static_cast<int>(f));
            }
            for (int dep : flow.afterSent) {
                m_flows[static_cast<size_t>(dep)].queuedBehind.push_back(static_cast<int>(f));
            }
            double total = 0;
            for (const Path& path : flow.paths) {
                total += path.fraction;
            }
            double cumulative = 0;
            std::uint64_t assigned = 0;
            for (size_t p = 0; p < flow.paths.size(); ++p) {
                const Path& path = flow.paths[p];
                cumulative += path.fraction;
                const std::uint64_t boundary = p + 1 == flow.paths.size()
                    ? flow.bytes
                    : std::min<std::uint64_t>(flow.bytes,
                        static_cast<std::uint64_t>(std::llround(static_cast<double>(flow.bytes) * cumulative / total)));
                Sub sub;
                sub.flow = static_cast<int>(f);
                sub.bytes = boundary > assigned ? boundary - assigned : 0;
                assigned = std::max(assigned, boundary);
                sub.latencyNs = m_program.pathLatencyNs(path);
                if (sub.bytes > 0 && !path.links.empty()) { // else no packets: done after the path's latency
                    // Queued behind a flow (version 2): its connection on this path, so the bytes follow its bytes.
                    sub.connection = connectionOnPath(flow.afterSent, path.links);
                    // The most recently used connections of the path first, and only a few: the search stays linear.
                    std::vector<int>& candidates = byPath[path.links];
                    if (sub.connection >= 0) {
                        candidates.erase(
                            std::remove(candidates.begin(), candidates.end(), sub.connection), candidates.end());
                    }
                    const size_t checks = sub.connection >= 0 ? 0 : std::min<size_t>(candidates.size(), 8);
                    for (size_t k = 0; k < checks; ++k) {
                        const int c = candidates[candidates.size() - 1 - k];
                        if (isAncestor(m_connections[static_cast<size_t>(c)].lastFlow, static_cast<int>(f))) {
                            sub.connection = c;
                            candidates.erase(candidates.end() - 1 - static_cast<std::ptrdiff_t>(k));
                            break;
                        }
                    }
                    if (sub.connection < 0) {
                        sub.connection = static_cast<int>(m_connections.size());
                        Connection connection;
                        connection.links = path.links;
                        connection.src = flow.src;
                        connection.dst = flow.dst;
                        m_connections.push_back(std::move(connection));
                    }
                    candidates.push_back(sub.connection); // now the most recently used
                    Connection& connection = m_connections[static_cast<size_t>(sub.connection)];
                    connection.lastFlow = static_cast<int>(f);
                    connection.largestFraction = std::max(connection.largestFraction, path.fraction / total);
                }
                state.subs.push_back(static_cast<int>(m_subs.size()));
                m_subs.push_back(sub);
            }
        }
        if (m_connections.size() >= (1u << 24)) {
            throw std::runtime_error("more than 16M connections");
        }
        // Receive windows. A flow gets windowBdp bandwidth-delay products of the program's longest path (bottleneck
        // bandwidth times the round trip of a full segment out and its ACK back), split over its paths by their
        // fractions: every flow has the same total window, so flows queued at a shared link share it about evenly
        // whatever their path lengths and path counts (per-connection windows would give an ECMP flow one share per
        // path). Alone on a path, a flow still has several BDPs in flight. Queues hold every window that crosses them.
        double largestBdp = 0;
        for (Connection& connection : m_connections) {
            double bottleneck = std::numeric_limits<double>::infinity();
            double rttSeconds = 0;
            for (int link : connection.links) {
                const Link& l = m_program.links[static_cast<size_t>(link)];
                bottleneck = std::min(bottleneck, l.bandwidth);
                rttSeconds += 2e-9 * static_cast<double>(l.latencyNs) + (m_options.mtu + kPppBytes) / l.bandwidth
                    + (kHeaderBytes + kPppBytes) / reverseRate(link);
            }
            connection.bdpBytes = bottleneck * rttSeconds;
            largestBdp = std::max(largestBdp, connection.bdpBytes);
        }
        m_flowWindowBytes = std::max(m_options.windowBdp * largestBdp, 8.0 * m_segment);
        for (size_t c = 0; c < m_connections.size(); ++c) {
            Connection& connection = m_connections[c];
            connection.srcAlias = ns3::Ipv4Address(kSourceAliasBase + static_cast<uint32_t>(c));
            connection.dstAlias = ns3::Ipv4Address(kDestinationAliasBase + static_cast<uint32_t>(c));
            const double segments
                = std::max(std::ceil(connection.largestFraction * m_flowWindowBytes / m_segment), 2.0);
            connection.windowBytes = static_cast<uint32_t>(std::min(segments * m_segment, double(kMaxWindowBytes)));
            if (m_options.queuePackets > 0) {
                // Lossy queues: the congestion window is to limit the flow, not the receive window. (ns-3 3.37 also
                // crashes, sending an empty segment, when the receive window is full during SACK recovery.)
                connection.windowBytes = kLossyWindowBytes;
            }
            connection.sendBufferBytes
                = std::clamp(4 * connection.windowBytes, kMinSendBufferBytes, kMaxSendBufferBytes);
            // Initial window: the given number of segments, or with 0 the flow's share of one bandwidth-delay product
            // of the path (line rate from the first round trip, as RDMA transfers start).
            connection.initialCwnd = m_options.initialCwnd > 0
                ? m_options.initialCwnd
                : static_cast<uint32_t>(
                    std::max(2.0, std::ceil(connection.largestFraction * connection.bdpBytes / m_segment)));
            connection.initialCwnd = std::min(connection.initialCwnd, connection.windowBytes / m_segment);
            const std::uint64_t inFlight = connection.windowBytes / m_segment + 4;
            for (int link : connection.links) {
                Channel& channel = channelOf(link);
                const bool fromA = m_placement[static_cast<size_t>(link)].fromA;
                (fromA ? channel.queueA : channel.queueB) += inFlight; // data
                (fromA ? channel.queueB : channel.queueA) += inFlight; // ACKs
            }
        }
    }

    void buildNetwork()
    {
        using namespace ns3;
        m_nodes.Create(static_cast<uint32_t>(m_program.nodeCount));
        InternetStackHelper internet;
        internet.SetIpv6StackInstall(false);
        internet.SetRoutingHelper(PinnedRoutingHelper());
        internet.Install(m_nodes);

        PointToPointHelper pointToPoint;
        pointToPoint.SetDeviceAttribute("Mtu", UintegerValue(m_options.mtu));
        if (m_options.queue != QueueDiscipline::DropTail) {
            ReplayQueue::GetTypeId(); // registers the type name with ns-3
            pointToPoint.SetQueue("flowreplay::ReplayQueue<Packet>");
        }
        m_weights.resize(m_connections.size());
        for (size_t c = 0; c < m_connections.size(); ++c) {
            m_weights[c] = m_connections[c].largestFraction;
        }
        auto dropped = [this](Ptr<const Packet>) { ++m_result.drops; };
        for (size_t i = 0; i < m_channels.size(); ++i) {
            Channel& channel = m_channels[i];
            pointToPoint.SetChannelAttribute("Delay", TimeValue(NanoSeconds(channel.latencyNs)));
            NetDeviceContainer devices = pointToPoint.Install(
                m_nodes.Get(static_cast<uint32_t>(channel.a)), m_nodes.Get(static_cast<uint32_t>(channel.b)));
            channel.deviceA = DynamicCast<PointToPointNetDevice>(devices.Get(0));
            channel.deviceB = DynamicCast<PointToPointNetDevice>(devices.Get(1));
            channel.deviceA->SetDataRate(DataRate(static_cast<uint64_t>(std::llround(channel.rateAB * 8))));
            channel.deviceB->SetDataRate(DataRate(static_cast<uint64_t>(std::llround(channel.rateBA * 8))));
            const uint64_t limit = std::numeric_limits<uint32_t>::max();
            const uint32_t queueA = static_cast<uint32_t>(
                m_options.queuePackets > 0 ? m_options.queuePackets : std::min(channel.queueA, limit));
            const uint32_t queueB = static_cast<uint32_t>(
                m_options.queuePackets > 0 ? m_options.queuePackets : std::min(channel.queueB, limit));
            channel.deviceA->GetQueue()->SetMaxSize(QueueSize(QueueSizeUnit::PACKETS, queueA));
            channel.deviceB->GetQueue()->SetMaxSize(QueueSize(QueueSizeUnit::PACKETS, queueB));
            if (m_options.queue == QueueDiscipline::Fair) {
                DynamicCast<ReplayQueue>(channel.deviceA->GetQueue())->setWeights(&m_weights, 2 * i);
                DynamicCast<ReplayQueue>(channel.deviceB->GetQueue())->setWeights(&m_weights, 2 * i + 1);
            }
            for (const Ptr<PointToPointNetDevice>& device : { channel.deviceA, channel.deviceB }) {
                device->GetQueue()->TraceConnectWithoutContext("Drop", Callback<void, Ptr<const Packet>>(dropped));
                device->TraceConnectWithoutContext("PhyRxDrop", Callback<void, Ptr<const Packet>>(dropped));
            }
            // One /30 per channel in 10.0.0.0/8; no queue disc (Ipv4AddressHelper would install FqCoDel).
            channel.addressA = Ipv4Address(kInterfaceBase + 4 * static_cast<uint32_t>(i) + 1);
            channel.addressB = Ipv4Address(kInterfaceBase + 4 * static_cast<uint32_t>(i) + 2);
            addInterface(channel.deviceA, channel.addressA);
            addInterface(channel.deviceB, channel.addressB);
        }
        for (uint32_t n = 0; n < m_nodes.GetN(); ++n) {
            Ptr<TrafficControlLayer> trafficControl = m_nodes.Get(n)->GetObject<TrafficControlLayer>();
            if (trafficControl) {
                // Packets refused while the device queue is stopped (full).
                trafficControl->TraceConnectWithoutContext("TcDrop", Callback<void, Ptr<const Packet>>(dropped));
            }
        }
    }

    static void addInterface(Ptr<ns3::NetDevice> device, ns3::Ipv4Address address)
    {
        Ptr<ns3::Ipv4> ipv4 = device->GetNode()->GetObject<ns3::Ipv4>();
        const uint32_t index = ipv4->AddInterface(device);
        ipv4->AddAddress(index, ns3::Ipv4InterfaceAddress(address, ns3::Ipv4Mask("255.255.255.252")));
        ipv4->SetMetric(index, 1);
        ipv4->SetUp(index);
    }

    Ptr<PinnedRouting> routing(int node)
    {
        Ptr<ns3::Ipv4> ipv4 = m_nodes.Get(static_cast<uint32_t>(node))->GetObject<ns3::Ipv4>();
        return ns3::DynamicCast<PinnedRouting>(ipv4->GetRoutingProtocol());
    }

    void installRoutes()
    {
        for (const Connection& connection : m_connections) {
            for (int link : connection.links) {
                const Link& l = m_program.links[static_cast<size_t>(link)];
                // The source of a route is what TCP binds the connection to (SetupEndpoint takes it), so the ends
                // of the connection use its aliases; for forwarding nodes it does not matter.
                routing(l.from)->addRoute(connection.dstAlias, outDevice(link), inAddress(link), connection.srcAlias);
                routing(l.to)->addRoute(connection.srcAlias, inDevice(link), outAddress(link), connection.dstAlias);
            }
            routing(connection.src)->addLocal(connection.srcAlias);
            routing(connection.dst)->addLocal(connection.dstAlias);
        }
    }

    /// Every connection is opened at simulated time 0; the program's clock starts once the last handshake is done.
    void openConnections()
    {
        using namespace ns3;
        using CongState = TcpSocketState::TcpCongState_t;
        auto congestionState = [this](CongState, CongState now) {
            if (now == TcpSocketState::CA_RECOVERY) {
                ++m_result.fastRetransmits;
            } else if (now == TcpSocketState::CA_LOSS) {
                ++m_result.timeouts;
            }
        };
        for (size_t c = 0; c < m_connections.size(); ++c) {
            Connection& connection = m_connections[c];
            Ptr<Node> srcNode = m_nodes.Get(static_cast<uint32_t>(connection.src));
            Ptr<Node> dstNode = m_nodes.Get(static_cast<uint32_t>(connection.dst));

            connection.listener = Socket::CreateSocket(dstNode, TcpSocketFactory::GetTypeId());
            connection.listener->SetAttribute("RcvBufSize", UintegerValue(connection.windowBytes));
            connection.listener->SetAttribute("SndBufSize", UintegerValue(1u << 20));
            if (connection.listener->Bind(InetSocketAddress(connection.dstAlias, kPort)) != 0) {
                throw std::runtime_error("ns-3 refused to bind a listening socket");
            }
            connection.listener->Listen();
            connection.listener->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                Callback<void, Ptr<Socket>, const Address&>(
                    [this, c](Ptr<Socket> socket, const Address&) { accepted(c, socket); }));

            connection.client = Socket::CreateSocket(srcNode, TcpSocketFactory::GetTypeId());
            connection.client->SetAttribute("SndBufSize", UintegerValue(connection.sendBufferBytes));
            connection.client->SetAttribute("RcvBufSize", UintegerValue(connection.windowBytes));
            connection.client->SetAttribute("InitialCwnd", UintegerValue(connection.initialCwnd));
            if (connection.client->Bind(InetSocketAddress(connection.srcAlias, 0)) != 0) {
                throw std::runtime_error("ns-3 refused to bind a client socket");
            }
            connection.client->TraceConnectWithoutContext(
                "CongState", Callback<void, CongState, CongState>(congestionState));
            connection.client->SetConnectCallback(Callback<void, Ptr<Socket>>([this](Ptr<Socket>) { established(); }),
                Callback<void, Ptr<Socket>>([this, c](Ptr<Socket>) {
                    m_result.warnings.push_back("connection " + std::to_string(c) + " could not be opened");
                    Simulator::Stop();
                }));
            connection.client->SetSendCallback(
                Callback<void, Ptr<Socket>, uint32_t>([this, c](Ptr<Socket>, uint32_t) { pump(c); }));
            connection.client->Connect(InetSocketAddress(connection.dstAlias, kPort));
        }
    }

    void accepted(size_t c, Ptr<ns3::Socket> socket)
    {
        Connection& connection = m_connections[c];
        connection.server = socket;
        socket->SetRecvCallback(
            ns3::Callback<void, Ptr<ns3::Socket>>([this, c](Ptr<ns3::Socket> s) { receive(c, s); }));
        Ptr<ns3::Socket> listener = connection.listener;
        connection.listener = nullptr;
        ns3::Simulator::ScheduleNow([listener] { listener->Close(); }); // frees its endpoint: fewer demux lookups
        established();
    }

    /// Called once per client (SYN-ACK received) and once per server (final ACK received).
    void established()
    {
        if (++m_establishedEnds == 2 * m_connections.size()) {
            ns3::Simulator::ScheduleNow([this] { startProgram(); });
        }
    }

    void startProgram()
    {
        m_zeroNs = nowNs();
        m_result.setupNs = m_zeroNs;
        if (m_flows.empty()) {
            ns3::Simulator::Stop();
        }
        for (size_t f = 0; f < m_flows.size(); ++f) {
            if (m_flows[f].depsLeft == 0) {
                ready(static_cast<int>(f));
            }
        }
    }

    void ready(int f)
    {
        const std::int64_t delay = m_program.flows[static_cast<size_t>(f)].delayNs;
        if (delay == 0) {
            start(f);
        } else {
            ns3::Simulator::Schedule(ns3::NanoSeconds(delay), [this, f] { start(f); });
        }
    }

    void start(int f)
    {
        FlowState& state = m_flows[static_cast<size_t>(f)];
        state.startNs = nowNs();
        state.subsLeft = static_cast<int>(state.subs.size());
        if (state.subs.empty()) {
            releaseQueued(f);
            finish(f);
            return;
        }
        for (int s : state.subs) {
            const Sub& sub = m_subs[static_cast<size_t>(s)];
            if (sub.connection < 0) {
                ns3::Simulator::Schedule(ns3::NanoSeconds(sub.latencyNs), [this, s] { subDone(s); });
                continue;
            }
            Connection& connection = m_connections[static_cast<size_t>(sub.connection)];
            connection.toSend.push_back({ s, sub.bytes });
            connection.toReceive.push_back({ s, sub.bytes });
            pump(static_cast<size_t>(sub.connection));
        }
        releaseQueued(f);
    }

    /// Flow @p f's bytes are on their connections: the flows queued behind it may follow (TCP sends them in order).
    void releaseQueued(int f)
    {
        for (int d : m_flows[static_cast<size_t>(f)].queuedBehind) {
            if (--m_flows[static_cast<size_t>(d)].depsLeft == 0) {
                ready(d);
            }
        }
    }

    /// Moves queued bytes into the socket's send buffer, one segment per packet: ns-3's TcpTxBuffer materialises
    /// (allocates and copies) the zero-filled payload whenever a segment spans two written packets, which for large
    /// writes costs far more than the rest of the simulation. Refills only when half the buffer is free.
    void pump(size_t c)
    {
        Connection& connection = m_connections[c];
        uint32_t room = connection.client->GetTxAvailable();
        if (room < connection.sendBufferBytes / 2
            && (connection.toSend.empty() || room < connection.toSend.front().bytes)) {
            return; // the send callback comes back when ACKs free more room
        }
        while (!connection.toSend.empty() && room > 0) {
            Pending& head = connection.toSend.front();
            const uint32_t bytes = static_cast<uint32_t>(std::min<std::uint64_t>({ room, head.bytes, m_segment }));
            if (connection.client->Send(ns3::Create<ns3::Packet>(bytes)) < 0) {
                return;
            }
            room -= bytes;
            head.bytes -= bytes;
            if (head.bytes == 0) {
                connection.toSend.pop_front();
            }
        }
    }

    /// In-order bytes of a connection belong to its sub-transfers in the order they were queued.
    void receive(size_t c, Ptr<ns3::Socket> socket)
    {
        Connection& connection = m_connections[c];
        while (Ptr<ns3::Packet> packet = socket->Recv(std::numeric_limits<uint32_t>::max(), 0)) {
            std::uint64_t bytes = packet->GetSize();
            if (bytes == 0) {
                break;
            }
            while (bytes > 0) {
                if (connection.toReceive.empty()) {
                    throw std::logic_error("connection " + std::to_string(c) + " received bytes nobody sent");
                }
                Pending& head = connection.toReceive.front();
                const std::uint64_t take = std::min(bytes, head.bytes);
                head.bytes -= take;
                bytes -= take;
                if (head.bytes == 0) {
                    const int s = head.sub;
                    connection.toReceive.pop_front();
                    subDone(s);
                }
            }
        }
    }

    void subDone(int s)
    {
        const int f = m_subs[static_cast<size_t>(s)].flow;
        if (--m_flows[static_cast<size_t>(f)].subsLeft == 0) {
            finish(f);
        }
    }

    void finish(int f)
    {
        FlowState& state = m_flows[static_cast<size_t>(f)];
        state.finishNs = nowNs();
        for (int d : state.dependants) {
            if (--m_flows[static_cast<size_t>(d)].depsLeft == 0) {
                ready(d);
            }
        }
        if (++m_finished == m_flows.size()) {
            ns3::Simulator::Stop();
        }
    }

    const FlowProgram& m_program;
    ReplayOptions m_options;
    uint32_t m_segment;
    ReplayResult m_result;
    std::vector<Channel> m_channels;
    std::vector<Placement> m_placement; ///< per program link (index)
    std::vector<Connection> m_connections;
    std::vector<Sub> m_subs;
    std::vector<FlowState> m_flows;
    std::vector<int> m_seen;
    int m_stamp = 0;
    ns3::NodeContainer m_nodes;
    size_t m_establishedEnds = 0;
    size_t m_finished = 0;
    double m_zeroNs = 0;
    double m_flowWindowBytes = 0;
    std::vector<double> m_weights; ///< per connection, for the fair queues
};

} // namespace

ReplayResult replay(const FlowProgram& program, const ReplayOptions& options)
{
    if (options.mtu < 576 || options.mtu > 65535) {
        throw std::runtime_error("--mtu " + std::to_string(options.mtu) + ": expected 576..65535");
    }
    // Picosecond clock: a 9000-byte packet on a 450 GB/s link takes 20.004 ns, and ns-3's default nanosecond
    // resolution would round every serialisation time.
    ns3::Time::SetResolution(ns3::Time::PS);
    Replayer replayer(program, options);
    return replayer.run();
}

} // namespace flowreplay
