// SPDX-License-Identifier: GPL-3.0-or-later
#include "editors/yamleditor.h"

#include "editors/workspacedocument.h"
#include "editors/yamlhighlighter.h"

#include <QFontDatabase>
#include <QPlainTextEdit>
#include <QScopedValueRollback>
#include <QScrollBar>
#include <QTextBlock>

namespace rapid::widgets {

namespace {

QString tabTitle(DocumentKind kind)
{
    switch (kind) {
    case DocumentKind::Model:
        return YamlEditor::tr("Model");
    case DocumentKind::Hardware:
        return YamlEditor::tr("Hardware");
    case DocumentKind::Run:
        break;
    }
    return YamlEditor::tr("Run");
}

// A problem line: the palette's base tinted red, so the text on it keeps the palette's own, contrasting colour.
QColor problemLineColour(const QPalette& palette)
{
    const QColor base = palette.color(QPalette::Base);
    const QColor red(230, 40, 40);
    const double mix = base.lightnessF() < 0.5 ? 0.35 : 0.22;
    return QColor::fromRgbF(static_cast<float>(base.redF() * (1 - mix) + red.redF() * mix),
        static_cast<float>(base.greenF() * (1 - mix) + red.greenF() * mix),
        static_cast<float>(base.blueF() * (1 - mix) + red.blueF() * mix));
}

} // namespace

YamlEditor::YamlEditor(WorkspaceDocument* document, QWidget* parent)
    : QTabWidget(parent)
    , m_document(document)
{
    setObjectName(QStringLiteral("yamlEditor"));
    const QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    for (DocumentKind kind : kAllDocumentKinds) {
        auto* edit = new QPlainTextEdit(this);
        edit->setObjectName(QStringLiteral("yaml:") + rootKeyOf(kind));
        edit->setFont(mono);
        edit->setLineWrapMode(QPlainTextEdit::NoWrap);
        edit->setTabChangesFocus(false);
        // The document's undo stack is the only history; the editor's own would undo behind its back.
        edit->setUndoRedoEnabled(false);
        new YamlHighlighter(edit->document(), edit->palette());
        edit->setPlainText(m_document->text(kind));
        connect(edit, &QPlainTextEdit::textChanged, this, [this, kind] { onTextEdited(kind); });
        m_editors[static_cast<size_t>(kind)] = edit;
        addTab(edit, tabTitle(kind));
    }
    connect(m_document, &WorkspaceDocument::documentChanged, this, &YamlEditor::onDocumentChanged);
    connect(m_document, &WorkspaceDocument::diagnosticsChanged, this, &YamlEditor::onDiagnosticsChanged);
    onDiagnosticsChanged();
}

void YamlEditor::showLocation(DocumentKind kind, int line, int column)
{
    QPlainTextEdit* edit = editor(kind);
    setCurrentWidget(edit);
    const QTextBlock block = edit->document()->findBlockByNumber(qMax(0, line - 1));
    QTextCursor cursor(block);
    cursor.movePosition(QTextCursor::Right, QTextCursor::MoveAnchor, qBound(0, column - 1, block.length() - 1));
    edit->setTextCursor(cursor);
    edit->centerCursor();
    edit->setFocus();
}

void YamlEditor::onTextEdited(DocumentKind kind)
{
    if (m_updating) {
        return;
    }
    m_document->setText(kind, editor(kind)->toPlainText());
}

void YamlEditor::onDocumentChanged(DocumentKind kind)
{
    QPlainTextEdit* edit = editor(kind);
    const QString text = m_document->text(kind);
    if (edit->toPlainText() == text) {
        return; // the change came from this editor
    }
    const QScopedValueRollback<bool> guard(m_updating, true);
    // Keep the view where it was: a form edit or undo changes one value, not the place the user is looking at.
    const int position = edit->textCursor().position();
    const int scroll = edit->verticalScrollBar()->value();
    edit->setPlainText(text);
    QTextCursor cursor = edit->textCursor();
    cursor.setPosition(qMin(position, static_cast<int>(text.size())));
    edit->setTextCursor(cursor);
    edit->verticalScrollBar()->setValue(scroll);
    onDiagnosticsChanged();
}

void YamlEditor::onDiagnosticsChanged()
{
    for (DocumentKind kind : kAllDocumentKinds) {
        QPlainTextEdit* edit = editor(kind);
        const std::string source = rootKeyOf(kind).toStdString();
        QList<QTextEdit::ExtraSelection> selections;
        for (const config::Diagnostic& diagnostic : m_document->diagnostics()) {
            if (diagnostic.location.source != source || diagnostic.location.line <= 0) {
                continue;
            }
            QTextEdit::ExtraSelection selection;
            selection.format.setBackground(problemLineColour(edit->palette()));
            selection.format.setProperty(QTextFormat::FullWidthSelection, true);
            selection.format.setToolTip(QString::fromStdString(diagnostic.message));
            selection.cursor = QTextCursor(edit->document()->findBlockByNumber(diagnostic.location.line - 1));
            selections.append(selection);
        }
        edit->setExtraSelections(selections);
    }
}

} // namespace rapid::widgets
