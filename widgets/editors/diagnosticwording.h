// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/diagnostic.h"

#include <QString>

namespace rapid::widgets {

/// A problem in the workbench's words. Core writes its messages for the command line ("e.g. --set
/// hardware.cluster.network[ib].size=N", "run:12:5:"); in the workbench a key is set in the Forms or YAML tab and a
/// place is a line of one of the three YAML tabs.
class DiagnosticWording {
public:
    /// The message with each "--set KEY=VALUE" hint said as "set KEY to VALUE (Forms or YAML tab)".
    static QString message(const std::string& text);
    /// "Run YAML, line 12: run.parallelism: <message>" for a line of one of the editors' documents; other sources
    /// (a GPU preset file) keep their path and line.
    static QString line(const config::Diagnostic& diagnostic);
};

} // namespace rapid::widgets
