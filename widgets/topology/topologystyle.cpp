// SPDX-License-Identifier: GPL-3.0-or-later
#include "topology/topologystyle.h"

#include <QApplication>

#include <algorithm>

namespace rapid::widgets::topologystyle {

namespace {

bool isDark(const QPalette& palette)
{
    return palette.color(QPalette::Base).lightnessF() < 0.5;
}

QColor mix(const QColor& a, const QColor& b, double t)
{
    return QColor::fromRgbF(static_cast<float>(a.redF() + (b.redF() - a.redF()) * t),
        static_cast<float>(a.greenF() + (b.greenF() - a.greenF()) * t),
        static_cast<float>(a.blueF() + (b.blueF() - a.blueF()) * t));
}

const QColor kBlue(0x00, 0x72, 0xB2);
const QColor kGreen(0x00, 0x9E, 0x73);
const QColor kOrange(0xE6, 0x9F, 0x00);
const QColor kVermillion(0xD5, 0x5E, 0x00);
const QColor kSky(0x56, 0xB4, 0xE9);
const QColor kPurple(0xCC, 0x79, 0xA7);
const QColor kDarkRed(0xA5, 0x0F, 0x15);

} // namespace

QColor healthy(const QPalette& palette)
{
    // Mid grey, a little lighter on a dark background so that thin lines stay visible.
    return isDark(palette) ? QColor(0x90, 0x90, 0x90) : QColor(0x8a, 0x8a, 0x8a);
}

QColor degraded()
{
    return kOrange;
}

QColor failed()
{
    return kVermillion;
}

QColor selection(const QPalette& palette)
{
    QColor colour = palette.color(QPalette::Highlight);
    colour.setAlpha(150);
    return colour;
}

QColor utilisation(double fraction)
{
    const double t = std::clamp(fraction, 0.0, 1.0);
    return t < 0.5 ? mix(kSky, kPurple, t / 0.5) : mix(kPurple, kDarkRed, (t - 0.5) / 0.5);
}

double utilisationWidth(double fraction)
{
    return kLinkWidth + 2.4 * std::clamp(fraction, 0.0, 1.0);
}

QPen linkPen(const QPalette& palette, double health, std::optional<double> load)
{
    QPen pen(healthy(palette), kLinkWidth, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin);
    if (health <= 0) {
        pen.setColor(failed());
        pen.setWidthF(kLinkWidth + 0.6);
        pen.setStyle(Qt::DashLine);
        pen.setCapStyle(Qt::FlatCap);
    } else if (load) {
        pen.setColor(utilisation(*load));
        pen.setWidthF(utilisationWidth(*load));
    } else if (health < 1) {
        pen.setColor(degraded());
        pen.setWidthF(kLinkWidth + 0.6);
    }
    return pen;
}

QColor gpuFill(const QPalette& palette)
{
    return mix(palette.color(QPalette::Base), kBlue, isDark(palette) ? 0.45 : 0.22);
}

QColor gpuBorder()
{
    return kBlue;
}

QColor switchFill(const QPalette& palette)
{
    return mix(palette.color(QPalette::Base), kGreen, isDark(palette) ? 0.40 : 0.20);
}

QColor switchBorder()
{
    return kGreen;
}

QColor groupFill(const QPalette& palette)
{
    return mix(palette.color(QPalette::Base), palette.color(QPalette::Text), isDark(palette) ? 0.06 : 0.03);
}

QColor groupBorder(const QPalette& palette)
{
    return mix(palette.color(QPalette::Base), palette.color(QPalette::Text), 0.35);
}

QColor text(const QPalette& palette)
{
    return palette.color(QPalette::Text);
}

QColor mutedText(const QPalette& palette)
{
    return mix(palette.color(QPalette::Base), palette.color(QPalette::Text), 0.65);
}

QFont font(double pointSize, bool bold, bool italic)
{
    QFont result = QApplication::font();
    result.setPointSizeF(pointSize);
    result.setBold(bold);
    result.setItalic(italic);
    return result;
}

} // namespace rapid::widgets::topologystyle
