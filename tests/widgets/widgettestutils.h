// SPDX-License-Identifier: GPL-3.0-or-later
// Helpers of the GUI tests: open a main window on a workspace preset the way a user would, and type into fields.
#pragma once

#include "mainwindow.h"

#include <QSpinBox>
#include <QTest>

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

} // namespace rapid::test
