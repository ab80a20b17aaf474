// SPDX-License-Identifier: GPL-3.0-or-later
#include "inferencerequest.h"

#include <stdexcept>

namespace rapid::graph {

ExecutionGraph buildInferenceRequest(const InferenceRequestCosts& costs)
{
    const int stages = static_cast<int>(costs.prefillSeconds.size());
    if (stages < 1 || static_cast<int>(costs.decodeSeconds.size()) != stages || costs.outputTokens < 1) {
        throw std::invalid_argument("inference request: one prefill and one decode cost per stage, one token or more");
    }
    ExecutionGraph graph(stages);
    NodeId handBack = -1; // the previous step's token hand-back from the last stage
    for (int step = 0; step < costs.outputTokens; ++step) {
        const bool prefill = step == 0;
        NodeId incoming = handBack;
        for (int stage = 0; stage < stages; ++stage) {
            Node compute;
            compute.kind = NodeKind::Compute;
            compute.rank = stage;
            compute.stream = Stream::Compute;
            compute.seconds = prefill ? costs.prefillSeconds[static_cast<size_t>(stage)]
                                      : costs.decodeSeconds[static_cast<size_t>(stage)];
            compute.microBatch = step;
            compute.chunk = 0;
            if (incoming >= 0) {
                compute.dependencies.push_back(incoming);
            }
            const NodeId computeId = graph.add(std::move(compute));
            incoming = -1;
            const bool last = stage + 1 == stages;
            if (last && (step + 1 == costs.outputTokens || stages == 1)) {
                continue; // the stream order chains a single stage's steps; the final step sends nothing
            }
            Node send;
            send.kind = NodeKind::PipelineSend;
            send.rank = stage;
            send.stream = Stream::PipelineComm;
            send.seconds
                = last ? costs.returnSendSeconds : (prefill ? costs.prefillSendSeconds : costs.decodeSendSeconds);
            send.bytes = last ? costs.returnSendBytes : (prefill ? costs.prefillSendBytes : costs.decodeSendBytes);
            send.microBatch = step;
            send.chunk = 0;
            send.dependencies.push_back(computeId);
            const NodeId sendId = graph.add(std::move(send));
            (last ? handBack : incoming) = sendId;
        }
    }
    return graph;
}

} // namespace rapid::graph
