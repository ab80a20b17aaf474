// SPDX-License-Identifier: GPL-3.0-or-later
#include "chakradot.h"

#include <ostream>
#include <unordered_set>

namespace rapid::graph {

bool ChakraDotFilter::accepts(const ChakraNode& node) const
{
    return (nameContains.empty() || node.name.find(nameContains) != std::string::npos)
        && (!firstId || node.id >= *firstId) && (!lastId || node.id <= *lastId) && (!predicate || predicate(node));
}

namespace {

std::string dotEscape(const std::string& text)
{
    std::string out;
    out.reserve(text.size());
    for (const char c : text) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (c == '\n') {
            out += "\\n";
        } else {
            out += c;
        }
    }
    return out;
}

std::string label(const ChakraNode& node)
{
    std::string text = dotEscape(node.name) + "\\n" + toString(node.type);
    if (node.type == ChakraNodeType::Collective) {
        if (const auto type = node.integerAttribute("comm_type")) {
            text += std::string(" ") + toString(static_cast<ChakraCollective>(*type));
        }
    }
    if (isCommunication(node.type)) {
        if (const auto size = node.integerAttribute("comm_size")) {
            text += " " + std::to_string(*size) + " B";
        }
    }
    return text + "\\n" + std::to_string(node.durationMicros) + " us";
}

} // namespace

void writeChakraDot(std::ostream& out, const ChakraTrace& trace, const ChakraDotFilter& filter)
{
    std::unordered_set<std::uint64_t> drawn;
    out << "digraph \"rank " << trace.rank << "\" {\n"
        << "  node [shape=box, fontname=\"Helvetica\", fontsize=10];\n"
        << "  edge [color=\"#555555\"];\n";
    for (const ChakraNode& node : trace.nodes) {
        if (!filter.accepts(node)) {
            continue;
        }
        drawn.insert(node.id);
        out << "  n" << node.id << " [label=\"" << label(node) << "\"";
        if (isCommunication(node.type)) {
            out << ", shape=ellipse, style=filled, fillcolor=\""
                << (node.type == ChakraNodeType::Collective ? "#f6c28b" : "#a8d5e2") << "\"";
        }
        out << "];\n";
    }
    for (const ChakraNode& node : trace.nodes) {
        if (!drawn.count(node.id)) {
            continue;
        }
        for (const std::uint64_t parent : node.dataDeps) {
            if (drawn.count(parent)) {
                out << "  n" << parent << " -> n" << node.id << ";\n";
            }
        }
        for (const std::uint64_t parent : node.ctrlDeps) {
            if (drawn.count(parent)) {
                out << "  n" << parent << " -> n" << node.id << " [style=dashed];\n";
            }
        }
    }
    out << "}\n";
}

} // namespace rapid::graph
