// SPDX-License-Identifier: GPL-3.0-or-later
#include "tracereplay.h"

#include "config/diagnostic.h"

#include "sim/congestionnetwork.h"
#include "sim/flowprogram.h"
#include "sim/flowsimulator.h"
#include "sim/intervals.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <set>
#include <sstream>
#include <tuple>
#include <unordered_map>

namespace rapid::sim {

namespace {

using graph::ChakraCollective;
using graph::ChakraNode;
using graph::ChakraNodeType;
using network::CollectiveKind;

/// A collective instance (the members' nodes of one issue) or a matched send/recv pair.
struct Instance {
    network::CollectiveRequest request;
    std::vector<int> members; ///< global node indices
    int ready = 0;
    int expected = 0; ///< members the instance needs (a message: its send)
    std::string label; ///< for deadlock reports
    // Messages are eager, as in ASTRA-sim: the flow starts when the send is issued; the receive finishes when both
    // it is issued and the message has arrived.
    int sendNode = -1;
    int recvNode = -1;
    bool arrived = false;
    bool recvIssued = false;
};

/// How a Chakra collective runs on our backends; approximations are reported in the notes.
CollectiveKind collectiveKind(ChakraCollective type, std::set<std::string>& notes)
{
    switch (type) {
    case ChakraCollective::AllReduce:
        return CollectiveKind::AllReduce;
    case ChakraCollective::AllGather:
        return CollectiveKind::AllGather;
    case ChakraCollective::ReduceScatter:
    case ChakraCollective::ReduceScatterBlock:
        return CollectiveKind::ReduceScatter;
    case ChakraCollective::AllToAll:
        return CollectiveKind::AllToAll;
    case ChakraCollective::Broadcast:
        return CollectiveKind::Broadcast;
    case ChakraCollective::Reduce:
        notes.insert("REDUCE replayed as a reduce-scatter (the same bytes leave every rank once)");
        return CollectiveKind::ReduceScatter;
    case ChakraCollective::Gather:
        notes.insert("GATHER replayed as an all-gather (an upper bound)");
        return CollectiveKind::AllGather;
    case ChakraCollective::Scatter:
        notes.insert("SCATTER replayed as a broadcast (an upper bound)");
        return CollectiveKind::Broadcast;
    case ChakraCollective::Barrier:
        return CollectiveKind::AllReduce; // with zero bytes: the launch and the synchronisation only
    }
    notes.insert("unknown comm_type values replayed as all-reduces");
    return CollectiveKind::AllReduce;
}

} // namespace

namespace {

/// One replay of a trace set: global node indices, dependencies, matched collectives and messages, then the event
/// loop on the flow simulator (compute nodes are zero-byte flows that take their duration; collectives are flows).
class TraceReplayer {
public:
    TraceReplayer(const std::vector<graph::ChakraTrace>& traces, const graph::ChakraCommGroups& groups,
        const config::HardwareSpec& hardware, NetworkBackend backend, network::CollectiveLibrary library)
        : m_traces(traces)
        , m_groups(groups)
        , m_hardware(hardware)
        , m_backend(backend)
        , m_library(library)
        , m_network(hardware)
        , m_simulator(m_network.routes())
    {
    }

    ReplayResult run(const std::atomic<bool>* stop)
    {
        indexNodes();
        buildDependencies();
        matchCommunication();
        simulate(stop);
        reportStuck();
        summarise();
        m_result.notes.assign(m_notes.begin(), m_notes.end());
        return m_result;
    }

private:
    void indexNodes();
    void buildDependencies();
    void matchCommunication();
    void addCollective(int trace, int g, const std::vector<int>& allRanks);
    void addMessage(int trace, int g);
    void simulate(const std::atomic<bool>* stop);
    TimeNs computeNs(const ChakraNode& node);
    void finish(int g);
    void startCompute(int trace);
    void launchInstance(int id);
    void drain();
    void flowFinished(int tag);
    void reportStuck() const;
    void summarise();
    std::string describe(int g) const
    {
        const ChakraNode& node = *m_nodeOf[static_cast<size_t>(g)];
        return "rank " + std::to_string(m_traces[static_cast<size_t>(m_rankOf[static_cast<size_t>(g)])].rank) + " node "
            + std::to_string(node.id) + (node.name.empty() ? std::string() : " (" + node.name + ")");
    }

    const std::vector<graph::ChakraTrace>& m_traces;
    const graph::ChakraCommGroups& m_groups;
    const config::HardwareSpec& m_hardware;
    NetworkBackend m_backend;
    network::CollectiveLibrary m_library;
    CongestionNetwork m_network;
    FlowSimulator m_simulator;
    ReplayResult m_result;
    std::set<std::string> m_notes;
    // Global node indices: trace t's nodes are m_offset[t] .. m_offset[t + 1] - 1.
    std::vector<int> m_offset;
    std::map<int, int> m_traceOfRank;
    std::vector<int> m_rankOf; ///< the trace of a global node
    std::vector<const ChakraNode*> m_nodeOf;
    // Dependencies (data and control parents alike): unfinished parents, and dependants.
    std::vector<int> m_pending;
    std::vector<std::vector<int>> m_dependants;
    // Collectives (per group, by issue order) and point-to-point messages (peers, tag, size, order).
    std::vector<Instance> m_instances;
    std::vector<int> m_instanceOf;
    std::map<std::pair<std::string, int>, int> m_collectiveIssues; ///< (group, rank) -> issued so far
    std::map<std::pair<std::string, int>, int> m_collectiveInstance; ///< (group, issue index) -> instance
    std::map<std::tuple<int, int, std::int64_t, std::int64_t>, std::pair<int, int>> m_messageIssues;
    std::map<std::tuple<int, int, std::int64_t, std::int64_t, int>, int> m_messageInstance;
    // The event loop's state.
    std::vector<ReplayNodeTime> m_times;
    std::vector<TimeNs> m_computeStart;
    std::vector<char> m_done;
    std::vector<std::deque<int>> m_computeQueue;
    std::vector<char> m_computeBusy;
    std::vector<int> m_work;
};

void TraceReplayer::indexNodes()
{
    const int gpus = m_network.topology().gpuCount();
    m_offset.assign(m_traces.size() + 1, 0);
    for (size_t t = 0; t < m_traces.size(); ++t) {
        m_offset[t + 1] = m_offset[t] + static_cast<int>(m_traces[t].nodes.size());
        if (m_traces[t].rank < 0 || m_traces[t].rank >= gpus) {
            throw std::invalid_argument("trace " + m_traces[t].path + " is rank " + std::to_string(m_traces[t].rank)
                + " but the network has GPUs 0.." + std::to_string(gpus - 1));
        }
        if (!m_traceOfRank.emplace(m_traces[t].rank, static_cast<int>(t)).second) {
            throw std::invalid_argument("two traces are rank " + std::to_string(m_traces[t].rank));
        }
    }
    const auto total = static_cast<size_t>(m_offset.back());
    m_rankOf.resize(total);
    m_nodeOf.resize(total);
    for (size_t t = 0; t < m_traces.size(); ++t) {
        for (size_t i = 0; i < m_traces[t].nodes.size(); ++i) {
            m_rankOf[static_cast<size_t>(m_offset[t]) + i] = static_cast<int>(t);
            m_nodeOf[static_cast<size_t>(m_offset[t]) + i] = &m_traces[t].nodes[i];
        }
    }
}

void TraceReplayer::buildDependencies()
{
    const auto total = static_cast<size_t>(m_offset.back());
    m_pending.assign(total, 0);
    m_dependants.assign(total, {});
    for (size_t t = 0; t < m_traces.size(); ++t) {
        std::unordered_map<std::uint64_t, int> byId;
        for (size_t i = 0; i < m_traces[t].nodes.size(); ++i) {
            byId.emplace(m_traces[t].nodes[i].id, m_offset[t] + static_cast<int>(i));
        }
        for (size_t i = 0; i < m_traces[t].nodes.size(); ++i) {
            const ChakraNode& node = m_traces[t].nodes[i];
            const int g = m_offset[t] + static_cast<int>(i);
            std::set<int> parents;
            for (const auto* list : { &node.dataDeps, &node.ctrlDeps }) {
                for (std::uint64_t parent : *list) {
                    auto found = byId.find(parent);
                    if (found == byId.end()) {
                        m_notes.insert("dependencies on nodes missing from their file are ignored");
                        continue;
                    }
                    parents.insert(found->second);
                }
            }
            for (int parent : parents) {
                m_dependants[static_cast<size_t>(parent)].push_back(g);
                ++m_pending[static_cast<size_t>(g)];
            }
        }
    }
}

void TraceReplayer::matchCommunication()
{
    m_instanceOf.assign(static_cast<size_t>(m_offset.back()), -1);
    std::vector<int> allRanks;
    for (const auto& [rank, trace] : m_traceOfRank) {
        allRanks.push_back(rank);
    }
    for (size_t t = 0; t < m_traces.size(); ++t) {
        for (size_t i = 0; i < m_traces[t].nodes.size(); ++i) {
            const ChakraNode& node = m_traces[t].nodes[i];
            const int g = m_offset[t] + static_cast<int>(i);
            if (node.type == ChakraNodeType::Collective) {
                addCollective(static_cast<int>(t), g, allRanks);
            } else if (node.type == ChakraNodeType::Send || node.type == ChakraNodeType::Recv) {
                addMessage(static_cast<int>(t), g);
            }
        }
    }
    for (const Instance& instance : m_instances) {
        for (int gpu : instance.request.gpus) {
            if (!m_traceOfRank.count(gpu)) {
                throw std::invalid_argument(
                    instance.label + " names rank " + std::to_string(gpu) + ", which has no trace");
            }
        }
        if (instance.request.kind == CollectiveKind::SendRecv) {
            m_result.pointToPoint += instance.sendNode >= 0 && instance.recvNode >= 0 ? 1 : 0;
        } else {
            ++m_result.collectives;
        }
    }
}

void TraceReplayer::addCollective(int trace, int g, const std::vector<int>& allRanks)
{
    const int rank = m_traces[static_cast<size_t>(trace)].rank;
    const ChakraNode& node = *m_nodeOf[static_cast<size_t>(g)];
    std::string group;
    std::vector<int> members = allRanks;
    if (const graph::ChakraAttribute* pg = node.attribute("pg_name")) {
        const std::string name = pg->string().value_or(pg->valueText());
        auto found = m_groups.find(name);
        if (found != m_groups.end()) {
            group = name;
            members = found->second;
        } else if (name != "0") {
            m_notes.insert("collectives of groups missing from the comm-group file run over all ranks");
        }
    }
    if (std::find(members.begin(), members.end(), rank) == members.end()) {
        throw std::invalid_argument(describe(g) + " issues a collective of group \"" + group
            + "\", which does not contain rank " + std::to_string(rank));
    }
    const int issue = m_collectiveIssues[{ group, rank }]++;
    auto [it, added] = m_collectiveInstance.emplace(std::make_pair(group, issue), -1);
    if (added) {
        Instance instance;
        const auto type = static_cast<ChakraCollective>(node.integerAttribute("comm_type").value_or(0));
        instance.request.kind = collectiveKind(type, m_notes);
        double bytes = static_cast<double>(std::max<std::int64_t>(0, node.integerAttribute("comm_size").value_or(0)));
        if (type == ChakraCollective::AllGather) {
            bytes *= static_cast<double>(members.size()); // ASTRA-sim: the per-rank shard
        }
        if (type == ChakraCollective::Barrier) {
            bytes = 0;
        }
        instance.request.bytes = bytes;
        instance.request.gpus = members;
        instance.request.library = m_library;
        instance.expected = static_cast<int>(members.size());
        instance.label = std::string(graph::toString(type)) + " #" + std::to_string(issue)
            + (group.empty() ? std::string(" over all ranks") : " of group " + group);
        it->second = static_cast<int>(m_instances.size());
        m_instances.push_back(std::move(instance));
    }
    m_instances[static_cast<size_t>(it->second)].members.push_back(g);
    m_instanceOf[static_cast<size_t>(g)] = it->second;
}

void TraceReplayer::addMessage(int trace, int g)
{
    const int rank = m_traces[static_cast<size_t>(trace)].rank;
    const ChakraNode& node = *m_nodeOf[static_cast<size_t>(g)];
    const bool send = node.type == ChakraNodeType::Send;
    const int peer = static_cast<int>(node.integerAttribute(send ? "comm_dst" : "comm_src").value_or(rank));
    const std::int64_t tag = node.integerAttribute("comm_tag").value_or(0);
    const std::int64_t size = node.integerAttribute("comm_size").value_or(0);
    const int from = send ? rank : peer;
    const int to = send ? peer : rank;
    auto& counts = m_messageIssues[{ from, to, tag, size }];
    const int issue = send ? counts.first++ : counts.second++;
    auto [it, added] = m_messageInstance.emplace(std::make_tuple(from, to, tag, size, issue), -1);
    if (added) {
        Instance instance;
        instance.request.kind = CollectiveKind::SendRecv;
        instance.request.bytes = static_cast<double>(std::max<std::int64_t>(0, size));
        instance.request.gpus = { from, to };
        instance.expected = 1;
        instance.label = "message " + std::to_string(from) + " -> " + std::to_string(to) + " tag " + std::to_string(tag)
            + " of " + std::to_string(size) + " bytes";
        it->second = static_cast<int>(m_instances.size());
        m_instances.push_back(std::move(instance));
    }
    Instance& instance = m_instances[static_cast<size_t>(it->second)];
    instance.members.push_back(g);
    (send ? instance.sendNode : instance.recvNode) = g;
    m_instanceOf[static_cast<size_t>(g)] = it->second;
}

TimeNs TraceReplayer::computeNs(const ChakraNode& node)
{
    if (node.durationMicros > 0) {
        if (node.durationMicros > static_cast<std::uint64_t>(kMaxSimulatedTime / 1000)) {
            throw config::InputLimitError("node " + std::to_string(node.id) + " (\"" + node.name
                + "\"): duration_micros " + std::to_string(node.durationMicros)
                + " is beyond the simulated-time ceiling of 10^17 ns (10^14 us, 3.2 years)");
        }
        return static_cast<TimeNs>(node.durationMicros) * 1000;
    }
    const double flops = static_cast<double>(node.integerAttribute("num_ops").value_or(0));
    const double bytes = static_cast<double>(node.integerAttribute("tensor_size").value_or(0));
    if (flops <= 0 && bytes <= 0) {
        return 0;
    }
    m_notes.insert("compute nodes without a duration take the roofline of num_ops and tensor_size on the GPU");
    const double peak = m_hardware.gpu.tensorPeak(config::Precision::Bf16) * m_hardware.gpu.effectiveClockScale();
    const double bandwidth = m_hardware.gpu.hbmBandwidth * m_hardware.gpu.hbmBandwidthScale;
    return toNanoseconds(std::max(peak > 0 ? flops / peak : 0.0, bandwidth > 0 ? bytes / bandwidth : 0.0));
}

void TraceReplayer::finish(int g)
{
    m_done[static_cast<size_t>(g)] = 1;
    m_times[static_cast<size_t>(g)].finish = toSeconds(m_simulator.now());
    for (int dependant : m_dependants[static_cast<size_t>(g)]) {
        if (--m_pending[static_cast<size_t>(dependant)] == 0) {
            m_work.push_back(dependant);
        }
    }
}

void TraceReplayer::startCompute(int trace)
{
    const auto t = static_cast<size_t>(trace);
    if (m_computeBusy[t] || m_computeQueue[t].empty()) {
        return;
    }
    const int g = m_computeQueue[t].front();
    m_computeQueue[t].pop_front();
    m_computeBusy[t] = 1;
    m_computeStart[static_cast<size_t>(g)] = m_simulator.now();
    const int gpu = m_traces[t].rank;
    m_simulator.add({ m_network.routes().route(gpu, gpu), 0, computeNs(*m_nodeOf[static_cast<size_t>(g)]), g });
}

void TraceReplayer::launchInstance(int id)
{
    const Instance& instance = m_instances[static_cast<size_t>(id)];
    RouteCache& routes = m_network.routes();
    const int gpu = instance.request.gpus.front();
    const int tag = -2 - id;
    if (instance.request.bytes <= 0 && instance.request.kind == CollectiveKind::SendRecv) {
        m_simulator.add({ routes.route(gpu, gpu), 0, 0, tag });
        return;
    }
    if (m_backend == NetworkBackend::Analytical || instance.request.gpus.size() < 2) {
        const double seconds = m_network.analytical().time(instance.request).seconds;
        m_simulator.add({ routes.route(gpu, gpu), 0, toNanoseconds(seconds), tag });
        return;
    }
    FlowProgram program;
    const std::vector<int> last = m_network.appendFlows(program, instance.request, -1);
    FlowProgram::Flow barrier;
    barrier.src = barrier.dst = gpu;
    barrier.route = routes.route(gpu, gpu);
    barrier.tag = tag;
    program.add(barrier, last);
    m_result.flows += program.size();
    addProgram(m_simulator, program);
}

void TraceReplayer::drain()
{
    while (!m_work.empty()) {
        const int g = m_work.back();
        m_work.pop_back();
        m_times[static_cast<size_t>(g)].start = toSeconds(m_simulator.now());
        const ChakraNode& node = *m_nodeOf[static_cast<size_t>(g)];
        const int trace = m_rankOf[static_cast<size_t>(g)];
        switch (node.type) {
        case ChakraNodeType::Compute:
        case ChakraNodeType::MemLoad:
        case ChakraNodeType::MemStore:
            m_computeQueue[static_cast<size_t>(trace)].push_back(g);
            startCompute(trace);
            break;
        case ChakraNodeType::Recv: {
            Instance& instance = m_instances[static_cast<size_t>(m_instanceOf[static_cast<size_t>(g)])];
            instance.recvIssued = true;
            if (instance.arrived) {
                finish(g);
            }
            break;
        }
        case ChakraNodeType::Collective:
        case ChakraNodeType::Send: {
            const int id = m_instanceOf[static_cast<size_t>(g)];
            Instance& instance = m_instances[static_cast<size_t>(id)];
            if (++instance.ready == instance.expected) {
                launchInstance(id);
            }
            break;
        }
        default:
            finish(g); // metadata and invalid nodes take no time
            break;
        }
    }
}

void TraceReplayer::flowFinished(int tag)
{
    if (tag >= 0) {
        const int trace = m_rankOf[static_cast<size_t>(tag)];
        m_computeBusy[static_cast<size_t>(trace)] = 0;
        finish(tag);
        startCompute(trace);
    } else if (tag <= -2) {
        Instance& instance = m_instances[static_cast<size_t>(-2 - tag)];
        if (instance.request.kind == CollectiveKind::SendRecv) {
            instance.arrived = true;
            finish(instance.sendNode);
            if (instance.recvNode >= 0 && instance.recvIssued) {
                finish(instance.recvNode);
            }
        } else {
            for (int member : instance.members) {
                finish(member);
            }
        }
    }
    drain();
}

void TraceReplayer::simulate(const std::atomic<bool>* stop)
{
    const auto total = static_cast<size_t>(m_offset.back());
    m_times.assign(total, {});
    m_computeStart.assign(total, -1);
    m_done.assign(total, 0);
    m_computeQueue.assign(m_traces.size(), {});
    m_computeBusy.assign(m_traces.size(), 0);
    m_simulator.onFinish = [this](FlowId, int tag) { flowFinished(tag); };
    for (size_t g = 0; g < total; ++g) {
        if (m_pending[g] == 0) {
            m_work.push_back(static_cast<int>(g));
        }
    }
    std::reverse(m_work.begin(), m_work.end()); // file order first
    drain();
    m_simulator.run(stop);
}

void TraceReplayer::reportStuck() const
{
    // Anything not finished is stuck: name the first few nodes and why.
    std::vector<std::string> stuck;
    for (size_t g = 0; g < m_done.size() && stuck.size() < 5; ++g) {
        if (m_done[g]) {
            continue;
        }
        std::string why;
        const int id = m_instanceOf[g];
        if (id >= 0 && m_pending[g] == 0) {
            const Instance& instance = m_instances[static_cast<size_t>(id)];
            if (instance.request.kind == CollectiveKind::SendRecv) {
                why = instance.sendNode < 0 ? " waits for " + instance.label + ", which no rank sends"
                                            : " waits for " + instance.label + ", whose send never ran";
            } else {
                why = " waits for " + instance.label + ": " + std::to_string(instance.ready) + " of "
                    + std::to_string(instance.expected) + " members issued it";
            }
        } else {
            why = " waits for " + std::to_string(m_pending[g])
                + " unfinished parent(s) (a dependency cycle, or a stuck node upstream)";
        }
        stuck.push_back(describe(static_cast<int>(g)) + why);
    }
    if (!stuck.empty()) {
        std::string message = "the traces cannot run to the end: ";
        for (size_t i = 0; i < stuck.size(); ++i) {
            message += (i ? "; " : "") + stuck[i];
        }
        throw ReplayDeadlock(message);
    }
}

void TraceReplayer::summarise()
{
    m_result.nodeTimes.resize(m_traces.size());
    for (size_t t = 0; t < m_traces.size(); ++t) {
        ReplayRank rank;
        rank.rank = m_traces[t].rank;
        rank.nodes = static_cast<int>(m_traces[t].nodes.size());
        std::vector<std::pair<double, double>> compute;
        std::vector<std::pair<double, double>> communication;
        for (int g = m_offset[t]; g < m_offset[t + 1]; ++g) {
            const ReplayNodeTime& time = m_times[static_cast<size_t>(g)];
            m_result.nodeTimes[t].push_back(time);
            rank.finish = std::max(rank.finish, time.finish);
            if (m_computeStart[static_cast<size_t>(g)] >= 0) {
                const double start = toSeconds(m_computeStart[static_cast<size_t>(g)]);
                compute.push_back({ start, time.finish });
                rank.computeBusy += time.finish - start;
            } else if (graph::isCommunication(m_nodeOf[static_cast<size_t>(g)]->type)) {
                communication.push_back({ time.start, time.finish });
            }
        }
        rank.communication = unionLength(communication);
        rank.exposedCommunication = uncoveredLength(communication, compute);
        m_result.makespan = std::max(m_result.makespan, rank.finish);
        m_result.ranks.push_back(rank);
    }
}

} // namespace

ReplayResult replayChakra(const std::vector<graph::ChakraTrace>& traces, const graph::ChakraCommGroups& groups,
    const config::HardwareSpec& hardware, NetworkBackend backend, network::CollectiveLibrary library,
    const std::atomic<bool>* stop)
{
    return TraceReplayer(traces, groups, hardware, backend, library).run(stop);
}

} // namespace rapid::sim
