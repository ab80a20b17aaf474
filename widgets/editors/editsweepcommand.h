// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/workspacefile.h"

#include <QElapsedTimer>
#include <QUndoCommand>

#include <optional>

namespace rapid::widgets {

class WorkspaceDocument;

/// An edit of the Sweep tab's axes or splits, kept with the workspace. A burst of typing in an axis line merges into
/// one command, as in the YAML tabs.
class EditSweepCommand : public QUndoCommand {
public:
    EditSweepCommand(WorkspaceDocument* document, std::optional<config::SweepSettings> oldSettings,
        std::optional<config::SweepSettings> newSettings);

    void undo() override;
    void redo() override;
    int id() const override;
    bool mergeWith(const QUndoCommand* other) override;

private:
    WorkspaceDocument* m_document;
    std::optional<config::SweepSettings> m_old;
    std::optional<config::SweepSettings> m_new;
    QElapsedTimer m_lastEdit;
};

} // namespace rapid::widgets
