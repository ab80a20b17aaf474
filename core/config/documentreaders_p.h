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
RunSpec readRun(ReadContext& context, const YAML::Node& node, const std::string& path);

} // namespace rapid::config::detail
