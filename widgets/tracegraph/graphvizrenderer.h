// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QString>

#include <string>

namespace rapid::widgets {

/// Lays out @p dot with Graphviz's "dot" engine and returns the drawing as SVG text. Empty with @p error set (when
/// given) on DOT that does not parse or a layout/render failure; never throws. Safe to call from any thread:
/// Graphviz keeps global state (the parser, the error handler, the plugin context), so calls are serialised by one
/// process-wide mutex and share one Graphviz context.
QByteArray renderDotToSvg(const std::string& dot, QString* error = nullptr);

} // namespace rapid::widgets
