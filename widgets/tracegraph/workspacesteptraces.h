// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/configloader.h"
#include "graph/chakratrace.h"

#include <vector>

namespace rapid::widgets {

/// The workspace's own execution graph as Chakra traces, one per pipeline stage's representative rank (the training
/// step, or the inference request), as `rapid run --chakra-out` builds them before instantiating every rank: what
/// the Graph tab shows for "this workspace". Throws std::exception subclasses when the step model cannot run.
std::vector<graph::ChakraTrace> workspaceStepTraces(const config::Scenario& scenario);

} // namespace rapid::widgets
