// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "graph/executiongraph.h"

#include <vector>

namespace rapid::graph {

/// Costs of one inference request batch on a pipeline, per stage and per message.
struct InferenceRequestCosts {
    std::vector<double> prefillSeconds; ///< per stage: its share of the prefill (layers, embedding, head, TP)
    std::vector<double> decodeSeconds; ///< per stage: its share of one decode step
    double prefillSendSeconds = 0; ///< one stage's hidden states of the whole prompt to the next stage
    double decodeSendSeconds = 0; ///< one stage's hidden states of one new token per sequence
    double prefillSendBytes = 0;
    double decodeSendBytes = 0;
    /// The last stage hands the sampled tokens back to the first (one integer per sequence) before the next step.
    double returnSendSeconds = 0;
    double returnSendBytes = 0;
    int outputTokens = 1; ///< the prefill produces the first; every further one is a decode step
};

/// The execution graph of one inference request batch: per pipeline stage (rank = stage), the prefill, then one
/// decode step per further output token; each step's hidden states travel stage to stage (PipelineSend), and from
/// the second step on the first stage waits for the tokens the last stage sampled. Compute nodes carry the step
/// index as their micro-batch (0 = prefill). With one stage the graph is a chain of compute nodes.
ExecutionGraph buildInferenceRequest(const InferenceRequestCosts& costs);

} // namespace rapid::graph
