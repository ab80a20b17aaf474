// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "editors/documentkind.h"
#include "editors/fieldspec.h"

#include <QFormLayout>
#include <QHash>
#include <QList>
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

protected:
    /// Narrow columns put each label above its field, so values are not cut to a few characters.
    void resizeEvent(QResizeEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    static QFormLayout::RowWrapPolicy wrapPolicyFor(int width);
    void rebuildIfFieldsChanged();
    void showValues();

    WorkspaceDocument* m_document;
    DocumentKind m_kind;
    QList<FieldSpec> m_fields;
    QHash<QString, FieldEditor*> m_editors;
    QHash<QObject*, FieldEditor*> m_labelEditors; ///< each field's label, for its tooltip with the value's source
    QList<QFormLayout*> m_formLayouts; ///< one per section, re-wrapped with the width
    QWidget* m_content = nullptr;
    QVBoxLayout* m_contentLayout = nullptr;
    QLabel* m_editError = nullptr;
    bool m_updating = false;
};

} // namespace rapid::widgets
