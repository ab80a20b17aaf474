// SPDX-License-Identifier: GPL-3.0-or-later
#include "editors/recentfiles.h"

#include <QFileInfo>
#include <QSettings>

namespace rapid::widgets {

namespace {
const QString kKey = QStringLiteral("recentFiles");
}

QStringList RecentFiles::files() const
{
    return QSettings().value(kKey).toStringList();
}

void RecentFiles::add(const QString& path)
{
    const QString absolute = QFileInfo(path).absoluteFilePath();
    QStringList list = files();
    list.removeAll(absolute);
    list.prepend(absolute);
    store(list.mid(0, kMaximum));
}

void RecentFiles::remove(const QString& path)
{
    QStringList list = files();
    list.removeAll(path);
    store(list);
}

void RecentFiles::clear()
{
    store({});
}

void RecentFiles::store(const QStringList& files)
{
    QSettings().setValue(kKey, files);
}

} // namespace rapid::widgets
