// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QRect>

class QWidget;

namespace rapid::widgets {

/// The geometry (client area, as QWidget::setGeometry takes it) that puts a window whose client area is @p inner
/// and whose frame is @p frame inside @p available: shrunk to the room there is, then moved in from the edges it
/// crossed. The frame keeps its margins. A window that cannot shrink below @p minimum stays that large, at the
/// top left of @p available.
QRect fittedGeometry(const QRect& inner, const QRect& frame, const QRect& available, const QSize& minimum);

/// Fits the top-level @p window (in its normal state) into the available area of its screen, see fittedGeometry();
/// a maximised or full-screen window keeps its state, and the normal geometry it returns to on Restore is fitted.
void fitWindowIntoScreen(QWidget* window);

} // namespace rapid::widgets
