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

namespace {

/// The word of combo item @p index, the items being @p words in order (the first when out of range).
template <std::size_t N> const char* wordAt(const char* const (&words)[N], int index)
{
    return words[std::clamp(index, 0, static_cast<int>(N) - 1)];
}

/// The combo item of @p word among @p words (the first when it is not one of them).
template <std::size_t N> int indexOf(const char* const (&words)[N], const std::string& word)
{
    const auto* found
        = std::find_if(std::begin(words), std::end(words), [&](const char* each) { return word == each; });
    return found == std::end(words) ? 0 : static_cast<int>(found - std::begin(words));
}

} // namespace

config::ServingSettings ServingPanel::settings() const
{
    config::ServingSettings settings;
    settings.load = m_loadKind->currentIndex() == 1 ? config::ServingSettings::Load::Rate
                                                    : config::ServingSettings::Load::Concurrency;
    settings.loads = m_loads->text().toStdString();
    settings.inputTokens = m_prompt->value();
    settings.outputTokens = m_output->value();
    settings.requests = m_requests->value();
    settings.burstiness = m_burstiness->value();
    settings.inputTokensStddev = m_promptSpread->value();
    settings.outputTokensStddev = m_outputSpread->value();
    settings.promptPool = m_promptPool->value();
    // The combos offer the engines and the policies in the order of their word lists.
    settings.engine = wordAt(config::kServingEngineWords, m_engine->currentIndex());
    settings.capacityPolicy = wordAt(config::kCapacityPolicyWords, m_capacityPolicy->currentIndex());
    settings.ttftSloMilliseconds = m_ttftSlo->value();
    settings.itlSloMilliseconds = m_itlSlo->value();
    settings.prefillWorkers = m_prefillWorkers->value();
    settings.decodeWorkers = m_decodeWorkers->value();
    settings.prefillTp = m_prefillTp->value();
    settings.decodeTp = m_decodeTp->value();
    settings.hostMilliseconds = m_hostTime->value();
    settings.hostPerRequestMilliseconds = m_hostPerRequest->value();
    settings.overlapHost = m_overlapHost->isChecked();
    settings.maxNumSeqs = m_maxNumSeqs->value();
    settings.maxNumBatchedTokens = m_maxBatchedTokens->value();
    settings.chunkedPrefill = m_chunkedPrefill->isChecked();
    settings.blockSize = m_blockSize->value();
    settings.maxPrefillTokens = m_maxPrefillTokens->value();
    settings.gpuMemoryUtilization = m_memoryShare->value();
    settings.batching = wordAt(config::kBatchingWords, m_batching->currentIndex());
    settings.overlapScheduler = wordAt(config::kOverlapSchedulerWords, m_overlapScheduler->currentIndex());
    settings.preemption = wordAt(config::kPreemptionWords, m_preemption->currentIndex());
    settings.swapSpaceGiB = m_swapSpace->value();
    settings.speculativeTokens = m_draftTokens->value();
    settings.acceptance = acceptanceSetting();
    settings.acceptanceLength = acceptanceLengthSetting();
    settings.draft = wordAt(config::kDraftWords, m_draft->currentIndex());
    settings.draftLayers = m_draftLayers->value();
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
        QSignalBlocker(m_output), QSignalBlocker(m_requests), QSignalBlocker(m_burstiness),
        QSignalBlocker(m_promptSpread), QSignalBlocker(m_outputSpread), QSignalBlocker(m_promptPool),
        QSignalBlocker(m_engine), QSignalBlocker(m_ttftSlo), QSignalBlocker(m_itlSlo), QSignalBlocker(m_prefillWorkers),
        QSignalBlocker(m_decodeWorkers), QSignalBlocker(m_prefillTp), QSignalBlocker(m_decodeTp),
        QSignalBlocker(m_hostTime), QSignalBlocker(m_hostPerRequest), QSignalBlocker(m_overlapHost),
        QSignalBlocker(m_capacityPolicy), QSignalBlocker(m_maxNumSeqs), QSignalBlocker(m_maxBatchedTokens),
        QSignalBlocker(m_chunkedPrefill), QSignalBlocker(m_blockSize), QSignalBlocker(m_maxPrefillTokens),
        QSignalBlocker(m_memoryShare), QSignalBlocker(m_batching), QSignalBlocker(m_overlapScheduler),
        QSignalBlocker(m_preemption), QSignalBlocker(m_swapSpace), QSignalBlocker(m_draftTokens),
        QSignalBlocker(m_acceptance), QSignalBlocker(m_acceptanceKind), QSignalBlocker(m_draft),
        QSignalBlocker(m_draftLayers) };
    m_loadKind->setCurrentIndex(wanted.load == config::ServingSettings::Load::Rate ? 1 : 0);
    if (m_loads->text().toStdString() != wanted.loads) {
        m_loads->setText(QString::fromStdString(wanted.loads));
        m_loads->setCursorPosition(0); // a long list shows from its first load, not its last
    }
    m_prompt->setValue(wanted.inputTokens);
    m_output->setValue(wanted.outputTokens);
    m_requests->setValue(wanted.requests);
    m_burstiness->setValue(wanted.burstiness);
    m_promptSpread->setValue(wanted.inputTokensStddev);
    m_outputSpread->setValue(wanted.outputTokensStddev);
    m_promptPool->setValue(wanted.promptPool);
    m_engine->setCurrentIndex(indexOf(config::kServingEngineWords, wanted.engine));
    m_capacityPolicy->setCurrentIndex(indexOf(config::kCapacityPolicyWords, wanted.capacityPolicy));
    m_ttftSlo->setValue(wanted.ttftSloMilliseconds);
    m_itlSlo->setValue(wanted.itlSloMilliseconds);
    m_prefillWorkers->setValue(wanted.prefillWorkers);
    m_decodeWorkers->setValue(wanted.decodeWorkers);
    m_prefillTp->setValue(wanted.prefillTp);
    m_decodeTp->setValue(wanted.decodeTp);
    m_hostTime->setValue(wanted.hostMilliseconds);
    m_hostPerRequest->setValue(wanted.hostPerRequestMilliseconds);
    m_overlapHost->setChecked(wanted.overlapHost);
    m_maxNumSeqs->setValue(wanted.maxNumSeqs);
    m_maxBatchedTokens->setValue(wanted.maxNumBatchedTokens);
    m_chunkedPrefill->setChecked(wanted.chunkedPrefill);
    m_blockSize->setValue(wanted.blockSize);
    m_maxPrefillTokens->setValue(wanted.maxPrefillTokens);
    m_memoryShare->setValue(wanted.gpuMemoryUtilization);
    m_batching->setCurrentIndex(indexOf(config::kBatchingWords, wanted.batching));
    m_overlapScheduler->setCurrentIndex(indexOf(config::kOverlapSchedulerWords, wanted.overlapScheduler));
    m_preemption->setCurrentIndex(indexOf(config::kPreemptionWords, wanted.preemption));
    m_swapSpace->setValue(wanted.swapSpaceGiB);
    m_draftTokens->setValue(wanted.speculativeTokens);
    showAcceptance(wanted.acceptance, wanted.acceptanceLength);
    m_draft->setCurrentIndex(indexOf(config::kDraftWords, wanted.draft));
    m_draftLayers->setValue(wanted.draftLayers);
    updateSchedulerFields(); // the engine was set with its signal blocked
    validateInputs();
}

void ServingPanel::connectSettings()
{
    connect(m_loads, &QLineEdit::textChanged, this, &ServingPanel::storeSettings);
    for (QComboBox* combo : { m_loadKind, m_engine, m_capacityPolicy, m_batching, m_overlapScheduler, m_preemption,
             m_draft, m_acceptanceKind }) {
        connect(combo, &QComboBox::currentIndexChanged, this, &ServingPanel::storeSettings);
    }
    for (QSpinBox* spin :
        { m_prompt, m_output, m_requests, m_promptPool, m_prefillWorkers, m_decodeWorkers, m_prefillTp, m_decodeTp,
            m_maxNumSeqs, m_maxBatchedTokens, m_blockSize, m_maxPrefillTokens, m_draftTokens, m_draftLayers }) {
        connect(spin, &QSpinBox::valueChanged, this, &ServingPanel::storeSettings);
    }
    for (QCheckBox* check : { m_overlapHost, m_chunkedPrefill }) {
        connect(check, &QCheckBox::toggled, this, &ServingPanel::storeSettings);
    }
    for (QDoubleSpinBox* spin : { m_burstiness, m_promptSpread, m_outputSpread, m_ttftSlo, m_itlSlo, m_hostTime,
             m_hostPerRequest, m_memoryShare, m_acceptance, m_swapSpace }) {
        connect(spin, &QDoubleSpinBox::valueChanged, this, &ServingPanel::storeSettings);
    }
    connect(m_document, &WorkspaceDocument::servingSettingsChanged, this, &ServingPanel::showSettings);
}

} // namespace rapid::widgets
