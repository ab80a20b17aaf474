// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/plotstyle.h"

#include "config/figurestyle.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

// Q_INIT_RESOURCE must be called outside any namespace. rapid_widgets is a static library: without this reference the
// linker would drop the compiled resource, since nothing else names it.
static void initWorkbenchResources()
{
    Q_INIT_RESOURCE(workbench);
}

namespace rapid::widgets {

namespace {

// Okabe-Ito's vermillion and bluish green: the pair stays distinct for all common colour-vision deficiencies.
constexpr int kVermillion = 3;
constexpr int kBluishGreen = 2;

// Okabe & Ito (2008), "Color Universal Design": the eight colours in their published order.
const QList<QColor>& okabeIto()
{
    static const QList<QColor> colours { QColor(0x00, 0x72, 0xB2), QColor(0xE6, 0x9F, 0x00), QColor(0x00, 0x9E, 0x73),
        QColor(0xD5, 0x5E, 0x00), QColor(0xCC, 0x79, 0xA7), QColor(0x56, 0xB4, 0xE9), QColor(0xF0, 0xE4, 0x42),
        QColor(0x00, 0x00, 0x00) };
    return colours;
}

// Paul Tol (2021), "Colour Schemes" (SRON/EPS/TN/09-002), the qualitative "bright" scheme without its grey.
const QList<QColor>& tolBright()
{
    static const QList<QColor> colours { QColor(0x44, 0x77, 0xAA), QColor(0xEE, 0x66, 0x77), QColor(0x22, 0x88, 0x33),
        QColor(0xCC, 0xBB, 0x44), QColor(0x66, 0xCC, 0xEE), QColor(0xAA, 0x33, 0x77) };
    return colours;
}

// The same report's "muted" scheme (nine colours; its pale grey is for missing data).
const QList<QColor>& tolMuted()
{
    static const QList<QColor> colours { QColor(0xCC, 0x66, 0x77), QColor(0x33, 0x22, 0x88), QColor(0xDD, 0xCC, 0x77),
        QColor(0x11, 0x77, 0x33), QColor(0x88, 0xCC, 0xEE), QColor(0x88, 0x22, 0x55), QColor(0x44, 0xAA, 0x99),
        QColor(0x99, 0x99, 0x33), QColor(0xAA, 0x44, 0x99) };
    return colours;
}

/// Distance of two colours in the "redmean" weighting of RGB (a cheap approximation of perceived difference).
double colourDistance(const QColor& a, const QColor& b)
{
    const double meanRed = (a.red() + b.red()) / 2.0;
    const double dr = a.red() - b.red();
    const double dg = a.green() - b.green();
    const double db = a.blue() - b.blue();
    return std::sqrt((2 + meanRed / 256) * dr * dr + 4 * dg * dg + (2 + (255 - meanRed) / 256) * db * db);
}

// Below this redmean distance two fills read as one colour in a small legend swatch (Okabe-Ito's closest pair,
// orange and yellow, is ~200 apart).
constexpr double kDistinctColourDistance = 110;

} // namespace

const PlotStyle& PlotStyle::standard()
{
    static const PlotStyle style = [] {
        initWorkbenchResources();
        QFile file(QStringLiteral(":/rapid/plotstyle.json"));
        if (!file.open(QIODevice::ReadOnly)) {
            qWarning("plotstyle.json is missing from the resources; using the built-in plot style");
            return PlotStyle();
        }
        QString error;
        PlotStyle parsed = fromJson(file.readAll(), &error);
        if (!error.isEmpty()) {
            qWarning("plotstyle.json: %s", qUtf8Printable(error));
        }
        return parsed;
    }();
    return style;
}

PlotStyle PlotStyle::fromJson(const QByteArray& json, QString* error)
{
    PlotStyle style;
    QJsonParseError parseError {};
    const QJsonDocument document = QJsonDocument::fromJson(json, &parseError);
    if (!document.isObject()) {
        if (error) {
            *error = parseError.errorString();
        }
        return style;
    }
    const QJsonObject root = document.object();
    style.m_fontFamily = root.value(QLatin1String("font_family")).toString(style.m_fontFamily);
    style.m_fontSizePt = root.value(QLatin1String("font_size_pt")).toDouble(style.m_fontSizePt);
    style.m_titleSizePt = root.value(QLatin1String("title_size_pt")).toDouble(style.m_titleSizePt);
    style.m_lineWidthPx = root.value(QLatin1String("line_width_px")).toDouble(style.m_lineWidthPx);
    const QJsonObject widths = root.value(QLatin1String("paper_widths_in")).toObject();
    style.m_singleColumnInches = widths.value(QLatin1String("single_column")).toDouble(style.m_singleColumnInches);
    style.m_doubleColumnInches = widths.value(QLatin1String("double_column")).toDouble(style.m_doubleColumnInches);
    QList<QColor> colours;
    const QJsonArray palette = root.value(QLatin1String("palette")).toArray();
    for (const QJsonValue& value : palette) {
        const QColor colour = QColor::fromString(value.toString());
        if (colour.isValid()) {
            colours.append(colour);
        }
    }
    // The good/bad colours are taken from fixed palette slots, so a shorter palette keeps the defaults.
    if (colours.size() > kVermillion) {
        style.m_palette = colours;
        style.m_bad = colours[kVermillion];
        style.m_good = colours[kBluishGreen];
    } else if (error) {
        *error = QStringLiteral("palette needs at least %1 colours").arg(kVermillion + 1);
    }
    return style;
}

PlotStyle PlotStyle::forFigure(const config::FigureStyle& figure)
{
    PlotStyle style = standard();
    style.m_fontFamily = QString::fromStdString(figure.fontFamily);
    style.m_fontSizePt = figure.fontSizePt;
    style.m_titleSizePt = figure.fontSizePt + 1;
    switch (figure.palette) {
    case config::FigurePalette::TolBright:
        style.m_palette = tolBright();
        style.m_bad = tolBright()[1]; // red
        style.m_good = tolBright()[2]; // green
        break;
    case config::FigurePalette::TolMuted:
        style.m_palette = tolMuted();
        style.m_bad = tolMuted()[0]; // rose
        style.m_good = tolMuted()[3]; // green
        break;
    case config::FigurePalette::OkabeIto:
        style.m_palette = okabeIto();
        style.m_bad = okabeIto()[kVermillion];
        style.m_good = okabeIto()[kBluishGreen];
        break;
    }
    return style;
}

QList<QColor> PlotStyle::categoryColors(int count, const QList<QColor>& reserved) const
{
    QList<QColor> chosen;
    const auto take = [&](const QList<QColor>& candidates, bool ownPalette) {
        for (const QColor& colour : candidates) {
            if (chosen.size() >= count) {
                return;
            }
            const bool black = colour.lightnessF() < 0.05F;
            const bool taken = reserved.contains(colour) || chosen.contains(colour);
            const bool close = std::any_of(chosen.begin(), chosen.end(),
                [&colour](const QColor& other) { return colourDistance(colour, other) < kDistinctColourDistance; });
            if (!black && !taken && (ownPalette || !close)) {
                chosen.append(colour);
            }
        }
    };
    take(m_palette, true);
    for (const QList<QColor>* other : { &okabeIto(), &tolBright(), &tolMuted() }) {
        take(*other, false);
    }
    // Past every distinct colour (over twenty categories): shades of grey, darkest first, rather than a repeat.
    for (int grey = 0; chosen.size() < count; ++grey) {
        chosen.append(QColor::fromHslF(0, 0, 0.25F + 0.5F * static_cast<float>(grey % 8) / 8.0F));
    }
    return chosen;
}

QPalette PlotStyle::printPalette()
{
    QPalette print;
    print.setColor(QPalette::Base, Qt::white);
    print.setColor(QPalette::Window, Qt::white);
    print.setColor(QPalette::Text, Qt::black);
    print.setColor(QPalette::WindowText, Qt::black);
    print.setColor(QPalette::Highlight, QColor(0x00, 0x72, 0xB2));
    return print;
}

QFont PlotStyle::font() const
{
    QFont font(m_fontFamily);
    font.setPointSizeF(m_fontSizePt);
    return font;
}

QFont PlotStyle::titleFont() const
{
    QFont font(m_fontFamily);
    font.setPointSizeF(m_titleSizePt);
    font.setBold(true);
    return font;
}

QColor PlotStyle::color(int index) const
{
    const auto count = static_cast<int>(m_palette.size());
    const QColor base = m_palette[index % count];
    return index < count ? base : base.lighter(100 + 45 * (index / count));
}

QColor PlotStyle::badColor() const
{
    return m_bad;
}

QColor PlotStyle::goodColor() const
{
    return m_good;
}

void PlotStyle::apply(QCustomPlot* plot, const QPalette& colours) const
{
    const QColor text = colours.color(QPalette::Text);
    plot->setBackground(colours.brush(QPalette::Base));
    plot->setFont(font());
    QPen axisPen(text, m_lineWidthPx * 0.67);
    axisPen.setCapStyle(Qt::FlatCap);
    const QList<QCPAxis*> axes = plot->axisRect() ? plot->axisRect()->axes() : QList<QCPAxis*>();
    for (QCPAxis* axis : axes) {
        axis->setBasePen(axisPen);
        axis->setTickPen(axisPen);
        axis->setSubTickPen(axisPen);
        axis->setTickLabelColor(text);
        axis->setLabelColor(text);
        axis->setTickLabelFont(font());
        axis->setLabelFont(font());
        QColor grid = text;
        grid.setAlphaF(0.15F);
        axis->grid()->setPen(QPen(grid, 1, Qt::DotLine));
    }
    plot->legend->setFont(font());
    plot->legend->setTextColor(text);
    plot->legend->setBrush(Qt::NoBrush);
    plot->legend->setBorderPen(Qt::NoPen);
    plot->legend->setIconSize(QSize(10, 10));
}

} // namespace rapid::widgets
