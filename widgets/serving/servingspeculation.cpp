// SPDX-License-Identifier: GPL-3.0-or-later
// The Serving tab's speculative decoding: draft tokens per verification, their acceptance (no default: it is the
// draft's and the data's, so serving waits for it) per draft or as the mean acceptance length papers report, the
// draft (a head of the target's layers, or prompt lookup) and the head's layers, as rapid serve's
// --speculative-tokens, --acceptance or --acceptance-length, --draft and --draft-layers.
#include "serving/servingpanel.h"

#include "common/problemcolor.h"
#include "serving/servingspec.h"
#include "serving/speculation.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QSpinBox>

#include <cmath>

namespace rapid::widgets {

namespace {

/// The acceptance spin's "not set": one step below the least value at two decimals, so nothing typed can reach it.
constexpr double kAcceptanceNotSet = -0.01;
constexpr double kLengthNotSet = 0.99;

} // namespace

void ServingPanel::addSpeculationRows(QFormLayout* form)
{
    m_draftTokens = new QSpinBox(this);
    m_draftTokens->setObjectName(QStringLiteral("servingDraftTokens"));
    m_draftTokens->setRange(0, serving::kMaxDraftTokens);
    m_draftTokens->setSpecialValueText(tr("off"));
    // Tracking keys: the acceptance field is enabled as the count is typed, so Tab lands on it (with the value taken
    // only when editing finished, Tab skipped the field it had not yet enabled; seen under Xvfb).
    m_draftTokens->setKeyboardTracking(true);
    m_draftTokens->setToolTip(tr("Speculative decoding: tokens drafted for each decoding request and verified with "
                                 "its next token in one pass of the model (EAGLE, MTP, n-gram drafts; off: none)"));
    m_acceptanceKind = new QComboBox(this);
    m_acceptanceKind->setObjectName(QStringLiteral("servingAcceptanceKind"));
    m_acceptanceKind->addItem(tr("Per draft token"));
    m_acceptanceKind->addItem(tr("Mean acceptance length"));
    m_acceptanceKind->setToolTip(tr("The acceptance as a probability per draft token, or as the mean tokens one "
                                    "verification yields (1 to drafts + 1), as EAGLE's papers and the engines report"));
    m_acceptance = new QDoubleSpinBox(this);
    m_acceptance->setObjectName(QStringLiteral("servingAcceptance"));
    m_acceptance->setDecimals(2);
    m_acceptance->setSpecialValueText(tr("not set"));
    m_acceptance->setKeyboardTracking(false);
    setAcceptanceKind(false);
    m_acceptance->setValue(kAcceptanceNotSet);
    m_draft = new QComboBox(this);
    m_draft->setObjectName(QStringLiteral("servingDraft"));
    // In the order of config::kDraftWords.
    m_draft->addItem(tr("Draft head (EAGLE, MTP)"), static_cast<int>(serving::DraftMethod::Head));
    m_draft->addItem(tr("Prompt lookup (n-gram)"), static_cast<int>(serving::DraftMethod::Ngram));
    m_draft->setToolTip(tr("A head of the model's own layers and LM head, one pass per draft token, with weights and "
                           "a KV cache of its own; or drafts looked up in the request's tokens on the CPU"));
    m_draftLayers = new QSpinBox(this);
    m_draftLayers->setObjectName(QStringLiteral("servingDraftLayers"));
    m_draftLayers->setRange(1, serving::kMaxDraftLayers);
    m_draftLayers->setKeyboardTracking(false);
    m_draftLayers->setToolTip(tr("Decoder layers of the draft head (EAGLE and DeepSeek-V3's MTP module: 1)"));
    m_speculationProblem = new QLabel(this);
    m_speculationProblem->setObjectName(QStringLiteral("servingSpeculationProblem"));
    m_speculationProblem->setWordWrap(true);
    QPalette problem = m_speculationProblem->palette();
    problem.setColor(QPalette::WindowText, problemColor(palette()));
    m_speculationProblem->setPalette(problem);
    form->addRow(tr("Draft tokens"), m_draftTokens);
    form->addRow(tr("Acceptance as"), m_acceptanceKind);
    form->addRow(tr("Acceptance"), m_acceptance);
    form->addRow(QString(), m_speculationProblem);
    form->addRow(tr("Draft"), m_draft);
    form->addRow(tr("Draft layers"), m_draftLayers);
    connect(m_draftTokens, &QSpinBox::valueChanged, this, &ServingPanel::validateInputs);
    connect(m_acceptance, &QDoubleSpinBox::valueChanged, this, &ServingPanel::validateInputs);
    // Before the settings are stored (connected later): the value shown is converted first.
    connect(m_acceptanceKind, &QComboBox::currentIndexChanged, this, &ServingPanel::convertAcceptance);
    connect(m_draft, &QComboBox::currentIndexChanged, this, &ServingPanel::validateInputs);
}

bool ServingPanel::acceptanceIsLength() const
{
    return m_acceptanceKind->currentIndex() == 1;
}

void ServingPanel::setAcceptanceKind(bool meanLength)
{
    // The range stays the widest the kind allows, whatever the draft count, so no typed value is ever clamped; a
    // length beyond what the drafts can yield is shown as a problem instead.
    if (meanLength) {
        m_acceptance->setRange(kLengthNotSet, serving::kMaxDraftTokens + 1);
        m_acceptance->setSingleStep(0.1);
        m_acceptance->setToolTip(tr("The mean tokens one verification yields, the accepted drafts and the verifying "
                                    "pass's own token: 1 to draft tokens + 1 (vLLM and SGLang log it)"));
    } else {
        m_acceptance->setRange(kAcceptanceNotSet, 1);
        m_acceptance->setSingleStep(0.05);
        m_acceptance->setToolTip(tr("The chance a draft token is kept when those before it were (0 to 1); it depends "
                                    "on the draft and the data, so it has no default"));
    }
}

void ServingPanel::convertAcceptance(int kind)
{
    const bool length = kind == 1;
    const double value = m_acceptance->value();
    const int drafts = m_draftTokens->value();
    const bool set = value > m_acceptance->minimum();
    double converted = length ? kLengthNotSet : kAcceptanceNotSet;
    if (set && drafts > 0) {
        if (length) {
            converted = serving::meanTokensPerVerification(drafts, value);
        } else if (value <= drafts + 1) {
            converted = serving::acceptanceForMeanLength(drafts, value);
        }
    }
    const QSignalBlocker blocker(m_acceptance);
    setAcceptanceKind(length);
    m_acceptance->setValue(converted);
    validateInputs();
}

bool ServingPanel::speculationValid() const
{
    const int drafts = m_draftTokens->value();
    if (drafts == 0) {
        return true;
    }
    const double value = m_acceptance->value();
    return acceptanceIsLength() ? value >= 1 && value <= drafts + 1 : value >= 0;
}

void ServingPanel::updateSpeculationFields()
{
    const bool on = m_draftTokens->value() > 0;
    m_acceptanceKind->setEnabled(on);
    m_acceptance->setEnabled(on);
    m_draft->setEnabled(on);
    m_draftLayers->setEnabled(on && m_draft->currentIndex() == 0);
    const double value = m_acceptance->value();
    if (value > m_acceptance->minimum()) {
        m_speculationProblem->setText(tr("A mean length of %1 needs at least %2 draft tokens")
                                          .arg(value, 0, 'g', 3)
                                          .arg(static_cast<int>(std::ceil(value - 1 - 1e-9))));
    } else {
        m_speculationProblem->setText(acceptanceIsLength()
                ? tr("Give the drafts' mean acceptance length, 1 to draft tokens + 1")
                : tr("Give the drafts' acceptance, 0 to 1"));
    }
    m_speculationProblem->setVisible(!speculationValid());
}

double ServingPanel::acceptanceSetting() const
{
    return !acceptanceIsLength() && m_acceptance->value() >= 0 ? m_acceptance->value() : -1;
}

double ServingPanel::acceptanceLengthSetting() const
{
    return acceptanceIsLength() && m_acceptance->value() >= 1 ? m_acceptance->value() : -1;
}

void ServingPanel::showAcceptance(double acceptance, double meanLength)
{
    const bool length = meanLength >= 0 && acceptance < 0;
    m_acceptanceKind->setCurrentIndex(length ? 1 : 0);
    setAcceptanceKind(length);
    if (length) {
        m_acceptance->setValue(meanLength);
    } else {
        m_acceptance->setValue(acceptance >= 0 ? acceptance : kAcceptanceNotSet);
    }
}

void ServingPanel::applySpeculation(serving::EngineOptions& options) const
{
    // Kept while off, as the greyed-out fields show, but not applied.
    if (m_draftTokens->value() == 0) {
        return;
    }
    options.speculative.draftTokens = m_draftTokens->value();
    options.speculative.acceptance = acceptanceIsLength()
        ? serving::acceptanceForMeanLength(m_draftTokens->value(), m_acceptance->value())
        : m_acceptance->value();
    options.speculative.method = static_cast<serving::DraftMethod>(m_draft->currentData().toInt());
    options.speculative.draftLayers = m_draftLayers->value();
}

QString ServingPanel::speculationSummary(const serving::EngineOptions& used)
{
    const serving::SpeculativeDecoding& speculative = used.speculative;
    if (!speculative.enabled()) {
        return {};
    }
    return tr(" Each verification checked %1 drafts, %2 tokens on average.")
        .arg(speculative.draftTokens)
        .arg(serving::meanTokensPerVerification(speculative.draftTokens, speculative.acceptance), 0, 'g', 3);
}

} // namespace rapid::widgets
