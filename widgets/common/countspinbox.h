// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QDoubleSpinBox>

namespace rapid::widgets {

/// A spin box for a large count, shown as formatShortCount writes it with a noun ("1.00 T tokens", "350 B tokens")
/// rather than as a fixed number of decimals of one unit ("1000.000 B tokens"). Its value is in @p unit (1e9:
/// billions); it is typed as a number with an optional K, M, B (or G) or T ("1.5T", "350 B"), a bare number being
/// in @p unit. The arrows change the second significant digit (1.00 T to 1.10 T, 350 B to 360 B).
class CountSpinBox : public QDoubleSpinBox {
    Q_OBJECT
public:
    CountSpinBox(double unit, const QString& noun, QWidget* parent = nullptr);

    QString textFromValue(double value) const override;
    double valueFromText(const QString& text) const override;
    QValidator::State validate(QString& text, int& position) const override;
    void stepBy(int steps) override;

private:
    /// @p text without the noun, which the display adds and a user may leave or delete.
    QString withoutNoun(const QString& text) const;

    double m_unit;
    QString m_noun;
};

} // namespace rapid::widgets
