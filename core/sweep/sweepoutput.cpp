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

const std::string& valueLabel(const SweepSpace& space, const SweepRow& row, size_t axis)
{
    return space.axes()[axis].values[static_cast<size_t>(row.coordinates[axis])].label;
}

const std::string& valueLabel(const SweepResult& result, const SweepRow& row, size_t axis)
{
    return valueLabel(result.space, row, axis);
}

SweepCsvWriter::SweepCsvWriter(std::ostream& out, const SweepSpace& space)
    : m_out(out)
    , m_space(space)
{
}

void SweepCsvWriter::header()
{
    m_out << "index";
    for (const SweepAxis& axis : m_space.axes()) {
        m_out << "," << axis.name;
    }
    m_out << ",status,step_time_s,ttft_s,itl_s,e2e_s,tokens_per_s,tokens_per_s_per_gpu,mfu,joules_per_token,"
             "peak_memory_gib,capacity_gib,message\n";
}

void SweepCsvWriter::row(const SweepRow& row)
{
    m_out << row.index;
    for (size_t axis = 0; axis < m_space.axes().size(); ++axis) {
        m_out << ",\"" << valueLabel(m_space, row, axis) << "\"";
    }
    std::string message = row.message;
    std::replace(message.begin(), message.end(), '"', '\'');
    // The message is written after the formatted figures, so a long one is never cut off.
    char line[400];
    std::snprintf(line, sizeof line, ",%s,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.6g,%.6g,%.4f,%.4f,", toString(row.status),
        row.stepTimeSeconds, row.ttftSeconds, row.itlSeconds, row.e2eSeconds, row.tokensPerSecond,
        row.tokensPerSecondPerGpu, row.mfu, row.joulesPerToken, row.peakMemoryBytes / kGiB, row.capacityBytes / kGiB);
    m_out << line << '"' << message << "\"\n";
}

void SweepCsvWriter::finish(const SweepResult& result)
{
    if (result.cancelled) {
        m_out << "# interrupted after " << result.pointsRun() << " of " << result.space.size() << " points\n";
    }
}

namespace {

/// One row of the JSON document: its figures where the point has them.
report::Json rowJson(const SweepSpace& space, const SweepRow& row)
{
    report::Json values = report::Json::array();
    for (size_t axis = 0; axis < space.axes().size(); ++axis) {
        values.push_back(valueLabel(space, row, axis));
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
    }
    if (!row.message.empty()) {
        json["message"] = row.message;
    }
    return json;
}

} // namespace

SweepJsonWriter::SweepJsonWriter(std::ostream& out, const SweepSpace& space)
    : m_out(out)
    , m_space(space)
{
}

void SweepJsonWriter::begin()
{
    report::Json axes = report::Json::array();
    for (const SweepAxis& axis : m_space.axes()) {
        report::Json values = report::Json::array();
        for (const AxisValue& value : axis.values) {
            values.push_back(value.label);
        }
        axes.push_back({ { "name", axis.name }, { "values", values } });
    }
    // The head, each row and the tail are separate documents joined into one (a sweep may hold a million points).
    m_out << "{\n  \"points\": " << m_space.size() << ",\n  \"axes\": " << report::jsonText(axes, -1)
          << ",\n  \"rows\": [";
    m_first = true;
}

void SweepJsonWriter::row(const SweepRow& row)
{
    // jsonText refuses a non-finite figure before anything of the row is written.
    const std::string text = report::jsonText(rowJson(m_space, row), -1);
    m_out << (m_first ? "\n    " : ",\n    ") << text;
    m_first = false;
}

void SweepJsonWriter::finish(const SweepResult& result)
{
    report::Json counts = report::Json::object();
    for (PointStatus status :
        { PointStatus::Ok, PointStatus::DoesNotFit, PointStatus::Invalid, PointStatus::Failed, PointStatus::NotRun }) {
        counts[toString(status)] = result.count(status);
    }
    report::Json front = report::Json::array();
    for (const SweepRow& row : result.paretoFront) {
        front.push_back(row.index);
    }
    const report::Json tail = { { "seconds", result.seconds }, { "interrupted", result.cancelled },
        { "cancelled", result.cancelled }, { "counts", counts }, { "pareto_front", front } };
    m_out << (m_first ? "]" : "\n  ]");
    for (const auto& [key, value] : tail.items()) {
        m_out << ",\n  \"" << key << "\": " << report::jsonText(value, -1);
    }
    m_out << "\n}\n";
}

void writeSweepCsv(std::ostream& out, const SweepResult& result)
{
    SweepCsvWriter writer(out, result.space);
    writer.header();
    for (const SweepRow& row : result.rows) {
        if (row.status != PointStatus::NotRun) {
            writer.row(row);
        }
    }
    writer.finish(result);
}

void writeSweepJson(std::ostream& out, const SweepResult& result)
{
    SweepJsonWriter writer(out, result.space);
    writer.begin();
    for (const SweepRow& row : result.rows) {
        if (row.status != PointStatus::NotRun) {
            writer.row(row);
        }
    }
    writer.finish(result);
}

} // namespace rapid::sweep
