// SPDX-License-Identifier: GPL-3.0-or-later
#include "editors/editsettingscommand.h"

#include "editors/edittextcommand.h"
#include "editors/workspacedocument.h"

namespace rapid::widgets {

namespace {
// Any values unique among the project's commands: 'RTSW', 'RTSV'.
constexpr int kEditSweepCommandId = 0x52545357;
constexpr int kEditServingCommandId = 0x52545356;
} // namespace

template <typename Settings>
EditSettingsCommand<Settings>::EditSettingsCommand(WorkspaceDocument* document, Apply apply, int commandId,
    const QString& text, std::optional<Settings> oldSettings, std::optional<Settings> newSettings)
    : QUndoCommand(text)
    , m_document(document)
    , m_apply(apply)
    , m_id(commandId)
    , m_old(std::move(oldSettings))
    , m_new(std::move(newSettings))
{
    m_lastEdit.start();
}

template <typename Settings> void EditSettingsCommand<Settings>::undo()
{
    (m_document->*m_apply)(m_old);
}

template <typename Settings> void EditSettingsCommand<Settings>::redo()
{
    (m_document->*m_apply)(m_new);
}

template <typename Settings> bool EditSettingsCommand<Settings>::mergeWith(const QUndoCommand* other)
{
    if (m_lastEdit.elapsed() > EditTextCommand::kBurstGapMs) {
        return false;
    }
    m_new = static_cast<const EditSettingsCommand*>(other)->m_new;
    m_lastEdit.restart();
    setObsolete(m_new == m_old);
    return true;
}

template class EditSettingsCommand<config::SweepSettings>;
template class EditSettingsCommand<config::ServingSettings>;

EditSettingsCommand<config::SweepSettings>* editSweepCommand(WorkspaceDocument* document,
    std::optional<config::SweepSettings> oldSettings, std::optional<config::SweepSettings> newSettings)
{
    return new EditSettingsCommand<config::SweepSettings>(document, &WorkspaceDocument::applySweepSettings,
        kEditSweepCommandId, QObject::tr("Edit sweep axes"), std::move(oldSettings), std::move(newSettings));
}

EditSettingsCommand<config::ServingSettings>* editServingCommand(WorkspaceDocument* document,
    std::optional<config::ServingSettings> oldSettings, std::optional<config::ServingSettings> newSettings)
{
    return new EditSettingsCommand<config::ServingSettings>(document, &WorkspaceDocument::applyServingSettings,
        kEditServingCommandId, QObject::tr("Edit serving set-up"), std::move(oldSettings), std::move(newSettings));
}

} // namespace rapid::widgets
