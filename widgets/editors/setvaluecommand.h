// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "editors/documentkind.h"

#include <QUndoCommand>

namespace rapid::widgets {

class WorkspaceDocument;

/// A form edit: one document's text before and after a value was set in it (config::setYamlValue keeps the
/// comments and layout). Holding whole texts keeps undo exact even when the edit also inlined a GPU preset.
class SetValueCommand : public QUndoCommand {
public:
    SetValueCommand(
        WorkspaceDocument* document, DocumentKind kind, QString oldText, QString newText, const QString& description);

    void undo() override;
    void redo() override;

private:
    WorkspaceDocument* m_document;
    DocumentKind m_kind;
    QString m_oldText;
    QString m_newText;
};

} // namespace rapid::widgets
