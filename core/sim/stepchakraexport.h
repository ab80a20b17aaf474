// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "graph/chakraexport.h"
#include "sim/stepmodel.h"

#include <atomic>
#include <cstddef>
#include <functional>
#include <string>

namespace rapid::sim {

/// How finely compute is written: one node per chunk pass, per layer, or per operator of each layer.
enum class ChakraDetail { Chunk, Layer, Operator };

/// What writeStepChakraTraces wrote.
struct ChakraExportSummary {
    int files = 0; ///< rapid.<rank>.et files
    int ranks = 0; ///< ranks of the job (files < ranks when only some were asked for)
    std::size_t nodes = 0; ///< over all files
    std::size_t groups = 0; ///< communicators in comm_groups.json (0: no file)
    double seconds = 0;
};

/// The execution graph of @p stepModel's training step or inference request (one rank per pipeline stage).
graph::ExecutionGraph stepExecutionGraph(StepModel& stepModel);
/// How that graph's nodes become Chakra nodes: communication sizes from the graph, the data-parallel reduction as the
/// run's ZeRO stage performs it.
graph::ChakraExportOptions stepChakraOptions(const parallel::StepPlan& plan, const graph::ExecutionGraph& graph);
/// One trace per pipeline stage (its representative rank), in memory: what the workbench's Graph tab shows.
std::vector<graph::ChakraTrace> stepChakraTraces(StepModel& stepModel);

/// The step (training) or request (inference) of @p stepModel as one Chakra trace per rank (`rapid.<rank>.et`, every
/// rank of the job) plus `comm_groups.json` with the data-, tensor-, context- and expert-parallel communicators, in
/// @p directory (created). Every collective of the step plan is a communication node (docs/chakra.md): the layers'
/// tensor-parallel collectives and expert all-to-alls as COMM_COLL_NODEs after the compute they follow, the context-
/// parallel ring as sends and receives beside the attention core; compute is one node per chunk pass, per layer or
/// per operator (named by stage, pass, micro-batch, layer and operator), the durations adding up to the pass's
/// compute. Used by `rapid run --chakra-out` and the workbench. @p progress receives the fraction of files written;
/// when @p stop becomes true the export stops, removes the files it wrote and throws SimulationCancelled. Throws
/// std::filesystem::filesystem_error (or std::runtime_error) when a file cannot be written. @p onlyRanks (ascending,
/// unique) writes only those ranks' files, for clusters too large for every file; comm_groups.json stays complete.
/// A rank outside the job throws std::invalid_argument before anything is written.
ChakraExportSummary writeStepChakraTraces(const std::string& directory, StepModel& stepModel, ChakraDetail detail,
    const std::atomic<bool>* stop = nullptr, const std::function<void(double)>& progress = {},
    const std::vector<int>& onlyRanks = {});

} // namespace rapid::sim
