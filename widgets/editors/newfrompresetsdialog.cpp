// SPDX-License-Identifier: GPL-3.0-or-later
#include "editors/newfrompresetsdialog.h"

#include "config/diagnostic.h"
#include "config/hfimport.h"
#include "config/yamledit.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTemporaryDir>
#include <QVBoxLayout>

namespace rapid::widgets {

namespace {

void fill(QComboBox* combo, const config::PresetLibrary& library, config::PresetKind kind, const QString& preferred)
{
    for (const std::string& name : library.names(kind)) {
        combo->addItem(QString::fromStdString(name));
    }
    const int index = combo->findText(preferred);
    combo->setCurrentIndex(index >= 0 ? index : 0);
}

QString firstProblem(const config::ConfigError& error)
{
    return error.diagnostics().empty() ? QString::fromUtf8(error.what())
                                       : QString::fromStdString(error.diagnostics().front().toString());
}

} // namespace

NewFromPresetsDialog::NewFromPresetsDialog(const config::PresetLibrary& library, QWidget* parent)
    : QDialog(parent)
    , m_library(library)
    , m_model(new QComboBox(this))
    , m_hardware(new QComboBox(this))
    , m_run(new QComboBox(this))
    , m_name(new QLineEdit(this))
    , m_problem(new QLabel(this))
{
    setObjectName(QStringLiteral("newFromPresetsDialog"));
    setWindowTitle(tr("New Workspace from Presets"));
    fill(m_model, library, config::PresetKind::Model, QStringLiteral("llama-3.1-70b"));
    fill(m_hardware, library, config::PresetKind::Hardware, QStringLiteral("dgx-h100-superpod"));
    fill(m_run, library, config::PresetKind::Run, QStringLiteral("llama-3.1-70b-train-64"));
    auto* importButton = new QPushButton(tr("Import config.json…"), this);
    importButton->setToolTip(tr("A Hugging Face model's config.json, converted as `rapid import-hf` does"));
    auto* modelRow = new QHBoxLayout;
    modelRow->addWidget(m_model, 1);
    modelRow->addWidget(importButton);
    m_problem->setWordWrap(true);
    m_problem->hide();
    auto* form = new QFormLayout;
    form->addRow(tr("Model"), modelRow);
    form->addRow(tr("Hardware"), m_hardware);
    form->addRow(tr("Run"), m_run);
    form->addRow(tr("Name"), m_name);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_problem);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(importButton, &QPushButton::clicked, this, &NewFromPresetsDialog::browseHuggingFace);
    for (QComboBox* combo : { m_model, m_hardware, m_run }) {
        connect(combo, &QComboBox::currentIndexChanged, this, &NewFromPresetsDialog::suggestName);
    }
    connect(m_model, &QComboBox::activated, this, [this] { m_importedModel.clear(); });
    connect(m_name, &QLineEdit::textEdited, this, [this] { m_nameEdited = true; });
    suggestName();
}

void NewFromPresetsDialog::suggestName()
{
    if (!m_nameEdited) {
        m_name->setText(
            tr("%1 on %2 (%3)").arg(m_model->currentText(), m_hardware->currentText(), m_run->currentText()));
    }
}

bool NewFromPresetsDialog::importHuggingFace(const QString& path, QString* error)
{
    try {
        const config::ModelSpec model = config::importHuggingFaceConfig(path.toStdString());
        m_importedModel = config::modelToYaml(model, "Imported from " + QFileInfo(path).fileName().toStdString());
        const QString name = QString::fromStdString(model.name);
        m_model->addItem(name);
        m_model->setCurrentIndex(m_model->count() - 1);
        m_problem->hide();
        return true;
    } catch (const config::ConfigError& problem) {
        m_problem->setText(firstProblem(problem));
        m_problem->show();
        if (error) {
            *error = m_problem->text();
        }
    }
    return false;
}

void NewFromPresetsDialog::browseHuggingFace()
{
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Import a Hugging Face config.json"), QString(), tr("config.json (*.json)"));
    if (!path.isEmpty()) {
        importHuggingFace(path);
    }
}

std::optional<config::WorkspaceDocuments> NewFromPresetsDialog::documents(QString* error) const
{
    // A workspace file naming the presets, read the way File > Open reads one, so the documents carry the presets'
    // text (comments and sources included).
    QTemporaryDir folder;
    QString model = m_model->currentText();
    if (!m_importedModel.empty()) {
        QFile file(folder.filePath(QStringLiteral("model.yaml")));
        if (!file.open(QIODevice::WriteOnly)
            || file.write(m_importedModel.data(), static_cast<qint64>(m_importedModel.size()))
                != static_cast<qint64>(m_importedModel.size())) {
            if (error) {
                *error = tr("Cannot write the imported model to %1").arg(folder.path());
            }
            return std::nullopt;
        }
        model = file.fileName();
    }
    const std::string text = "name: " + config::yamlQuoted(m_name->text().toStdString())
        + "\nmodel: " + config::yamlQuoted(model.toStdString())
        + "\nhardware: " + config::yamlQuoted(m_hardware->currentText().toStdString())
        + "\nrun: " + config::yamlQuoted(m_run->currentText().toStdString()) + "\n";
    QFile workspace(folder.filePath(QStringLiteral("new.yaml")));
    if (!workspace.open(QIODevice::WriteOnly)) {
        if (error) {
            *error = workspace.errorString();
        }
        return std::nullopt;
    }
    workspace.write(text.data(), static_cast<qint64>(text.size()));
    workspace.close();
    try {
        return config::readWorkspaceDocuments(workspace.fileName().toStdString(), m_library);
    } catch (const config::ConfigError& problem) {
        if (error) {
            *error = firstProblem(problem);
        }
    }
    return std::nullopt;
}

} // namespace rapid::widgets
