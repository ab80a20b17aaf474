// SPDX-License-Identifier: GPL-3.0-or-later
// The dependency graph of one Chakra file: ids resolved, parents and children as compressed rows, the ASAP schedule
// with its critical path (Kahn's algorithm), and the cycles among the nodes that never become ready (Tarjan).
#include "chakrainspect_p.h"

#include <algorithm>
#include <limits>
#include <unordered_map>

namespace rapid::graph::detail {

namespace {

constexpr auto kNone = std::numeric_limits<std::uint32_t>::max();

/// Parents and children of every node in compressed rows: node i's parents are parents[parentStart[i] ..
/// parentStart[i + 1]), its children likewise.
struct Adjacency {
    std::vector<std::uint32_t> parentStart;
    std::vector<std::uint32_t> parents;
    std::vector<std::uint32_t> childStart;
    std::vector<std::uint32_t> children;
};

/// Node index by id (ASTRA-sim's index keeps the later of two frames with one id); duplicates are a defect.
std::unordered_map<std::uint64_t, std::uint32_t> indexById(const std::vector<ChakraNode>& nodes, DefectSink& sink)
{
    const auto n = static_cast<std::uint32_t>(nodes.size());
    std::unordered_map<std::uint64_t, std::uint32_t> indexOf;
    indexOf.reserve(nodes.size());
    std::map<std::uint64_t, int> duplicates;
    for (std::uint32_t i = 0; i < n; ++i) {
        auto [found, inserted] = indexOf.try_emplace(nodes[i].id, i);
        if (!inserted) {
            found->second = i;
            ++duplicates[nodes[i].id];
        }
    }
    if (!duplicates.empty()) {
        std::vector<std::uint64_t> ids;
        for (const auto& [id, extra] : duplicates) {
            ids.push_back(id);
        }
        sink.add(Kind::DuplicateId, kError, ids,
            std::to_string(ids.size()) + " node ids are used more than once: " + idList(ids));
    }
    return indexOf;
}

/// Resolved parents (control and data alike, each once), edge counts in @p report, children by inversion.
Adjacency resolveEdges(const std::vector<ChakraNode>& nodes, ChakraRankReport& report, DefectSink& sink)
{
    const auto n = static_cast<std::uint32_t>(nodes.size());
    const std::unordered_map<std::uint64_t, std::uint32_t> indexOf = indexById(nodes, sink);
    Adjacency graph;
    graph.parentStart.assign(n + 1, 0);
    std::vector<std::uint32_t> local;
    std::vector<std::uint64_t> missing;
    for (std::uint32_t i = 0; i < n; ++i) {
        const ChakraNode& node = nodes[i];
        report.ctrlEdges += node.ctrlDeps.size();
        report.dataEdges += node.dataDeps.size();
        local.clear();
        missing.clear();
        for (const auto* deps : { &node.ctrlDeps, &node.dataDeps }) {
            for (const std::uint64_t dep : *deps) {
                const auto found = indexOf.find(dep);
                if (found == indexOf.end()) {
                    missing.push_back(dep);
                } else {
                    local.push_back(found->second);
                }
            }
        }
        std::sort(local.begin(), local.end());
        local.erase(std::unique(local.begin(), local.end()), local.end());
        graph.parents.insert(graph.parents.end(), local.begin(), local.end());
        graph.parentStart[i + 1] = static_cast<std::uint32_t>(graph.parents.size());
        if (!missing.empty()) {
            sink.add(Kind::MissingDependency, kError, { node.id },
                nodeLabel(node) + " depends on " + idList(missing) + ", not in the file");
        }
    }
    graph.childStart.assign(n + 1, 0);
    for (const std::uint32_t parent : graph.parents) {
        ++graph.childStart[parent + 1];
    }
    for (std::uint32_t i = 0; i < n; ++i) {
        graph.childStart[i + 1] += graph.childStart[i];
    }
    graph.children.resize(graph.parents.size());
    std::vector<std::uint32_t> fill(graph.childStart.begin(), graph.childStart.end() - 1);
    for (std::uint32_t i = 0; i < n; ++i) {
        for (std::uint32_t p = graph.parentStart[i]; p < graph.parentStart[i + 1]; ++p) {
            graph.children[fill[graph.parents[p]]++] = i;
        }
    }
    return graph;
}

/// Kahn's algorithm: every node starts when its last parent finishes. Fills @p start, the total duration and the
/// critical path of @p report; returns which nodes ran (a node in or behind a cycle never does).
std::vector<char> asapSchedule(const std::vector<ChakraNode>& nodes, const Adjacency& graph, ChakraRankReport& report,
    DefectSink& sink, std::vector<std::uint64_t>& start)
{
    const auto n = static_cast<std::uint32_t>(nodes.size());
    std::vector<std::uint32_t> pending(n);
    std::vector<std::uint32_t> queue;
    queue.reserve(n);
    for (std::uint32_t i = 0; i < n; ++i) {
        pending[i] = graph.parentStart[i + 1] - graph.parentStart[i];
        if (pending[i] == 0) {
            queue.push_back(i);
        }
    }
    if (n > 0 && queue.empty()) {
        sink.add(Kind::NoRootNode, kError, {}, "every node has a parent: nothing can start (ASTRA-sim: deadlock)");
    }
    start.assign(n, std::numeric_limits<std::uint64_t>::max());
    std::vector<std::uint64_t> finish(n, 0);
    std::vector<std::uint32_t> bestParent(n, kNone);
    std::vector<char> processed(n, 0);
    for (std::size_t head = 0; head < queue.size(); ++head) {
        const std::uint32_t v = queue[head];
        processed[v] = 1;
        std::uint64_t earliest = 0;
        for (std::uint32_t p = graph.parentStart[v]; p < graph.parentStart[v + 1]; ++p) {
            if (bestParent[v] == kNone || finish[graph.parents[p]] > earliest) {
                earliest = finish[graph.parents[p]];
                bestParent[v] = graph.parents[p];
            }
        }
        start[v] = earliest;
        finish[v] = saturatingAdd(earliest, nodes[v].durationMicros);
        for (std::uint32_t c = graph.childStart[v]; c < graph.childStart[v + 1]; ++c) {
            if (--pending[graph.children[c]] == 0) {
                queue.push_back(graph.children[c]);
            }
        }
    }
    std::uint32_t last = kNone;
    for (std::uint32_t i = 0; i < n; ++i) {
        report.totalDurationMicros = saturatingAdd(report.totalDurationMicros, nodes[i].durationMicros);
        if (processed[i] && (last == kNone || finish[i] >= finish[last])) {
            last = i;
        }
    }
    if (last != kNone) {
        report.criticalPathMicros = finish[last];
        for (std::uint32_t v = last; v != kNone; v = bestParent[v]) {
            report.criticalPath.push_back(nodes[v].id);
            report.criticalPathFirstName = nodes[v].name;
        }
        std::reverse(report.criticalPath.begin(), report.criticalPath.end());
        report.criticalPathLastName = nodes[last].name;
    }
    return processed;
}

/// The cycles among the nodes that never ran: Tarjan's strongly connected components (iterative), each component
/// of two or more nodes, or a node that is its own parent, one defect.
void reportCycles(
    const std::vector<ChakraNode>& nodes, const Adjacency& graph, const std::vector<char>& processed, DefectSink& sink)
{
    const auto n = static_cast<std::uint32_t>(nodes.size());
    std::vector<std::uint32_t> order(n, kNone);
    std::vector<std::uint32_t> low(n, 0);
    std::vector<char> onStack(n, 0);
    std::vector<std::uint32_t> stack;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> calls; // node, next child position
    std::uint32_t counter = 0;
    const auto visit = [&](std::uint32_t v) {
        order[v] = low[v] = counter++;
        stack.push_back(v);
        onStack[v] = 1;
        calls.emplace_back(v, graph.childStart[v]);
    };
    for (std::uint32_t s = 0; s < n; ++s) {
        if (processed[s] || order[s] != kNone) {
            continue;
        }
        visit(s);
        while (!calls.empty()) {
            const std::uint32_t v = calls.back().first;
            if (calls.back().second < graph.childStart[v + 1]) {
                const std::uint32_t w = graph.children[calls.back().second++];
                if (processed[w]) {
                    continue;
                }
                if (order[w] == kNone) {
                    visit(w);
                } else if (onStack[w]) {
                    low[v] = std::min(low[v], order[w]);
                }
                continue;
            }
            calls.pop_back();
            if (!calls.empty()) {
                low[calls.back().first] = std::min(low[calls.back().first], low[v]);
            }
            if (low[v] != order[v]) {
                continue;
            }
            std::vector<std::uint64_t> ids;
            bool selfLoop = false;
            std::uint32_t w = kNone;
            do {
                w = stack.back();
                stack.pop_back();
                onStack[w] = 0;
                ids.push_back(nodes[w].id);
            } while (w != v);
            for (std::uint32_t c = graph.childStart[v]; c < graph.childStart[v + 1]; ++c) {
                selfLoop = selfLoop || graph.children[c] == v;
            }
            if (ids.size() > 1 || selfLoop) {
                std::sort(ids.begin(), ids.end());
                sink.add(Kind::Cycle, kError, ids,
                    selfLoop && ids.size() == 1
                        ? "node " + std::to_string(ids.front()) + " depends on itself"
                        : std::to_string(ids.size()) + " nodes depend on each other: " + idList(ids));
            }
        }
    }
}

} // namespace

void analyseGraph(
    const ChakraTrace& trace, ChakraRankReport& report, DefectSink& sink, std::vector<std::uint64_t>& start)
{
    const Adjacency graph = resolveEdges(trace.nodes, report, sink);
    const std::vector<char> processed = asapSchedule(trace.nodes, graph, report, sink, start);
    if (std::find(processed.begin(), processed.end(), 0) != processed.end()) {
        reportCycles(trace.nodes, graph, processed, sink);
    }
}

} // namespace rapid::graph::detail
