// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QColor>
#include <QFont>
#include <QList>
#include <QPalette>
#include <QString>

class QCustomPlot;

namespace rapid::config {
struct FigureStyle;
}

namespace rapid::widgets {

/// The one plot style of every chart, read from resources/plotstyle.json (compiled in as :/rapid/plotstyle.json):
/// fonts, line widths and the Okabe-Ito palette. Charts apply it on screen and in paper exports alike, so an exported
/// figure looks like the one on screen, only with print colours.
class PlotStyle {
public:
    /// The compiled-in style; falls back to the built-in defaults if the resource cannot be read.
    static const PlotStyle& standard();
    /// Parses a plotstyle.json text; missing keys keep their defaults.
    static PlotStyle fromJson(const QByteArray& json, QString* error = nullptr);
    /// The style a paper figure asks for: its font, its palette (with that palette's good and bad colours), titles
    /// one point larger than the text; line widths stay the standard ones.
    static PlotStyle forFigure(const config::FigureStyle& figure);
    /// Black on white, whatever the desktop palette: what a paper figure needs.
    static QPalette printPalette();

    QString fontFamily() const { return m_fontFamily; }
    double fontSizePt() const { return m_fontSizePt; }
    double titleSizePt() const { return m_titleSizePt; }
    double lineWidthPx() const { return m_lineWidthPx; }
    double singleColumnInches() const { return m_singleColumnInches; }
    double doubleColumnInches() const { return m_doubleColumnInches; }
    const QList<QColor>& palette() const { return m_palette; }

    QFont font() const;
    QFont titleFont() const;
    /// Palette colour @p index; past the end the palette repeats, lighter, so neighbours stay apart.
    QColor color(int index) const;
    /// @p count colours for categories, all different: the palette's own colours first (those in @p reserved, and
    /// black, which text and the optimizer use, left out), then colours of the other colour-blind-safe palettes that
    /// are not close to one already chosen. Only the palette's own colours are guaranteed to stay apart for
    /// colour-vision deficiencies; a chart that needs more says so in its legend by names, not by colour alone.
    QList<QColor> categoryColors(int count, const QList<QColor>& reserved = {}) const;
    /// "Does not fit", "slower": the palette's vermillion, colour-blind safe against the good colour.
    QColor badColor() const;
    /// "Fits", "faster": the palette's bluish green.
    QColor goodColor() const;

    /// Fonts, axis and grid pens, background and legend of @p plot in @p colours (screen or print palette).
    void apply(QCustomPlot* plot, const QPalette& colours) const;

private:
    QString m_fontFamily = QStringLiteral("DejaVu Sans");
    double m_fontSizePt = 9;
    double m_titleSizePt = 10;
    double m_lineWidthPx = 1.5;
    double m_singleColumnInches = 3.5;
    double m_doubleColumnInches = 7.0;
    QColor m_bad { 0xD5, 0x5E, 0x00 };
    QColor m_good { 0x00, 0x9E, 0x73 };
    QList<QColor> m_palette { QColor(0x00, 0x72, 0xB2), QColor(0xE6, 0x9F, 0x00), QColor(0x00, 0x9E, 0x73),
        QColor(0xD5, 0x5E, 0x00), QColor(0xCC, 0x79, 0xA7), QColor(0x56, 0xB4, 0xE9), QColor(0xF0, 0xE4, 0x42),
        QColor(0x00, 0x00, 0x00) };
};

} // namespace rapid::widgets
