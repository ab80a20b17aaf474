// SPDX-License-Identifier: GPL-3.0-or-later
#include "editors/setvaluecommand.h"

#include "editors/workspacedocument.h"

namespace rapid::widgets {

SetValueCommand::SetValueCommand(
    WorkspaceDocument* document, DocumentKind kind, QString oldText, QString newText, const QString& description)
    : QUndoCommand(description)
    , m_document(document)
    , m_kind(kind)
    , m_oldText(std::move(oldText))
    , m_newText(std::move(newText))
{
}

void SetValueCommand::undo()
{
    m_document->applyText(m_kind, m_oldText);
}

void SetValueCommand::redo()
{
    m_document->applyText(m_kind, m_newText);
}

} // namespace rapid::widgets
