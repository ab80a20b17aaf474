// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/wheelguard.h"

#include <QAbstractSlider>
#include <QAbstractSpinBox>
#include <QComboBox>
#include <QEvent>
#include <QScrollBar>
#include <QWidget>

namespace rapid::widgets {

namespace {

/// Drops Qt::WheelFocus, keeping click and tab focus: QApplication gives the focus on a wheel before event filters
/// run, so a filter alone cannot tell a wheel over the widget from one meant for it.
void dropWheelFocus(QWidget* widget)
{
    if ((widget->focusPolicy() & Qt::WheelFocus) == Qt::WheelFocus) {
        widget->setFocusPolicy(Qt::StrongFocus);
    }
}

} // namespace

WheelGuard::WheelGuard(QObject* parent)
    : QObject(parent)
{
    setObjectName(QStringLiteral("wheelGuard"));
}

void WheelGuard::install(QObject* application, QWidget* existing)
{
    if (!application->findChild<WheelGuard*>(QString(), Qt::FindDirectChildrenOnly)) {
        application->installEventFilter(new WheelGuard(application));
    }
    if (existing) {
        guardTree(existing);
    }
}

bool WheelGuard::guards(const QWidget* widget)
{
    if (qobject_cast<const QScrollBar*>(widget)) {
        return false;
    }
    return qobject_cast<const QComboBox*>(widget) || qobject_cast<const QAbstractSpinBox*>(widget)
        || qobject_cast<const QAbstractSlider*>(widget);
}

void WheelGuard::guardTree(QWidget* widget)
{
    if (guards(widget)) {
        dropWheelFocus(widget);
    }
    const QList<QWidget*> children = widget->findChildren<QWidget*>();
    for (QWidget* child : children) {
        if (guards(child)) {
            dropWheelFocus(child);
        }
    }
}

bool WheelGuard::eventFilter(QObject* watched, QEvent* event)
{
    // The cheap type test first: every event of the application passes here.
    const QEvent::Type type = event->type();
    if (type != QEvent::Wheel && type != QEvent::Polish) {
        return false;
    }
    auto* widget = qobject_cast<QWidget*>(watched);
    if (!widget || !guards(widget)) {
        return false;
    }
    if (type == QEvent::Polish) {
        dropWheelFocus(widget);
        return false;
    }
    if (widget->hasFocus()) {
        return false; // the user is in it: the wheel steps its value
    }
    // Handled here but not accepted: QApplication then offers the wheel to the parents, up to the scroll area.
    event->ignore();
    return true;
}

} // namespace rapid::widgets
