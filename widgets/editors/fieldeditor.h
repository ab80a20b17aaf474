// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "editors/fieldspec.h"

#include <QWidget>

#include <functional>
#include <optional>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace rapid::widgets {

/// The editor of one form field: a spin box, check box, combo box or line edit chosen by the field's kind, inside a
/// frame that turns red when the field has a problem, with the problem written in a small label underneath.
/// It only shows and reports values; writing them to the document is the form's job.
class FieldEditor : public QWidget {
    Q_OBJECT
public:
    explicit FieldEditor(FieldSpec spec, QWidget* parent = nullptr);

    const FieldSpec& spec() const { return m_spec; }
    /// Shows the value written in the document; std::nullopt when the key is absent (the default is shown).
    void showValue(const std::optional<QString>& value);
    /// The workspace's override that sets this key (its `key=value` assignment, or a mapping's above the key), or
    /// empty for none, and the @p value it gives the key (none: the key's default, left out of a replaced mapping).
    /// An overridden field shows that value (what the scenario uses), cannot be edited (an edit of the document would
    /// change nothing) and says so underneath.
    void setOverride(const QString& assignment, const std::optional<QString>& value);
    bool isOverridden() const { return !m_override.isEmpty(); }
    /// The problems of this field, one per line; empty clears the red frame.
    void setProblem(const QString& message);
    QString problem() const { return m_problem; }
    /// The editing widget itself (tests drive it with key events).
    QWidget* editorWidget() const { return m_editor; }
    /// Where the shown value comes from (a preset's comment naming its source), asked when a tooltip is about to
    /// show, so that parsing stays off the edit path; empty: no source line.
    void setSourceProvider(std::function<QString()> provider) { m_sourceProvider = std::move(provider); }
    /// The tooltip without a problem: the field's key path and meaning, and its value's source when known.
    QString toolTipWithSource() const;

protected:
    void paintEvent(QPaintEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

Q_SIGNALS:
    /// The user committed a value; @p valueYaml is ready for config::setYamlValue.
    void edited(const QString& keyPath, const QString& valueYaml);

private:
    void createEditor();
    void commit(const QString& valueYaml);
    void updateProblemColour();

    FieldSpec m_spec;
    QWidget* m_editor = nullptr;
    QSpinBox* m_spin = nullptr;
    QDoubleSpinBox* m_doubleSpin = nullptr;
    QCheckBox* m_check = nullptr;
    QComboBox* m_combo = nullptr;
    QLineEdit* m_line = nullptr;
    QLabel* m_problemLabel = nullptr;
    QLabel* m_overrideLabel = nullptr;
    QString m_problem;
    QString m_override;
    QString m_shownYaml; ///< the value as last shown, so a focus change without an edit writes nothing
    bool m_showing = false;
    std::function<QString()> m_sourceProvider;
};

} // namespace rapid::widgets
