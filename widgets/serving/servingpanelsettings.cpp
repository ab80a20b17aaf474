// SPDX-License-Identifier: GPL-3.0-or-later
// The Serving tab's inputs kept with the workspace (`serving:`): every edit is an undo step of the workspace, so the
// autosave keeps it and reopening the file shows it again.
#include "serving/servingpanel.h"

#include "editors/workspacedocument.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QSpinBox>

#include <algorithm>
#include <iterator>

namespace rapid::widgets {

config::ServingSettings ServingPanel::settings() const
{
    config::ServingSettings settings;
    settings.load = m_loadKind->currentIndex() == 1 ? config::ServingSettings::Load::Rate
                                                    : config::ServingSettings::Load::Concurrency;
    settings.loads = m_loads->text().toStdString();
    settings.inputTokens = m_prompt->value();
    settings.outputTokens = m_output->value();
    settings.requests = m_requests->value();
    // The combo offers the engines in the order of kServingEngineWords.
    const int engine
        = std::clamp(m_engine->currentIndex(), 0, static_cast<int>(std::size(config::kServingEngineWords)) - 1);
    settings.engine = config::kServingEngineWords[engine];
    const int policy = std::clamp(
        m_capacityPolicy->currentIndex(), 0, static_cast<int>(std::size(config::kCapacityPolicyWords)) - 1);
    settings.capacityPolicy = config::kCapacityPolicyWords[policy];
    settings.ttftSloMilliseconds = m_ttftSlo->value();
    settings.itlSloMilliseconds = m_itlSlo->value();
    settings.prefillWorkers = m_prefillWorkers->value();
    settings.decodeWorkers = m_decodeWorkers->value();
    settings.prefillTp = m_prefillTp->value();
    settings.decodeTp = m_decodeTp->value();
    settings.hostMilliseconds = m_hostTime->value();
    settings.hostPerRequestMilliseconds = m_hostPerRequest->value();
    settings.overlapHost = m_overlapHost->isChecked();
    return settings;
}

void ServingPanel::storeSettings()
{
    const config::ServingSettings now = settings();
    // A workspace without the section and inputs at their defaults: nothing to keep, and no edit to mark.
    if (!m_document->servingSettings() && now == config::ServingSettings {}) {
        return;
    }
    m_document->setServingSettings(now);
}

void ServingPanel::showSettings()
{
    const config::ServingSettings wanted = m_document->servingSettings().value_or(config::ServingSettings {});
    // The document echoes the user's own edits back: those are shown already and must not be rewritten.
    if (settings() == wanted) {
        return;
    }
    const QSignalBlocker blockers[] = { QSignalBlocker(m_loadKind), QSignalBlocker(m_loads), QSignalBlocker(m_prompt),
        QSignalBlocker(m_output), QSignalBlocker(m_requests), QSignalBlocker(m_engine), QSignalBlocker(m_ttftSlo),
        QSignalBlocker(m_itlSlo), QSignalBlocker(m_prefillWorkers), QSignalBlocker(m_decodeWorkers),
        QSignalBlocker(m_prefillTp), QSignalBlocker(m_decodeTp), QSignalBlocker(m_hostTime),
        QSignalBlocker(m_hostPerRequest), QSignalBlocker(m_overlapHost), QSignalBlocker(m_capacityPolicy) };
    m_loadKind->setCurrentIndex(wanted.load == config::ServingSettings::Load::Rate ? 1 : 0);
    if (m_loads->text().toStdString() != wanted.loads) {
        m_loads->setText(QString::fromStdString(wanted.loads));
    }
    m_prompt->setValue(wanted.inputTokens);
    m_output->setValue(wanted.outputTokens);
    m_requests->setValue(wanted.requests);
    const auto* engine = std::find_if(std::begin(config::kServingEngineWords), std::end(config::kServingEngineWords),
        [&](const char* word) { return wanted.engine == word; });
    m_engine->setCurrentIndex(engine == std::end(config::kServingEngineWords)
            ? 0
            : static_cast<int>(engine - std::begin(config::kServingEngineWords)));
    const auto* policy = std::find_if(std::begin(config::kCapacityPolicyWords), std::end(config::kCapacityPolicyWords),
        [&](const char* word) { return wanted.capacityPolicy == word; });
    m_capacityPolicy->setCurrentIndex(policy == std::end(config::kCapacityPolicyWords)
            ? 0
            : static_cast<int>(policy - std::begin(config::kCapacityPolicyWords)));
    m_ttftSlo->setValue(wanted.ttftSloMilliseconds);
    m_itlSlo->setValue(wanted.itlSloMilliseconds);
    m_prefillWorkers->setValue(wanted.prefillWorkers);
    m_decodeWorkers->setValue(wanted.decodeWorkers);
    m_prefillTp->setValue(wanted.prefillTp);
    m_decodeTp->setValue(wanted.decodeTp);
    m_hostTime->setValue(wanted.hostMilliseconds);
    m_hostPerRequest->setValue(wanted.hostPerRequestMilliseconds);
    m_overlapHost->setChecked(wanted.overlapHost);
    validateInputs();
}

void ServingPanel::connectSettings()
{
    connect(m_loads, &QLineEdit::textChanged, this, &ServingPanel::storeSettings);
    for (QComboBox* combo : { m_loadKind, m_engine, m_capacityPolicy }) {
        connect(combo, &QComboBox::currentIndexChanged, this, &ServingPanel::storeSettings);
    }
    for (QSpinBox* spin :
        { m_prompt, m_output, m_requests, m_prefillWorkers, m_decodeWorkers, m_prefillTp, m_decodeTp }) {
        connect(spin, &QSpinBox::valueChanged, this, &ServingPanel::storeSettings);
    }
    connect(m_overlapHost, &QCheckBox::toggled, this, &ServingPanel::storeSettings);
    for (QDoubleSpinBox* spin : { m_ttftSlo, m_itlSlo, m_hostTime, m_hostPerRequest }) {
        connect(spin, &QDoubleSpinBox::valueChanged, this, &ServingPanel::storeSettings);
    }
    connect(m_document, &WorkspaceDocument::servingSettingsChanged, this, &ServingPanel::showSettings);
}

} // namespace rapid::widgets
