// SPDX-License-Identifier: GPL-3.0-or-later
#include "tracegraph/graphsearch.h"

#include "tracegraph/graphcanvas.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace rapid::widgets {

namespace {

bool contains(const std::string& haystack, const std::string& lowerNeedle)
{
    std::string lower = haystack;
    std::transform(
        lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return lower.find(lowerNeedle) != std::string::npos;
}

} // namespace

std::vector<std::uint64_t> drawnSearchMatches(
    const graph::ChakraTrace& trace, const GraphCanvas& canvas, const QString& text)
{
    std::vector<std::uint64_t> matches;
    const std::string needle = text.trimmed().toLower().toStdString();
    if (needle.empty()) {
        return matches;
    }
    for (const graph::ChakraNode& node : trace.nodes) {
        if (canvas.nodeBounds(node.id)
            && (contains(node.name, needle) || contains(graph::toString(node.type), needle)
                || std::to_string(node.id) == needle)) {
            matches.push_back(node.id);
        }
    }
    return matches;
}

std::uint64_t nextSearchMatch(const std::vector<std::uint64_t>& matches, std::optional<std::uint64_t> shown)
{
    if (shown) {
        const auto at = std::find(matches.begin(), matches.end(), *shown);
        if (at != matches.end() && std::next(at) != matches.end()) {
            return *std::next(at);
        }
    }
    return matches.front();
}

} // namespace rapid::widgets
