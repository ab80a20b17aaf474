// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "editors/autosavesession.h"
#include "editors/autosavestore.h"

#include <QObject>
#include <QTimer>

#include <functional>
#include <optional>

namespace rapid::widgets {

class RestoreBanner;
class WorkspaceDocument;

/// Autosave and restore for one window. Writes the workspace's unsaved edits a moment after the last one (into this
/// session's own file), removes them once saved or given up, and offers in the restore banner what a session that
/// did not end cleanly left behind: first the edits of the workspace now open, else the newest other one, which
/// Restore opens in this window (its file, or untitled when it had none) with the edits as one undo step. So the
/// edits of a crash are offered at the next start-up whatever it opens, not only when their file is reopened.
class AutosaveController : public QObject {
    Q_OBJECT
public:
    AutosaveController(WorkspaceDocument* document, RestoreBanner* banner, QObject* parent = nullptr);

    /// Milliseconds between the last edit and the autosave.
    void setDelay(int milliseconds) { m_timer.setInterval(milliseconds); }
    /// Asked before Restore replaces the open workspace by another one; false keeps it (the offer stays).
    void setConfirmReplace(std::function<bool()> confirm) { m_confirmReplace = std::move(confirm); }

    const AutosaveStore& store() const { return m_store; }
    QString sessionId() const { return m_session.id(); }
    /// The file this window's unsaved edits go to.
    QString autosavePath() const { return m_store.pathFor(m_session.id()); }
    /// The autosave the banner offers, if it shows one.
    const std::optional<AutosaveStore::Entry>& offered() const { return m_offered; }

    /// Shows the next autosave left by an ended session in the banner, or hides it when there is none.
    void offer();
    /// The workspace was saved as @p savedPath: its autosave goes, and so do the ended sessions' edits of that file
    /// (offered when it was opened; the file now holds what the user chose).
    void workspaceSaved(const QString& savedPath);
    /// The user gave up the unsaved edits: this window's autosave goes.
    void editsDiscarded();

Q_SIGNALS:
    void statusMessage(const QString& message);
    void restoreFailed(const QString& message);

private:
    void write();
    void restore();
    void discard();
    void show(const AutosaveStore::Entry& entry, bool ofThisWorkspace);

    WorkspaceDocument* m_document;
    RestoreBanner* m_banner;
    AutosaveStore m_store;
    AutosaveSession m_session;
    QTimer m_timer;
    std::optional<AutosaveStore::Entry> m_offered;
    std::function<bool()> m_confirmReplace;
};

} // namespace rapid::widgets
