// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "editors/documentkind.h"
#include "editors/fieldspec.h"

#include <QHash>
#include <QWidget>

class QLabel;
class QVBoxLayout;

namespace rapid::widgets {

class FieldEditor;
class WorkspaceDocument;

/// The form of one document (model, hardware or run), built from its field table. It keeps two separate slot
/// groups: "edited in the UI" writes to the document through its undo stack; "changed in the document" refreshes
/// the editors. m_updating stops the second from feeding back into the first.
class ConfigForm : public QWidget {
    Q_OBJECT
public:
    ConfigForm(WorkspaceDocument* document, DocumentKind kind, QWidget* parent = nullptr);

    DocumentKind kind() const { return m_kind; }
    FieldEditor* fieldEditor(const QString& keyPath) const { return m_editors.value(keyPath); }

private Q_SLOTS:
    // Edited in the UI.
    void onFieldEdited(const QString& keyPath, const QString& valueYaml);
    // Changed in the document.
    void onDocumentChanged(rapid::widgets::DocumentKind kind);
    void onDiagnosticsChanged();

private:
    void rebuildIfFieldsChanged();
    void showValues();

    WorkspaceDocument* m_document;
    DocumentKind m_kind;
    QList<FieldSpec> m_fields;
    QHash<QString, FieldEditor*> m_editors;
    QWidget* m_content = nullptr;
    QVBoxLayout* m_contentLayout = nullptr;
    QLabel* m_editError = nullptr;
    bool m_updating = false;
};

} // namespace rapid::widgets
