// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "report/stepresult.h"

#include <string>
#include <vector>

namespace rapid::report {

/// "forward mb 3 chunk 1", "pipeline send backward mb 3 chunk 0", "data-parallel reduction chunk 2", "optimizer":
/// what a timeline event stands for, shared by the trace export and the workbench's timeline so both name a node
/// alike. Compute events leave out their kind (they are most of the timeline); the pass appears only with a
/// micro-batch, since reductions and the optimizer belong to no pass.
std::string timelineEventName(const TimelineEvent& event);

/// The name of a stream's row or thread: "compute", "pipeline comm", "data-parallel comm".
std::string streamName(graph::Stream stream);

/// @p timeline in the Chrome Trace Event Format (a JSON object with a "traceEvents" array), which chrome://tracing
/// and Perfetto open: one complete event ("ph": "X") per timeline event with "ts" and "dur" in microseconds, one
/// process per pipeline stage and one thread per stream, named by metadata events ("stage N"; "compute",
/// "pipeline comm", "data-parallel comm"). Process ids are stage + 1 and thread ids stream + 1 because Perfetto
/// treats id 0 as the kernel's idle task and merges or hides its tracks. "cat" is the node kind; "args" carry the
/// stage and, where the node has them, micro-batch, chunk and pass. Events with a non-finite start or finish are
/// left out (they would make the JSON invalid). @p title goes to "otherData".
std::string chromeTraceJson(const std::vector<TimelineEvent>& timeline, const std::string& title);
/// The timeline of @p result, with the step time in "otherData".
std::string chromeTraceJson(const TrainingResult& result, const std::string& title);

} // namespace rapid::report
