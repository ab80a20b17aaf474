// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/presetlibrary.h"
#include "config/workspacefile.h"

#include <QDialog>

#include <optional>

class QComboBox;
class QLabel;
class QLineEdit;

namespace rapid::widgets {

/// File > New from Presets: a model (or a Hugging Face config.json), a hardware and a run preset make a new
/// untitled workspace. The presets' own text is copied in, so editing it never changes a shipped preset.
class NewFromPresetsDialog : public QDialog {
    Q_OBJECT
public:
    explicit NewFromPresetsDialog(const config::PresetLibrary& library, QWidget* parent = nullptr);

    /// The chosen documents; nullopt with @p error set when they cannot be read (a bad config.json).
    std::optional<config::WorkspaceDocuments> documents(QString* error = nullptr) const;
    /// Uses a Hugging Face config.json as the model (as `rapid import-hf` converts it); false with @p error set when
    /// it cannot be read.
    bool importHuggingFace(const QString& path, QString* error = nullptr);

    QComboBox* modelCombo() const { return m_model; }
    QComboBox* hardwareCombo() const { return m_hardware; }
    QComboBox* runCombo() const { return m_run; }
    QLineEdit* nameEdit() const { return m_name; }

private:
    void suggestName();
    void browseHuggingFace();

    const config::PresetLibrary& m_library;
    QComboBox* m_model;
    QComboBox* m_hardware;
    QComboBox* m_run;
    QLineEdit* m_name;
    QLabel* m_problem;
    std::string m_importedModel; ///< model YAML text from a config.json, when one was imported
    bool m_nameEdited = false;
};

} // namespace rapid::widgets
