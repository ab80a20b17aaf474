// SPDX-License-Identifier: GPL-3.0-or-later
#include "chrometrace.h"

#include "json.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>
#include <utility>

namespace rapid::report {

namespace {

constexpr double kMicrosecondsPerSecond = 1e6;

/// Shortest text that reads back to the same double: a step of seconds at nanosecond detail needs ~10 digits, and
/// a fixed precision would either lose them or pad every number.
std::string number(double value)
{
    char buffer[32];
    const auto [end, error] = std::to_chars(buffer, buffer + sizeof buffer, value);
    return error == std::errc() ? std::string(buffer, end) : std::string("0");
}

// Ids start at 1: Perfetto treats pid 0 as the kernel's idle task and merges tid 0 with another thread.
int processId(int stage)
{
    return stage + 1;
}

int threadId(graph::Stream stream)
{
    return static_cast<int>(stream) + 1;
}

void appendMetadata(
    std::string& out, const char* name, int pid, int tid, const std::string& argName, const std::string& argValue)
{
    out += "{\"name\":\"";
    out += name;
    out += "\",\"ph\":\"M\",\"pid\":" + std::to_string(pid);
    if (tid > 0) {
        out += ",\"tid\":" + std::to_string(tid);
    }
    out += ",\"args\":{\"" + argName + "\":" + argValue + "}},\n";
}

void appendEvent(std::string& out, const TimelineEvent& event)
{
    const double duration = std::max(0.0, event.finish - event.start);
    out += "{\"name\":" + jsonString(timelineEventName(event)) + ",\"cat\":" + jsonString(graph::toString(event.kind))
        + ",\"ph\":\"X\",\"ts\":" + number(event.start * kMicrosecondsPerSecond)
        + ",\"dur\":" + number(duration * kMicrosecondsPerSecond) + ",\"pid\":" + std::to_string(processId(event.rank))
        + ",\"tid\":" + std::to_string(threadId(event.stream)) + ",\"args\":{\"stage\":" + std::to_string(event.rank);
    if (event.microBatch >= 0) {
        out += ",\"micro_batch\":" + std::to_string(event.microBatch);
        out += event.backward ? ",\"pass\":\"backward\"" : ",\"pass\":\"forward\"";
    }
    if (event.chunk >= 0) {
        out += ",\"chunk\":" + std::to_string(event.chunk);
    }
    out += "}},\n";
}

std::string traceJson(const std::vector<TimelineEvent>& timeline, const std::string& otherData)
{
    std::set<int> stages;
    std::set<std::pair<int, int>> threads;
    for (const TimelineEvent& event : timeline) {
        stages.insert(event.rank);
        threads.insert({ event.rank, static_cast<int>(event.stream) });
    }
    std::string out = "{\"displayTimeUnit\":\"ms\",\"otherData\":{" + otherData + "},\n\"traceEvents\":[\n";
    // Sort indices keep stages and streams in pipeline order; the viewers otherwise order tracks by name or size.
    for (int stage : stages) {
        appendMetadata(out, "process_name", processId(stage), 0, "name", jsonString("stage " + std::to_string(stage)));
        appendMetadata(out, "process_sort_index", processId(stage), 0, "sort_index", std::to_string(stage));
    }
    for (const auto& [stage, streamIndex] : threads) {
        const auto stream = static_cast<graph::Stream>(streamIndex);
        appendMetadata(out, "thread_name", processId(stage), threadId(stream), "name", jsonString(streamName(stream)));
        appendMetadata(
            out, "thread_sort_index", processId(stage), threadId(stream), "sort_index", std::to_string(streamIndex));
    }
    for (const TimelineEvent& event : timeline) {
        if (std::isfinite(event.start) && std::isfinite(event.finish)) {
            appendEvent(out, event);
        }
    }
    if (out.ends_with(",\n")) {
        out.erase(out.size() - 2, 1);
    }
    return out + "]}\n";
}

} // namespace

std::string timelineEventName(const TimelineEvent& event)
{
    std::string name = event.kind == graph::NodeKind::Compute ? "" : graph::toString(event.kind);
    auto append = [&name](const std::string& part) { name += (name.empty() ? "" : " ") + part; };
    if (event.microBatch >= 0) {
        append(event.backward ? "backward" : "forward");
        append("mb " + std::to_string(event.microBatch));
    }
    if (event.chunk >= 0) {
        append("chunk " + std::to_string(event.chunk));
    }
    return name.empty() ? graph::toString(event.kind) : name;
}

std::string streamName(graph::Stream stream)
{
    switch (stream) {
    case graph::Stream::Compute:
        return "compute";
    case graph::Stream::PipelineComm:
        return "pipeline comm";
    case graph::Stream::DataParallelComm:
        return "data-parallel comm";
    }
    return "stream " + std::to_string(static_cast<int>(stream));
}

std::string chromeTraceJson(const std::vector<TimelineEvent>& timeline, const std::string& title)
{
    return traceJson(timeline, "\"title\":" + jsonString(title));
}

std::string chromeTraceJson(const TrainingResult& result, const std::string& title)
{
    const double stepMicroseconds
        = std::isfinite(result.stepTimeSeconds) ? result.stepTimeSeconds * kMicrosecondsPerSecond : 0.0;
    return traceJson(
        result.timeline, "\"title\":" + jsonString(title) + ",\"step_time_us\":" + number(stepMicroseconds));
}

} // namespace rapid::report
