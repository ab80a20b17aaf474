// SPDX-License-Identifier: GPL-3.0-or-later
#include "tracegraph/graphselection.h"

#include <QCoreApplication>

#include <algorithm>
#include <cctype>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace rapid::widgets {

namespace {

std::string lowerAscii(std::string text)
{
    std::transform(
        text.begin(), text.end(), text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return text;
}

QString tr(const char* text)
{
    return QCoreApplication::translate("GraphSelection", text);
}

std::optional<std::uint64_t> parseId(const QString& text, bool* ok)
{
    const QString trimmed = text.trimmed();
    if (trimmed.isEmpty()) {
        *ok = true;
        return std::nullopt;
    }
    const qulonglong value = trimmed.toULongLong(ok);
    return *ok ? std::optional<std::uint64_t>(value) : std::nullopt;
}

} // namespace

std::optional<graph::ChakraDotFilter> makeGraphFilter(const QString& text, const QString& idRange, QString* error)
{
    graph::ChakraDotFilter filter;
    const QString range = idRange.trimmed();
    if (!range.isEmpty()) {
        const qsizetype dash = range.indexOf(u'-');
        bool firstOk = false;
        bool lastOk = false;
        if (dash < 0) {
            filter.firstId = parseId(range, &firstOk);
            filter.lastId = filter.firstId;
            lastOk = true;
        } else {
            filter.firstId = parseId(range.left(dash), &firstOk);
            filter.lastId = parseId(range.mid(dash + 1), &lastOk);
        }
        if (!firstOk || !lastOk || (filter.firstId && filter.lastId && *filter.firstId > *filter.lastId)) {
            if (error) {
                *error = tr("Ids: expected FIRST-LAST (e.g. 100-250), FIRST-, -LAST or one id, not \u201c%1\u201d.")
                             .arg(range);
            }
            return std::nullopt;
        }
    }
    const std::string needle = lowerAscii(text.trimmed().toStdString());
    if (!needle.empty()) {
        // The type is matched too so that "COMP" or "SEND" selects by kind even when names do not say it.
        filter.predicate = [needle](const graph::ChakraNode& node) {
            return lowerAscii(node.name).find(needle) != std::string::npos
                || lowerAscii(graph::toString(node.type)).find(needle) != std::string::npos;
        };
    }
    return filter;
}

namespace {

/// The selected nodes in id order, each with the positions (in that order) of the selected nodes it shares an edge
/// with at or below it: an edge is kept at its higher end, once per dependency entry.
struct SelectionGraph {
    std::vector<std::uint64_t> ids;
    std::vector<std::vector<std::size_t>> lower;
};

SelectionGraph selectionGraph(const graph::ChakraTrace& trace, const graph::ChakraDotFilter& filter)
{
    SelectionGraph graph;
    for (const graph::ChakraNode& node : trace.nodes) {
        if (filter.accepts(node)) {
            graph.ids.push_back(node.id);
        }
    }
    std::sort(graph.ids.begin(), graph.ids.end());
    graph.ids.erase(std::unique(graph.ids.begin(), graph.ids.end()), graph.ids.end());
    std::unordered_map<std::uint64_t, std::size_t> position;
    position.reserve(graph.ids.size());
    for (std::size_t i = 0; i < graph.ids.size(); ++i) {
        position.emplace(graph.ids[i], i);
    }
    graph.lower.resize(graph.ids.size());
    for (const graph::ChakraNode& node : trace.nodes) {
        const auto self = position.find(node.id);
        if (self == position.end() || !filter.accepts(node)) {
            continue;
        }
        for (const auto* deps : { &node.dataDeps, &node.ctrlDeps }) {
            for (const std::uint64_t parent : *deps) {
                if (const auto other = position.find(parent); other != position.end()) {
                    const auto [low, high] = std::minmax(self->second, other->second);
                    graph.lower[high].push_back(low);
                }
            }
        }
    }
    return graph;
}

/// Grows a window from position @p first while it fits the layout limits (at least one node); returns the position
/// after its last node and fills @p size. @p rank is scratch space, one entry per selected node.
std::size_t growWindow(
    const SelectionGraph& graph, std::size_t first, std::vector<std::size_t>& rank, GraphSelectionSize& size)
{
    size = {};
    std::size_t end = first;
    for (; end < graph.ids.size(); ++end) {
        std::size_t nodeRank = 0;
        std::size_t edges = 0;
        for (const std::size_t other : graph.lower[end]) {
            if (other >= first && other < end) {
                nodeRank = std::max(nodeRank, rank[other] + 1);
            }
        }
        std::size_t span = 0;
        for (const std::size_t other : graph.lower[end]) {
            if (other >= first) {
                ++edges;
                span += other == end ? 1 : nodeRank - rank[other];
            }
        }
        const GraphSelectionSize grown { size.nodes + 1, size.edges + edges, size.rankSpan + span };
        if (end > first && !grown.fitsLayout()) {
            break;
        }
        rank[end] = nodeRank;
        size = grown;
    }
    return end;
}

} // namespace

GraphSelectionSize measureSelection(const graph::ChakraTrace& trace, const graph::ChakraDotFilter& filter)
{
    const SelectionGraph graph = selectionGraph(trace, filter);
    GraphSelectionSize size;
    size.nodes = graph.ids.size();
    std::vector<std::size_t> rank(graph.ids.size(), 0);
    for (std::size_t i = 0; i < graph.ids.size(); ++i) {
        for (const std::size_t other : graph.lower[i]) {
            if (other < i) {
                rank[i] = std::max(rank[i], rank[other] + 1);
            }
        }
        for (const std::size_t other : graph.lower[i]) {
            ++size.edges;
            size.rankSpan += other == i ? 1 : rank[i] - rank[other];
        }
    }
    return size;
}

graph::ChakraDotFilter GraphWindow::narrow(const graph::ChakraDotFilter& filter) const
{
    graph::ChakraDotFilter narrowed = filter;
    narrowed.firstId = firstId;
    narrowed.lastId = lastId;
    return narrowed;
}

std::vector<GraphWindow> graphWindows(const graph::ChakraTrace& trace, const graph::ChakraDotFilter& filter)
{
    const SelectionGraph graph = selectionGraph(trace, filter);
    std::vector<GraphWindow> windows;
    std::vector<std::size_t> rank(graph.ids.size(), 0);
    for (std::size_t first = 0; first < graph.ids.size();) {
        GraphWindow window;
        const std::size_t end = growWindow(graph, first, rank, window.size);
        window.firstId = graph.ids[first];
        window.lastId = graph.ids[end - 1];
        windows.push_back(window);
        first = end;
    }
    return windows;
}

} // namespace rapid::widgets
