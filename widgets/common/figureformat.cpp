// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/figureformat.h"

#include <QLocale>

#include <cmath>

namespace rapid::widgets {

QString formatGiB(double bytes)
{
    const double gib = bytes / kBytesPerGiB;
    return QStringLiteral("%1 GiB").arg(gib, 0, 'f', std::abs(gib) >= 100 ? 0 : 1);
}

QString formatSeconds(double seconds)
{
    const double magnitude = std::abs(seconds);
    if (magnitude >= 1.0) {
        return QStringLiteral("%1 s").arg(seconds, 0, 'f', magnitude >= 100 ? 0 : 2);
    }
    if (magnitude >= 1e-3) {
        return QStringLiteral("%1 ms").arg(seconds * 1e3, 0, 'f', magnitude >= 0.1 ? 0 : 1);
    }
    return QStringLiteral("%1 µs").arg(seconds * 1e6, 0, 'f', 0);
}

QString formatTokensPerSecond(double tokensPerSecond)
{
    // Compact above ten thousand so the figure fits its tile ("59.8k tok/s" rather than "59,835 tok/s").
    if (tokensPerSecond >= 1e6) {
        return QStringLiteral("%1M tok/s").arg(tokensPerSecond / 1e6, 0, 'f', 2);
    }
    if (tokensPerSecond >= 1e4) {
        return QStringLiteral("%1k tok/s").arg(tokensPerSecond / 1e3, 0, 'f', 1);
    }
    return QStringLiteral("%1 tok/s").arg(QLocale().toString(std::llround(tokensPerSecond)));
}

QString formatPercent(double fraction)
{
    return QStringLiteral("%1 %").arg(fraction * 100.0, 0, 'f', 1);
}

std::optional<double> relativeChange(double current, double baseline)
{
    if (baseline == 0.0) {
        return std::nullopt;
    }
    return (current - baseline) / baseline * 100.0;
}

QString formatDelta(double percent)
{
    const QString number = QString::number(std::abs(percent), 'f', 1);
    if (number == QLatin1String("0.0")) {
        return QStringLiteral("±0.0%");
    }
    return (percent > 0 ? QStringLiteral("+") : QStringLiteral("\u2212")) + number + QStringLiteral("%");
}

} // namespace rapid::widgets
