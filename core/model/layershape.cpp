// SPDX-License-Identifier: GPL-3.0-or-later
#include "layershape_p.h"

#include <stdexcept>
#include <string>

namespace rapid::model::detail {

Shape makeShape(const config::RunSpec& run, const LayerSharding& sharding, Workload workload, std::int64_t kvLength)
{
    if (sharding.tensor < 1 || sharding.context < 1 || sharding.expert < 1) {
        throw std::invalid_argument("tensor, context and expert shard counts must be at least 1");
    }
    Shape shape;
    shape.tp = sharding.tensor;
    shape.ep = sharding.expert;
    shape.cp = sharding.context;
    shape.pytorchRing
        = workload == Workload::Training && run.framework == config::Framework::PytorchFsdp && sharding.context > 1;
    shape.flash = run.flashAttention;
    shape.splitKv = run.splitKv;
    shape.splitCombineKernel = !run.decodeSplitsReducedInKernel;
    shape.eager = run.framework == config::Framework::PytorchFsdp && !run.torchCompile;
    shape.eagerNorms = shape.eager && !run.transformerEngine;
    shape.eagerActivation = shape.eager || run.framework == config::Framework::Nanotron;
    shape.torchaoFloat8 = torchaoLinears(run);
    shape.separateProjections = run.framework == config::Framework::PytorchFsdp;
    shape.fusedAllReduceNorm = run.fusedAllReduceNorm && workload != Workload::Training && sharding.tensor > 1;
    shape.expertLoad = run.parallelism.expertLoad();
    shape.precision = run.precision;
    shape.act = config::bytesPerElement(run.precision.activations);
    shape.weight = config::bytesPerElement(run.precision.weights);
    shape.kv = config::bytesPerElement(run.precision.kvCache);
    shape.grad = config::bytesPerElement(run.precision.gradients);
    std::int64_t sequence = 0;
    switch (workload) {
    case Workload::Training:
        shape.batch = run.microBatch;
        sequence = run.seqLength;
        break;
    case Workload::Prefill:
        shape.batch = run.batch;
        sequence = run.promptLength;
        break;
    case Workload::Decode:
        shape.batch = run.batch;
        sequence = kvLength;
        break;
    }
    if (shape.batch < 1 || sequence < 1) {
        throw std::invalid_argument("batch and sequence (or KV) length must be at least 1 (batch "
            + std::to_string(shape.batch) + ", length " + std::to_string(sequence) + ")");
    }
    if (workload == Workload::Decode) {
        shape.decode = true;
        shape.causal = false;
        shape.queries = 1;
        shape.keys = kvLength;
    } else {
        shape.queries = ceilDiv(sequence, sharding.context);
        shape.keys = sequence;
    }
    const bool ulysses
        = !shape.decode && sharding.context > 1 && run.parallelism.contextComm == config::ContextComm::AllToAll;
    shape.attentionQueries = ulysses ? sequence : shape.queries;
    shape.headSplit = ulysses ? sharding.context : 1;
    shape.tokens = shape.batch * shape.queries;
    shape.normTokens = sharding.sequenceSplit ? ceilDiv(shape.tokens, sharding.tensor) : shape.tokens;
    return shape;
}

} // namespace rapid::model::detail
