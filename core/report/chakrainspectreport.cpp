// SPDX-License-Identifier: GPL-3.0-or-later
#include "chakrainspectreport.h"

#include "report/json.h"

#include <cstdio>
#include <map>
#include <ostream>

namespace rapid::report {

using namespace graph; // the inspection and trace types this file writes out

namespace {

std::string bytesText(std::uint64_t bytes)
{
    static const char* const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
    double value = static_cast<double>(bytes);
    std::size_t unit = 0;
    while (value >= 1024 && unit + 1 < std::size(units)) {
        value /= 1024;
        ++unit;
    }
    char text[32];
    std::snprintf(text, sizeof text, unit == 0 ? "%.0f %s" : "%.3g %s", value, units[unit]);
    return text;
}

std::string microsText(std::uint64_t micros)
{
    char text[32];
    if (micros >= 1000000) {
        std::snprintf(text, sizeof text, "%.3f s", static_cast<double>(micros) / 1e6);
    } else if (micros >= 1000) {
        std::snprintf(text, sizeof text, "%.3f ms", static_cast<double>(micros) / 1e3);
    } else {
        std::snprintf(text, sizeof text, "%llu us", static_cast<unsigned long long>(micros));
    }
    return text;
}

/// The per-rank summary lines without the rank number, so identical ranks can be folded.
std::string rankBody(const ChakraRankReport& report, bool withNames)
{
    std::string text = "  nodes " + std::to_string(report.nodeCount) + ":";
    for (int type = 0; type < kChakraNodeTypeCount; ++type) {
        if (report.nodesByType[static_cast<std::size_t>(type)]) {
            text += std::string(" ") + toString(static_cast<ChakraNodeType>(type)) + " "
                + std::to_string(report.nodesByType[static_cast<std::size_t>(type)]);
        }
    }
    if (report.unknownTypeNodes) {
        text += " UNKNOWN " + std::to_string(report.unknownTypeNodes);
    }
    text += "\n  edges " + std::to_string(report.ctrlEdges + report.dataEdges) + ": ctrl "
        + std::to_string(report.ctrlEdges) + ", data " + std::to_string(report.dataEdges) + "\n";
    for (const ChakraCollectiveCount& collective : report.collectives) {
        text += "  collective " + std::string(toString(static_cast<ChakraCollective>(collective.commType))) + " "
            + bytesText(collective.commSize) + " (" + std::to_string(collective.commSize) + " B)"
            + (collective.group.empty() ? std::string() : " group " + collective.group) + " x"
            + std::to_string(collective.count) + "\n";
    }
    if (report.sends || report.recvs) {
        text += "  point-to-point: " + std::to_string(report.sends) + " sends (" + bytesText(report.sendBytes) + "), "
            + std::to_string(report.recvs) + " recvs (" + bytesText(report.recvBytes) + ")\n";
    }
    text += "  durations: total " + microsText(report.totalDurationMicros) + ", critical path "
        + microsText(report.criticalPathMicros) + " over " + std::to_string(report.criticalPath.size()) + " nodes";
    if (!report.criticalPath.empty() && withNames) {
        text += " (" + std::to_string(report.criticalPath.front()) + " \"" + report.criticalPathFirstName + "\"";
        if (report.criticalPath.size() > 1) {
            text += " ... " + std::to_string(report.criticalPath.back()) + " \"" + report.criticalPathLastName + "\"";
        }
        text += ")";
    }
    return text + "\n";
}

} // namespace

void writeChakraInspectionText(
    std::ostream& out, const graph::ChakraInspection& inspection, std::size_t maxDefectsPerKind)
{
    std::size_t nodes = 0;
    for (const ChakraRankReport& report : inspection.ranks) {
        nodes += report.nodeCount;
    }
    out << inspection.ranks.size() << (inspection.ranks.size() == 1 ? " rank, " : " ranks, ") << nodes << " nodes, "
        << inspection.count(ChakraSeverity::Error) << " errors, " << inspection.count(ChakraSeverity::Warning)
        << " warnings\n";
    // Fold consecutive ranks whose summaries are identical.
    for (std::size_t i = 0; i < inspection.ranks.size();) {
        const std::string body = rankBody(inspection.ranks[i], true);
        // Node names are left out of the comparison: ranks often differ only in a data-parallel index in names.
        const std::string shape = rankBody(inspection.ranks[i], false);
        std::size_t j = i + 1;
        while (j < inspection.ranks.size() && rankBody(inspection.ranks[j], false) == shape) {
            ++j;
        }
        const ChakraRankReport& first = inspection.ranks[i];
        out << "\nrank " << first.rank;
        if (j - i > 1) {
            out << " (and " << (j - i - 1) << " more up to rank " << inspection.ranks[j - 1].rank << ", same counts)";
        }
        out << ": " << first.path << (first.version.empty() ? "" : "  version " + first.version);
        for (const graph::ChakraAttribute& attribute : first.metadata) {
            out << "  " << attribute.name << " " << attribute.valueText();
        }
        out << "\n" << body;
        i = j;
    }
    if (inspection.defects.empty()) {
        out << "\nno defects\n";
        return;
    }
    std::map<ChakraDefectKind, std::vector<const ChakraDefect*>> byKind;
    for (const ChakraDefect& defect : inspection.defects) {
        byKind[defect.kind].push_back(&defect);
    }
    for (const auto& [kind, defects] : byKind) {
        out << "\n" << toString(defects.front()->severity) << " " << toString(kind) << " (" << defects.size() << ")\n";
        for (std::size_t i = 0; i < defects.size(); ++i) {
            if (maxDefectsPerKind && i == maxDefectsPerKind) {
                out << "  ... and " << (defects.size() - i) << " more (use --all or --json)\n";
                break;
            }
            const ChakraDefect& defect = *defects[i];
            out << "  " << (defect.rank >= 0 ? "rank " + std::to_string(defect.rank) + ": " : std::string())
                << defect.message;
            // List the ids unless the message already does.
            const bool listed = !defect.nodeIds.empty()
                && defect.message.find(std::to_string(defect.nodeIds[0])) != std::string::npos;
            if (defect.nodeIds.size() > 1 && !listed) {
                out << "  [" << defect.nodeIds.size() << " nodes:";
                for (std::size_t k = 0; k < defect.nodeIds.size() && k < 10; ++k) {
                    out << " " << defect.nodeIds[k];
                }
                out << (defect.nodeIds.size() > 10 ? " ...]" : "]");
            } else if (defect.nodeIds.size() == 1 && !listed) {
                out << "  [node " << defect.nodeIds[0] << "]";
            }
            out << "\n";
        }
    }
}

namespace {

Json rankJson(const ChakraRankReport& rank)
{
    Json byType = Json::object();
    for (int type = 0; type < kChakraNodeTypeCount; ++type) {
        byType[toString(static_cast<ChakraNodeType>(type))] = rank.nodesByType[static_cast<std::size_t>(type)];
    }
    byType["UNKNOWN"] = rank.unknownTypeNodes;
    Json collectives = Json::array();
    for (const ChakraCollectiveCount& collective : rank.collectives) {
        collectives.push_back({ { "comm_type", collective.commType },
            { "kind", toString(static_cast<ChakraCollective>(collective.commType)) },
            { "comm_size", collective.commSize }, { "group", collective.group }, { "count", collective.count } });
    }
    Json metadata = Json::object();
    for (const graph::ChakraAttribute& attribute : rank.metadata) {
        // A string as itself; any other value as its text ("1048576", "[true, false]").
        metadata[attribute.name] = attribute.string().value_or(attribute.valueText());
    }
    return { { "rank", rank.rank }, { "path", rank.path }, { "version", rank.version }, { "metadata", metadata },
        { "nodes", rank.nodeCount }, { "nodes_by_type", byType }, { "ctrl_edges", rank.ctrlEdges },
        { "data_edges", rank.dataEdges }, { "collectives", collectives }, { "sends", rank.sends },
        { "send_bytes", rank.sendBytes }, { "recvs", rank.recvs }, { "recv_bytes", rank.recvBytes },
        { "total_duration_micros", rank.totalDurationMicros }, { "critical_path_micros", rank.criticalPathMicros },
        { "critical_path", rank.criticalPath } };
}

} // namespace

void writeChakraInspectionJson(std::ostream& out, const graph::ChakraInspection& inspection)
{
    Json ranks = Json::array();
    for (const ChakraRankReport& rank : inspection.ranks) {
        ranks.push_back(rankJson(rank));
    }
    Json defects = Json::array();
    for (const ChakraDefect& defect : inspection.defects) {
        defects.push_back({ { "kind", toString(defect.kind) }, { "severity", toString(defect.severity) },
            { "rank", defect.rank }, { "nodes", defect.nodeIds }, { "message", defect.message } });
    }
    writeJson(out,
        { { "ranks", ranks }, { "errors", inspection.count(ChakraSeverity::Error) },
            { "warnings", inspection.count(ChakraSeverity::Warning) }, { "defects", defects } });
}

} // namespace rapid::report
