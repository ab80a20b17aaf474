// SPDX-License-Identifier: GPL-3.0-or-later
#include "chrometrace.h"

#include "json.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

namespace rapid::report {

namespace {

constexpr double kMicrosecondsPerSecond = 1e6;

// Ids start at 1: Perfetto treats pid 0 as the kernel's idle task and merges tid 0 with another thread.
int processId(int stage)
{
    return stage + 1;
}

int threadId(graph::Stream stream)
{
    return static_cast<int>(stream) + 1;
}

Json metadata(const char* name, int pid, int tid, const char* argName, const Json& argValue)
{
    Json event = { { "name", name }, { "ph", "M" }, { "pid", pid } };
    if (tid > 0) {
        event["tid"] = tid;
    }
    event["args"] = { { argName, argValue } };
    return event;
}

Json completeEvent(const TimelineEvent& event)
{
    const double duration = std::max(0.0, event.finish - event.start);
    Json args = { { "stage", event.rank } };
    if (event.microBatch >= 0) {
        args["micro_batch"] = event.microBatch;
        args["pass"] = event.backward ? "backward" : "forward";
    }
    if (event.chunk >= 0) {
        args["chunk"] = event.chunk;
    }
    return { { "name", timelineEventName(event) }, { "cat", graph::toString(event.kind) }, { "ph", "X" },
        { "ts", event.start * kMicrosecondsPerSecond }, { "dur", duration * kMicrosecondsPerSecond },
        { "pid", processId(event.rank) }, { "tid", threadId(event.stream) }, { "args", args } };
}

/// The trace document, one event per line (a step's timeline may hold millions of events).
std::string traceJson(const std::vector<TimelineEvent>& timeline, const Json& otherData)
{
    std::set<int> stages;
    std::set<std::pair<int, int>> threads;
    for (const TimelineEvent& event : timeline) {
        stages.insert(event.rank);
        threads.insert({ event.rank, static_cast<int>(event.stream) });
    }
    std::vector<Json> events;
    // Sort indices keep stages and streams in pipeline order; the viewers otherwise order tracks by name or size.
    for (int stage : stages) {
        events.push_back(metadata("process_name", processId(stage), 0, "name", "stage " + std::to_string(stage)));
        events.push_back(metadata("process_sort_index", processId(stage), 0, "sort_index", stage));
    }
    for (const auto& [stage, streamIndex] : threads) {
        const auto stream = static_cast<graph::Stream>(streamIndex);
        events.push_back(metadata("thread_name", processId(stage), threadId(stream), "name", streamName(stream)));
        events.push_back(metadata("thread_sort_index", processId(stage), threadId(stream), "sort_index", streamIndex));
    }
    std::string out = "{\"displayTimeUnit\":\"ms\",\"otherData\":" + jsonText(otherData, -1) + ",\n\"traceEvents\":[\n";
    const auto append = [&out](const Json& event) { out += jsonText(event, -1) + ",\n"; };
    std::for_each(events.begin(), events.end(), append);
    for (const TimelineEvent& event : timeline) {
        // An event that never ran (cancelled or unreachable) has no place on the time axis.
        if (std::isfinite(event.start) && std::isfinite(event.finish)) {
            append(completeEvent(event));
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
    return traceJson(timeline, Json { { "title", title } });
}

std::string chromeTraceJson(const TrainingResult& result, const std::string& title)
{
    const double stepMicroseconds
        = std::isfinite(result.stepTimeSeconds) ? result.stepTimeSeconds * kMicrosecondsPerSecond : 0.0;
    return traceJson(result.timeline, Json { { "title", title }, { "step_time_us", stepMicroseconds } });
}

} // namespace rapid::report
