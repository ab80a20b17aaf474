// SPDX-License-Identifier: GPL-3.0-or-later
#include "collectiveflows.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <map>
#include <unordered_map>

namespace rapid::sim {

namespace {

using network::CollectiveAlgorithm;
using network::CollectiveKind;

/// Emits flows for one collective; members are addressed by their position in the request.
class Decomposer {
public:
    Decomposer(FlowProgram& program, RouteCache& routes, const network::CollectiveRequest& request, TimeNs launch,
        int tag, int after)
        : m_program(program)
        , m_routes(routes)
        , m_gpus(request.gpus)
        , m_launch(launch)
        , m_tag(tag)
        , m_entry(request.gpus.size(), after)
    {
    }

    void runPhase(const network::CollectivePhase& phase, const std::vector<std::vector<int>>& lines);
    std::vector<int> finalFlows() const;
    /// Pipelining: the k-th transfer this decomposer emits waits for the k-th transfer of @p previous (the same
    /// sender, receiver and route one chunk earlier), so the chunks cross every link in order.
    void followChunk(std::vector<int> previous) { m_previousChunk = std::move(previous); }
    /// The transfers emitted so far, in order (for the next chunk's followChunk).
    const std::vector<int>& transfers() const { return m_transfers; }

private:
    int flow(int from, int to, double bytes, std::initializer_list<int> dependencies);
    /// A transfer from member @p from to @p to after @p dependencies have finished and, when given, after
    /// @p afterSent (the same sender's previous message on the same connection) has left the sender.
    int flow(int from, int to, double bytes, const std::vector<int>& dependencies, TimeNs delay = 0, int route = -1,
        int afterSent = -1);
    /// One flow standing for "member done": depends on all @p flows (or is the only one of them).
    int barrier(int member, std::vector<int> flows, TimeNs delay = 0);

    void ring(const std::vector<int>& line, double bytes, int steps);
    void channelRings(const std::vector<int>& line, int channels, double bytes, int steps);
    void chainBroadcast(const std::vector<int>& line, double bytes);
    void binomialBroadcast(const std::vector<int>& line, double bytes);
    void direct(const std::vector<int>& line, double bytesPerPair);
    void halvingDoubling(const std::vector<int>& line, double bytes, bool reduceScatter, bool allGather);
    void doubleBinaryTree(const std::vector<int>& line, double bytes);

    FlowProgram& m_program;
    RouteCache& m_routes;
    const std::vector<int>& m_gpus;
    TimeNs m_launch;
    int m_tag;
    std::vector<int> m_entry; ///< per member: the flow its next actions wait for (-1: none yet)
    std::vector<char> m_hasData; ///< broadcasts: members holding the buffer
    std::vector<int> m_previousChunk; ///< the previous pipeline chunk's transfers, in emission order
    std::vector<int> m_transfers; ///< this decomposer's transfers (bytes > 0 between two GPUs), in emission order
    TimeNs m_stepDelay = 0; ///< the running phase's CollectivePhase::protocolStepSeconds: NCCL's time per step
};

int Decomposer::flow(int from, int to, double bytes, std::initializer_list<int> dependencies)
{
    return flow(from, to, bytes, std::vector<int>(dependencies), 0);
}

int Decomposer::flow(
    int from, int to, double bytes, const std::vector<int>& dependencies, TimeNs delay, int route, int afterSent)
{
    std::vector<int> kept;
    std::vector<int> sent;
    const bool transfer = bytes > 0 && from != to;
    if (transfer && m_transfers.size() < m_previousChunk.size()) {
        // The same transfer one chunk earlier, on the same connection: this chunk is queued behind it.
        sent.push_back(m_previousChunk[m_transfers.size()]);
    }
    if (afterSent >= 0 && std::find(sent.begin(), sent.end(), afterSent) == sent.end()) {
        sent.push_back(afterSent);
    }
    for (int dependency : dependencies) {
        if (dependency >= 0 && std::find(kept.begin(), kept.end(), dependency) == kept.end()) {
            kept.push_back(dependency);
        }
    }
    FlowProgram::Flow f;
    f.src = m_gpus[static_cast<size_t>(from)];
    f.dst = m_gpus[static_cast<size_t>(to)];
    f.route = route >= 0 ? route : m_routes.route(f.src, f.dst);
    f.bytes = bytes;
    f.tag = m_tag;
    // Flows that wait for nothing are the collective's first: they pay its launch.
    f.delay = delay + (kept.empty() && sent.empty() ? m_launch : 0);
    const int id = m_program.add(f, kept, sent);
    if (transfer) {
        m_transfers.push_back(id);
    }
    return id;
}

int Decomposer::barrier(int member, std::vector<int> flows, TimeNs delay)
{
    flows.erase(std::remove(flows.begin(), flows.end(), -1), flows.end());
    if (flows.size() == 1 && delay == 0) {
        return flows.front();
    }
    if (flows.empty() && delay == 0) {
        return -1;
    }
    return flow(member, member, 0, flows, delay);
}

void Decomposer::ring(const std::vector<int>& line, double bytes, int steps)
{
    const size_t q = line.size();
    const double chunk = bytes / static_cast<double>(q);
    std::vector<int> previousSend(q, -1);
    std::vector<int> previousReceive(q, -1);
    for (int step = 0; step < steps; ++step) {
        std::vector<int> sends(q);
        for (size_t i = 0; i < q; ++i) {
            const int from = line[i];
            const int to = line[(i + 1) % q];
            // A step forwards the chunk the member received in the step before (a data dependency) once its own
            // previous send has left it (the same connection, in order): the chunk's latency is paid per hop it
            // crosses, so a ring over hops of different latency costs their mean per step, as NCCL's tuning model
            // counts it (and the analytical ring, AxisCost::ringStepLatency), not the slowest hop every step.
            // Under NCCL every step also pays its protocol's time beyond the path (m_stepDelay).
            sends[i] = step == 0 ? flow(from, to, chunk,
                           { m_entry[static_cast<size_t>(from)], m_entry[static_cast<size_t>(to)] }, m_stepDelay)
                                 : flow(from, to, chunk, { previousReceive[i] }, m_stepDelay, -1, previousSend[i]);
        }
        for (size_t i = 0; i < q; ++i) {
            previousReceive[(i + 1) % q] = sends[i];
        }
        previousSend = std::move(sends);
    }
    for (size_t i = 0; i < q; ++i) {
        m_entry[static_cast<size_t>(line[i])] = barrier(line[i], { previousSend[i], previousReceive[i] });
    }
}

void Decomposer::channelRings(const std::vector<int>& line, int channels, double bytes, int steps)
{
    // The line is in GPU order, so its members come node by node, `channels` per node (network::AxisCost::
    // ringChannels). Channel j visits every node's members starting at the node's j-th; all channels start together
    // and the members are done when every channel is.
    const size_t count = static_cast<size_t>(channels);
    const std::vector<int> start = m_entry;
    std::vector<std::vector<int>> ends(m_entry.size());
    for (size_t j = 0; j < count; ++j) {
        std::vector<int> channel;
        channel.reserve(line.size());
        for (size_t node = 0; node < line.size(); node += count) {
            for (size_t k = 0; k < count; ++k) {
                channel.push_back(line[node + (j + k) % count]);
            }
        }
        m_entry = start;
        ring(channel, bytes / static_cast<double>(count), steps);
        for (int member : line) {
            ends[static_cast<size_t>(member)].push_back(m_entry[static_cast<size_t>(member)]);
        }
    }
    for (int member : line) {
        m_entry[static_cast<size_t>(member)] = barrier(member, std::move(ends[static_cast<size_t>(member)]));
    }
}

void Decomposer::chainBroadcast(const std::vector<int>& line, double bytes)
{
    // The line starts at its root; one flow carries the buffer through every member (cut-through forwarding).
    std::vector<int> chain;
    for (int member : line) {
        chain.push_back(m_gpus[static_cast<size_t>(member)]);
    }
    const int route = m_routes.chain(chain);
    std::vector<int> dependencies;
    for (int member : line) {
        dependencies.push_back(m_entry[static_cast<size_t>(member)]);
    }
    const int id = flow(line.front(), line.back(), bytes, dependencies, 0, route);
    FlowProgram::Flow& stored = m_program.flows[static_cast<size_t>(id)];
    stored.chain = static_cast<std::int32_t>(m_program.chains.size());
    stored.chainLength = static_cast<std::uint32_t>(chain.size());
    m_program.chains.insert(m_program.chains.end(), chain.begin(), chain.end());
    for (int member : line) {
        m_entry[static_cast<size_t>(member)] = id;
        m_hasData[static_cast<size_t>(member)] = 1;
    }
}

void Decomposer::binomialBroadcast(const std::vector<int>& line, double bytes)
{
    // Round r: the first 2^r members (who hold the buffer) each send it 2^r further; a member's sends are sequential.
    const size_t q = line.size();
    std::vector<int> lastSend(q, -1);
    for (size_t span = 1; span < q; span *= 2) {
        for (size_t i = 0; i < span && i + span < q; ++i) {
            const int from = line[i];
            const int to = line[i + span];
            const int id = flow(
                from, to, bytes, { m_entry[static_cast<size_t>(from)], m_entry[static_cast<size_t>(to)], lastSend[i] });
            lastSend[i] = id;
            m_entry[static_cast<size_t>(to)] = id;
            m_hasData[static_cast<size_t>(to)] = 1;
        }
    }
    for (size_t i = 0; i < q; ++i) {
        if (lastSend[i] >= 0) {
            m_entry[static_cast<size_t>(line[i])] = lastSend[i];
        }
    }
}

void Decomposer::direct(const std::vector<int>& line, double bytesPerPair)
{
    const size_t q = line.size();
    std::vector<std::vector<int>> touching(q);
    for (size_t i = 0; i < q; ++i) {
        for (size_t j = 0; j < q; ++j) {
            if (i == j) {
                continue;
            }
            const int id = flow(line[i], line[j], bytesPerPair,
                { m_entry[static_cast<size_t>(line[i])], m_entry[static_cast<size_t>(line[j])] });
            touching[i].push_back(id);
            touching[j].push_back(id);
        }
    }
    for (size_t i = 0; i < q; ++i) {
        m_entry[static_cast<size_t>(line[i])] = barrier(line[i], std::move(touching[i]));
    }
}

void Decomposer::halvingDoubling(const std::vector<int>& line, double bytes, bool reduceScatter, bool allGather)
{
    const size_t q = line.size();
    std::vector<size_t> distances;
    std::vector<double> sizes;
    if (reduceScatter) {
        double size = bytes;
        for (size_t d = q / 2; d >= 1; d /= 2) {
            size /= 2;
            distances.push_back(d);
            sizes.push_back(size);
        }
    }
    if (allGather) {
        double size = bytes / static_cast<double>(q);
        for (size_t d = 1; d < q; d *= 2) {
            distances.push_back(d);
            sizes.push_back(size);
            size *= 2;
        }
    }
    std::vector<int> previousSend(q, -1);
    std::vector<int> previousReceive(q, -1);
    for (size_t step = 0; step < distances.size(); ++step) {
        std::vector<int> sends(q);
        for (size_t i = 0; i < q; ++i) {
            const size_t partner = i ^ distances[step];
            sends[i] = step == 0 ? flow(line[i], line[partner], sizes[step],
                           { m_entry[static_cast<size_t>(line[i])], m_entry[static_cast<size_t>(line[partner])] })
                                 : flow(line[i], line[partner], sizes[step], { previousSend[i], previousReceive[i] });
        }
        for (size_t i = 0; i < q; ++i) {
            previousReceive[i ^ distances[step]] = sends[i];
        }
        previousSend = std::move(sends);
    }
    for (size_t i = 0; i < q; ++i) {
        m_entry[static_cast<size_t>(line[i])] = barrier(line[i], { previousSend[i], previousReceive[i] });
    }
}

/// Parent of in-order node @p node (1-based) in a binary tree over 1..n, or 0 for the root.
int inOrderParent(int node, int n)
{
    int parent = node;
    do {
        const int low = parent & -parent;
        parent = (parent - low) | (2 * low);
        if (parent == 0 || low > n) {
            return 0;
        }
    } while (parent > n);
    return parent;
}

void Decomposer::doubleBinaryTree(const std::vector<int>& line, double bytes)
{
    const int q = static_cast<int>(line.size());
    // Indexed by member (a line of an axis phase holds members anywhere in the group, not 0..q-1).
    std::vector<std::vector<int>> touching(m_gpus.size());
    TimeNs hopLatency = 0;
    // Tree 0 is the in-order binary tree over positions 1..q; tree 1 the same shifted by one position, so that
    // (nearly) every member is a leaf in one tree and an inner node in the other.
    for (int tree = 0; tree < 2; ++tree) {
        for (int node = 1; node <= q; ++node) {
            const int parent = inOrderParent(node, q);
            if (parent == 0) {
                continue;
            }
            const int child = line[static_cast<size_t>((node - 1 + tree) % q)];
            const int up = line[static_cast<size_t>((parent - 1 + tree) % q)];
            const int entries[] = { m_entry[static_cast<size_t>(child)], m_entry[static_cast<size_t>(up)] };
            const int reduce = flow(child, up, bytes / 2, { entries[0], entries[1] });
            const int broadcast = flow(up, child, bytes / 2, { entries[0], entries[1] });
            for (int id : { reduce, broadcast }) {
                const FlowProgram::Flow& f = m_program.flows[static_cast<size_t>(id)];
                hopLatency = std::max(hopLatency, m_routes.compiled(f.route).latency);
            }
            touching[static_cast<size_t>(child)].insert(
                touching[static_cast<size_t>(child)].end(), { reduce, broadcast });
            touching[static_cast<size_t>(up)].insert(touching[static_cast<size_t>(up)].end(), { reduce, broadcast });
        }
    }
    // The last byte climbs to the root and comes back down: 2*ceil(log2 q) hops, one of them inside the flows.
    const int depth = static_cast<int>(std::bit_width(static_cast<unsigned>(q - 1)));
    const TimeNs pipelineFill = (2 * depth - 1) * hopLatency + 2 * depth * m_stepDelay;
    for (int member : line) {
        m_entry[static_cast<size_t>(member)]
            = barrier(member, std::move(touching[static_cast<size_t>(member)]), pipelineFill);
    }
}

void Decomposer::runPhase(const network::CollectivePhase& phase, const std::vector<std::vector<int>>& lines)
{
    m_stepDelay = toNanoseconds(phase.protocolStepSeconds);
    if (phase.kind == CollectiveKind::Broadcast && m_hasData.empty()) {
        m_hasData.assign(m_gpus.size(), 0);
        m_hasData[0] = 1; // the request's first GPU is the root
    }
    for (std::vector<int> line : lines) {
        if (line.size() < 2) {
            continue;
        }
        const int q = static_cast<int>(line.size());
        switch (phase.kind) {
        case CollectiveKind::SendRecv:
            m_entry[1] = flow(0, 1, phase.bytes, { m_entry[0], m_entry[1] });
            break;
        case CollectiveKind::Broadcast: {
            // The line's root is its member holding the data; the line is rotated to start there.
            const auto root
                = std::find_if(line.begin(), line.end(), [&](int m) { return m_hasData[static_cast<size_t>(m)] != 0; });
            if (root == line.end()) {
                continue;
            }
            std::rotate(line.begin(), root, line.end());
            if (phase.algorithm == CollectiveAlgorithm::Tree) {
                binomialBroadcast(line, phase.bytes);
            } else {
                chainBroadcast(line, phase.bytes);
            }
            break;
        }
        case CollectiveKind::AllToAll:
            direct(line, phase.bytes / q);
            break;
        case CollectiveKind::ReduceScatter:
        case CollectiveKind::AllGather:
        case CollectiveKind::AllReduce: {
            const bool reduceScatter = phase.kind != CollectiveKind::AllGather;
            const bool allGather = phase.kind != CollectiveKind::ReduceScatter;
            switch (phase.algorithm) {
            case CollectiveAlgorithm::Direct:
                if (reduceScatter) {
                    direct(line, phase.bytes / q);
                }
                if (allGather) {
                    direct(line, phase.bytes / q);
                }
                break;
            case CollectiveAlgorithm::HalvingDoubling:
                halvingDoubling(line, phase.bytes, reduceScatter, allGather);
                break;
            case CollectiveAlgorithm::InNetwork:
                // The switch's reduction is not a flow between GPUs: each member's port carries, both ways, the
                // bytes that take as long at the port's rate as the switch takes to reduce the buffer.
                direct(line, phase.bytes * phase.inNetworkPortShare / (q - 1));
                break;
            case CollectiveAlgorithm::Tree:
                if (phase.kind == CollectiveKind::AllReduce) {
                    doubleBinaryTree(line, phase.bytes);
                    break;
                }
                [[fallthrough]];
            default:
                if (phase.channels > 1 && q % phase.channels == 0) {
                    channelRings(line, phase.channels, phase.bytes, (reduceScatter && allGather ? 2 : 1) * (q - 1));
                } else {
                    ring(line, phase.bytes, (reduceScatter && allGather ? 2 : 1) * (q - 1));
                }
                break;
            }
            break;
        }
        }
    }
}

std::vector<int> Decomposer::finalFlows() const
{
    std::vector<int> result;
    for (int id : m_entry) {
        if (id >= 0 && std::find(result.begin(), result.end(), id) == result.end()) {
            result.push_back(id);
        }
    }
    return result;
}

} // namespace

namespace {

/// The lines of members each phase runs on (positions in the request), in line order.
std::vector<std::vector<std::vector<int>>> phaseLines(const std::vector<network::Axis>& axes,
    const network::CollectiveRequest& request, std::span<const network::CollectivePhase> phases)
{
    std::vector<std::vector<std::vector<int>>> result;
    const int members = static_cast<int>(request.gpus.size());
    for (const network::CollectivePhase& phase : phases) {
        std::vector<std::vector<int>>& lines = result.emplace_back();
        if (phase.kind == CollectiveKind::SendRecv) {
            lines.push_back({ 0, 1 });
        } else if (phase.axis < 0) {
            // The whole group in GPU order (the order the analytical model's flat ring assumes).
            std::vector<int> line(static_cast<size_t>(members));
            for (int i = 0; i < members; ++i) {
                line[static_cast<size_t>(i)] = i;
            }
            std::stable_sort(line.begin(), line.end(), [&](int a, int b) {
                return request.gpus[static_cast<size_t>(a)] < request.gpus[static_cast<size_t>(b)];
            });
            lines.push_back(std::move(line));
        } else {
            // Members that differ only in this axis' coordinate form a line, in coordinate order.
            const network::Axis& axis = axes[static_cast<size_t>(phase.axis)];
            std::map<long long, std::vector<std::pair<int, int>>> byLine;
            for (int i = 0; i < members; ++i) {
                const int gpu = request.gpus[static_cast<size_t>(i)];
                const int coordinate = (gpu / axis.gpuStride) % axis.extent;
                byLine[gpu - static_cast<long long>(coordinate) * axis.gpuStride].push_back({ coordinate, i });
            }
            for (auto& [key, entries] : byLine) {
                std::sort(entries.begin(), entries.end());
                std::vector<int> line;
                for (const auto& entry : entries) {
                    line.push_back(entry.second);
                }
                lines.push_back(std::move(line));
            }
        }
    }
    return result;
}

} // namespace

std::vector<int> decomposeCollective(FlowProgram& program, RouteCache& routes, const std::vector<network::Axis>& axes,
    const network::CollectiveRequest& request, std::span<const network::CollectivePhase> phases, TimeNs launch, int tag,
    int after)
{
    const std::vector<std::vector<std::vector<int>>> lines = phaseLines(axes, request, phases);
    const int chunks = phases.size() > 1 ? std::max(1, phases.front().pipelineChunks) : 1;
    std::vector<network::CollectivePhase> chunkPhases(phases.begin(), phases.end());
    for (network::CollectivePhase& phase : chunkPhases) {
        phase.bytes /= chunks;
    }
    // Chunk c runs every phase on its 1/chunks of the buffer; its transfers follow chunk c-1's on the same links, so
    // chunk c-1 can be in a later phase while chunk c is still in an earlier one (NCCL's pipelining by chunk).
    std::vector<int> finals;
    std::vector<int> previous;
    for (int chunk = 0; chunk < chunks; ++chunk) {
        Decomposer decomposer(program, routes, request, launch, tag, after);
        decomposer.followChunk(std::move(previous));
        for (size_t p = 0; p < chunkPhases.size(); ++p) {
            decomposer.runPhase(chunkPhases[p], lines[p]);
        }
        for (int id : decomposer.finalFlows()) {
            if (std::find(finals.begin(), finals.end(), id) == finals.end()) {
                finals.push_back(id);
            }
        }
        previous = decomposer.transfers();
    }
    return finals;
}

} // namespace rapid::sim
