// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QColor>
#include <QFont>
#include <QPalette>
#include <QPen>

#include <optional>

namespace rapid::widgets {

/// Colours, pens and fonts of the topology view, in one place so that the links, the nodes and the legend agree.
/// Health uses the Okabe-Ito orange and vermillion of the charts (colour-blind safe) and a dashed line for a failed
/// link, so that failure reads without colour; utilisation uses a sky-blue to dark-red scale whose width grows with
/// the load for the same reason. Colours that sit on the background are taken from the palette at paint time, so the
/// view follows a dark desktop palette.
namespace topologystyle {

constexpr double kLinkWidth = 1.6;

QColor healthy(const QPalette& palette);
QColor degraded();
QColor failed();
QColor selection(const QPalette& palette);
/// 0 = idle (sky blue), 0.5 (reddish purple), >= 1 = saturated (dark red).
QColor utilisation(double fraction);
double utilisationWidth(double fraction);

/// The pen of a link: failed (dashed vermillion) wins over utilisation, which wins over degraded and healthy.
QPen linkPen(const QPalette& palette, double health, std::optional<double> utilisation);

QColor gpuFill(const QPalette& palette);
QColor gpuBorder();
QColor switchFill(const QPalette& palette);
QColor switchBorder();
QColor groupFill(const QPalette& palette);
QColor groupBorder(const QPalette& palette);
QColor text(const QPalette& palette);
QColor mutedText(const QPalette& palette);

/// The item font: the application font at @p pointSize.
QFont font(double pointSize, bool bold = false, bool italic = false);

} // namespace topologystyle

} // namespace rapid::widgets
