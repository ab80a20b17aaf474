// SPDX-License-Identifier: GPL-3.0-or-later
// Internal to core/sim: helpers StepModel's translation units share (stepmodel.cpp, stepmodelinline.cpp).
#pragma once

#include "config/modelspec.h"
#include "config/runspec.h"
#include "graph/executiongraph.h"

#include <vector>

namespace rapid::sim::stepdetail {

double sum(const graph::TimeBreakdown& parts);
/// Which layers each virtual chunk of a stage holds (global indices), as the memory model splits them.
std::vector<std::vector<int>> chunkLayers(const config::ModelSpec& model, const config::RunSpec& run, int stage);
bool isMoe(const config::ModelSpec& model, int layer);

} // namespace rapid::sim::stepdetail
