// SPDX-License-Identifier: GPL-3.0-or-later
#include "chakrainspect.h"
#include "chakrainspect_p.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <tuple>

namespace rapid::graph {

const char* toString(ChakraDefectKind kind)
{
    switch (kind) {
    case ChakraDefectKind::MissingRank:
        return "missing-rank";
    case ChakraDefectKind::DuplicateId:
        return "duplicate-id";
    case ChakraDefectKind::MissingDependency:
        return "missing-dependency";
    case ChakraDefectKind::Cycle:
        return "cycle";
    case ChakraDefectKind::NoRootNode:
        return "no-root-node";
    case ChakraDefectKind::UnknownNodeType:
        return "unknown-node-type";
    case ChakraDefectKind::InvalidNode:
        return "invalid-node";
    case ChakraDefectKind::AttributeWithoutValue:
        return "attribute-without-value";
    case ChakraDefectKind::UnknownAttribute:
        return "unknown-attribute";
    case ChakraDefectKind::AttributeWrongType:
        return "attribute-wrong-type";
    case ChakraDefectKind::MissingAttribute:
        return "missing-attribute";
    case ChakraDefectKind::UnsupportedCollective:
        return "unsupported-collective";
    case ChakraDefectKind::CpuCommunication:
        return "cpu-communication";
    case ChakraDefectKind::BadPeer:
        return "bad-peer";
    case ChakraDefectKind::UnmatchedSend:
        return "unmatched-send";
    case ChakraDefectKind::UnmatchedRecv:
        return "unmatched-recv";
    case ChakraDefectKind::CollectiveOrderMismatch:
        return "collective-order-mismatch";
    case ChakraDefectKind::UnknownGroup:
        return "unknown-group";
    case ChakraDefectKind::DurationBeyondCeiling:
        return "duration-beyond-ceiling";
    }
    return "?";
}

const char* toString(ChakraSeverity severity)
{
    return severity == ChakraSeverity::Error ? "error" : "warning";
}

std::size_t ChakraInspection::count(ChakraSeverity severity) const
{
    return static_cast<std::size_t>(std::count_if(defects.begin(), defects.end(),
        [severity](const ChakraDefect& defect) { return defect.severity == severity; }));
}

namespace {

using detail::DefectSink;
using detail::Endpoint;
using detail::idList;
using detail::kError;
using detail::Kind;
using detail::kWarning;
using detail::nodeLabel;
using detail::P2pKey;
using detail::RankFragment;

enum class Expect { Integer, BoolList, String, StringList };

struct KnownAttribute {
    std::string_view name;
    Expect expect;
};

// The conventions of the format note (1.7): what ASTRA-sim reads and what the PyTorch converter adds.
constexpr KnownAttribute kKnownAttributes[] = {
    { "is_cpu_op", Expect::Integer },
    { "num_ops", Expect::Integer },
    { "tensor_size", Expect::Integer },
    { "tensor_loc", Expect::Integer },
    { "comm_type", Expect::Integer },
    { "comm_size", Expect::Integer },
    { "comm_priority", Expect::Integer },
    { "involved_dim", Expect::BoolList },
    { "pg_name", Expect::String },
    { "comm_src", Expect::Integer },
    { "comm_dst", Expect::Integer },
    { "comm_tag", Expect::Integer },
    { "inputs", Expect::StringList },
    { "outputs", Expect::StringList },
    { "rf_id", Expect::Integer },
    { "fw_parent", Expect::Integer },
    { "seq_id", Expect::Integer },
    { "scope", Expect::Integer },
    { "tid", Expect::Integer },
    { "fw_tid", Expect::Integer },
    { "stream", Expect::Integer },
    { "op_schema", Expect::String },
};

bool accepts(Expect expect, ChakraAttributeType type)
{
    switch (expect) {
    case Expect::Integer:
        return isIntegerType(type);
    case Expect::BoolList:
        return type == ChakraAttributeType::BoolList;
    case Expect::String:
        return type == ChakraAttributeType::String || type == ChakraAttributeType::Bytes;
    case Expect::StringList:
        return type == ChakraAttributeType::StringList || type == ChakraAttributeType::BytesList;
    }
    return false;
}

const char* describe(Expect expect)
{
    switch (expect) {
    case Expect::Integer:
        return "an integer or bool member";
    case Expect::BoolList:
        return "bool_list";
    case Expect::String:
        return "string_val";
    case Expect::StringList:
        return "string_list";
    }
    return "?";
}

void checkAttributes(const ChakraNode& node, DefectSink& sink)
{
    for (const ChakraAttribute& attribute : node.attributes) {
        if (attribute.type == ChakraAttributeType::None) {
            sink.merge("novalue:" + attribute.name, Kind::AttributeWithoutValue, kError, node.id,
                "attribute \"" + attribute.name + "\" has no value (ASTRA-sim: error)");
            continue;
        }
        const auto known = std::find_if(std::begin(kKnownAttributes), std::end(kKnownAttributes),
            [&attribute](const KnownAttribute& candidate) { return candidate.name == attribute.name; });
        if (known == std::end(kKnownAttributes)) {
            sink.merge(std::string("unknown:") + attribute.name + ":" + toString(attribute.type),
                Kind::UnknownAttribute, kWarning, node.id,
                "unknown attribute \"" + attribute.name + "\" (" + toString(attribute.type) + ")");
            continue;
        }
        if (!accepts(known->expect, attribute.type)) {
            sink.merge(std::string("type:") + attribute.name + ":" + toString(attribute.type), Kind::AttributeWrongType,
                kError, node.id,
                "attribute \"" + attribute.name + "\" is " + toString(attribute.type) + ", expected "
                    + describe(known->expect));
        }
    }
}

/// Required integer attribute of a COMM node; reports its absence.
std::optional<std::int64_t> required(const ChakraNode& node, std::string_view name, DefectSink& sink)
{
    const ChakraAttribute* attribute = node.attribute(name);
    if (!attribute) {
        sink.merge(std::string("missing:") + toString(node.type) + ":" + std::string(name), Kind::MissingAttribute,
            kError, node.id, std::string(toString(node.type)) + " without \"" + std::string(name) + "\"");
        return std::nullopt;
    }
    return attribute->integer();
}

void checkCommunication(const ChakraNode& node, std::size_t fileIndex, std::uint64_t start, int rank, DefectSink& sink,
    RankFragment& fragment, std::map<std::tuple<std::string, std::int64_t, std::uint64_t>, std::size_t>& counts)
{
    if (node.integerAttribute("is_cpu_op").value_or(0) != 0) {
        sink.merge("cpucomm", Kind::CpuCommunication, kError, node.id,
            "communication node with is_cpu_op = true (ASTRA-sim aborts)");
    }
    const std::optional<std::int64_t> size = required(node, "comm_size", sink);
    if (node.type == ChakraNodeType::Collective) {
        const std::optional<std::int64_t> type = required(node, "comm_type", sink);
        const ChakraAttribute* group = node.attribute("pg_name");
        const std::string groupName = group && group->string() ? *group->string() : std::string();
        if (type) {
            const auto collective = static_cast<ChakraCollective>(*type);
            const bool simulated = collective == ChakraCollective::AllReduce
                || collective == ChakraCollective::AllGather || collective == ChakraCollective::ReduceScatter
                || collective == ChakraCollective::AllToAll || collective == ChakraCollective::Broadcast;
            if (!simulated) {
                sink.merge("collective:" + std::to_string(*type), Kind::UnsupportedCollective, kError, node.id,
                    "comm_type " + std::to_string(*type) + " (" + toString(collective)
                        + ") is not supported by ASTRA-sim (\"Unsupported collective comm type\")");
            }
        }
        if (type && size) {
            ++counts[{ groupName, *type, static_cast<std::uint64_t>(*size) }];
            fragment.collectives[groupName].push_back(
                { start, fileIndex, node.id, *type, static_cast<std::uint64_t>(*size) });
        }
        return;
    }
    const bool send = node.type == ChakraNodeType::Send;
    const std::optional<std::int64_t> tag = required(node, "comm_tag", sink);
    std::optional<std::int64_t> peer = required(node, send ? "comm_dst" : "comm_src", sink);
    const std::optional<std::int64_t> self = node.integerAttribute(send ? "comm_src" : "comm_dst");
    if (self && *self != rank) {
        sink.merge(std::string("self:") + (send ? "send" : "recv"), Kind::BadPeer, kError, node.id,
            std::string(send ? "SEND with comm_src" : "RECV with comm_dst") + " not equal to its own rank "
                + std::to_string(rank));
    }
    ChakraRankReport& report = fragment.report;
    if (send) {
        ++report.sends;
        report.sendBytes += static_cast<std::uint64_t>(size.value_or(0));
    } else {
        ++report.recvs;
        report.recvBytes += static_cast<std::uint64_t>(size.value_or(0));
    }
    if (!peer || !tag || !size) {
        return;
    }
    const P2pKey key = send ? P2pKey { rank, *peer, *tag, static_cast<std::uint64_t>(*size) }
                            : P2pKey { *peer, rank, *tag, static_cast<std::uint64_t>(*size) };
    (send ? fragment.sends : fragment.recvs).emplace_back(key, Endpoint { rank, node.id });
}

} // namespace

namespace detail {

RankFragment inspectRank(const ChakraTrace& trace, const ChakraCommGroups* groups)
{
    RankFragment fragment;
    ChakraRankReport& report = fragment.report;

    report.rank = trace.rank;
    report.path = trace.path;
    report.version = trace.metadata.version;
    report.metadata = trace.metadata.attributes;
    report.nodeCount = trace.nodes.size();
    DefectSink sink(fragment.defects, trace.rank);
    std::vector<std::uint64_t> start;
    detail::analyseGraph(trace, report, sink, start);

    std::map<std::tuple<std::string, std::int64_t, std::uint64_t>, std::size_t> counts;
    for (std::size_t i = 0; i < trace.nodes.size(); ++i) {
        const ChakraNode& node = trace.nodes[i];
        if (isKnown(node.type)) {
            ++report.nodesByType[static_cast<std::size_t>(node.type)];
        } else {
            ++report.unknownTypeNodes;
            sink.merge("type:" + std::to_string(static_cast<std::int32_t>(node.type)), Kind::UnknownNodeType, kError,
                node.id, "node type " + std::to_string(static_cast<std::int32_t>(node.type)) + " is not a NodeType");
        }
        if (node.type == ChakraNodeType::Invalid) {
            sink.merge("invalid", Kind::InvalidNode, kWarning, node.id, "INVALID_NODE (skipped by ASTRA-sim)");
        }
        checkAttributes(node, sink);
        if (node.durationMicros > detail::kMaxDurationMicros) {
            sink.merge("duration", Kind::DurationBeyondCeiling, kError, node.id,
                "duration_micros beyond 10^14 us (3.2 years), the simulated-time ceiling");
        }
        if (isCommunication(node.type)) {
            checkCommunication(node, i, start[i], trace.rank, sink, fragment, counts);
        }
        if (const ChakraAttribute* group = node.attribute("pg_name");
            groups && group && group->string() && node.type == ChakraNodeType::Collective) {
            const auto found = groups->find(*group->string());
            if (found == groups->end()) {
                sink.merge("group:" + *group->string(), Kind::UnknownGroup, kError, node.id,
                    "pg_name \"" + *group->string() + "\" is not in the comm-group file");
            } else if (std::find(found->second.begin(), found->second.end(), trace.rank) == found->second.end()) {
                sink.merge("member:" + *group->string(), Kind::UnknownGroup, kError, node.id,
                    "rank " + std::to_string(trace.rank) + " is not a member of group \"" + *group->string() + "\"");
            }
        }
    }
    for (const auto& [key, count] : counts) {
        report.collectives.push_back({ std::get<1>(key), std::get<2>(key), std::get<0>(key), count });
    }
    return fragment;
}

} // namespace detail

ChakraInspection inspectChakra(const std::vector<ChakraTrace>& traces, const ChakraCommGroups* groups)
{
    ChakraInspection inspection;
    std::set<int> ranks;
    for (const ChakraTrace& trace : traces) {
        ranks.insert(trace.rank);
    }
    // Reports and per-rank defects in the order given; the cross-rank check takes ranks in ascending order, the
    // fragments of traces that share a rank merged (their collectives in one issue order, as one file's would be).
    std::map<int, detail::RankFragment> byRank;
    for (const ChakraTrace& trace : traces) {
        detail::RankFragment fragment = detail::inspectRank(trace, groups);
        inspection.ranks.push_back(std::move(fragment.report));
        inspection.defects.insert(inspection.defects.end(), std::make_move_iterator(fragment.defects.begin()),
            std::make_move_iterator(fragment.defects.end()));
        detail::RankFragment& merged = byRank[trace.rank];
        for (auto& [group, issued] : fragment.collectives) {
            auto& into = merged.collectives[group];
            into.insert(into.end(), issued.begin(), issued.end());
        }
        merged.sends.insert(merged.sends.end(), fragment.sends.begin(), fragment.sends.end());
        merged.recvs.insert(merged.recvs.end(), fragment.recvs.begin(), fragment.recvs.end());
    }
    detail::CrossRankCheck check(std::move(ranks), groups);
    for (auto& [rank, fragment] : byRank) {
        check.add(rank, fragment);
    }
    check.finish(inspection.defects);
    return inspection;
}

} // namespace rapid::graph
