// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QStringList>

#include <functional>

namespace rapid::widgets {

/// @p labels shortened until @p fits accepts each, keeping what tells one from another. A label that shares its
/// beginning with another up to where it would be cut keeps as much of its head as fits, "…", and the words from
/// where the two differ on ("Llama-3.1-70B…seq 4096", "Llama-3.1-70B · t…mb1 (2)"); any other long label is cut at
/// its end ("Llama-3.1-70B · tp8 pp4…"). Labels that fit stay as they are; equal labels stay equal.
QStringList elideDistinctly(const QStringList& labels, const std::function<bool(const QString&)>& fits);

/// elideDistinctly() with at most @p longest characters per label.
QStringList elideDistinctly(const QStringList& labels, qsizetype longest);

} // namespace rapid::widgets
