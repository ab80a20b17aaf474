// SPDX-License-Identifier: GPL-3.0-or-later
// Internal to core/config: readers from a YAML subtree to the typed specs. Each reports every problem it finds
// into the context and returns a best-effort value.
#pragma once

#include "hardwarespec.h"
#include "modelspec.h"
#include "runspec.h"
#include "yamlreader_p.h"

namespace rapid::config::detail {

ModelSpec readModel(ReadContext& context, const YAML::Node& node, const std::string& path);
GpuSpec readGpu(ReadContext& context, const YAML::Node& node, const std::string& path);
HardwareSpec readHardware(ReadContext& context, const YAML::Node& node, const std::string& path);
/// One cluster.network[] item (networkreader.cpp); @p index names it when it has no name.
NetworkDimension readDimension(ReadContext& context, const std::string& path, const YAML::Node& node, int index);
/// Every spine of a leaf-spine tree has a port for each cable of each leaf below it (of every rail, when the rails of
/// a rail-optimized fabric share the spines), and the tree must stay small enough to build; reported at the
/// dimension @p node's spines (or switch_radix) key.
void checkSpinePorts(ReadContext& context, const std::string& path, const YAML::Node& node,
    const NetworkDimension& dimension, int totalGpus);
RunSpec readRun(ReadContext& context, const YAML::Node& node, const std::string& path);

} // namespace rapid::config::detail
