// SPDX-License-Identifier: GPL-3.0-or-later
#include "sweepoutput.h"

#include "report/json.h"

#include <algorithm>
#include <cstdio>
#include <ostream>

namespace rapid::sweep {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

} // namespace

const std::string& valueLabel(const SweepResult& result, const SweepRow& row, size_t axis)
{
    return result.space.axes()[axis].values[static_cast<size_t>(row.coordinates[axis])].label;
}

void writeSweepCsv(std::ostream& out, const SweepResult& result)
{
    out << "index";
    for (const SweepAxis& axis : result.space.axes()) {
        out << "," << axis.name;
    }
    out << ",status,step_time_s,ttft_s,itl_s,e2e_s,tokens_per_s,tokens_per_s_per_gpu,mfu,joules_per_token,"
           "peak_memory_gib,capacity_gib,pareto,message\n";
    for (const SweepRow& row : result.rows) {
        out << row.index;
        for (size_t axis = 0; axis < result.space.axes().size(); ++axis) {
            out << ",\"" << valueLabel(result, row, axis) << "\"";
        }
        std::string message = row.message;
        std::replace(message.begin(), message.end(), '"', '\'');
        // The message is written after the formatted figures, so a long one is never cut off.
        char line[400];
        std::snprintf(line, sizeof line, ",%s,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.6g,%.6g,%.4f,%.4f,%d,",
            toString(row.status), row.stepTimeSeconds, row.ttftSeconds, row.itlSeconds, row.e2eSeconds,
            row.tokensPerSecond, row.tokensPerSecondPerGpu, row.mfu, row.joulesPerToken, row.peakMemoryBytes / kGiB,
            row.capacityBytes / kGiB, row.pareto ? 1 : 0);
        out << line << '"' << message << "\"\n";
    }
}

void writeSweepJson(std::ostream& out, const SweepResult& result)
{
    out.precision(15);
    out << "{\n  \"points\": " << result.rows.size() << ",\n  \"seconds\": " << result.seconds
        << ",\n  \"cancelled\": " << (result.cancelled ? "true" : "false") << ",\n  \"axes\": [";
    for (size_t a = 0; a < result.space.axes().size(); ++a) {
        const SweepAxis& axis = result.space.axes()[a];
        out << (a ? ", " : "") << "{\"name\": " << report::jsonString(axis.name) << ", \"values\": [";
        for (size_t v = 0; v < axis.values.size(); ++v) {
            out << (v ? ", " : "") << report::jsonString(axis.values[v].label);
        }
        out << "]}";
    }
    out << "],\n  \"rows\": [\n";
    for (size_t i = 0; i < result.rows.size(); ++i) {
        const SweepRow& row = result.rows[i];
        out << "    {\"index\": " << row.index << ", \"values\": [";
        for (size_t axis = 0; axis < result.space.axes().size(); ++axis) {
            out << (axis ? ", " : "") << report::jsonString(valueLabel(result, row, axis));
        }
        out << "], \"status\": " << report::jsonString(toString(row.status));
        if (row.status == PointStatus::Ok || row.status == PointStatus::DoesNotFit) {
            out << ", \"peak_memory_bytes\": " << row.peakMemoryBytes << ", \"capacity_bytes\": " << row.capacityBytes;
        }
        if (row.status == PointStatus::Ok) {
            if (row.inference) {
                out << ", \"ttft_s\": " << row.ttftSeconds << ", \"itl_s\": " << row.itlSeconds
                    << ", \"e2e_s\": " << row.e2eSeconds;
            } else {
                out << ", \"step_time_s\": " << row.stepTimeSeconds << ", \"mfu\": " << row.mfu;
            }
            if (row.joulesPerToken > 0) {
                out << ", \"joules_per_token\": " << row.joulesPerToken;
            }
            out << ", \"tokens_per_s\": " << row.tokensPerSecond
                << ", \"tokens_per_s_per_gpu\": " << row.tokensPerSecondPerGpu
                << ", \"pareto\": " << (row.pareto ? "true" : "false");
        }
        if (!row.message.empty()) {
            out << ", \"message\": " << report::jsonString(row.message);
        }
        out << "}" << (i + 1 < result.rows.size() ? "," : "") << "\n";
    }
    out << "  ]\n}\n";
}

} // namespace rapid::sweep
