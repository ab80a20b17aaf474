// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "editors/documentkind.h"

#include <QElapsedTimer>
#include <QUndoCommand>

namespace rapid::widgets {

class WorkspaceDocument;

/// An edit in a YAML tab. Consecutive keystrokes in the same document merge into one command until the user
/// pauses, so one undo step takes back a burst of typing rather than a single character.
class EditTextCommand : public QUndoCommand {
public:
    /// Typing that follows the previous keystroke within this many milliseconds joins its command.
    static constexpr qint64 kBurstGapMs = 1500;

    EditTextCommand(WorkspaceDocument* document, DocumentKind kind, QString oldText, QString newText);

    void undo() override;
    void redo() override;
    int id() const override;
    bool mergeWith(const QUndoCommand* other) override;

private:
    WorkspaceDocument* m_document;
    DocumentKind m_kind;
    QString m_oldText;
    QString m_newText;
    QElapsedTimer m_lastEdit;
};

} // namespace rapid::widgets
