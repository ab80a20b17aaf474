// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

namespace rapid::widgets {

enum class ExportFormat { Png, Svg, Pdf };

/// How a chart is exported for a paper: format, physical size and (PNG only) resolution. Sizes are physical so
/// that fonts in points come out at their nominal size when the figure is placed at 100 % in the paper.
struct ExportOptions {
    ExportFormat format = ExportFormat::Png;
    double widthInches = 3.5; ///< 3.5 single column, 7 double column (resources/plotstyle.json)
    double heightInches = 0; ///< 0: derived from the width (see height())
    int dpi = 300; ///< PNG pixels per inch; vector formats ignore it

    /// The explicit height, or one that suits a chart of that width: 3:4 for a column, flatter across the page.
    double height() const
    {
        if (heightInches > 0) {
            return heightInches;
        }
        return widthInches < 5.0 ? widthInches * 0.75 : widthInches * 0.45;
    }
    bool operator==(const ExportOptions&) const = default;
};

/// "png", "svg", "pdf"
QString suffixOf(ExportFormat format);

} // namespace rapid::widgets
