// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "configloader.h"
#include "presetlibrary.h"

#include <string>
#include <vector>

namespace rapid::config {

/// A workspace as an editor holds it: three document texts (each with its own root key `model:`, `hardware:`,
/// `run:`), a name and the workspace's overrides. Referenced presets are read in, so saving embeds them.
struct WorkspaceDocuments {
    std::string name;
    DocumentText model;
    DocumentText hardware;
    DocumentText run;
    std::vector<std::string> overrides;

    bool operator==(const WorkspaceDocuments& other) const;
};

/// Reads a workspace file (or workspace preset name) into its three document texts. Inline documents keep their
/// text (comments included); referenced ones are the referenced files' text. Throws ConfigError.
WorkspaceDocuments readWorkspaceDocuments(const std::string& reference, const PresetLibrary& library);

/// The text of a self-contained workspace file holding the three documents inline.
std::string composeWorkspace(const WorkspaceDocuments& documents);

} // namespace rapid::config
