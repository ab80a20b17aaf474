// SPDX-License-Identifier: GPL-3.0-or-later
// The Serving tab's scheduler knobs: the engine options rapid serve takes on its command line (max_num_seqs,
// max_num_batched_tokens, chunked prefill, KV block size, SGLang's max_prefill_tokens, the memory share, batching,
// the overlap scheduler, vLLM's preemption by swapping), each at the engine's own default until set.
#include "serving/servingpanel.h"

#include "serving/servingspec.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLocale>
#include <QSpinBox>

#include <initializer_list>
#include <utility>

namespace rapid::widgets {

namespace {

/// A count from 0 (shown as "the engine's", its default for the GPU) to @p high.
QSpinBox* engineCountSpin(const QString& objectName, int high, const QString& tip, QWidget* parent)
{
    auto* spin = new QSpinBox(parent);
    spin->setObjectName(objectName);
    spin->setRange(0, high);
    spin->setSpecialValueText(QObject::tr("the engine's"));
    spin->setToolTip(tip);
    spin->setKeyboardTracking(false);
    return spin;
}

/// A choice among @p items (label, the enum's value as data), in that order.
QComboBox* choiceCombo(const QString& objectName, std::initializer_list<std::pair<QString, int>> items,
    const QString& tip, QWidget* parent)
{
    auto* combo = new QComboBox(parent);
    combo->setObjectName(objectName);
    for (const auto& [label, value] : items) {
        combo->addItem(label, value);
    }
    combo->setToolTip(tip);
    return combo;
}

} // namespace

void ServingPanel::addSchedulerRows(QFormLayout* form)
{
    // The ranges are rapid serve's (--max-num-seqs, --max-num-batched-tokens, --block-size, --max-prefill-tokens).
    m_maxNumSeqs = engineCountSpin(QStringLiteral("servingMaxNumSeqs"), 1'000'000,
        tr("Sequences one iteration may hold (vLLM max_num_seqs, TensorRT-LLM max_batch_size, SGLang "
           "max_running_requests); the engine's: 1,024 on H100, H200 and B200 for vLLM"),
        this);
    m_maxBatchedTokens = engineCountSpin(QStringLiteral("servingMaxBatchedTokens"), 10'000'000,
        tr("Tokens one iteration computes (vLLM max_num_batched_tokens, TensorRT-LLM max_num_tokens, SGLang "
           "chunked_prefill_size): prompts are cut into chunks of what is left"),
        this);
    m_chunkedPrefill = new QCheckBox(tr("Chunked prefill"), this);
    m_chunkedPrefill->setObjectName(QStringLiteral("servingChunkedPrefill"));
    m_chunkedPrefill->setChecked(true);
    m_chunkedPrefill->setToolTip(tr("Split a prompt over iterations to fit the token budget; off, every prompt runs "
                                    "whole in one iteration (TensorRT-LLM's enable_chunked_prefill false)"));
    m_blockSize = engineCountSpin(QStringLiteral("servingBlockSize"), 4096,
        tr("Tokens per KV-cache block; the engine's: vLLM block_size 16, TensorRT-LLM tokens_per_block 32, SGLang "
           "page_size 1"),
        this);
    m_maxPrefillTokens = engineCountSpin(QStringLiteral("servingMaxPrefillTokens"), 10'000'000,
        tr("SGLang only: prompt tokens one scheduling pass admits (max_prefill_tokens, 16,384 by default); a prompt "
           "beyond what is left waits for the next pass unless it is the first"),
        this);
    m_memoryShare = new QDoubleSpinBox(this);
    m_memoryShare->setObjectName(QStringLiteral("servingMemoryShare"));
    m_memoryShare->setRange(0, 1);
    m_memoryShare->setDecimals(2);
    m_memoryShare->setSingleStep(0.05);
    m_memoryShare->setSpecialValueText(tr("the engine's"));
    m_memoryShare->setKeyboardTracking(false);
    m_memoryShare->setToolTip(tr("Share of HBM the engine uses (vLLM gpu_memory_utilization 0.9; TensorRT-LLM "
                                 "free_gpu_memory_fraction 0.9 of what is free; SGLang mem_fraction_static by GPU)"));
    m_batching = choiceCombo(QStringLiteral("servingBatching"),
        { { tr("The engine's"), static_cast<int>(serving::Batching::Auto) },
            { tr("Mixed"), static_cast<int>(serving::Batching::Mixed) },
            { tr("Prefill first"), static_cast<int>(serving::Batching::PrefillFirst) } },
        tr("Prompt chunks beside the decodes in one iteration (vLLM, TensorRT-LLM; SGLang with "
           "--enable-mixed-chunk), or prompt batches alone (SGLang's default)"),
        this);
    m_overlapScheduler = choiceCombo(QStringLiteral("servingOverlapScheduler"),
        { { tr("The engine's"), static_cast<int>(serving::OverlapScheduling::Auto) },
            { tr("On"), static_cast<int>(serving::OverlapScheduling::On) },
            { tr("Off"), static_cast<int>(serving::OverlapScheduling::Off) } },
        tr("Compose each batch while the GPU runs the one before: it holds the requests that had arrived when that "
           "one started, and a finished request runs one more, discarded, decode step (TensorRT-LLM's PyTorch "
           "backend and SGLang by default; off for vLLM and TensorRT engines)"),
        this);
    m_preemption = choiceCombo(QStringLiteral("servingPreemption"),
        { { tr("Recompute"), static_cast<int>(serving::Preemption::Recompute) },
            { tr("Swap to host"), static_cast<int>(serving::Preemption::Swap) } },
        tr("What a preempted request's KV cache becomes: freed and computed again when it resumes (vLLM V1, SGLang), "
           "or copied to host memory and back over the GPU's host link (vLLM V0's --preemption-mode swap; vLLM with "
           "mixed batches only)"),
        this);
    m_swapSpace = new QDoubleSpinBox(this);
    m_swapSpace->setObjectName(QStringLiteral("servingSwapSpace"));
    m_swapSpace->setRange(0, serving::kMaxSwapSpaceGiB); // rapid serve --swap-space
    m_swapSpace->setDecimals(1);
    m_swapSpace->setValue(4);
    m_swapSpace->setSuffix(tr(" GiB"));
    m_swapSpace->setKeyboardTracking(false);
    m_swapSpace->setToolTip(tr("Host memory per GPU for swapped KV blocks (vLLM's --swap-space, 4 GiB); when it is "
                               "full the run stops, as vLLM V0 aborts"));
    form->addRow(tr("Sequences / iteration"), m_maxNumSeqs);
    form->addRow(tr("Tokens / iteration"), m_maxBatchedTokens);
    form->addRow(QString(), m_chunkedPrefill);
    form->addRow(tr("KV block"), m_blockSize);
    form->addRow(tr("Prefill budget"), m_maxPrefillTokens);
    form->addRow(tr("Memory share"), m_memoryShare);
    form->addRow(tr("Batching"), m_batching);
    form->addRow(tr("Overlap scheduler"), m_overlapScheduler);
    form->addRow(tr("Preemption"), m_preemption);
    form->addRow(tr("Swap space"), m_swapSpace);
    for (QComboBox* combo : { m_engine, m_batching, m_preemption }) {
        connect(combo, &QComboBox::currentIndexChanged, this, &ServingPanel::updateSchedulerFields);
    }
    updateSchedulerFields();
}

QString ServingPanel::schedulerSummary(const serving::EngineOptions& used)
{
    const QLocale locale;
    QString text = tr("The engine ran up to %1 sequences and %2 tokens per iteration")
                       .arg(locale.toString(used.maxNumSeqs), locale.toString(used.maxNumBatchedTokens));
    if (used.maxPrefillTokens > 0) {
        text += tr(", %1 prompt tokens per pass").arg(locale.toString(used.maxPrefillTokens));
    }
    text += used.chunkedPrefill ? tr(", prompts chunked") : tr(", prompts whole");
    text += used.overlapScheduling == serving::OverlapScheduling::On ? tr(", each batch composed one iteration ahead")
                                                                     : tr(", each batch composed in step");
    text += tr(", a KV cache of %1 tokens per replica in blocks of %2.")
                .arg(locale.toString(static_cast<qlonglong>(used.kvBlocks) * used.blockSize))
                .arg(used.blockSize);
    if (used.preemption == serving::Preemption::Swap) {
        text += tr(" Preempted requests swapped to %1 GiB of host memory per GPU (%2 blocks) over %3 / %4 GB/s to / "
                   "from the GPU.")
                    .arg(locale.toString(used.swapSpaceBytes / (1024.0 * 1024 * 1024), 'g', 4),
                        locale.toString(static_cast<qlonglong>(used.swap.hostBlocks)),
                        locale.toString(used.swap.toDeviceBytesPerSecond / 1e9, 'g', 4),
                        locale.toString(used.swap.fromDeviceBytesPerSecond / 1e9, 'g', 4));
    }
    return text;
}

bool ServingPanel::swapping() const
{
    return m_engine->currentData().toInt() == static_cast<int>(serving::EngineProfile::Vllm)
        && m_batching->currentData().toInt() != static_cast<int>(serving::Batching::PrefillFirst);
}

void ServingPanel::updateSchedulerFields()
{
    m_maxPrefillTokens->setEnabled(m_engine->currentData().toInt() == static_cast<int>(serving::EngineProfile::Sglang));
    // Kept while greyed out, not applied (applyScheduler).
    m_preemption->setEnabled(swapping());
    m_swapSpace->setEnabled(
        swapping() && m_preemption->currentData().toInt() == static_cast<int>(serving::Preemption::Swap));
}

void ServingPanel::applyScheduler(serving::EngineOptions& options) const
{
    options.maxNumSeqs = m_maxNumSeqs->value();
    options.maxNumBatchedTokens = m_maxBatchedTokens->value();
    options.chunkedPrefill = m_chunkedPrefill->isChecked();
    options.blockSize = m_blockSize->value();
    // Kept while another engine is chosen, as the greyed-out field shows, but not applied.
    options.maxPrefillTokens = options.profile == serving::EngineProfile::Sglang ? m_maxPrefillTokens->value() : 0;
    options.gpuMemoryUtilization = m_memoryShare->value();
    options.batching = static_cast<serving::Batching>(m_batching->currentData().toInt());
    options.overlapScheduling = static_cast<serving::OverlapScheduling>(m_overlapScheduler->currentData().toInt());
    options.preemption = swapping() ? static_cast<serving::Preemption>(m_preemption->currentData().toInt())
                                    : serving::Preemption::Recompute;
    options.swapSpaceBytes = m_swapSpace->value() * 1024.0 * 1024 * 1024;
}

} // namespace rapid::widgets
