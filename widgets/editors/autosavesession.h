// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

#include <memory>

class QLockFile;

namespace rapid::widgets {

/// One window's claim on its autosave: a random id, and a lock file "<dir>/<id>.lock" held while the window lives.
/// An autosave whose session holds no lock, or a stale one (its process died: QLockFile checks the pid), was left by
/// a session that crashed or was killed, and is offered for restore; one of a running session (another window, in
/// this process or another) is left alone.
class AutosaveSession {
public:
    explicit AutosaveSession(const QString& directory);
    ~AutosaveSession();
    AutosaveSession(const AutosaveSession&) = delete;
    AutosaveSession& operator=(const AutosaveSession&) = delete;

    QString id() const { return m_id; }
    /// Whether session @p id is still running (this one always is).
    bool isAlive(const QString& id) const;

private:
    QString m_directory;
    QString m_id;
    std::unique_ptr<QLockFile> m_lock;
};

} // namespace rapid::widgets
