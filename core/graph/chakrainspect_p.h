// SPDX-License-Identifier: GPL-3.0-or-later
// Internal to core/graph: what the Chakra inspection's translation units share (chakrainspect.cpp,
// chakragraphcheck.cpp): the defect sink and how ids and nodes are named in messages.
#pragma once

#include "graph/chakrainspect.h"

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace rapid::graph::detail {

using Kind = ChakraDefectKind;
constexpr auto kError = ChakraSeverity::Error;
constexpr auto kWarning = ChakraSeverity::Warning;
/// The simulated-time ceiling (sim::kMaxSimulatedTime, 10^17 ns) in microseconds: a node lasting longer is a defect,
/// and the schedule's sums saturate there instead of wrapping.
constexpr std::uint64_t kMaxDurationMicros = 100'000'000'000'000;

/// @p a + @p b, or UINT64_MAX when the sum would wrap.
constexpr std::uint64_t saturatingAdd(std::uint64_t a, std::uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/// "1, 2, 3, ... (12 in all)": at most @p limit ids.
inline std::string idList(const std::vector<std::uint64_t>& ids, std::size_t limit = 10)
{
    std::string text;
    for (std::size_t i = 0; i < ids.size() && i < limit; ++i) {
        text += (i ? ", " : "") + std::to_string(ids[i]);
    }
    if (ids.size() > limit) {
        text += ", ... (" + std::to_string(ids.size()) + " in all)";
    }
    return text;
}

/// Collects one rank's defects, merging those of the same key (e.g. one unknown attribute name) into one entry
/// that lists every node id.
class DefectSink {
public:
    DefectSink(std::vector<ChakraDefect>& out, int rank)
        : m_out(out)
        , m_rank(rank)
    {
    }

    void add(Kind kind, ChakraSeverity severity, std::vector<std::uint64_t> ids, std::string message)
    {
        m_out.push_back({ kind, severity, m_rank, std::move(ids), std::move(message) });
    }

    /// Adds @p id to the defect under @p key, creating it with @p message first.
    void merge(const std::string& key, Kind kind, ChakraSeverity severity, std::uint64_t id, const std::string& message)
    {
        auto [found, inserted] = m_merged.try_emplace(key, m_out.size());
        if (inserted) {
            m_out.push_back({ kind, severity, m_rank, {}, message });
        }
        m_out[found->second].nodeIds.push_back(id);
    }

private:
    std::vector<ChakraDefect>& m_out;
    int m_rank;
    std::map<std::string, std::size_t> m_merged;
};

inline std::string nodeLabel(const ChakraNode& node)
{
    return "node " + std::to_string(node.id) + " \"" + node.name + "\"";
}

/// Dependency structure of one file: resolved parents per node, with defects for what does not resolve (duplicate ids,
/// missing parents, no root, cycles), and the ASAP schedule: @p start per node (microseconds; the maximum for nodes
/// that never become ready), total duration and critical path in @p report.
void analyseGraph(
    const ChakraTrace& trace, ChakraRankReport& report, DefectSink& sink, std::vector<std::uint64_t>& start);

/// One collective as issued by one rank, for the cross-rank order check.
struct IssuedCollective {
    std::uint64_t start = 0; ///< earliest start in the rank's ASAP schedule (issue order)
    std::size_t fileIndex = 0; ///< breaks ties of start
    std::uint64_t id = 0;
    std::int64_t commType = 0;
    std::uint64_t commSize = 0;
};

/// One point-to-point endpoint, for the cross-rank matching.
struct Endpoint {
    int rank = 0;
    std::uint64_t id = 0;
};
using P2pKey = std::tuple<std::int64_t, std::int64_t, std::int64_t, std::uint64_t>; // src, dst, tag, size

/// What inspecting one rank's file yields: its report and defects, and what the cross-rank checks need of it.
struct RankFragment {
    ChakraRankReport report;
    std::vector<ChakraDefect> defects;
    std::map<std::string, std::vector<IssuedCollective>> collectives; ///< by pg_name, in file order
    std::vector<std::pair<P2pKey, Endpoint>> sends;
    std::vector<std::pair<P2pKey, Endpoint>> recvs;
};

/// Inspects one rank's trace on its own (graph, attributes, communication attributes, group membership).
RankFragment inspectRank(const ChakraTrace& trace, const ChakraCommGroups* groups);

/// The cross-rank checks of a set, fed one rank at a time so the set never has to be in memory: ranks missing from
/// the set, unmatched sends and receives, and collectives issued in a different order by members of one group (the
/// first member's sequence is the reference).
class CrossRankCheck {
public:
    /// @p ranks: every rank of the set (for gaps and group members); @p groups: the comm-group file or nullptr.
    CrossRankCheck(std::set<int> ranks, const ChakraCommGroups* groups);
    /// Takes @p fragment's collectives and endpoints. Ranks must come in ascending order, each once.
    void add(int rank, RankFragment& fragment);
    /// Appends the cross-rank defects: missing ranks, then point-to-point, then collective order by group.
    void finish(std::vector<ChakraDefect>& defects);

private:
    struct Compact {
        std::uint64_t id = 0;
        std::int64_t commType = 0;
        std::uint64_t commSize = 0;
    };
    struct GroupOrder {
        bool used = false; ///< some rank issued a collective in it
        bool hasReference = false;
        int referenceRank = 0;
        std::vector<Compact> reference;
        std::vector<ChakraDefect> mismatches; ///< in member order
    };
    void compare(const std::string& group, int rank, const std::vector<IssuedCollective>& issued);

    std::set<int> m_ranks;
    const ChakraCommGroups* m_groups;
    std::map<int, std::vector<std::string>> m_fileGroupsOf; ///< rank -> groups of the file it is a member of
    std::map<std::string, GroupOrder> m_order;
    std::map<P2pKey, std::pair<std::vector<Endpoint>, std::vector<Endpoint>>> m_p2p; // sends, recvs
};

} // namespace rapid::graph::detail
