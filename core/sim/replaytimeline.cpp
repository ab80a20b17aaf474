// SPDX-License-Identifier: GPL-3.0-or-later
// The replayed per-rank timeline of `rapid chakra simulate` as a Chrome trace (tracereplay.h).
#include "tracereplay.h"

#include "report/json.h"

#include <algorithm>
#include <cmath>

namespace rapid::sim {

using graph::ChakraNode;
using graph::ChakraNodeType;

std::string replayChromeTraceJson(const std::vector<graph::ChakraTrace>& traces, const ReplayResult& result)
{
    // One event per line: a replayed trace set may hold millions of nodes.
    std::string out = "{\"traceEvents\": [";
    bool first = true;
    auto append = [&](const report::Json& event) {
        out += (first ? "\n" : ",\n") + report::jsonText(event, -1);
        first = false;
    };
    for (size_t t = 0; t < traces.size() && t < result.nodeTimes.size(); ++t) {
        const int pid = traces[t].rank + 1;
        append({ { "ph", "M" }, { "name", "process_name" }, { "pid", pid },
            { "args", { { "name", "rank " + std::to_string(traces[t].rank) } } } });
        for (int tid : { 1, 2 }) {
            append({ { "ph", "M" }, { "name", "thread_name" }, { "pid", pid }, { "tid", tid },
                { "args", { { "name", tid == 1 ? "compute" : "communication" } } } });
        }
        for (size_t i = 0; i < traces[t].nodes.size() && i < result.nodeTimes[t].size(); ++i) {
            const ChakraNode& node = traces[t].nodes[i];
            const ReplayNodeTime& time = result.nodeTimes[t][i];
            const bool communication = graph::isCommunication(node.type);
            const bool compute = node.type == ChakraNodeType::Compute || node.type == ChakraNodeType::MemLoad
                || node.type == ChakraNodeType::MemStore;
            if ((!communication && !compute) || !std::isfinite(time.start) || !std::isfinite(time.finish)) {
                continue;
            }
            append({ { "ph", "X" }, { "pid", pid }, { "tid", communication ? 2 : 1 }, { "ts", time.start * 1e6 },
                { "dur", std::max(0.0, time.finish - time.start) * 1e6 },
                { "name", node.name.empty() ? std::string(graph::toString(node.type)) : node.name },
                { "cat", graph::toString(node.type) }, { "args", { { "id", node.id } } } });
        }
    }
    out += "\n], \"displayTimeUnit\": \"ms\", \"otherData\": "
        + report::jsonText(report::Json { { "makespan_s", result.makespan } }, -1) + "}\n";
    return out;
}

} // namespace rapid::sim
