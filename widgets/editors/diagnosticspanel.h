// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "editors/documentkind.h"

#include <QWidget>

class QListWidget;
class QListWidgetItem;

namespace rapid::widgets {

class WorkspaceDocument;

/// Every problem of the workspace as "file:line:col: key: message". Double-clicking one that lies in an editor's
/// text asks for that location to be shown.
class DiagnosticsPanel : public QWidget {
    Q_OBJECT
public:
    explicit DiagnosticsPanel(WorkspaceDocument* document, QWidget* parent = nullptr);

    QListWidget* list() const { return m_list; }

Q_SIGNALS:
    void locationActivated(rapid::widgets::DocumentKind kind, int line, int column);

private:
    void refresh();
    void activate(QListWidgetItem* item);

    WorkspaceDocument* m_document;
    QListWidget* m_list;
};

} // namespace rapid::widgets
