// SPDX-License-Identifier: GPL-3.0-or-later
#include "tracereplay.h"

#include "report/json.h"
#include "sim/congestionnetwork.h"
#include "sim/flowprogram.h"
#include "sim/flowsimulator.h"

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

/// Length of the union of intervals.
double unionLength(std::vector<std::pair<double, double>> intervals)
{
    std::sort(intervals.begin(), intervals.end());
    double total = 0;
    double start = 0;
    double end = -1;
    for (const auto& [a, b] : intervals) {
        if (a > end) {
            total += std::max(0.0, end - start);
            start = a;
            end = b;
        } else {
            end = std::max(end, b);
        }
    }
    return total + std::max(0.0, end - start);
}

/// Length of the part of @p covered (a union) outside @p removed (disjoint, sorted intervals).
double uncoveredLength(std::vector<std::pair<double, double>> covered, std::vector<std::pair<double, double>> removed)
{
    std::sort(covered.begin(), covered.end());
    std::sort(removed.begin(), removed.end());
    // Merge `covered` into disjoint intervals, then subtract `removed` with two pointers.
    std::vector<std::pair<double, double>> merged;
    for (const auto& interval : covered) {
        if (!merged.empty() && interval.first <= merged.back().second) {
            merged.back().second = std::max(merged.back().second, interval.second);
        } else {
            merged.push_back(interval);
        }
    }
    double total = 0;
    size_t r = 0;
    for (auto [a, b] : merged) {
        while (r < removed.size() && removed[r].second <= a) {
            ++r;
        }
        double cursor = a;
        for (size_t k = r; k < removed.size() && removed[k].first < b; ++k) {
            if (removed[k].first > cursor) {
                total += removed[k].first - cursor;
            }
            cursor = std::max(cursor, removed[k].second);
        }
        if (cursor < b) {
            total += b - cursor;
        }
    }
    return total;
}

} // namespace

ReplayResult replayChakra(const std::vector<graph::ChakraTrace>& traces, const graph::ChakraCommGroups& groups,
    const config::HardwareSpec& hardware, NetworkBackend backend, const std::atomic<bool>* stop)
{
    ReplayResult result;
    std::set<std::string> notes;
    CongestionNetwork network(hardware);
    const int gpus = network.topology().gpuCount();

    // Global node indices and the trace of each rank number.
    std::vector<int> offset(traces.size() + 1, 0);
    std::map<int, int> traceOfRank;
    for (size_t t = 0; t < traces.size(); ++t) {
        offset[t + 1] = offset[t] + static_cast<int>(traces[t].nodes.size());
        if (traces[t].rank < 0 || traces[t].rank >= gpus) {
            throw std::invalid_argument("trace " + traces[t].path + " is rank " + std::to_string(traces[t].rank)
                + " but the network has GPUs 0.." + std::to_string(gpus - 1));
        }
        if (!traceOfRank.emplace(traces[t].rank, static_cast<int>(t)).second) {
            throw std::invalid_argument("two traces are rank " + std::to_string(traces[t].rank));
        }
    }
    const auto total = static_cast<size_t>(offset.back());
    std::vector<int> rankOf(total);
    std::vector<const ChakraNode*> nodeOf(total);
    for (size_t t = 0; t < traces.size(); ++t) {
        for (size_t i = 0; i < traces[t].nodes.size(); ++i) {
            rankOf[static_cast<size_t>(offset[t]) + i] = static_cast<int>(t);
            nodeOf[static_cast<size_t>(offset[t]) + i] = &traces[t].nodes[i];
        }
    }
    auto describe = [&](int g) {
        const ChakraNode& node = *nodeOf[static_cast<size_t>(g)];
        return "rank " + std::to_string(traces[static_cast<size_t>(rankOf[static_cast<size_t>(g)])].rank) + " node "
            + std::to_string(node.id) + (node.name.empty() ? std::string() : " (" + node.name + ")");
    };

    // Dependencies (data and control parents alike), as dependants in CSR form.
    std::vector<int> pending(total, 0);
    std::vector<std::vector<int>> dependants(total);
    for (size_t t = 0; t < traces.size(); ++t) {
        std::unordered_map<std::uint64_t, int> byId;
        for (size_t i = 0; i < traces[t].nodes.size(); ++i) {
            byId.emplace(traces[t].nodes[i].id, offset[t] + static_cast<int>(i));
        }
        for (size_t i = 0; i < traces[t].nodes.size(); ++i) {
            const ChakraNode& node = traces[t].nodes[i];
            const int g = offset[t] + static_cast<int>(i);
            std::set<int> parents;
            for (const auto* list : { &node.dataDeps, &node.ctrlDeps }) {
                for (std::uint64_t parent : *list) {
                    auto found = byId.find(parent);
                    if (found == byId.end()) {
                        notes.insert("dependencies on nodes missing from their file are ignored");
                        continue;
                    }
                    parents.insert(found->second);
                }
            }
            for (int parent : parents) {
                dependants[static_cast<size_t>(parent)].push_back(g);
                ++pending[static_cast<size_t>(g)];
            }
        }
    }

    // Match collectives (per group, by issue order) and point-to-point messages (peers, tag, size, order).
    std::vector<Instance> instances;
    std::vector<int> instanceOf(total, -1);
    std::map<std::pair<std::string, int>, int> collectiveIssues; // (group, rank) -> issued so far
    std::map<std::pair<std::string, int>, int> collectiveInstance; // (group, issue index) -> instance
    std::map<std::tuple<int, int, std::int64_t, std::int64_t>, std::pair<int, int>> messageIssues; // sends, receives
    std::map<std::tuple<int, int, std::int64_t, std::int64_t, int>, int> messageInstance;
    std::vector<int> allRanks;
    for (const auto& [rank, trace] : traceOfRank) {
        allRanks.push_back(rank);
    }
    for (size_t t = 0; t < traces.size(); ++t) {
        const int rank = traces[t].rank;
        for (size_t i = 0; i < traces[t].nodes.size(); ++i) {
            const ChakraNode& node = traces[t].nodes[i];
            const int g = offset[t] + static_cast<int>(i);
            if (node.type == ChakraNodeType::Collective) {
                std::string group;
                std::vector<int> members = allRanks;
                if (const graph::ChakraAttribute* pg = node.attribute("pg_name")) {
                    const std::string name = pg->string().value_or(pg->valueText());
                    auto found = groups.find(name);
                    if (found != groups.end()) {
                        group = name;
                        members = found->second;
                    } else if (name != "0") {
                        notes.insert("collectives of groups missing from the comm-group file run over all ranks");
                    }
                }
                if (std::find(members.begin(), members.end(), rank) == members.end()) {
                    throw std::invalid_argument(describe(g) + " issues a collective of group \"" + group
                        + "\", which does not contain rank " + std::to_string(rank));
                }
                const int issue = collectiveIssues[{ group, rank }]++;
                auto [it, added] = collectiveInstance.emplace(std::make_pair(group, issue), -1);
                if (added) {
                    Instance instance;
                    const auto type = static_cast<ChakraCollective>(node.integerAttribute("comm_type").value_or(0));
                    instance.request.kind = collectiveKind(type, notes);
                    double bytes = static_cast<double>(
                        std::max<std::int64_t>(0, node.integerAttribute("comm_size").value_or(0)));
                    if (type == ChakraCollective::AllGather) {
                        bytes *= static_cast<double>(members.size()); // ASTRA-sim: the per-rank shard
                    }
                    if (type == ChakraCollective::Barrier) {
                        bytes = 0;
                    }
                    instance.request.bytes = bytes;
                    instance.request.gpus = members;
                    instance.expected = static_cast<int>(members.size());
                    instance.label = std::string(graph::toString(type)) + " #" + std::to_string(issue)
                        + (group.empty() ? std::string(" over all ranks") : " of group " + group);
                    it->second = static_cast<int>(instances.size());
                    instances.push_back(std::move(instance));
                }
                instances[static_cast<size_t>(it->second)].members.push_back(g);
                instanceOf[static_cast<size_t>(g)] = it->second;
            } else if (node.type == ChakraNodeType::Send || node.type == ChakraNodeType::Recv) {
                const bool send = node.type == ChakraNodeType::Send;
                const int peer = static_cast<int>(node.integerAttribute(send ? "comm_dst" : "comm_src").value_or(rank));
                const std::int64_t tag = node.integerAttribute("comm_tag").value_or(0);
                const std::int64_t size = node.integerAttribute("comm_size").value_or(0);
                const int from = send ? rank : peer;
                const int to = send ? peer : rank;
                auto& counts = messageIssues[{ from, to, tag, size }];
                const int issue = send ? counts.first++ : counts.second++;
                auto [it, added] = messageInstance.emplace(std::make_tuple(from, to, tag, size, issue), -1);
                if (added) {
                    Instance instance;
                    instance.request.kind = CollectiveKind::SendRecv;
                    instance.request.bytes = static_cast<double>(std::max<std::int64_t>(0, size));
                    instance.request.gpus = { from, to };
                    instance.expected = 1;
                    instance.label = "message " + std::to_string(from) + " -> " + std::to_string(to) + " tag "
                        + std::to_string(tag) + " of " + std::to_string(size) + " bytes";
                    it->second = static_cast<int>(instances.size());
                    instances.push_back(std::move(instance));
                }
                Instance& instance = instances[static_cast<size_t>(it->second)];
                instance.members.push_back(g);
                (send ? instance.sendNode : instance.recvNode) = g;
                instanceOf[static_cast<size_t>(g)] = it->second;
            }
        }
    }
    for (const Instance& instance : instances) {
        for (int gpu : instance.request.gpus) {
            if (!traceOfRank.count(gpu)) {
                throw std::invalid_argument(
                    instance.label + " names rank " + std::to_string(gpu) + ", which has no trace");
            }
        }
        if (instance.request.kind == CollectiveKind::SendRecv) {
            result.pointToPoint += instance.sendNode >= 0 && instance.recvNode >= 0 ? 1 : 0;
        } else {
            ++result.collectives;
        }
    }

    // The event loop: compute nodes are zero-byte flows that take their duration; collectives are flows.
    FlowSimulator simulator(network.routes());
    RouteCache& routes = network.routes();
    std::vector<ReplayNodeTime> times(total);
    std::vector<TimeNs> computeStart(total, -1);
    std::vector<char> done(total, 0);
    std::vector<std::deque<int>> computeQueue(traces.size());
    std::vector<char> computeBusy(traces.size(), 0);
    std::vector<int> work;
    const double peak = hardware.gpu.tensorPeak(config::Precision::Bf16) * hardware.gpu.effectiveClockScale();
    const double bandwidth = hardware.gpu.hbmBandwidth * hardware.gpu.hbmBandwidthScale;
    auto computeNs = [&](const ChakraNode& node) -> TimeNs {
        if (node.durationMicros > 0) {
            return static_cast<TimeNs>(node.durationMicros) * 1000;
        }
        const double flops = static_cast<double>(node.integerAttribute("num_ops").value_or(0));
        const double bytes = static_cast<double>(node.integerAttribute("tensor_size").value_or(0));
        if (flops <= 0 && bytes <= 0) {
            return 0;
        }
        notes.insert("compute nodes without a duration take the roofline of num_ops and tensor_size on the GPU");
        return toNanoseconds(std::max(peak > 0 ? flops / peak : 0.0, bandwidth > 0 ? bytes / bandwidth : 0.0));
    };
    auto finish = [&](int g) {
        done[static_cast<size_t>(g)] = 1;
        times[static_cast<size_t>(g)].finish = toSeconds(simulator.now());
        for (int dependant : dependants[static_cast<size_t>(g)]) {
            if (--pending[static_cast<size_t>(dependant)] == 0) {
                work.push_back(dependant);
            }
        }
    };
    auto startCompute = [&](int trace) {
        if (computeBusy[static_cast<size_t>(trace)] || computeQueue[static_cast<size_t>(trace)].empty()) {
            return;
        }
        const int g = computeQueue[static_cast<size_t>(trace)].front();
        computeQueue[static_cast<size_t>(trace)].pop_front();
        computeBusy[static_cast<size_t>(trace)] = 1;
        computeStart[static_cast<size_t>(g)] = simulator.now();
        const int gpu = traces[static_cast<size_t>(trace)].rank;
        simulator.add({ routes.route(gpu, gpu), 0, computeNs(*nodeOf[static_cast<size_t>(g)]), g });
    };
    auto launchInstance = [&](int id) {
        const Instance& instance = instances[static_cast<size_t>(id)];
        const int gpu = instance.request.gpus.front();
        const int tag = -2 - id;
        if (instance.request.bytes <= 0 && instance.request.kind == CollectiveKind::SendRecv) {
            simulator.add({ routes.route(gpu, gpu), 0, 0, tag });
            return;
        }
        if (backend == NetworkBackend::Analytical || instance.request.gpus.size() < 2) {
            const double seconds = network.analytical().time(instance.request).seconds;
            simulator.add({ routes.route(gpu, gpu), 0, toNanoseconds(seconds), tag });
            return;
        }
        FlowProgram program;
        const std::vector<int> last = network.appendFlows(program, instance.request, -1);
        FlowProgram::Flow barrier;
        barrier.src = barrier.dst = gpu;
        barrier.route = routes.route(gpu, gpu);
        barrier.tag = tag;
        program.add(barrier, last);
        result.flows += program.size();
        addProgram(simulator, program);
    };
    auto drain = [&] {
        while (!work.empty()) {
            const int g = work.back();
            work.pop_back();
            times[static_cast<size_t>(g)].start = toSeconds(simulator.now());
            const ChakraNode& node = *nodeOf[static_cast<size_t>(g)];
            const int trace = rankOf[static_cast<size_t>(g)];
            switch (node.type) {
            case ChakraNodeType::Compute:
            case ChakraNodeType::MemLoad:
            case ChakraNodeType::MemStore:
                computeQueue[static_cast<size_t>(trace)].push_back(g);
                startCompute(trace);
                break;
            case ChakraNodeType::Recv: {
                Instance& instance = instances[static_cast<size_t>(instanceOf[static_cast<size_t>(g)])];
                instance.recvIssued = true;
                if (instance.arrived) {
                    finish(g);
                }
                break;
            }
            case ChakraNodeType::Collective:
            case ChakraNodeType::Send: {
                const int id = instanceOf[static_cast<size_t>(g)];
                Instance& instance = instances[static_cast<size_t>(id)];
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
    };
    simulator.onFinish = [&](FlowId, int tag) {
        if (tag >= 0) {
            const int trace = rankOf[static_cast<size_t>(tag)];
            computeBusy[static_cast<size_t>(trace)] = 0;
            finish(tag);
            startCompute(trace);
        } else if (tag <= -2) {
            Instance& instance = instances[static_cast<size_t>(-2 - tag)];
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
    };
    for (size_t g = 0; g < total; ++g) {
        if (pending[g] == 0) {
            work.push_back(static_cast<int>(g));
        }
    }
    std::reverse(work.begin(), work.end()); // file order first
    drain();
    simulator.run(stop);

    // Anything not finished is stuck: name the first few nodes and why.
    std::vector<std::string> stuck;
    for (size_t g = 0; g < total && stuck.size() < 5; ++g) {
        if (done[g]) {
            continue;
        }
        std::string why;
        const int id = instanceOf[g];
        if (id >= 0 && pending[g] == 0) {
            const Instance& instance = instances[static_cast<size_t>(id)];
            if (instance.request.kind == CollectiveKind::SendRecv) {
                why = instance.sendNode < 0 ? " waits for " + instance.label + ", which no rank sends"
                                            : " waits for " + instance.label + ", whose send never ran";
            } else {
                why = " waits for " + instance.label + ": " + std::to_string(instance.ready) + " of "
                    + std::to_string(instance.expected) + " members issued it";
            }
        } else {
            why = " waits for " + std::to_string(pending[g])
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

    result.nodeTimes.resize(traces.size());
    for (size_t t = 0; t < traces.size(); ++t) {
        ReplayRank rank;
        rank.rank = traces[t].rank;
        rank.nodes = static_cast<int>(traces[t].nodes.size());
        std::vector<std::pair<double, double>> compute;
        std::vector<std::pair<double, double>> communication;
        for (int g = offset[t]; g < offset[t + 1]; ++g) {
            const ReplayNodeTime& time = times[static_cast<size_t>(g)];
            result.nodeTimes[t].push_back(time);
            rank.finish = std::max(rank.finish, time.finish);
            if (computeStart[static_cast<size_t>(g)] >= 0) {
                const double start = toSeconds(computeStart[static_cast<size_t>(g)]);
                compute.push_back({ start, time.finish });
                rank.computeBusy += time.finish - start;
            } else if (graph::isCommunication(nodeOf[static_cast<size_t>(g)]->type)) {
                communication.push_back({ time.start, time.finish });
            }
        }
        rank.communication = unionLength(communication);
        rank.exposedCommunication = uncoveredLength(communication, compute);
        result.makespan = std::max(result.makespan, rank.finish);
        result.ranks.push_back(rank);
    }
    result.notes.assign(notes.begin(), notes.end());
    return result;
}

std::string replayChromeTraceJson(const std::vector<graph::ChakraTrace>& traces, const ReplayResult& result)
{
    // One event per line: a replayed trace set may hold millions of nodes.
    std::string out = "{\"traceEvents\": [";
    bool first = true;
    auto append = [&](const report::Json& event) {
        out += (first ? "\n" : ",\n") + report::jsonText(event, -1);
        first = false;
    };
    for (size_t t = 0; t < traces.size() && t < result.nodeTimes.size(); ++t) {
        const int pid = traces[t].rank + 1;
        append({ { "ph", "M" }, { "name", "process_name" }, { "pid", pid },
            { "args", { { "name", "rank " + std::to_string(traces[t].rank) } } } });
        for (int tid : { 1, 2 }) {
            append({ { "ph", "M" }, { "name", "thread_name" }, { "pid", pid }, { "tid", tid },
                { "args", { { "name", tid == 1 ? "compute" : "communication" } } } });
        }
        for (size_t i = 0; i < traces[t].nodes.size() && i < result.nodeTimes[t].size(); ++i) {
            const ChakraNode& node = traces[t].nodes[i];
            const ReplayNodeTime& time = result.nodeTimes[t][i];
            const bool communication = graph::isCommunication(node.type);
            const bool compute = node.type == ChakraNodeType::Compute || node.type == ChakraNodeType::MemLoad
                || node.type == ChakraNodeType::MemStore;
            if ((!communication && !compute) || !std::isfinite(time.start) || !std::isfinite(time.finish)) {
                continue;
            }
            append({ { "ph", "X" }, { "pid", pid }, { "tid", communication ? 2 : 1 }, { "ts", time.start * 1e6 },
                { "dur", std::max(0.0, time.finish - time.start) * 1e6 },
                { "name", node.name.empty() ? std::string(graph::toString(node.type)) : node.name },
                { "cat", graph::toString(node.type) }, { "args", { { "id", node.id } } } });
        }
    }
    out += "\n], \"displayTimeUnit\": \"ms\", \"otherData\": "
        + report::jsonText(report::Json { { "makespan_s", result.makespan } }, -1) + "}\n";
    return out;
}

} // namespace rapid::sim
