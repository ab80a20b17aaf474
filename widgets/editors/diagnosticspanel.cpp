// SPDX-License-Identifier: GPL-3.0-or-later
#include "editors/diagnosticspanel.h"

#include "editors/diagnosticwording.h"

#include "editors/workspacedocument.h"

#include <QListWidget>
#include <QVBoxLayout>

namespace rapid::widgets {

namespace {
enum ItemRole { KindRole = Qt::UserRole, LineRole, ColumnRole };
}

DiagnosticsPanel::DiagnosticsPanel(WorkspaceDocument* document, QWidget* parent)
    : QWidget(parent)
    , m_document(document)
    , m_list(new QListWidget(this))
{
    m_list->setObjectName(QStringLiteral("diagnosticsList"));
    m_list->setWordWrap(true);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_list);
    connect(m_document, &WorkspaceDocument::diagnosticsChanged, this, &DiagnosticsPanel::refresh);
    connect(m_list, &QListWidget::itemActivated, this, &DiagnosticsPanel::activate);
    refresh();
}

void DiagnosticsPanel::refresh()
{
    m_list->clear();
    const auto& diagnostics = m_document->diagnostics();
    if (diagnostics.empty()) {
        auto* item = new QListWidgetItem(tr("No problems: the model, hardware and run fit together."), m_list);
        item->setFlags(Qt::ItemIsEnabled);
        return;
    }
    for (const config::Diagnostic& diagnostic : diagnostics) {
        auto* item = new QListWidgetItem(DiagnosticWording::line(diagnostic), m_list);
        // Only lines of the editors' own texts can be shown; a GPU preset file is not open in a tab.
        for (DocumentKind kind : kAllDocumentKinds) {
            if (diagnostic.location.source == rootKeyOf(kind).toStdString() && diagnostic.location.line > 0) {
                item->setData(KindRole, static_cast<int>(kind));
                item->setData(LineRole, diagnostic.location.line);
                item->setData(ColumnRole, diagnostic.location.column);
                item->setToolTip(tr("Double-click to show this line in the YAML tab"));
            }
        }
    }
}

void DiagnosticsPanel::activate(QListWidgetItem* item)
{
    if (!item || !item->data(KindRole).isValid()) {
        return;
    }
    Q_EMIT locationActivated(static_cast<DocumentKind>(item->data(KindRole).toInt()), item->data(LineRole).toInt(),
        item->data(ColumnRole).toInt());
}

} // namespace rapid::widgets
