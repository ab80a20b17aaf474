// SPDX-License-Identifier: GPL-3.0-or-later
#include "editors/fieldeditor.h"

#include "common/problemcolor.h"

#include "config/yamledit.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QLabel>
#include <QLineEdit>
#include <QPainter>
#include <QScopedValueRollback>
#include <QSpinBox>
#include <QVBoxLayout>

namespace rapid::widgets {

namespace {

// Red that stays legible on light and dark window backgrounds alike.
QString numberYaml(double value)
{
    return QString::number(value, 'g', 12);
}

} // namespace

FieldEditor::FieldEditor(FieldSpec spec, QWidget* parent)
    : QWidget(parent)
    , m_spec(std::move(spec))
{
    setObjectName(QStringLiteral("fieldFrame:") + m_spec.keyPath);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->setSpacing(1);
    createEditor();
    m_editor->setObjectName(QStringLiteral("field:") + m_spec.keyPath);
    m_editor->setToolTip(m_spec.toolTip.isEmpty() ? m_spec.keyPath : m_spec.toolTip);
    m_editor->installEventFilter(this);
    // The editors' own minimum widths (a ten-digit spin box range, "default: 1") would make a column wider than
    // its share of the window; values this long stay readable at this width.
    m_editor->setMinimumWidth(72);
    layout->addWidget(m_editor);
    m_problemLabel = new QLabel(this);
    m_problemLabel->setObjectName(QStringLiteral("fieldProblem:") + m_spec.keyPath);
    m_problemLabel->setWordWrap(true);
    // Long key paths in messages must wrap within the column rather than widen it.
    m_problemLabel->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    QFont small = m_problemLabel->font();
    small.setPointSizeF(small.pointSizeF() * 0.9);
    m_problemLabel->setFont(small);
    m_problemLabel->hide();
    layout->addWidget(m_problemLabel);
    m_overrideLabel = new QLabel(this);
    m_overrideLabel->setObjectName(QStringLiteral("fieldOverride:") + m_spec.keyPath);
    m_overrideLabel->setWordWrap(true);
    m_overrideLabel->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_overrideLabel->setFont(small);
    m_overrideLabel->hide();
    layout->addWidget(m_overrideLabel);
    updateProblemColour();
}

void FieldEditor::setOverride(const QString& assignment, const std::optional<QString>& value)
{
    if (assignment == m_override) {
        return;
    }
    m_override = assignment;
    m_editor->setEnabled(assignment.isEmpty());
    // The value alone: a key path does not wrap, and a narrow column would clip it (the tooltip has the assignment).
    m_overrideLabel->setText(value ? tr("Overridden by the workspace: %1").arg(*value)
                                   : tr("Overridden by the workspace: the default (a mapping above it is replaced)"));
    m_overrideLabel->setToolTip(tr("%1 in the workspace file's overrides: list wins over this document's value; edit "
                                   "or remove it in the file to change it.")
                                    .arg(assignment));
    m_overrideLabel->setVisible(!assignment.isEmpty());
}

void FieldEditor::createEditor()
{
    switch (m_spec.kind) {
    case FieldKind::Int: {
        m_spin = new QSpinBox(this);
        // One step below the minimum stands for "absent": it shows the default and is never written.
        m_spin->setRange(static_cast<int>(m_spec.minimum) - 1, static_cast<int>(m_spec.maximum));
        m_spin->setSpecialValueText(
            m_spec.defaultValue.isEmpty() ? tr("not set") : tr("default: %1").arg(m_spec.defaultValue));
        // Commit on Enter or focus out, not on every keystroke: "64" must not pass through "6".
        m_spin->setKeyboardTracking(false);
        connect(m_spin, &QSpinBox::valueChanged, this, [this](int value) {
            if (value >= m_spec.minimum) {
                commit(QString::number(value));
            }
        });
        m_editor = m_spin;
        break;
    }
    case FieldKind::Double:
        m_doubleSpin = new QDoubleSpinBox(this);
        m_doubleSpin->setRange(m_spec.minimum, m_spec.maximum);
        m_doubleSpin->setDecimals(3);
        m_doubleSpin->setKeyboardTracking(false);
        connect(m_doubleSpin, &QDoubleSpinBox::valueChanged, this, [this](double value) { commit(numberYaml(value)); });
        m_editor = m_doubleSpin;
        break;
    case FieldKind::Bool:
        m_check = new QCheckBox(this);
        connect(m_check, &QCheckBox::toggled, this,
            [this](bool checked) { commit(checked ? QStringLiteral("true") : QStringLiteral("false")); });
        m_editor = m_check;
        break;
    case FieldKind::Choice:
        m_combo = new QComboBox(this);
        m_combo->addItems(m_spec.choices);
        m_combo->setPlaceholderText(m_spec.defaultValue);
        connect(m_combo, &QComboBox::currentIndexChanged, this, [this](int index) {
            if (index >= 0) {
                commit(m_combo->itemText(index));
            }
        });
        m_editor = m_combo;
        break;
    case FieldKind::Text:
    case FieldKind::Quantity:
        m_line = new QLineEdit(this);
        if (!m_spec.defaultValue.isEmpty()) {
            m_line->setPlaceholderText(tr("default: %1").arg(m_spec.defaultValue));
        }
        connect(m_line, &QLineEdit::editingFinished, this, [this] {
            const QString text = m_line->text().trimmed();
            if (text.isEmpty()) {
                return; // an emptied field cannot delete the key; the YAML tab can
            }
            bool isNumber = false;
            text.toDouble(&isNumber);
            const bool plain = m_spec.kind == FieldKind::Quantity && isNumber;
            commit(plain ? text : QString::fromStdString(config::yamlQuoted(text.toStdString())));
        });
        m_editor = m_line;
        break;
    }
}

void FieldEditor::showValue(const std::optional<QString>& value)
{
    const QScopedValueRollback<bool> guard(m_showing, true);
    const QString shown = value.value_or(m_spec.defaultValue);
    switch (m_spec.kind) {
    case FieldKind::Int: {
        bool ok = false;
        const int number = value ? value->toInt(&ok) : 0;
        m_spin->setValue(ok ? number : m_spin->minimum()); // the minimum shows "default: ..."
        break;
    }
    case FieldKind::Double:
        m_doubleSpin->setValue(shown.toDouble());
        break;
    case FieldKind::Bool:
        m_check->setChecked(shown == QLatin1String("true"));
        m_check->setText(value ? QString() : tr("(default)"));
        break;
    case FieldKind::Choice:
        // Case-insensitive: a preset named "H100-SXM5-80GB" in the YAML is the choice "h100-sxm5-80gb". A value that
        // is none of the choices leaves the combo empty with its placeholder (the default's text).
        m_combo->setCurrentIndex(m_combo->findText(shown, Qt::MatchFixedString));
        break;
    case FieldKind::Text:
    case FieldKind::Quantity:
        if (!m_line->hasFocus() || m_line->text() != value.value_or(QString())) {
            m_line->setText(value.value_or(QString()));
            m_line->setCursorPosition(0); // show a long name from its start
        }
        m_shownYaml = value.value_or(QString());
        break;
    }
}

void FieldEditor::commit(const QString& valueYaml)
{
    if (m_showing) {
        return;
    }
    if (m_spec.kind == FieldKind::Text || m_spec.kind == FieldKind::Quantity) {
        if (m_line->text().trimmed() == m_shownYaml) {
            return; // focus left without a change
        }
    }
    Q_EMIT edited(m_spec.keyPath, valueYaml);
}

QString FieldEditor::toolTipWithSource() const
{
    QString tip = m_spec.toolTip.isEmpty() ? m_spec.keyPath : m_spec.toolTip;
    const QString source = m_sourceProvider ? m_sourceProvider() : QString();
    if (!source.isEmpty()) {
        // A preset header's paragraph already opens with "Source:".
        tip += source.startsWith(QLatin1String("Source:")) ? QStringLiteral("\n") + source
                                                           : QStringLiteral("\nSource: ") + source;
    }
    return tip;
}

bool FieldEditor::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_editor && event->type() == QEvent::ToolTip && m_problem.isEmpty()) {
        m_editor->setToolTip(toolTipWithSource());
    }
    return QWidget::eventFilter(watched, event);
}

void FieldEditor::setProblem(const QString& message)
{
    if (message == m_problem) {
        return;
    }
    m_problem = message;
    m_problemLabel->setText(message);
    m_problemLabel->setVisible(!message.isEmpty());
    m_editor->setToolTip(message.isEmpty() ? (m_spec.toolTip.isEmpty() ? m_spec.keyPath : m_spec.toolTip) : message);
    updateProblemColour();
    update();
}

void FieldEditor::paintEvent(QPaintEvent* event)
{
    QWidget::paintEvent(event);
    if (m_problem.isEmpty()) {
        return;
    }
    // Drawn rather than styled: a style sheet would also restyle the editor inside and differ per platform style.
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setPen(QPen(problemColor(palette()), 2));
    painter.drawRoundedRect(QRectF(rect()).adjusted(1, 1, -1, -1), 3, 3);
}

void FieldEditor::updateProblemColour()
{
    const QColor red = problemColor(palette());
    QPalette labelPalette = m_problemLabel->palette();
    labelPalette.setColor(QPalette::WindowText, red);
    m_problemLabel->setPalette(labelPalette);
}

} // namespace rapid::widgets
