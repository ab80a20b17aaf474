// SPDX-License-Identifier: GPL-3.0-or-later
// Internal to core/config: reading a workspace's `runs:` list, shared by readWorkspaceDocuments() and the loader
// (which checks the list but has no use for it).
#pragma once

#include "workspacefile.h"
#include "yamlreader_p.h"

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

namespace rapid::config::detail {

/// @p text as a double-quoted YAML scalar: every byte survives, and no text reads back as something else ("null",
/// "yes", a number).
std::string yamlDoubleQuoted(const std::string& text);

/// Reads the `runs:` list of a workspace (@p runs undefined or null: none). Every problem goes to the context's sink
/// with its key path ("runs[1].pinned_at") and location; the items read so far are returned either way. The
/// document texts are taken as written, not checked. @p workspacePath becomes the texts' sourceName, its folder
/// their baseDir.
std::vector<PinnedRunDocuments> readPinnedRuns(
    ReadContext& context, const YAML::Node& runs, const std::string& workspacePath);

/// Reads the `sweep:` section of a workspace (@p sweep undefined or null: none), reporting problems with their key
/// paths ("sweep.axes[2]"). The axis lines are taken as written, not parsed (the workbench shows their problems).
std::optional<SweepSettings> readSweepSettings(ReadContext& context, const YAML::Node& sweep);

/// Reads the `serving:` section of a workspace (@p serving undefined or null: none), reporting problems with their
/// key paths ("serving.engine"). The loads are taken as typed, not parsed (the Serving tab and rapid serve check them).
std::optional<ServingSettings> readServingSettings(ReadContext& context, const YAML::Node& serving);

/// The `serving:` section of @p settings.
std::string composeServingSettings(const ServingSettings& settings);

/// Reads the `results:` list of a workspace (@p results undefined or null: none), reporting problems with their key
/// paths ("results[0].view"). The data and documents are taken as written, not interpreted. @p workspacePath becomes
/// the documents' sourceName, its folder their baseDir.
std::vector<SavedResult> readSavedResults(
    ReadContext& context, const YAML::Node& results, const std::string& workspacePath);

/// The `results:` section of @p results (empty text for none).
std::string composeSavedResults(const std::vector<SavedResult>& results);

} // namespace rapid::config::detail
