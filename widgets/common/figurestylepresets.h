// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/figurestyle.h"

#include <QString>
#include <QStringList>

#include <optional>

namespace rapid::widgets {

/// The figure style presets compiled in from resources/figure-styles (`paper-column`, `paper-page`, `slides`) and
/// style files on disk; shared by the export dialog and `rapid plot`.
class FigureStylePresets {
public:
    /// Preset names, sorted; the default first.
    static QStringList names();
    /// "paper-column": one column of a two-column paper.
    static QString defaultName();
    /// The preset @p name, or nullopt when there is none of that name.
    static std::optional<config::FigureStyle> preset(const QString& name);
    /// A preset name or the path of a style file (`figure_style:` at its root). Throws config::ConfigError naming
    /// the file, line and key of every problem; a name that is neither is reported with the preset names.
    static config::FigureStyle load(const QString& nameOrPath);
};

} // namespace rapid::widgets
