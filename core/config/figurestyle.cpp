// SPDX-License-Identifier: GPL-3.0-or-later
#include "figurestyle.h"

#include "figurestyle_p.h"
#include "utf8.h"
#include "yamlnode_p.h"

#include <cmath>
#include <cstdio>
#include <utility>

namespace rapid::config {

namespace {

const std::vector<std::pair<std::string, FigurePalette>> kPaletteWords { { "okabe-ito", FigurePalette::OkabeIto },
    { "tol-bright", FigurePalette::TolBright }, { "tol-muted", FigurePalette::TolMuted } };
const std::vector<std::pair<std::string, LegendPlacement>> kLegendWords { { "top", LegendPlacement::Top },
    { "bottom", LegendPlacement::Bottom }, { "right", LegendPlacement::Right }, { "off", LegendPlacement::Off } };

template <typename Enum> std::string wordOf(const std::vector<std::pair<std::string, Enum>>& words, Enum value)
{
    for (const auto& [word, candidate] : words) {
        if (candidate == value) {
            return word;
        }
    }
    return words.front().first;
}

/// Shortest text that reads back as the same double ("3.5", "0.125", "1e-05").
std::string numberText(double value)
{
    char buffer[32];
    for (int digits = 6; digits <= 17; ++digits) {
        std::snprintf(buffer, sizeof buffer, "%.*g", digits, value);
        if (std::strtod(buffer, nullptr) == value) {
            break;
        }
    }
    return buffer;
}

/// A double-quoted YAML scalar: a series named "null", "yes" or "a: b" reads back as that text.
std::string quoted(const std::string& text)
{
    std::string result = "\"";
    for (const char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\') {
            result += '\\';
            result += c;
        } else if (byte < 0x20 || byte == 0x7f) {
            char escape[8];
            std::snprintf(escape, sizeof escape, "\\x%02x", byte);
            result += escape;
        } else {
            result += c;
        }
    }
    return result + "\"";
}

/// A plain name a reader accepts: printable, one line, not blank.
bool isPrintableLine(const std::string& text)
{
    if (text.find_first_not_of(" \t") == std::string::npos) {
        return false;
    }
    for (const char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte < 0x20 || byte == 0x7f) {
            return false;
        }
    }
    return true;
}

void readSeriesNames(detail::ReadContext& context, detail::MapReader& reader, FigureStyle& style)
{
    detail::MapReader names = reader.map("series_names", false);
    if (!names.valid()) {
        return;
    }
    for (auto entry = names.node().begin(); entry != names.node().end(); ++entry) {
        const std::string from = entry->first.as<std::string>("");
        const std::string path = names.childPath(from);
        const YAML::Node value = names.raw(from);
        if (!detail::isScalarNode(value) || !isPrintableLine(value.Scalar())) {
            context.error(path, value,
                "expected the name the series \"" + from + "\" is shown under (one line of text), got "
                    + detail::describeNode(value));
            continue;
        }
        style.seriesNames.push_back({ from, value.Scalar() });
    }
    names.finish();
}

} // namespace

std::string FigureStyle::displayName(const std::string& series) const
{
    for (const SeriesRename& rename : seriesNames) {
        if (rename.from == series) {
            return rename.to;
        }
    }
    return series;
}

std::string paletteWord(FigurePalette palette)
{
    return wordOf(kPaletteWords, palette);
}

std::string legendWord(LegendPlacement placement)
{
    return wordOf(kLegendWords, placement);
}

namespace detail {

std::optional<FigureStyle> readFigureStyleSection(ReadContext& context, const YAML::Node& node, const std::string& path)
{
    if (!node.IsDefined() || isNullNode(node)) {
        return std::nullopt;
    }
    MapReader reader(context, node, path);
    if (!reader.valid()) {
        return std::nullopt;
    }
    FigureStyle style;
    style.widthInches = reader.number("width_in", style.widthInches, kMinFigureInches, kMaxFigureInches);
    if (reader.has("height_in") && isScalarNode(reader.node()["height_in"])
        && reader.node()["height_in"].Scalar() == "auto") {
        reader.raw("height_in");
    } else {
        style.heightInches = reader.number("height_in", 0.0, kMinFigureInches, kMaxFigureInches);
    }
    style.dpi = static_cast<int>(reader.integer("dpi", style.dpi, kMinFigureDpi, kMaxFigureDpi));
    style.fontFamily = reader.text("font_family", style.fontFamily);
    if (!isPrintableLine(style.fontFamily)) {
        context.error(reader.childPath("font_family"), reader.node()["font_family"],
            "expected a font family name such as \"DejaVu Sans\"");
        style.fontFamily = FigureStyle().fontFamily;
    }
    style.fontSizePt = reader.number("font_size_pt", style.fontSizePt, kMinFontPt, kMaxFontPt);
    style.title = reader.boolean("title", style.title);
    style.legend = reader.choice("legend", kLegendWords, std::optional<LegendPlacement>(style.legend));
    style.palette = reader.choice("palette", kPaletteWords, std::optional<FigurePalette>(style.palette));
    readSeriesNames(context, reader, style);
    // No range of its own: a value axis may be anything the chart plots, but it must be a finite number.
    constexpr double kAnyFinite = 1e300;
    if (reader.has("value_min")) {
        style.valueMin = reader.number("value_min", std::nullopt, -kAnyFinite, kAnyFinite);
    }
    if (reader.has("value_max")) {
        style.valueMax = reader.number("value_max", std::nullopt, -kAnyFinite, kAnyFinite);
    }
    if (style.valueMin && style.valueMax && !(*style.valueMin < *style.valueMax)) {
        context.error(reader.childPath("value_max"), reader.node()["value_max"],
            "the value axis maximum must be above its minimum (" + numberText(*style.valueMin) + ")");
    }
    style.valueLabel = reader.text("value_label", std::string());
    reader.finish();
    return style;
}

} // namespace detail

FigureStyle readFigureStyle(const std::string& text, const std::string& sourceName)
{
    DiagnosticSink sink;
    if (const auto invalid = firstInvalidUtf8(text)) {
        const TextPosition at = positionOf(text, *invalid);
        sink.add({ sourceName, at.line, at.column }, {}, "a byte that is not UTF-8; a style file is UTF-8 YAML text");
        sink.throwIfAny();
    }
    YAML::Node root;
    try {
        root = YAML::Load(text);
    } catch (const YAML::Exception& error) {
        sink.add({ sourceName, error.mark.line + 1, error.mark.column + 1 }, {}, "YAML syntax error: " + error.msg);
        sink.throwIfAny();
    }
    detail::Origins origins { sourceName, {}, {} };
    SourceMap unused;
    detail::ReadContext context { sink, origins, unused };
    detail::MapReader reader(context, root, "");
    std::optional<FigureStyle> style;
    // Without the section every other key is misplaced rather than unknown: one problem says what the file needs.
    if (reader.valid() && reader.has("figure_style")) {
        style = detail::readFigureStyleSection(context, reader.raw("figure_style"), "figure_style");
        reader.finish();
    }
    if (!style) {
        sink.add({ sourceName, 1, 1 }, "figure_style",
            "expected a style file with a figure_style: mapping at its root (width_in, font_size_pt, legend, ...)");
    }
    sink.throwIfAny();
    return *style;
}

std::string composeFigureStyle(const FigureStyle& style)
{
    std::string text = "figure_style:\n";
    text += "  width_in: " + numberText(style.widthInches) + "\n";
    text += "  height_in: " + (style.heightInches > 0 ? numberText(style.heightInches) : std::string("auto")) + "\n";
    text += "  dpi: " + std::to_string(style.dpi) + "\n";
    text += "  font_family: " + quoted(style.fontFamily) + "\n";
    text += "  font_size_pt: " + numberText(style.fontSizePt) + "\n";
    text += std::string("  title: ") + (style.title ? "true" : "false") + "\n";
    text += "  legend: " + legendWord(style.legend) + "\n";
    text += "  palette: " + paletteWord(style.palette) + "\n";
    if (!style.seriesNames.empty()) {
        text += "  series_names:\n";
        for (const SeriesRename& rename : style.seriesNames) {
            text += "    " + quoted(rename.from) + ": " + quoted(rename.to) + "\n";
        }
    }
    if (style.valueMin) {
        text += "  value_min: " + numberText(*style.valueMin) + "\n";
    }
    if (style.valueMax) {
        text += "  value_max: " + numberText(*style.valueMax) + "\n";
    }
    if (!style.valueLabel.empty()) {
        text += "  value_label: " + quoted(style.valueLabel) + "\n";
    }
    return text;
}

} // namespace rapid::config
