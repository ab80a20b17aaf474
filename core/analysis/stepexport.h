// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/configloader.h"
#include "graph/chakratrace.h"
#include "sim/stepchakraexport.h"

#include <atomic>
#include <functional>
#include <string>
#include <vector>

namespace rapid::analysis {

/// Writes @p scenario's training step or inference request as Chakra traces, one per rank, with comm_groups.json
/// (sim::writeStepChakraTraces on the step model with @p backend's collective times): `rapid run --chakra-out` and File
/// > Export Step as Chakra Traces. @p onlyRanks: write only those ranks (`--chakra-ranks`).
sim::ChakraExportSummary exportStepTraces(const config::Scenario& scenario, const std::string& directory,
    sim::ChakraDetail detail, const std::atomic<bool>* stop = nullptr, const std::function<void(double)>& progress = {},
    sim::NetworkBackend backend = sim::NetworkBackend::Analytical, const std::vector<int>& onlyRanks = {});

/// The same step as one in-memory trace per pipeline stage: what the workbench's Graph tab lays out.
std::vector<graph::ChakraTrace> stepTraces(const config::Scenario& scenario);

} // namespace rapid::analysis
