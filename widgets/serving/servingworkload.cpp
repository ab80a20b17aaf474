// SPDX-License-Identifier: GPL-3.0-or-later
// The Serving tab's random workload: gamma-distributed arrival gaps at a rate (rapid serve --burstiness; greyed out
// for a closed loop, whose clients send when their last request ends) and prompt and output lengths drawn from normal
// distributions around the Prompt and Output fields (--input-tokens-stddev, --output-tokens-stddev), and the pool of
// distinct prompts the requests are drawn from (--prompt-pool).
#include "serving/servingpanel.h"

#include "serving/servingrunner.h"
#include "serving/servingspec.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QSpinBox>

#include <cmath>

namespace rapid::widgets {

namespace {

/// A length's standard deviation in whole tokens, 0 ("none": every request alike) to rapid serve's 1e7.
QDoubleSpinBox* spreadSpin(const QString& objectName, const QString& tip, QWidget* parent)
{
    auto* spin = new QDoubleSpinBox(parent);
    spin->setObjectName(objectName);
    spin->setRange(0, serving::kMaxTokensStddev);
    // Whole tokens with no suffix, as genai-perf takes them, so that the field fits beside its label in the column.
    spin->setDecimals(0);
    spin->setPrefix(QStringLiteral("± "));
    spin->setSpecialValueText(QObject::tr("none"));
    spin->setToolTip(tip);
    spin->setKeyboardTracking(false);
    return spin;
}

} // namespace

void ServingPanel::createWorkloadFields()
{
    m_burstiness = new QDoubleSpinBox(this);
    m_burstiness->setObjectName(QStringLiteral("servingBurstiness"));
    m_burstiness->setRange(serving::kMinBurstiness, serving::kMaxBurstiness);
    m_burstiness->setDecimals(2);
    m_burstiness->setValue(1);
    m_burstiness->setKeyboardTracking(false);
    m_burstiness->setToolTip(
        tr("With requests/s: the gaps between arrivals follow a gamma distribution of this shape and mean 1/rate "
           "(vLLM's benchmark --burstiness). 1 is Poisson; below 1 burstier (at 0.25 the gaps vary twice as much), "
           "above 1 more even. Clients send when their last request ends: greyed out for them"));
    m_promptSpread = spreadSpin(QStringLiteral("servingPromptSpread"),
        tr("Prompt lengths drawn from a normal distribution of this standard deviation around Prompt, rounded and "
           "drawn again below 1 token (genai-perf's --synthetic-input-tokens-stddev; none: every prompt alike)"),
        this);
    m_outputSpread = spreadSpin(QStringLiteral("servingOutputSpread"),
        tr("Output lengths drawn likewise around Output (genai-perf's --output-tokens-stddev; none: all alike)"), this);
    m_promptPool = new QSpinBox(this);
    m_promptPool->setObjectName(QStringLiteral("servingPromptPool"));
    m_promptPool->setRange(0, serving::kMaxPromptPool);
    m_promptPool->setSpecialValueText(tr("all distinct"));
    m_promptPool->setKeyboardTracking(false);
    m_promptPool->setToolTip(
        tr("Each request sends one of this many distinct prompts, drawn at random, as benchmark tools replay their "
           "dataset entries (aiperf's and genai-perf's --num-dataset-entries, 100 by default there): a prompt sent "
           "before is served from the prefix cache while it stays cached, so TTFT and the prefill work drop. Each "
           "prompt's lengths are drawn once. All distinct: no prompt is sent twice"));
}

void ServingPanel::updateWorkloadFields()
{
    m_burstiness->setEnabled(m_loadKind->currentIndex() == 1);
}

void ServingPanel::applyWorkload(serving::WorkloadSpec& workload) const
{
    // Kept but not applied to clients, as the field is greyed out for them (rapid serve WORKSPACE does the same).
    workload.burstiness = m_loadKind->currentIndex() == 1 ? m_burstiness->value() : 1;
    workload.promptTokensStddev = m_promptSpread->value();
    workload.outputTokensStddev = m_outputSpread->value();
    workload.promptPool = m_promptPool->value();
}

QString ServingPanel::workloadSummary(const ServingCurve& curve)
{
    const serving::WorkloadSpec& drawn = curve.workload;
    QString text;
    if (curve.load == serving::SweepLoad::Rate && drawn.burstiness != 1) {
        text += tr(" Arrival gaps gamma-distributed, shape %1 (coefficient of variation %2).")
                    .arg(drawn.burstiness, 0, 'g', 3)
                    .arg(1 / std::sqrt(drawn.burstiness), 0, 'g', 3);
    }
    if (drawn.promptTokensStddev > 0 || drawn.outputTokensStddev > 0) {
        text += tr(" Lengths drawn: prompts %1 ± %2, outputs %3 ± %4 tokens.")
                    .arg(drawn.promptTokens)
                    .arg(drawn.promptTokensStddev, 0, 'g', 6)
                    .arg(drawn.outputTokens)
                    .arg(drawn.outputTokensStddev, 0, 'g', 6);
    }
    if (drawn.promptPool > 0) {
        text += tr(" Prompts drawn from a pool of %1, served from the prefix cache when sent again.")
                    .arg(drawn.promptPool);
    }
    return text;
}

} // namespace rapid::widgets
