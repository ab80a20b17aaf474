// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/screenfit.h"

#include <QGuiApplication>
#include <QScreen>
#include <QWidget>

#include <algorithm>

namespace rapid::widgets {

QRect fittedGeometry(const QRect& inner, const QRect& frame, const QRect& available, const QSize& minimum)
{
    const QMargins margins(inner.left() - frame.left(), inner.top() - frame.top(), frame.right() - inner.right(),
        frame.bottom() - inner.bottom());
    const QSize room = available.size().shrunkBy(margins);
    const QSize size = inner.size().boundedTo(room).expandedTo(minimum);
    QRect fitted(QPoint(), size);
    const int left = std::clamp(frame.left(), available.left(),
        std::max(available.left(), available.right() + 1 - size.width() - margins.left() - margins.right()));
    const int top = std::clamp(frame.top(), available.top(),
        std::max(available.top(), available.bottom() + 1 - size.height() - margins.top() - margins.bottom()));
    fitted.moveTopLeft(QPoint(left + margins.left(), top + margins.top()));
    return fitted;
}

void fitWindowIntoScreen(QWidget* window)
{
    const QScreen* screen = window->screen() ? window->screen() : QGuiApplication::primaryScreen();
    if (!screen) {
        return;
    }
    // Restore returns to the normal geometry, which a maximised window keeps aside: it is set (and recorded) in the
    // normal state, then the state comes back.
    const Qt::WindowStates states = window->windowState();
    const Qt::WindowStates enlarged = Qt::WindowMaximized | Qt::WindowFullScreen;
    if (states & enlarged) {
        window->setWindowState(states & ~enlarged);
    }
    // Before the window is shown its frame is unknown (no margins yet); frameGeometry() then equals geometry().
    const QRect fitted = fittedGeometry(
        window->geometry(), window->frameGeometry(), screen->availableGeometry(), window->minimumSizeHint());
    if (fitted != window->geometry()) {
        window->setGeometry(fitted);
    }
    if (states & enlarged) {
        window->setWindowState(states);
    }
}

} // namespace rapid::widgets
