// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/placeholderselector.h"

#include <QAbstractSpinBox>
#include <QEvent>
#include <QPointer>
#include <QTimer>

namespace rapid::widgets {

PlaceholderSelector::PlaceholderSelector(QObject* parent)
    : QObject(parent)
{
    setObjectName(QStringLiteral("placeholderSelector"));
}

void PlaceholderSelector::install(QObject* application)
{
    if (!application->findChild<PlaceholderSelector*>(QString(), Qt::FindDirectChildrenOnly)) {
        application->installEventFilter(new PlaceholderSelector(application));
    }
}

bool PlaceholderSelector::eventFilter(QObject* watched, QEvent* event)
{
    if (event->type() == QEvent::FocusIn) {
        auto* spin = qobject_cast<QAbstractSpinBox*>(watched);
        if (spin && !spin->specialValueText().isEmpty() && spin->text() == spin->specialValueText()) {
            // After the mouse press that gave the focus has placed the cursor: selecting now would be undone by it.
            QTimer::singleShot(0, spin, [box = QPointer<QAbstractSpinBox>(spin)] {
                if (box && box->hasFocus()) {
                    box->selectAll();
                }
            });
        }
    }
    return QObject::eventFilter(watched, event);
}

} // namespace rapid::widgets
