// SPDX-License-Identifier: GPL-3.0-or-later
#include "resilience/resilienceinputs.h"

#include <QCoreApplication>
#include <QStringList>

#include <algorithm>
#include <cmath>

namespace rapid::widgets {

namespace {

QString tr(const char* text)
{
    return QCoreApplication::translate("NumberList", text);
}

QString bound(double value)
{
    return QString::number(value, 'g', 6);
}

/// "from 0 to below 1", "from 1 to 1000", "above 0 up to 1": the rule's range as the messages say it.
QString rangeText(const NumberListRule& rule)
{
    const QString low
        = rule.minimumIncluded ? tr("from %1").arg(bound(rule.minimum)) : tr("above %1").arg(bound(rule.minimum));
    const QString high
        = rule.maximumIncluded ? tr("to %1").arg(bound(rule.maximum)) : tr("to below %1").arg(bound(rule.maximum));
    return low + QLatin1Char(' ') + high;
}

} // namespace

std::optional<std::vector<double>> parseNumberList(const QString& text, const NumberListRule& rule, QString* problem)
{
    const auto fail = [problem](const QString& why) -> std::optional<std::vector<double>> {
        if (problem) {
            *problem = why;
        }
        return std::nullopt;
    };
    const QStringList items = text.split(QLatin1Char(','));
    std::vector<double> values;
    for (const QString& raw : items) {
        const QString item = raw.trimmed();
        if (item.isEmpty()) {
            return fail(text.trimmed().isEmpty() ? tr("Give at least one value")
                                                 : tr("An empty item: separate the values with single commas"));
        }
        bool ok = false;
        const double value = item.toDouble(&ok);
        if (!ok || !std::isfinite(value)) {
            return fail(tr("“%1” is not a number").arg(item));
        }
        const bool belowMinimum = rule.minimumIncluded ? value < rule.minimum : value <= rule.minimum;
        const bool aboveMaximum = rule.maximumIncluded ? value > rule.maximum : value >= rule.maximum;
        if (belowMinimum || aboveMaximum) {
            return fail(tr("%1 is out of range: expected %2").arg(item, rangeText(rule)));
        }
        if (rule.wholeNumbers && value != std::floor(value)) {
            return fail(tr("%1 is not a whole number").arg(item));
        }
        if (std::find(values.begin(), values.end(), value) == values.end()) {
            values.push_back(value);
        }
    }
    if (static_cast<int>(values.size()) > rule.maxCount) {
        return fail(tr("At most %1 values").arg(rule.maxCount));
    }
    return values;
}

} // namespace rapid::widgets
