// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

#include <optional>

namespace rapid::widgets {

/// Unsaved edits kept on disk so a crash loses at most the autosave delay: "<dir>/<name>.rapid.yaml" holds the
/// composed workspace, and a sidecar "<name>.rapid.yaml.origin" records the file it belongs to (empty for an
/// untitled workspace), so a workspace of the same name from another file is not offered as its restore.
class AutosaveStore {
public:
    /// Uses QStandardPaths::AppDataLocation + "/autosave" when @p directory is empty.
    explicit AutosaveStore(QString directory = {});

    struct Entry {
        QString path; ///< the autosave file
        QString text; ///< composed workspace
        QString originalPath; ///< the file it was edited from; empty when untitled
    };

    QString directory() const { return m_directory; }
    QString pathFor(const QString& workspaceName) const;
    bool write(const QString& workspaceName, const QString& text, const QString& originalPath) const;
    std::optional<Entry> find(const QString& workspaceName) const;
    void remove(const QString& workspaceName) const;

private:
    QString m_directory;
};

} // namespace rapid::widgets
