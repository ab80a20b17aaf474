// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/workspacefile.h"

#include <QElapsedTimer>
#include <QUndoCommand>

#include <optional>

namespace rapid::widgets {

class WorkspaceDocument;

/// An edit of a tab's set-up section kept with the workspace (`sweep:`, `serving:`), applied through
/// WorkspaceDocument's apply function for that section. A burst of typing merges into one command, as in the YAML
/// tabs.
template <typename Settings> class EditSettingsCommand : public QUndoCommand {
public:
    using Apply = void (WorkspaceDocument::*)(const std::optional<Settings>&);

    EditSettingsCommand(WorkspaceDocument* document, Apply apply, int commandId, const QString& text,
        std::optional<Settings> oldSettings, std::optional<Settings> newSettings);

    void undo() override;
    void redo() override;
    int id() const override { return m_id; }
    bool mergeWith(const QUndoCommand* other) override;

private:
    WorkspaceDocument* m_document;
    Apply m_apply;
    int m_id;
    std::optional<Settings> m_old;
    std::optional<Settings> m_new;
    QElapsedTimer m_lastEdit;
};

/// An edit of the Sweep tab's axes or splits.
EditSettingsCommand<config::SweepSettings>* editSweepCommand(WorkspaceDocument* document,
    std::optional<config::SweepSettings> oldSettings, std::optional<config::SweepSettings> newSettings);

/// An edit of the Serving tab's set-up.
EditSettingsCommand<config::ServingSettings>* editServingCommand(WorkspaceDocument* document,
    std::optional<config::ServingSettings> oldSettings, std::optional<config::ServingSettings> newSettings);

} // namespace rapid::widgets
