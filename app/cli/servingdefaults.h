// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "arguments.h"

namespace rapid::cli {

/// Fills the `rapid serve` options the command line left out from the workspace's `serving:` section (the
/// workbench's Serving tab writes it), so that `rapid serve WORKSPACE` serves what the tab served; an option given on
/// the command line wins. What the section holds but rapid serve cannot take (loads typed halfway, one pool count
/// without the other) is a config::ConfigError naming the section's key. No workspace, or one without the section:
/// nothing.
void applyWorkspaceServingDefaults(Arguments& arguments);

} // namespace rapid::cli
