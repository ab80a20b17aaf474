// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QStringList>

namespace rapid::widgets {

/// The most recently opened or saved workspace files, newest first, kept in QSettings.
class RecentFiles {
public:
    static constexpr int kMaximum = 8;

    QStringList files() const;
    void add(const QString& path);
    void remove(const QString& path);
    void clear();

private:
    void store(const QStringList& files);
};

} // namespace rapid::widgets
