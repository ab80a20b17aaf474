// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QColor>
#include <QPalette>

namespace rapid::widgets {

/// The red of inline problems (a field that does not parse, a run that failed), readable on light and dark palettes.
inline QColor problemColor(const QPalette& palette)
{
    return palette.color(QPalette::Window).lightnessF() < 0.5 ? QColor(255, 110, 100) : QColor(200, 30, 30);
}

} // namespace rapid::widgets
