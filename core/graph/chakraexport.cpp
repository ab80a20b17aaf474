// SPDX-License-Identifier: GPL-3.0-or-later
#include "chakraexport.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>

namespace rapid::graph {

namespace {

std::uint64_t micros(double seconds)
{
    return seconds > 0 ? static_cast<std::uint64_t>(std::llround(seconds * 1e6)) : 0;
}

std::int64_t bytesOf(const ChakraExportOptions& options, NodeId id)
{
    return options.commBytes ? static_cast<std::int64_t>(options.commBytes(id)) : 0;
}

// A collective node: its type, size and, when the export names one, its process group.
void markCollective(ChakraNode& out, ChakraCollective type, std::int64_t bytes, const std::string& group)
{
    out.type = ChakraNodeType::Collective;
    out.attributes.push_back(ChakraAttribute::int64("comm_type", static_cast<std::int64_t>(type)));
    out.attributes.push_back(ChakraAttribute::int64("comm_size", bytes));
    if (!group.empty()) {
        out.attributes.push_back(ChakraAttribute::text("pg_name", group));
    }
}

} // namespace

std::vector<ChakraTrace> exportExecutionGraph(const ExecutionGraph& graph, const ChakraExportOptions& options)
{
    const auto& nodes = graph.nodes();
    const auto count = static_cast<std::uint64_t>(nodes.size());
    const std::vector<std::vector<NodeId>> dependencies = graph.dependencyLists();
    // Which other ranks consume each pipeline send.
    std::map<NodeId, std::set<int>> remoteConsumers;
    for (NodeId id = 0; id < static_cast<NodeId>(nodes.size()); ++id) {
        for (const NodeId dependency : dependencies[static_cast<size_t>(id)]) {
            const Node& parent = graph.node(dependency);
            if (parent.kind == NodeKind::PipelineSend && parent.rank != nodes[static_cast<size_t>(id)].rank) {
                remoteConsumers[dependency].insert(nodes[static_cast<size_t>(id)].rank);
            }
        }
    }
    // The previous node of the same stream, for the ctrl dependencies that keep streams in order.
    std::vector<NodeId> streamPredecessor(nodes.size(), -1);
    for (int rank = 0; rank < graph.ranks(); ++rank) {
        for (int stream = 0; stream < kStreamCount; ++stream) {
            const auto& order = graph.streamOrder(rank, static_cast<Stream>(stream));
            for (size_t i = 1; i < order.size(); ++i) {
                streamPredecessor[static_cast<size_t>(order[i])] = order[i - 1];
            }
        }
    }

    std::vector<ChakraTrace> traces(static_cast<size_t>(graph.ranks()));
    std::vector<std::set<NodeId>> emittedRecvs(traces.size());
    for (size_t rank = 0; rank < traces.size(); ++rank) {
        traces[rank].rank = static_cast<int>(rank);
        traces[rank].metadata.version = options.version;
        traces[rank].metadata.attributes = options.metadataAttributes;
    }
    for (NodeId id = 0; id < static_cast<NodeId>(nodes.size()); ++id) {
        const Node& node = nodes[static_cast<size_t>(id)];
        ChakraTrace& trace = traces[static_cast<size_t>(node.rank)];
        ChakraNode out;
        out.id = static_cast<std::uint64_t>(id);
        out.name = options.nodeName ? options.nodeName(id) : graph.describe(id);
        out.durationMicros = micros(node.seconds);
        const std::vector<NodeId>& nodeDependencies = dependencies[static_cast<size_t>(id)];
        for (const NodeId dependency : nodeDependencies) {
            const Node& parent = graph.node(dependency);
            if (parent.rank == node.rank) {
                out.dataDeps.push_back(static_cast<std::uint64_t>(dependency));
                continue;
            }
            if (parent.kind != NodeKind::PipelineSend) {
                continue; // no Chakra equivalent (documented)
            }
            const std::uint64_t recvId = count + static_cast<std::uint64_t>(dependency);
            if (emittedRecvs[static_cast<size_t>(node.rank)].insert(dependency).second) {
                ChakraNode recv;
                recv.id = recvId;
                recv.name = "receive of ["
                    + (options.nodeName ? options.nodeName(dependency) : graph.describe(dependency)) + "]";
                recv.type = ChakraNodeType::Recv;
                recv.attributes = { ChakraAttribute::boolean("is_cpu_op", false),
                    ChakraAttribute::int32("comm_src", parent.rank), ChakraAttribute::int32("comm_tag", dependency),
                    ChakraAttribute::int64("comm_size", bytesOf(options, dependency)) };
                trace.nodes.push_back(std::move(recv));
            }
            out.dataDeps.push_back(recvId);
        }
        if (const NodeId previous = streamPredecessor[static_cast<size_t>(id)]; previous >= 0
            && std::find(nodeDependencies.begin(), nodeDependencies.end(), previous) == nodeDependencies.end()) {
            out.ctrlDeps.push_back(static_cast<std::uint64_t>(previous));
        }
        out.attributes.push_back(ChakraAttribute::boolean("is_cpu_op", false));
        switch (node.kind) {
        case NodeKind::Compute:
        case NodeKind::Optimizer:
            out.type = ChakraNodeType::Compute;
            break;
        case NodeKind::PipelineSend: {
            const auto consumers = remoteConsumers.find(id);
            if (consumers == remoteConsumers.end()) {
                out.type = ChakraNodeType::Compute; // consumed on its own rank: a local hand-over
                break;
            }
            out.type = ChakraNodeType::Send;
            out.attributes.push_back(ChakraAttribute::int32("comm_dst", *consumers->second.begin()));
            out.attributes.push_back(ChakraAttribute::int32("comm_tag", id));
            out.attributes.push_back(ChakraAttribute::int64("comm_size", bytesOf(options, id)));
            // Further consumer ranks get their own SEND with the same tag (the (src, dst, tag) key stays unique).
            for (auto extra = std::next(consumers->second.begin()); extra != consumers->second.end(); ++extra) {
                ChakraNode copy = out;
                copy.id = 2 * count + static_cast<std::uint64_t>(id) * static_cast<std::uint64_t>(graph.ranks())
                    + static_cast<std::uint64_t>(*extra);
                copy.attributes[1] = ChakraAttribute::int32("comm_dst", *extra);
                trace.nodes.push_back(std::move(out));
                out = std::move(copy);
            }
            break;
        }
        case NodeKind::DataParallel:
        case NodeKind::ParameterGather: {
            const auto& group = node.expertGroup ? options.expertDataParallelGroup : options.dataParallelGroup;
            markCollective(out,
                node.kind == NodeKind::DataParallel ? options.dataParallelCollective : ChakraCollective::AllGather,
                bytesOf(options, id), group ? group(node.rank) : "");
            break;
        }
        case NodeKind::ReplicaReduction:
            markCollective(out, ChakraCollective::AllReduce, bytesOf(options, id),
                options.replicaReductionGroup ? options.replicaReductionGroup(node.rank) : "");
            break;
        }
        trace.nodes.push_back(std::move(out));
    }
    return traces;
}

std::vector<ChakraTrace> exportCollectiveMicrobenchmark(ChakraCollective type, std::uint64_t commSize,
    const std::vector<int>& ranks, const std::string& group, int networkRanks)
{
    // ASTRA-sim's names: lower-case comm type, rank count, size in the largest whole binary unit ("1MB" = 2^20 B).
    std::string op = toString(type);
    std::transform(
        op.begin(), op.end(), op.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    std::string size = std::to_string(commSize) + "B";
    if (commSize > 0 && commSize % (1ULL << 30) == 0) {
        size = std::to_string(commSize >> 30) + "GB";
    } else if (commSize > 0 && commSize % (1ULL << 20) == 0) {
        size = std::to_string(commSize >> 20) + "MB";
    } else if (commSize > 0 && commSize % (1ULL << 10) == 0) {
        size = std::to_string(commSize >> 10) + "KB";
    }
    std::vector<ChakraTrace> traces;
    for (int rank : ranks) {
        ChakraTrace trace;
        trace.rank = rank;
        trace.metadata.version = "0.0.4";
        ChakraNode node;
        node.id = static_cast<std::uint64_t>(rank); // the generator numbers the one node by its rank
        node.name = op + "_" + std::to_string(ranks.size()) + "npus_" + size;
        node.type = ChakraNodeType::Collective;
        node.attributes = { ChakraAttribute::boolean("is_cpu_op", false),
            ChakraAttribute::int64("comm_type", static_cast<std::int64_t>(type)),
            ChakraAttribute::int64("comm_size", static_cast<std::int64_t>(commSize)) };
        if (!group.empty()) {
            node.attributes.push_back(ChakraAttribute::text("pg_name", group));
        }
        trace.nodes.push_back(std::move(node));
        traces.push_back(std::move(trace));
    }
    // Every other NPU of the network: one runnable node, so the simulator finds a trace for it and it finishes.
    for (int rank = 0; rank < networkRanks; ++rank) {
        if (std::find(ranks.begin(), ranks.end(), rank) != ranks.end()) {
            continue;
        }
        ChakraTrace trace;
        trace.rank = rank;
        trace.metadata.version = "0.0.4";
        ChakraNode idle;
        idle.id = static_cast<std::uint64_t>(rank);
        idle.name = "idle";
        idle.type = ChakraNodeType::Compute;
        idle.attributes = { ChakraAttribute::boolean("is_cpu_op", false) };
        trace.nodes.push_back(std::move(idle));
        traces.push_back(std::move(trace));
    }
    std::sort(traces.begin(), traces.end(), [](const ChakraTrace& a, const ChakraTrace& b) { return a.rank < b.rank; });
    return traces;
}

namespace {

/// The integer microseconds of each compute piece: the pieces' shares of @p computeMicros with cumulative rounding, so
/// they add up exactly. Communication pieces get 0.
std::vector<std::uint64_t> pieceDurations(const std::vector<ChakraNodePiece>& pieces, double computeMicros)
{
    double total = 0;
    int computePieces = 0;
    for (const ChakraNodePiece& piece : pieces) {
        if (piece.type == ChakraNodeType::Compute) {
            total += std::max(0.0, piece.seconds);
            ++computePieces;
        }
    }
    std::vector<std::uint64_t> durations(pieces.size(), 0);
    double cumulative = 0;
    int seen = 0;
    std::uint64_t previousEnd = 0;
    for (size_t i = 0; i < pieces.size(); ++i) {
        if (pieces[i].type != ChakraNodeType::Compute) {
            continue;
        }
        cumulative += std::max(0.0, pieces[i].seconds);
        ++seen;
        const double share = total > 0 ? cumulative / total : static_cast<double>(seen) / computePieces;
        const auto end = static_cast<std::uint64_t>(std::llround(computeMicros * std::min(1.0, share)));
        durations[i] = end > previousEnd ? end - previousEnd : 0;
        previousEnd = std::max(previousEnd, end);
    }
    return durations;
}

} // namespace

ChakraCollective chakraCollectiveOf(network::CollectiveKind kind)
{
    switch (kind) {
    case network::CollectiveKind::AllReduce:
        return ChakraCollective::AllReduce;
    case network::CollectiveKind::ReduceScatter:
        return ChakraCollective::ReduceScatter;
    case network::CollectiveKind::AllGather:
        return ChakraCollective::AllGather;
    case network::CollectiveKind::AllToAll:
        return ChakraCollective::AllToAll;
    case network::CollectiveKind::Broadcast:
        return ChakraCollective::Broadcast;
    case network::CollectiveKind::SendRecv:
        break;
    }
    throw std::invalid_argument("a send/recv is written as COMM_SEND_NODE and COMM_RECV_NODE, not as a collective");
}

void splitComputeNodes(ChakraTrace& trace, const std::function<std::vector<ChakraNodePiece>(const ChakraNode&)>& split)
{
    std::uint64_t nextId = 0;
    for (const ChakraNode& node : trace.nodes) {
        nextId = std::max(nextId, node.id + 1);
    }
    std::vector<ChakraNode> nodes;
    nodes.reserve(trace.nodes.size());
    for (ChakraNode& node : trace.nodes) {
        const std::vector<ChakraNodePiece> pieces
            = node.type == ChakraNodeType::Compute ? split(node) : std::vector<ChakraNodePiece> {};
        if (pieces.size() < 2) {
            nodes.push_back(std::move(node));
            continue;
        }
        double communication = 0;
        for (const ChakraNodePiece& piece : pieces) {
            communication += piece.type == ChakraNodeType::Compute ? 0.0 : std::max(0.0, piece.seconds);
        }
        const double computeMicros = std::max(0.0, static_cast<double>(node.durationMicros) - communication * 1e6);
        const std::vector<std::uint64_t> durations = pieceDurations(pieces, computeMicros);
        const std::vector<std::uint64_t> dataDeps = std::move(node.dataDeps);
        const std::vector<std::uint64_t> ctrlDeps = std::move(node.ctrlDeps);
        const auto afterOf = [&pieces](size_t i) {
            return pieces[i].after.empty() ? std::vector<int> { static_cast<int>(i) - 1 } : pieces[i].after;
        };
        // Pieces nothing later waits for, besides the last: what ran beside the chain. The node is done when they are
        // too, so a zero-length join takes its id and waits for all of them (the last piece waiting for them itself
        // would hold its own start back).
        std::vector<bool> awaited(pieces.size(), false);
        for (size_t i = 0; i < pieces.size(); ++i) {
            for (const int earlier : afterOf(i)) {
                if (earlier >= 0 && static_cast<size_t>(earlier) < i) {
                    awaited[static_cast<size_t>(earlier)] = true;
                }
            }
        }
        const bool join = std::find(awaited.begin(), awaited.end() - 1, false) != awaited.end() - 1;
        std::vector<std::uint64_t> ids(pieces.size());
        for (size_t i = 0; i < pieces.size(); ++i) {
            const bool keepsId = i + 1 == pieces.size() && !join;
            ids[i] = keepsId ? node.id : nextId++;
            ChakraNode piece;
            piece.id = ids[i];
            piece.name = pieces[i].name;
            piece.type = pieces[i].type;
            piece.durationMicros = durations[i];
            if (pieces[i].type != ChakraNodeType::Compute) {
                piece.attributes = pieces[i].attributes;
            } else if (keepsId) {
                piece.attributes = node.attributes; // what its peers and dependants know of it
            } else {
                piece.attributes = { ChakraAttribute::boolean("is_cpu_op", false) };
            }
            for (const int earlier : afterOf(i)) {
                if (earlier < 0) {
                    piece.dataDeps.insert(piece.dataDeps.end(), dataDeps.begin(), dataDeps.end());
                    piece.ctrlDeps.insert(piece.ctrlDeps.end(), ctrlDeps.begin(), ctrlDeps.end());
                } else if (static_cast<size_t>(earlier) < i) {
                    piece.dataDeps.push_back(ids[static_cast<size_t>(earlier)]);
                }
            }
            nodes.push_back(std::move(piece));
        }
        if (join) {
            ChakraNode end;
            end.id = node.id;
            end.name = "end of " + node.name;
            end.type = ChakraNodeType::Compute;
            end.attributes = std::move(node.attributes);
            for (size_t j = 0; j < pieces.size(); ++j) {
                if (!awaited[j]) {
                    end.dataDeps.push_back(ids[j]);
                }
            }
            nodes.push_back(std::move(end));
        }
    }
    trace.nodes = std::move(nodes);
}

ChakraTrace instantiateRank(const ChakraTrace& representative, int rank, const ChakraRankMapping& mapping)
{
    ChakraTrace trace = representative;
    trace.rank = rank;
    trace.path.clear();
    for (ChakraNode& node : trace.nodes) {
        for (ChakraAttribute& attribute : node.attributes) {
            const bool peer = (node.type == ChakraNodeType::Send && attribute.name == "comm_dst")
                || (node.type == ChakraNodeType::Recv && attribute.name == "comm_src");
            if (peer && mapping.peer) {
                if (const std::optional<std::int64_t> value = attribute.integer()) {
                    attribute = ChakraAttribute::int32(attribute.name, mapping.peer(node, static_cast<int>(*value)));
                }
            } else if (node.type == ChakraNodeType::Collective && attribute.name == "pg_name" && mapping.group) {
                if (const std::string group = mapping.group(attribute.string().value_or(std::string()));
                    !group.empty()) {
                    attribute = ChakraAttribute::text("pg_name", group);
                }
            }
        }
    }
    return trace;
}

} // namespace rapid::graph
