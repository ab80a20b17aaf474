// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "editors/documentkind.h"

#include <QTabWidget>

#include <array>

class QPlainTextEdit;

namespace rapid::widgets {

class WorkspaceDocument;

/// The YAML tab: one plain-text editor per document (sub-tabs Model, Hardware, Run) with highlighting, the lines
/// that have diagnostics marked in red, and two-way sync with the document: typing goes through the document's
/// undo stack, and changes made elsewhere (forms, undo) replace the text.
class YamlEditor : public QTabWidget {
    Q_OBJECT
public:
    explicit YamlEditor(WorkspaceDocument* document, QWidget* parent = nullptr);

    QPlainTextEdit* editor(DocumentKind kind) const { return m_editors[static_cast<size_t>(kind)]; }
    /// Shows @p kind's text with the cursor at 1-based @p line and @p column.
    void showLocation(DocumentKind kind, int line, int column);

private Q_SLOTS:
    // Edited in the UI.
    void onTextEdited(rapid::widgets::DocumentKind kind);
    // Changed in the document.
    void onDocumentChanged(rapid::widgets::DocumentKind kind);
    void onDiagnosticsChanged();

private:
    WorkspaceDocument* m_document;
    std::array<QPlainTextEdit*, 3> m_editors {};
    bool m_updating = false;
};

} // namespace rapid::widgets
