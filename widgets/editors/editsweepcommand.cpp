// SPDX-License-Identifier: GPL-3.0-or-later
#include "editors/editsweepcommand.h"

#include "editors/edittextcommand.h"
#include "editors/workspacedocument.h"

namespace rapid::widgets {

namespace {
constexpr int kEditSweepCommandId = 0x52545357; // 'RTSW': any value unique among the project's commands
}

EditSweepCommand::EditSweepCommand(WorkspaceDocument* document, std::optional<config::SweepSettings> oldSettings,
    std::optional<config::SweepSettings> newSettings)
    : QUndoCommand(QObject::tr("Edit sweep axes"))
    , m_document(document)
    , m_old(std::move(oldSettings))
    , m_new(std::move(newSettings))
{
    m_lastEdit.start();
}

void EditSweepCommand::undo()
{
    m_document->applySweepSettings(m_old);
}

void EditSweepCommand::redo()
{
    m_document->applySweepSettings(m_new);
}

int EditSweepCommand::id() const
{
    return kEditSweepCommandId;
}

bool EditSweepCommand::mergeWith(const QUndoCommand* other)
{
    if (m_lastEdit.elapsed() > EditTextCommand::kBurstGapMs) {
        return false;
    }
    m_new = static_cast<const EditSweepCommand*>(other)->m_new;
    m_lastEdit.restart();
    setObsolete(m_new == m_old);
    return true;
}

} // namespace rapid::widgets
