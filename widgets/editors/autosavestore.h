// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QDateTime>
#include <QString>

#include <optional>
#include <vector>

namespace rapid::widgets {

/// Unsaved edits kept on disk so a crash loses at most the autosave delay. Each window (an AutosaveSession) keeps
/// its workspace's edits in "<dir>/<session id>.rapid.yaml", the composed workspace, with a sidecar
/// "<session id>.rapid.yaml.origin" naming the file they belong to (empty for an untitled workspace). Keyed by the
/// session, never by the workspace's name: Save As keeps the name, so two workspaces from one preset shared one
/// autosave and the later edits overwrote the earlier ones (issue #18).
class AutosaveStore {
public:
    /// Uses QStandardPaths::AppDataLocation + "/autosave" when @p directory is empty.
    explicit AutosaveStore(QString directory = {});

    struct Entry {
        QString path; ///< the autosave file
        QString text; ///< composed workspace
        QString originalPath; ///< the file it was edited from; empty when untitled
        QString sessionId; ///< the session that wrote it (the file's stem)
        QDateTime written; ///< when it was last written
    };

    QString directory() const { return m_directory; }
    QString pathFor(const QString& sessionId) const;
    bool write(const QString& sessionId, const QString& text, const QString& originalPath) const;
    /// The autosave at @p autosavePath, if it is there.
    std::optional<Entry> read(const QString& autosavePath) const;
    /// Every autosave of the directory, newest first (also those of older versions, named after a workspace: their
    /// "session" is that name, which no running session has).
    std::vector<Entry> entries() const;
    void remove(const QString& autosavePath) const;

private:
    QString m_directory;
};

} // namespace rapid::widgets
