// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/plotstyle.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <qcustomplot.h>

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
    } else if (error) {
        *error = QStringLiteral("palette needs at least %1 colours").arg(kVermillion + 1);
    }
    return style;
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
    return m_palette[kVermillion];
}

QColor PlotStyle::goodColor() const
{
    return m_palette[kBluishGreen];
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
