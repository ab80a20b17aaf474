// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/figureformat.h"

#include <QLocale>
#include <QRegularExpression>

#include <cmath>

namespace rapid::widgets {

namespace {

struct CountSuffix {
    double scale;
    QChar letter;
};

constexpr CountSuffix kCountSuffixes[] = { { 1e12, u'T' }, { 1e9, u'B' }, { 1e6, u'M' }, { 1e3, u'K' } };

} // namespace

QString formatShortCount(double count)
{
    if (!std::isfinite(count) || count == 0) {
        return QString::number(count);
    }
    if (std::abs(count) < 1e4 && count == std::round(count)) {
        return QString::number(count, 'f', 0); // 1954 steps: four digits read at once, and exactly
    }
    // Rounded to three significant digits first, so that 999.7 B reads 1.00 T rather than 1000 B.
    const double magnitude = std::floor(std::log10(std::abs(count)));
    const double quantum = std::pow(10.0, magnitude - 2);
    const double rounded = std::round(count / quantum) * quantum;
    QString suffix;
    double scaled = rounded;
    for (const CountSuffix& unit : kCountSuffixes) {
        if (std::abs(rounded) >= unit.scale) {
            scaled = rounded / unit.scale;
            suffix = QStringLiteral(" ") + unit.letter;
            break;
        }
    }
    const double size = std::abs(scaled);
    return QString::number(scaled, 'f', size >= 100 ? 0 : size >= 10 ? 1 : 2) + suffix;
}

std::optional<double> parseCount(const QString& text, double unit)
{
    static const QRegularExpression pattern(
        QStringLiteral(R"(^\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*([kKmMbBgGtT]?)\s*$)"));
    const QRegularExpressionMatch match = pattern.match(text);
    if (!match.hasMatch()) {
        return std::nullopt;
    }
    bool read = false;
    const double number = match.captured(1).toDouble(&read);
    if (!read) {
        return std::nullopt;
    }
    const QChar letter = match.captured(2).isEmpty() ? QChar() : match.captured(2).at(0).toUpper();
    if (letter.isNull()) {
        return number * unit;
    }
    for (const CountSuffix& suffix : kCountSuffixes) {
        if (suffix.letter == letter || (letter == u'G' && suffix.letter == u'B')) {
            return number * suffix.scale;
        }
    }
    return std::nullopt;
}

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
    return QStringLiteral("%1 tok/s").arg(formatRate(tokensPerSecond));
}

QString formatRate(double rate)
{
    // Whole numbers from ten up; below, two significant digits, so a step of hours reads "0.031", never "0".
    if (!std::isfinite(rate)) {
        return QLocale().toString(rate);
    }
    if (std::abs(rate) >= 10 || rate == 0) {
        return QLocale().toString(std::llround(rate));
    }
    return QLocale().toString(rate, 'g', 2);
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
