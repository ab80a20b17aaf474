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

namespace {

/// One row of the JSON document: its figures where the point has them.
report::Json rowJson(const SweepResult& result, const SweepRow& row)
{
    report::Json values = report::Json::array();
    for (size_t axis = 0; axis < result.space.axes().size(); ++axis) {
        values.push_back(valueLabel(result, row, axis));
    }
    report::Json json = { { "index", row.index }, { "values", values }, { "status", toString(row.status) } };
    if (row.status == PointStatus::Ok || row.status == PointStatus::DoesNotFit) {
        json["peak_memory_bytes"] = row.peakMemoryBytes;
        json["capacity_bytes"] = row.capacityBytes;
    }
    if (row.status == PointStatus::Ok) {
        if (row.inference) {
            json["ttft_s"] = row.ttftSeconds;
            json["itl_s"] = row.itlSeconds;
            json["e2e_s"] = row.e2eSeconds;
        } else {
            json["step_time_s"] = row.stepTimeSeconds;
            json["mfu"] = row.mfu;
        }
        if (row.joulesPerToken > 0) {
            json["joules_per_token"] = row.joulesPerToken;
        }
        json["tokens_per_s"] = row.tokensPerSecond;
        json["tokens_per_s_per_gpu"] = row.tokensPerSecondPerGpu;
        json["pareto"] = row.pareto;
    }
    if (!row.message.empty()) {
        json["message"] = row.message;
    }
    return json;
}

} // namespace

void writeSweepJson(std::ostream& out, const SweepResult& result)
{
    report::Json axes = report::Json::array();
    for (const SweepAxis& axis : result.space.axes()) {
        report::Json values = report::Json::array();
        for (const AxisValue& value : axis.values) {
            values.push_back(value.label);
        }
        axes.push_back({ { "name", axis.name }, { "values", values } });
    }
    // The rows are streamed one per line (a sweep may hold a million points): the head is one document, each row
    // another, joined into one valid JSON document.
    out << "{\n  \"points\": " << result.rows.size() << ",\n  \"seconds\": " << report::jsonText(result.seconds, -1)
        << ",\n  \"cancelled\": " << (result.cancelled ? "true" : "false")
        << ",\n  \"axes\": " << report::jsonText(axes, -1) << ",\n  \"rows\": [\n";
    for (size_t i = 0; i < result.rows.size(); ++i) {
        out << "    " << report::jsonText(rowJson(result, result.rows[i]), -1)
            << (i + 1 < result.rows.size() ? "," : "") << "\n";
    }
    out << "  ]\n}\n";
}

} // namespace rapid::sweep
