// SPDX-License-Identifier: GPL-3.0-or-later
#include "editors/autosavestore.h"

#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QSaveFile>
#include <QStandardPaths>

namespace rapid::widgets {

namespace {

const QString kSidecarSuffix = QStringLiteral(".origin");

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

QString AutosaveStore::pathFor(const QString& workspaceName) const
{
    // Workspace names are free text ("Llama-3.1-70B training on 64 H100"); keep file names portable.
    static const QRegularExpression unsafe(QStringLiteral("[^A-Za-z0-9._-]+"));
    QString stem = workspaceName;
    stem.replace(unsafe, QStringLiteral("_"));
    if (stem.isEmpty()) {
        stem = QStringLiteral("untitled");
    }
    return m_directory + QLatin1Char('/') + stem + QStringLiteral(".rapid.yaml");
}

bool AutosaveStore::write(const QString& workspaceName, const QString& text, const QString& originalPath) const
{
    if (!QDir().mkpath(m_directory)) {
        return false;
    }
    const QString path = pathFor(workspaceName);
    return writeText(path, text) && writeText(path + kSidecarSuffix, originalPath + QLatin1Char('\n'));
}

std::optional<AutosaveStore::Entry> AutosaveStore::find(const QString& workspaceName) const
{
    const QString path = pathFor(workspaceName);
    if (!QFile::exists(path)) {
        return std::nullopt;
    }
    return Entry { path, readText(path), readText(path + kSidecarSuffix).trimmed() };
}

void AutosaveStore::remove(const QString& workspaceName) const
{
    const QString path = pathFor(workspaceName);
    QFile::remove(path);
    QFile::remove(path + kSidecarSuffix);
}

} // namespace rapid::widgets
