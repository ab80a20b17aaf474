// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QStringList>

namespace rapid::widgets {

/// How a form shows and writes one value.
enum class FieldKind {
    Int, ///< spin box; written as a plain integer
    Double, ///< spin box with decimals; written as a number
    Bool, ///< check box; written as true/false
    Choice, ///< combo box of fixed words
    Text, ///< line edit; written quoted when YAML would misread it
    Quantity, ///< line edit for a number or a number with a unit ("3.35 TB/s"), as configs/README.md allows
};

/// One row of a form: which key it edits and how. Forms are built from tables of these, so adding a field is one
/// line in fieldtables.cpp.
struct FieldSpec {
    QString keyPath; ///< "run.parallelism.tp"
    QString label; ///< shown left of the editor
    FieldKind kind = FieldKind::Int;
    QString section; ///< forms group consecutive fields of one section under a heading
    QStringList choices; ///< Choice only
    QString defaultValue; ///< what the loader assumes when the key is absent (shown, never written)
    /// Int/Double: the schema's range (a Double's bounds may be fractional: lora_dropout is 0 to 0.99).
    double minimum = 0;
    double maximum = 1'000'000'000;
    QString toolTip;
};

} // namespace rapid::widgets
