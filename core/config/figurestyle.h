// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace rapid::config {

/// Where a chart's legend goes in a paper figure: in a row above or below the plot, in a column right of it, or not
/// drawn (the caption names the series).
enum class LegendPlacement { Top, Bottom, Right, Off };

/// Categorical palettes that stay apart for readers with colour-vision deficiencies: Okabe & Ito (2008, "Color
/// Universal Design"), Paul Tol's "bright" and "muted" schemes (Tol 2021, "Colour Schemes", SRON/EPS/TN/09-002).
enum class FigurePalette { OkabeIto, TolBright, TolMuted };

/// One series shown under another name ("TP comm." as "Tensor parallel").
struct SeriesRename {
    std::string from;
    std::string to;
    bool operator==(const SeriesRename&) const = default;
};

/// How a chart is drawn for a paper: size, fonts, title, legend, palette, series names and the value axis. Kept in
/// a style file (`figure_style:` at its root, resources/figure-styles holds the presets) or in a workspace's
/// `figure_style:` section, so the workbench's export dialog and `rapid plot` draw the same figure.
struct FigureStyle {
    double widthInches = 3.5; ///< 3.5 one column, 7 across the page
    double heightInches = 0; ///< 0: 3:4 of the width for a column figure, 0.45 of it across a page
    int dpi = 300; ///< raster exports only
    std::string fontFamily = "DejaVu Sans";
    double fontSizePt = 8;
    bool title = false; ///< a paper's caption carries the title
    LegendPlacement legend = LegendPlacement::Top;
    FigurePalette palette = FigurePalette::OkabeIto;
    std::vector<SeriesRename> seriesNames;
    std::optional<double> valueMin; ///< the value axis (time, memory, tokens/s) from here; unset: from the data
    std::optional<double> valueMax;
    std::string valueLabel; ///< replaces the value axis title when not empty

    /// The explicit height or the one derived from the width.
    double height() const { return heightInches > 0 ? heightInches : widthInches * (widthInches < 5 ? 0.75 : 0.45); }
    /// The name @p series is shown under.
    std::string displayName(const std::string& series) const;
    bool operator==(const FigureStyle&) const = default;
};

/// Ranges every reader enforces (inches, points, dots per inch).
constexpr double kMinFigureInches = 1.0;
constexpr double kMaxFigureInches = 20.0;
constexpr double kMinFontPt = 4.0;
constexpr double kMaxFontPt = 36.0;
constexpr int kMinFigureDpi = 72;
constexpr int kMaxFigureDpi = 2400;

/// Reads a style file: a `figure_style:` mapping at its root. Every problem (unknown key, wrong type, value out of
/// range, a value axis minimum not below its maximum) names @p sourceName, line, column and key path; throws
/// ConfigError with all of them.
FigureStyle readFigureStyle(const std::string& text, const std::string& sourceName);

/// The `figure_style:` section as a workspace or style file holds it (keys indented by two spaces, ends with a line
/// break); readFigureStyle() of it gives @p style back.
std::string composeFigureStyle(const FigureStyle& style);

/// "okabe-ito", "tol-bright", "tol-muted"; "top", "bottom", "right", "off".
std::string paletteWord(FigurePalette palette);
std::string legendWord(LegendPlacement placement);

} // namespace rapid::config
