// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/figurestyle.h"

#include <QString>

namespace rapid::widgets {

enum class ExportFormat { Png, Svg, Pdf };

/// How a chart is exported for a paper: the file format and the figure style (physical size, DPI for PNG, and for
/// charts fonts, title, legend, palette, series names, value axis). Sizes are physical so that fonts in points come
/// out at their nominal size when the figure is placed at 100 % in the paper.
struct ExportOptions {
    ExportFormat format = ExportFormat::Png;
    config::FigureStyle figure;

    bool operator==(const ExportOptions&) const = default;
};

/// "png", "svg", "pdf"
QString suffixOf(ExportFormat format);

} // namespace rapid::widgets
