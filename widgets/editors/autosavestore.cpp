// SPDX-License-Identifier: GPL-3.0-or-later
#include "editors/autosavestore.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>
#include <QStandardPaths>

#include <algorithm>

namespace rapid::widgets {

namespace {

const QString kSidecarSuffix = QStringLiteral(".origin");
const QString kAutosaveSuffix = QStringLiteral(".rapid.yaml");

QString readText(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
}

bool writeText(const QString& path, const QString& text)
{
    // QSaveFile: a crash while writing leaves the previous autosave intact rather than half of a new one.
    QSaveFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(text.toUtf8()) >= 0 && file.commit();
}

} // namespace

AutosaveStore::AutosaveStore(QString directory)
    : m_directory(directory.isEmpty()
            ? QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/autosave")
            : std::move(directory))
{
}

QString AutosaveStore::pathFor(const QString& sessionId) const
{
    return m_directory + QLatin1Char('/') + sessionId + kAutosaveSuffix;
}

bool AutosaveStore::write(const QString& sessionId, const QString& text, const QString& originalPath) const
{
    if (!QDir().mkpath(m_directory)) {
        return false;
    }
    const QString path = pathFor(sessionId);
    return writeText(path, text) && writeText(path + kSidecarSuffix, originalPath + QLatin1Char('\n'));
}

std::optional<AutosaveStore::Entry> AutosaveStore::read(const QString& autosavePath) const
{
    const QFileInfo info(autosavePath);
    if (!info.isFile()) {
        return std::nullopt;
    }
    QString session = info.fileName();
    session.chop(kAutosaveSuffix.size());
    return Entry { autosavePath, readText(autosavePath), readText(autosavePath + kSidecarSuffix).trimmed(), session,
        info.lastModified() };
}

std::vector<AutosaveStore::Entry> AutosaveStore::entries() const
{
    std::vector<Entry> found;
    const QDir directory(m_directory);
    const QStringList names = directory.entryList({ QLatin1Char('*') + kAutosaveSuffix }, QDir::Files);
    for (const QString& name : names) {
        if (auto entry = read(directory.filePath(name))) {
            found.push_back(std::move(*entry));
        }
    }
    std::stable_sort(found.begin(), found.end(), [](const Entry& a, const Entry& b) { return a.written > b.written; });
    return found;
}

void AutosaveStore::remove(const QString& autosavePath) const
{
    QFile::remove(autosavePath);
    QFile::remove(autosavePath + kSidecarSuffix);
}

} // namespace rapid::widgets
