// SPDX-License-Identifier: GPL-3.0-or-later
// Helpers of the GUI tests: open a main window on a workspace preset the way a user would, and type into fields.
#pragma once

#include "mainwindow.h"

#include <QApplication>
#include <QDir>
#include <QLineEdit>
#include <QPalette>
#include <QPixmap>
#include <QSpinBox>
#include <QTest>
#include <QWheelEvent>

#include <memory>

namespace rapid::test {

inline const QString kWorkspacePreset = QStringLiteral("llama-3.1-70b-64xh100");

/// A shown 1400x900 main window on @p reference, or null when it cannot open.
inline std::unique_ptr<widgets::MainWindow> openWindow(const QString& reference = kWorkspacePreset)
{
    auto window = std::make_unique<widgets::MainWindow>(config::PresetLibrary::standard());
    window->resize(1400, 900);
    if (!window->openWorkspace(reference)) {
        return nullptr;
    }
    window->show();
    if (!QTest::qWaitForWindowExposed(window.get())) {
        return nullptr;
    }
    return window;
}

/// The form's spin box for @p keyPath ("run.parallelism.tp").
inline QSpinBox* spinBox(widgets::MainWindow& window, const QString& keyPath)
{
    return window.findChild<QSpinBox*>(QStringLiteral("field:") + keyPath);
}

/// Select all, type, Enter: what a user does to replace a spin box's value.
inline void typeIntoSpinBox(QSpinBox* spin, const QString& text)
{
    spin->setFocus();
    QTest::keyClick(spin, Qt::Key_A, Qt::ControlModifier);
    QTest::keyClicks(spin, text);
    QTest::keyClick(spin, Qt::Key_Return);
}

/// One notch of the mouse wheel over @p widget's centre (@p notches < 0: towards the user, which scrolls down),
/// delivered as QApplication::notify delivers a wheel from a real mouse: first the focus goes to the nearest widget
/// from there up whose focus policy takes focus by wheel (Qt::WheelFocus, a QComboBox's and QAbstractSpinBox's
/// default), then the event goes to the widget and up its parents while they ignore it. Qt 6.4's QTest has no wheel
/// function, and notify() does neither step for a QWheelEvent sent with QApplication::sendEvent (not spontaneous:
/// "Synthesized events shouldn't propagate"), so this walk does them. Returns the widget that took the event.
inline QWidget* wheel(QWidget* widget, int notches = -1)
{
    for (QWidget* candidate = widget; candidate; candidate = candidate->parentWidget()) {
        if (candidate->isEnabled() && (candidate->focusPolicy() & Qt::WheelFocus) == Qt::WheelFocus) {
            candidate->setFocus(Qt::MouseFocusReason);
            break;
        }
        if (candidate->isWindow()) {
            break;
        }
    }
    const QPointF global = widget->mapToGlobal(QPointF(widget->rect().center()));
    for (QWidget* target = widget; target; target = target->isWindow() ? nullptr : target->parentWidget()) {
        QWheelEvent event(target->mapFromGlobal(global), global, QPoint(),
            QPoint(0, notches * QWheelEvent::DefaultDeltasPerStep), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase,
            false);
        QApplication::sendEvent(target, &event);
        if (event.isAccepted()) {
            return target;
        }
    }
    return nullptr;
}

/// A dark palette, to check by eye that views and charts follow the palette (screenshots in the build folder).
inline QPalette darkPalette()
{
    QPalette dark;
    dark.setColor(QPalette::Window, QColor(0x2b, 0x2b, 0x2b));
    dark.setColor(QPalette::WindowText, QColor(0xe8, 0xe8, 0xe8));
    dark.setColor(QPalette::Base, QColor(0x1e, 0x1e, 0x1e));
    dark.setColor(QPalette::AlternateBase, QColor(0x33, 0x33, 0x33));
    dark.setColor(QPalette::Text, QColor(0xe8, 0xe8, 0xe8));
    dark.setColor(QPalette::Button, QColor(0x3a, 0x3a, 0x3a));
    dark.setColor(QPalette::ButtonText, QColor(0xe8, 0xe8, 0xe8));
    dark.setColor(QPalette::Highlight, QColor(0x3d, 0x8e, 0xe0));
    dark.setColor(QPalette::ToolTipBase, QColor(0x4a, 0x44, 0x20));
    dark.setColor(QPalette::ToolTipText, QColor(0xf0, 0xf0, 0xe0));
    return dark;
}

#ifdef RAPID_SCREENSHOT_DIR
/// Saves @p shot as @p fileName in the build's screenshots/docs/ folder: the shots the README shows, copied to
/// docs/screenshots/ by the explicit target update-screenshots (never by a test run).
inline bool saveScreenshot(const QPixmap& shot, const QString& fileName)
{
    const QString folder = QStringLiteral(RAPID_SCREENSHOT_DIR "/docs");
    QDir().mkpath(folder);
    return !shot.isNull() && shot.save(folder + QLatin1Char('/') + fileName);
}
#endif

/// Select all, delete, type: as a user replaces a line's text.
inline void typeLine(QLineEdit* edit, const QString& text)
{
    edit->setFocus();
    QTest::keyClick(edit, Qt::Key_A, Qt::ControlModifier);
    QTest::keyClick(edit, Qt::Key_Delete);
    QTest::keyClicks(edit, text);
}

/// Select all, type, Return: as a user enters a spin box's value.
inline void typeSpin(QAbstractSpinBox* spin, const QString& text)
{
    spin->setFocus();
    QTest::keyClick(spin, Qt::Key_A, Qt::ControlModifier);
    QTest::keyClicks(spin, text);
    QTest::keyClick(spin, Qt::Key_Return);
}

} // namespace rapid::test
