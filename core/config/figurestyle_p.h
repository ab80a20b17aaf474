// SPDX-License-Identifier: GPL-3.0-or-later
// Internal to core/config: reading a `figure_style:` mapping, shared by style files, workspaces and the loader.
#pragma once

#include "figurestyle.h"
#include "yamlreader_p.h"

#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>

namespace rapid::config::detail {

/// Reads the mapping at @p node (key path @p path); undefined or null: nullopt. Problems go to the context's sink.
std::optional<FigureStyle> readFigureStyleSection(
    ReadContext& context, const YAML::Node& node, const std::string& path);

} // namespace rapid::config::detail
