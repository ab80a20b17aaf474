// SPDX-License-Identifier: GPL-3.0-or-later
// Internal to core/graph: what the Chakra inspection's translation units share (chakrainspect.cpp,
// chakragraphcheck.cpp): the defect sink and how ids and nodes are named in messages.
#pragma once

#include "graph/chakrainspect.h"

#include <cstdint>
#include <map>
#include <string>
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

} // namespace rapid::graph::detail
