// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "sim/stepmodel.h"

#include <ostream>
#include <string>

namespace rapid::cli {

/// How finely compute is written: one node per chunk pass, per layer, or per operator of each layer.
enum class ChakraDetail { Chunk, Layer, Operator };

/// `rapid run --chakra-out DIR`: the training step as one Chakra trace per rank (`rapid.<rank>.et`, every rank of
/// the job) plus `comm_groups.json` with the data-parallel communicators, and a line on @p out with counts and timing.
/// With Layer or Operator detail each chunk pass becomes a chain of nodes named by stage, pass, micro-batch, layer
/// and operator, whose durations add up to the pass (operator times from the operator model; the pass's exposed
/// tensor/context/expert-parallel communication as one node per layer).
void writeChakraTraces(const std::string& directory, sim::StepModel& stepModel, std::ostream& out, ChakraDetail detail);

} // namespace rapid::cli
