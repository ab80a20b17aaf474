// SPDX-License-Identifier: GPL-3.0-or-later
// How a validation test judges one figure (an error or an accuracy against published measurements): at its bar when
// the bar is met, and when it is not met yet at a ceiling (today's figure plus a small margin, written in the test
// with where it comes from), so that a figure getting worse fails while the bar stays the goal.
#pragma once

#include <QString>
#include <QTest>

#include <optional>

namespace rapid::test {

/// One figure and what it must meet. Lower is better unless `higherIsBetter` (an accuracy).
struct ValidationFigure {
    QString name;
    double value = 0;
    double bar = 0; ///< the issue's bar
    /// Bars not met yet: the figure today plus a margin. Empty for a met bar, which is checked at the bar.
    std::optional<double> ceiling;
    bool higherIsBetter = false;
};

/// Checks @p figure as described above (QVERIFY2 inside: call it from a test function). A figure that has reached
/// its bar although the test still gives it a ceiling says so (move it to the met list).
inline void checkValidationFigure(const ValidationFigure& figure)
{
    const auto better = [&](double a, double b) { return figure.higherIsBetter ? a >= b : a <= b; };
    const QString text
        = QStringLiteral("%1: %2 (bar %3)").arg(figure.name).arg(figure.value, 0, 'f', 2).arg(figure.bar);
    if (better(figure.value, figure.bar)) {
        if (figure.ceiling) {
            qWarning("%s now meets its bar: check it at the bar (drop its ceiling)", qPrintable(text));
        }
        return;
    }
    QVERIFY2(figure.ceiling, qPrintable(text + QStringLiteral(" misses its bar")));
    qWarning("%s: bar not met yet, held at ceiling %.2f", qPrintable(text), *figure.ceiling);
    QVERIFY2(better(figure.value, *figure.ceiling),
        qPrintable(
            text + QStringLiteral(" is worse than its ceiling %1 (today's figure plus margin)").arg(*figure.ceiling)));
}

} // namespace rapid::test
