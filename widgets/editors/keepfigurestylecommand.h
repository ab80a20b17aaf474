// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/workspacefile.h"

#include <QUndoCommand>

#include <optional>
#include <utility>

namespace rapid::widgets {

/// Keeping a figure style with the workspace: undo puts the previous one (or none) back.
class KeepFigureStyleCommand : public QUndoCommand {
public:
    KeepFigureStyleCommand(config::WorkspaceDocuments& documents, std::optional<config::FigureStyle> newStyle)
        : QUndoCommand(QObject::tr("Keep figure style"))
        , m_documents(documents)
        , m_old(documents.figureStyle)
        , m_new(std::move(newStyle))
    {
    }
    void undo() override { m_documents.figureStyle = m_old; }
    void redo() override { m_documents.figureStyle = m_new; }

private:
    config::WorkspaceDocuments& m_documents;
    std::optional<config::FigureStyle> m_old;
    std::optional<config::FigureStyle> m_new;
};

} // namespace rapid::widgets
