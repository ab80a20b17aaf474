// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/countspinbox.h"

#include "common/figureformat.h"

#include <QRegularExpression>

#include <algorithm>
#include <cmath>

namespace rapid::widgets {

CountSpinBox::CountSpinBox(double unit, const QString& noun, QWidget* parent)
    : QDoubleSpinBox(parent)
    , m_unit(unit)
    , m_noun(noun)
{
    // Decimals enough that a value typed as a count is not rounded away in the spin box's unit (1 M tokens is
    // 0.001 B); what is shown is formatShortCount's three significant digits regardless.
    setDecimals(9);
}

QString CountSpinBox::textFromValue(double value) const
{
    return formatShortCount(value * m_unit) + QLatin1Char(' ') + m_noun;
}

QString CountSpinBox::withoutNoun(const QString& text) const
{
    QString bare = text.trimmed();
    // The noun, or what is left of it while it is being deleted ("tok"), as a word of its own: at least two letters,
    // so that "1.5 T" keeps its suffix letter.
    const qsizetype space = bare.lastIndexOf(QLatin1Char(' '));
    if (space > 0) {
        const QString word = bare.mid(space + 1);
        if (word.size() >= 2 && m_noun.startsWith(word, Qt::CaseInsensitive)) {
            bare.truncate(space);
        }
    }
    return bare.trimmed();
}

double CountSpinBox::valueFromText(const QString& text) const
{
    return parseCount(withoutNoun(text), m_unit).value_or(value() * m_unit) / m_unit;
}

QValidator::State CountSpinBox::validate(QString& text, int& /*position*/) const
{
    const QString bare = withoutNoun(text);
    if (const std::optional<double> count = parseCount(bare, m_unit)) {
        const double inUnit = *count / m_unit;
        return inUnit >= minimum() && inUnit <= maximum() ? QValidator::Acceptable : QValidator::Intermediate;
    }
    // On the way to a count: digits, a point, an exponent begun, a suffix letter.
    static const QRegularExpression partial(QStringLiteral(R"(^[0-9]*\.?[0-9]*([eE][-+]?[0-9]*)?\s*[kKmMbBgGtT]?$)"));
    return partial.match(bare).hasMatch() ? QValidator::Intermediate : QValidator::Invalid;
}

void CountSpinBox::stepBy(int steps)
{
    // One in the second significant digit of the count: a fixed step in the unit would be far too fine at 1 T and
    // far too coarse at 5 M.
    const double count = std::max(value() * m_unit, minimum() * m_unit);
    const double step = std::pow(10.0, std::floor(std::log10(count)) - 1);
    // Snapped to the step, so that a count typed as 1.234 T steps to 1.3 T and not 1.334 T.
    const double next = (std::round(count / step) + steps) * step;
    setValue(std::clamp(next / m_unit, minimum(), maximum()));
}

} // namespace rapid::widgets
