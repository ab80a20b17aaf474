// SPDX-License-Identifier: GPL-3.0-or-later
#include "editors/autosavecontroller.h"

#include "editors/restorebanner.h"
#include "editors/workspacedocument.h"

#include "config/workspacefile.h"

#include <QDir>
#include <QFileInfo>
#include <QLocale>
#include <QUndoStack>

namespace rapid::widgets {

namespace {

constexpr int kDefaultDelayMs = 2000;

} // namespace

AutosaveController::AutosaveController(WorkspaceDocument* document, RestoreBanner* banner, QObject* parent)
    : QObject(parent)
    , m_document(document)
    , m_banner(banner)
    , m_session(m_store.directory())
{
    m_timer.setSingleShot(true);
    m_timer.setInterval(kDefaultDelayMs);
    connect(&m_timer, &QTimer::timeout, this, &AutosaveController::write);
    // The stack's index, not documentChanged: a command's redo() runs before the stack counts it, so during
    // documentChanged the workspace does not look dirty yet.
    connect(m_document->undoStack(), &QUndoStack::indexChanged, this, [this] { m_timer.start(); });
    // A study's result is not an undo step but is unsaved work all the same.
    connect(m_document, &WorkspaceDocument::resultKept, this, [this] { m_timer.start(); });
    connect(m_banner, &RestoreBanner::restoreRequested, this, &AutosaveController::restore);
    connect(m_banner, &RestoreBanner::discardRequested, this, &AutosaveController::discard);
}

void AutosaveController::offer()
{
    m_banner->hide();
    m_offered.reset();
    const QString openPath = m_document->filePath();
    const QString openText = m_document->composedText();
    std::optional<AutosaveStore::Entry> other;
    for (const AutosaveStore::Entry& entry : m_store.entries()) {
        if (m_session.isAlive(entry.sessionId)) {
            continue; // a running window's edits, this one's among them
        }
        if (entry.text == openText) {
            m_store.remove(entry.path); // nothing unsaved after all
            continue;
        }
        if (!openPath.isEmpty() && entry.originalPath == openPath) {
            show(entry, true);
            return;
        }
        if (!other) {
            other = entry; // the newest, as entries() sorts them
        }
    }
    if (other) {
        show(*other, false);
    }
}

void AutosaveController::show(const AutosaveStore::Entry& entry, bool ofThisWorkspace)
{
    m_offered = entry;
    const QString when = QLocale().toString(entry.written, QLocale::ShortFormat);
    if (ofThisWorkspace) {
        m_banner->setMessage(tr("Unsaved edits to this workspace from %1 were kept.").arg(when));
    } else {
        const QString what = entry.originalPath.isEmpty()
            ? tr("an untitled workspace")
            : QDir::toNativeSeparators(QFileInfo(entry.originalPath).fileName());
        m_banner->setMessage(tr("Unsaved edits to %1 from %2 were kept: the window that made them did not close "
                                "normally. Restore opens them here.")
                                 .arg(what, when));
    }
    m_banner->setToolTip(QDir::toNativeSeparators(entry.originalPath.isEmpty() ? entry.path : entry.originalPath));
    m_banner->show();
}

void AutosaveController::workspaceSaved(const QString& savedPath)
{
    m_timer.stop();
    m_store.remove(autosavePath());
    for (const AutosaveStore::Entry& entry : m_store.entries()) {
        if (entry.originalPath == savedPath && !m_session.isAlive(entry.sessionId)) {
            m_store.remove(entry.path);
        }
    }
    offer();
}

void AutosaveController::editsDiscarded()
{
    m_timer.stop();
    m_store.remove(autosavePath());
}

void AutosaveController::write()
{
    if (!m_document->isDirty()) {
        m_store.remove(autosavePath());
        return;
    }
    if (m_store.write(m_session.id(), m_document->composedText(), m_document->filePath())) {
        Q_EMIT statusMessage(tr("Unsaved edits kept in %1").arg(QDir::toNativeSeparators(m_store.directory())));
    }
}

void AutosaveController::restore()
{
    if (!m_offered) {
        return;
    }
    const AutosaveStore::Entry entry = *m_offered;
    const bool intoOpenWorkspace = !entry.originalPath.isEmpty() && entry.originalPath == m_document->filePath();
    if (!intoOpenWorkspace && m_confirmReplace && !m_confirmReplace()) {
        return; // the offer stays up
    }
    m_banner->hide();
    m_offered.reset();
    try {
        const config::WorkspaceDocuments documents
            = config::readWorkspaceDocuments(entry.path.toStdString(), m_document->library());
        if (intoOpenWorkspace || (QFileInfo::exists(entry.originalPath) && m_document->open(entry.originalPath))) {
            // Over the file as saved: Undo shows what the file holds.
            m_document->replaceTexts(documents, tr("Restore unsaved edits"));
        } else {
            m_document->loadRecovered(documents); // untitled, or its file is gone
        }
    } catch (const config::ConfigError& error) {
        Q_EMIT restoreFailed(QString::fromUtf8(error.what()));
        return;
    }
    // The edits are this window's now: its own autosave holds them from here, the ended session's file goes.
    write();
    m_store.remove(entry.path);
    Q_EMIT statusMessage(tr("Restored unsaved edits"));
    offer();
}

void AutosaveController::discard()
{
    if (m_offered) {
        m_store.remove(m_offered->path);
    }
    Q_EMIT statusMessage(tr("Discarded the kept edits"));
    offer();
}

} // namespace rapid::widgets
