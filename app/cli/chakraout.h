// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "sim/stepmodel.h"

#include <ostream>
#include <string>

namespace rapid::cli {

/// `rapid run --chakra-out DIR`: the training step as one Chakra trace per rank (`rapid.<rank>.et`, every rank of
/// the job) plus `comm_groups.json` with the data-parallel communicators, and a line on @p out with counts and timing.
void writeChakraTraces(const std::string& directory, sim::StepModel& stepModel, std::ostream& out);

} // namespace rapid::cli
