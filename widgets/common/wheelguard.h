// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>

class QWidget;

namespace rapid::widgets {

/// Keeps the mouse wheel from changing values it merely passes over. Combo boxes, spin boxes and sliders change
/// their value on a wheel notch, and a QComboBox or QAbstractSpinBox even takes the focus by wheel (Qt::WheelFocus)
/// before any filter sees the event: scrolling a form or the Topology tab's side column flipped the values under
/// the pointer (issue #18: the collective backend went from analytical to packet). Installed once on the
/// application, it gives such widgets Qt::StrongFocus as they are polished, and passes a wheel over one without the
/// keyboard focus on to its parents, so the surrounding scroll area scrolls. With the focus (clicked or tabbed to)
/// the wheel still steps the value. Scroll bars are sliders too and keep their wheel.
class WheelGuard : public QObject {
    Q_OBJECT
public:
    /// Installs the one guard of @p application (idempotent); @p existing's value widgets, created before, are
    /// guarded at once.
    static void install(QObject* application, QWidget* existing = nullptr);

    /// Whether @p widget is a value widget the guard protects.
    static bool guards(const QWidget* widget);
    /// Takes the focus-by-wheel away from @p widget and its value-widget descendants.
    static void guardTree(QWidget* widget);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    explicit WheelGuard(QObject* parent);
};

} // namespace rapid::widgets
