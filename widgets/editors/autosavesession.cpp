// SPDX-License-Identifier: GPL-3.0-or-later
#include "editors/autosavesession.h"

#include <QDir>
#include <QLockFile>
#include <QUuid>

namespace rapid::widgets {

namespace {

QString lockPath(const QString& directory, const QString& id)
{
    return directory + QLatin1Char('/') + id + QStringLiteral(".lock");
}

} // namespace

AutosaveSession::AutosaveSession(const QString& directory)
    : m_directory(directory)
    , m_id(QUuid::createUuid().toString(QUuid::WithoutBraces))
{
    QDir().mkpath(m_directory);
    m_lock = std::make_unique<QLockFile>(lockPath(m_directory, m_id));
    // Held for the window's life; a session older than QLockFile's 30 s default is still not stale while it runs.
    m_lock->setStaleLockTime(0);
    m_lock->tryLock(0);
}

AutosaveSession::~AutosaveSession() = default;

bool AutosaveSession::isAlive(const QString& id) const
{
    if (id == m_id) {
        return true;
    }
    // Taking the lock succeeds only when nobody holds it: no lock file, or one whose process is gone (QLockFile
    // removes such a stale lock). Age alone never makes it stale (0), so a long session is not mistaken for a dead
    // one. Our probe's lock is released at once.
    QLockFile probe(lockPath(m_directory, id));
    probe.setStaleLockTime(0);
    if (probe.tryLock(0)) {
        probe.unlock();
        return false;
    }
    return probe.error() == QLockFile::LockFailedError;
}

} // namespace rapid::widgets
