// SPDX-License-Identifier: GPL-3.0-or-later
#include "editors/configform.h"

#include "editors/diagnosticwording.h"

#include "editors/fieldeditor.h"
#include "editors/fieldtables.h"
#include "editors/workspacedocument.h"

#include <QEvent>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QResizeEvent>
#include <QScopedValueRollback>
#include <QScrollArea>
#include <QVBoxLayout>

namespace rapid::widgets {

namespace {

bool isBelow(const QString& path, const QString& ancestor)
{
    return path.size() > ancestor.size() && path.startsWith(ancestor)
        && (path.at(ancestor.size()) == QLatin1Char('.') || path.at(ancestor.size()) == QLatin1Char('['));
}

/// The field that should show a diagnostic: the one it names, else the nearest field above its key (a problem
/// inside a GPU mapping), else the first field below it (a problem about the whole parallelism section).
QString fieldForDiagnostic(const QString& keyPath, const QList<FieldSpec>& fields)
{
    QString ancestor;
    QString descendant;
    for (const FieldSpec& field : fields) {
        if (field.keyPath == keyPath) {
            return keyPath;
        }
        if (isBelow(keyPath, field.keyPath) && field.keyPath.size() > ancestor.size()) {
            ancestor = field.keyPath;
        }
        if (descendant.isEmpty() && isBelow(field.keyPath, keyPath)) {
            descendant = field.keyPath;
        }
    }
    return ancestor.isEmpty() ? descendant : ancestor;
}

} // namespace

ConfigForm::ConfigForm(WorkspaceDocument* document, DocumentKind kind, QWidget* parent)
    : QWidget(parent)
    , m_document(document)
    , m_kind(kind)
{
    setObjectName(QStringLiteral("form:") + rootKeyOf(kind));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_editError = new QLabel(this);
    m_editError->setWordWrap(true);
    m_editError->hide();
    layout->addWidget(m_editError);
    auto* scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    // Editors shrink to the column instead: a sideways scroll would hide the values behind their labels.
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_content = new QWidget(scroll);
    m_contentLayout = new QVBoxLayout(m_content);
    scroll->setWidget(m_content);
    layout->addWidget(scroll);

    connect(m_document, &WorkspaceDocument::documentChanged, this, &ConfigForm::onDocumentChanged);
    connect(m_document, &WorkspaceDocument::diagnosticsChanged, this, &ConfigForm::onDiagnosticsChanged);
    rebuildIfFieldsChanged();
    showValues();
    onDiagnosticsChanged();
}

QFormLayout::RowWrapPolicy ConfigForm::wrapPolicyFor(int width)
{
    // Below this a label (up to ~110 px) beside its field leaves the field too narrow for a model name or a GPU
    // preset ("Llama-3.1-7", "h100-s"), as in the three form columns of a 1280-pixel-wide window.
    constexpr int kBesideWidth = 330;
    return width < kBesideWidth ? QFormLayout::WrapAllRows : QFormLayout::DontWrapRows;
}

void ConfigForm::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    const QFormLayout::RowWrapPolicy policy = wrapPolicyFor(width());
    for (QFormLayout* form : std::as_const(m_formLayouts)) {
        if (form->rowWrapPolicy() != policy) {
            form->setRowWrapPolicy(policy);
        }
    }
}

void ConfigForm::onFieldEdited(const QString& keyPath, const QString& valueYaml)
{
    if (m_updating) {
        return;
    }
    QString error;
    if (!m_document->setValue(keyPath, valueYaml, &error)) {
        // The text does not parse (a half-typed YAML tab): say why the form cannot write instead of losing the edit
        // silently, and show the document's value again.
        m_editError->setText(tr("Cannot set %1: %2").arg(keyPath, error));
        m_editError->show();
        showValues();
        return;
    }
    m_editError->hide();
}

void ConfigForm::onDocumentChanged(DocumentKind kind)
{
    if (kind != m_kind) {
        return;
    }
    if (m_document->parses(m_kind)) {
        rebuildIfFieldsChanged();
        showValues();
    }
    onDiagnosticsChanged();
}

void ConfigForm::onDiagnosticsChanged()
{
    QHash<QString, QStringList> problems;
    for (const config::Diagnostic& diagnostic : m_document->diagnostics()) {
        const QString keyPath = QString::fromStdString(diagnostic.keyPath);
        if (keyPath.isEmpty()) {
            continue; // a syntax error belongs to the YAML tab, not to a field
        }
        const QString target = fieldForDiagnostic(keyPath, m_fields);
        if (!target.isEmpty()) {
            problems[target].append(keyPath + QStringLiteral(": ") + DiagnosticWording::message(diagnostic.message));
        }
    }
    for (auto it = m_editors.cbegin(); it != m_editors.cend(); ++it) {
        it.value()->setProblem(problems.value(it.key()).join(QLatin1Char('\n')));
    }
}

void ConfigForm::rebuildIfFieldsChanged()
{
    const QList<FieldSpec> fields = fieldsFor(m_kind, *m_document);
    QStringList newKeys;
    QStringList oldKeys;
    for (const FieldSpec& field : fields) {
        newKeys.append(field.keyPath + field.section);
    }
    for (const FieldSpec& field : std::as_const(m_fields)) {
        oldKeys.append(field.keyPath + field.section);
    }
    if (!m_editors.isEmpty() && newKeys == oldKeys) {
        return;
    }
    // Rebuilding while an editor has focus would drop the user's cursor; it happens only when the hardware text
    // gains or loses a network dimension.
    m_fields = fields;
    m_editors.clear();
    while (QLayoutItem* item = m_contentLayout->takeAt(0)) {
        if (QWidget* widget = item->widget()) {
            // Later, not now: the editor that triggered this rebuild may still be emitting its signal.
            widget->hide();
            widget->deleteLater();
        }
        delete item;
    }
    m_formLayouts.clear();
    QGroupBox* group = nullptr;
    QFormLayout* form = nullptr;
    for (const FieldSpec& field : std::as_const(m_fields)) {
        if (!group || group->title() != field.section) {
            group = new QGroupBox(field.section, m_content);
            form = new QFormLayout(group);
            form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
            form->setRowWrapPolicy(wrapPolicyFor(width()));
            m_formLayouts.append(form);
            form->setLabelAlignment(Qt::AlignRight | Qt::AlignVCenter);
            form->setVerticalSpacing(2);
            m_contentLayout->addWidget(group);
        }
        auto* editor = new FieldEditor(field, group);
        auto* label = new QLabel(field.label, group);
        label->setBuddy(editor->editorWidget());
        label->setToolTip(field.toolTip.isEmpty() ? field.keyPath : field.toolTip);
        label->installEventFilter(this);
        m_labelEditors.insert(label, editor);
        editor->setSourceProvider([this, key = field.keyPath] { return m_document->valueSource(key); });
        form->addRow(label, editor);
        m_editors.insert(field.keyPath, editor);
        connect(editor, &FieldEditor::edited, this, &ConfigForm::onFieldEdited);
    }
    m_contentLayout->addStretch(1);
}

bool ConfigForm::eventFilter(QObject* watched, QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        if (auto* label = qobject_cast<QLabel*>(watched); label && m_labelEditors.contains(label)) {
            label->setToolTip(m_labelEditors.value(label)->toolTipWithSource());
        }
    }
    return QWidget::eventFilter(watched, event);
}

void ConfigForm::showValues()
{
    const QScopedValueRollback<bool> guard(m_updating, true);
    for (auto it = m_editors.cbegin(); it != m_editors.cend(); ++it) {
        const std::optional<WorkspaceDocument::FieldOverride> overridden = m_document->overrideAt(it.key());
        it.value()->setOverride(
            overridden ? overridden->assignment : QString(), overridden ? overridden->value : std::nullopt);
        it.value()->showValue(overridden ? overridden->value : m_document->valueAt(it.key()));
    }
}

} // namespace rapid::widgets
