// SPDX-License-Identifier: GPL-3.0-or-later
#include "editors/edittextcommand.h"

#include "editors/workspacedocument.h"

namespace rapid::widgets {

namespace {
constexpr int kEditTextCommandId = 0x52544544; // 'RTED': any value unique among the project's commands
}

EditTextCommand::EditTextCommand(WorkspaceDocument* document, DocumentKind kind, QString oldText, QString newText)
    : QUndoCommand(QObject::tr("Edit %1 YAML").arg(rootKeyOf(kind)))
    , m_document(document)
    , m_kind(kind)
    , m_oldText(std::move(oldText))
    , m_newText(std::move(newText))
{
    m_lastEdit.start();
}

void EditTextCommand::undo()
{
    m_document->applyText(m_kind, m_oldText);
}

void EditTextCommand::redo()
{
    m_document->applyText(m_kind, m_newText);
}

int EditTextCommand::id() const
{
    return kEditTextCommandId;
}

bool EditTextCommand::mergeWith(const QUndoCommand* other)
{
    const auto* next = static_cast<const EditTextCommand*>(other);
    if (next->m_kind != m_kind || m_lastEdit.elapsed() > kBurstGapMs) {
        return false;
    }
    m_newText = next->m_newText;
    m_lastEdit.restart();
    // Typing that ends where it started leaves nothing to undo.
    setObsolete(m_newText == m_oldText);
    return true;
}

} // namespace rapid::widgets
