// SPDX-License-Identifier: GPL-3.0-or-later
// The step and serving models against the published measurements in ../shared/validation (the same runs as
// `rapid validate`): every case evaluates, and each dataset's mean absolute percentage error meets the bar.
// Datasets that do not meet their bar yet are held at a ceiling (today's figure plus a margin), so a regression fails
// either way and an improvement past a missed bar is reported (then move it to the met list).
#include "testutils.h"
#include "validation/performancevalidation.h"
#include "validationfigure.h"

#include <QFileInfo>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <map>

using namespace rapid;

class TstPerformanceValidation : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void datasetMeetsItsBar_data();
    void datasetMeetsItsBar();
    void aiconfiguratorRowsRunTheGeneratorsBenchmarkKnobs();
    void pipelinedRowsRunTheirFrameworksSchedules();
    void threadsAndTheServedMemoChangeNoPrediction();
};

void TstPerformanceValidation::datasetMeetsItsBar_data()
{
    QTest::addColumn<QString>("name");
    // The AIConfigurator sets serve ~800 closed loops each (tens of seconds): they run as their own test
    // (tst_servingvalidation, this file built with RAPID_SERVING_VALIDATION), outside the sanitizer run's labels.
#ifdef RAPID_SERVING_VALIDATION
    const bool serving = true;
#else
    const bool serving = false;
#endif
    for (const std::string& name : validation::performanceDatasetNames()) {
        if ((name.rfind("aiconfigurator", 0) == 0) == serving) {
            QTest::newRow(name.c_str()) << QString::fromStdString(name);
        }
    }
}

void TstPerformanceValidation::datasetMeetsItsBar()
{
    QFETCH(QString, name);
    const std::string shared = RAPID_SHARED_DIR;
    if (!QFileInfo::exists(QString::fromStdString(shared + "/validation"))) {
        QSKIP("shared validation data not present");
    }
    const validation::DatasetResult result = validation::validateDataset(
        validation::readPerformanceDataset(name.toStdString(), shared), test::projectPresets());
    QVERIFY(!result.cases.empty());
    for (const validation::CaseResult& c : result.cases) {
        QVERIFY2(c.failure.empty(), (c.source->label + ": " + c.failure).c_str());
        QVERIFY2(std::isfinite(c.predicted) && c.predicted > 0, c.source->label.c_str());
    }
    qInfo("%s: mean absolute error %.2f%% (bar %.0f%%)", qPrintable(name), result.meanAbsolutePercentageError,
        result.dataset.barPercent);
    // Bars not met yet (issues #3/#4/#15 say why): the lab's PyTorch stack for uci-llama2, NeMo's per-layer overheads
    // at high TP for imec, the long-context batch-8/32 decode rows for koyeb, the small models' per-kernel floor and
    // the 32B row's compute (docs/calibration.md) for megatron-core-h100, and for nim-served-ttft a prefill 10-23%
    // faster than measured at concurrency 1 (#15) and queueing under load NIM's engine has and vLLM V1's defaults do
    // not (#17). Each is held at its figure of `rapid validate` on 2026-11-25 (50.45%, 16.86%, 7.75%, 10.51%, 24.18%)
    // plus one percentage point, so it cannot get worse unseen. torchtitan (#15, added 2026-11-27): throughput
    // still predicted too high (async TP hides less than modelled, context-parallel ring attention, the 405B
    // pipeline rows, float8 rowwise and MXFP8 on B200; eager PyTorch's kernel chains, the attention kernel each
    // framework runs and async TP's split GEMMs are modelled since); torchtitan-memory: the reserved-memory factor
    // on H200/B200 (torchtitan keeping pipeline stages gathered is modelled since). Held at `rapid
    // validate` on 2026-11-27 (uci-llama2 40.06%, megatron-core-h100 10.36%, torchtitan 34.03%, torchtitan-memory
    // 17.77%) plus one point. aiconfigurator (#17, added 2026-11-27): TPOT of Llama-3.1-70B fp8 on H200/B200 ~30% slow
    // (the KV-cache precision is not recorded: bf16 assumed), TTFT far too long (all clients start together, four
    // requests each; the benchmark's warm-up and request count are not recorded). Held at 148.95% and 18.17%.
    // torchtitan-memory is 17.35% since FSDP reduce-scatters gradients unit by unit (2026-11-28): held at 18.4%.
    // automodel (#15, added 2026-11-28) meets its 12% bar (5.29%). aiconfigurator since 2026-11-28: FP8 rows keep an
    // FP8 KV cache and each client sends ten requests (the rules in aiconfiguratordataset.cpp say why): 74.20% and
    // 16.82%, held at 75.2% and 17.9%. Since Blackwell's tensor cores read GEMM operands once per CTA
    // (docs/calibration.md, 2026-11-28): aiconfigurator 60.89% / 13.30%, held at 61.9% and 14.3%; torchtitan 43.75%,
    // held at 44.8% (its four B200 rows ran "power limited" at an unstated limit and now read +114..171%; the other 32
    // rows are unchanged). With SGLang's profile (2026-11-28) its 84 Qwen3-32B H100 rows join: 56.64% and 12.60%.
    // Since NVLink moves data at NCCL's measured bus bandwidth and H100/H200 switches reduce all-reduces in the
    // network (2026-11-28): aiconfigurator 57.17% / 12.67%, held at 58.2% and 13.7%; nim-served-ttft 21.62%, held at
    // 22.7%; torchtitan 42.44%, held at 43.5%; with InfiniBand's data rate megatron-core-h100 10.23%, held at 11.2%.
    // The four B200 rows run "power limited" at a limit the source does not state moved to torchtitan-power-limited,
    // printed without a bar (149.15%, held at 150.2%): torchtitan 29.10% over the other 32 rows. With per-op SAC's
    // recomputed all-gathers and async TP's unfusable gradient reduce-scatters: 26.02%, held at 27.1%. nanotron (#15,
    // added 2026-11-28; the Hugging Face benchmark's single-node tokens/s): 27.86% with nanotron's fp32 cross-entropy
    // chain, eager GLU and fp32 gradient accumulation; the rest is the tensor-parallel runs with little work per GPU
    // (1B-3B models at tp >= 2 with micro-batch <= 2: +55..+255%, not modelled). Held at 28.9%. Megatron runs the
    // same cross-entropy op chain unless its loss fusion is on: megatron-core-h100 8.75% (the 1.7B row +29.5 ->
    // +19.7%), held at 9.8%. Megatron's overlapped ZeRO-1 parameter gather runs one bucket ahead of the next step's
    // first forward and delays it where it falls behind (tp 8 over 48 nodes gathers over one NIC per GPU):
    // megatron-core-h100 8.21%, held at 9.3%. PyTorch's context parallelism merges each ring step's output in fp32 and
    // accumulates dq, dk, dv in fp32 (model/ringattention.h): torchtitan 25.29%, held at 26.3%; uci-llama2 37.74%,
    // held at 38.8%. Since torch.compile saves only what a block's backward reads and torchtitan compiles its loss
    // from April 2025 (eager PyTorch's loss keeps fp32 log-softmax and two fp32 gradients, memory/frameworkprofile.cpp;
    // 2026-11-29): torchtitan-memory 8.32% meets its bar; torchtitan 22.55%. With torchao's FP8 layout copies in the
    // backward (model/fp8quantization.h): torchtitan 21.44%, held at 22.5%; torchtitan-power-limited 139.46%, held at
    // 140.5%. The H200 rows' float8 all-gather (precision.fp8_all_gather): torchtitan 21.56%, torchtitan-memory 8.29%.
    // aiconfigurator with its NVFP4 rows (132 Llama-3.1-70B rows on B200, 2026-11-29): 55.87% / 12.34%; with its
    // block-scaled FP8 rows (precision.fp8_scaling: block128; 46 Llama-3.1-8B rows served by SGLang on H200 at 20-512
    // clients, whose TPOT of ~30 ms at every tp from 1 to 8 is predicted 47% short and not explained): 61.05% /
    // 13.87%, held at 62.1% and 14.9%. With every float8 linear recomputed under per-op SAC (aten._scaled_mm is not
    // on torchtitan's save list, model/opsacrecompute.cpp): torchtitan 19.42%, held at 20.5%;
    // torchtitan-power-limited 122.49%, held at 123.5%. With the HBM rates streams reach (BabelStream's read-only Dot
    // and read-write Triad, measured per GPU; docs/calibration.md, 2026-11-29) instead of H100/H200/B200's datasheet
    // peak: megatron-core-h100 7.91% meets its bar; torchtitan 17.71%, held at 18.7%; nanotron 25.56%, held at 26.6%;
    // torchtitan-power-limited 118.36%, held at 119.4%; aiconfigurator 62.54% / 13.96%, held at 63.6% and 14.9%.
    // With the reduction kernel that ends each reduce-scatter PyTorch's async TP fuses (sim/pipelinedtensorgemms.h)
    // and H100's own measured memory latencies (2026-11-29): torchtitan 17.04%; with the shard copy and barrier that
    // start each fused all-gather: 16.75%, held at 17.8%. With TensorRT-LLM's no-evict admission (its default
    // capacity policy): aiconfigurator 62.38% / 13.75%, held at 63.4% and 14.8%. With TensorRT-LLM's PyTorch backend
    // fusing a wide Llama's all-reduces with the residual add, RMSNorm and quantisation (serving::engineScenario,
    // 2026-11-30): aiconfigurator 60.86% / 12.11%, held at 61.9% and 13.1%. With the iteration limits of
    // AIConfigurator's benchmark deployments (batch + isl + 1,500 tokens, TensorRT-LLM unchunked, SGLang mixed from
    // 0.5.6; aiconfiguratordataset.cpp, 2026-11-30): 38.59% / 12.25%, held at 39.6% and 13.1%. With the overlap
    // schedulers of TensorRT-LLM's PyTorch backend and SGLang (serving::OverlapScheduling, 2026-12-01): 36.06% /
    // 11.90%, held at 37.1% and 12.5%. With nanotron's host-side dispatch of each layer pass (model/hostdispatch.h,
    // 2026-12-02): nanotron 20.67%, held at 21.7%. With the 180 Qwen3-235B-A22B rows the new preset and expert
    // parallelism over tp (run.parallelism.etp 1) let it serve (2026-12-03; the other 1,034 rows unchanged at 36.06% /
    // 12.23%): 37.39% / 13.34%, held at 38.4% and 14.3%. With expert tensor parallelism between 1 and tp (2026-12-04),
    // TensorRT-LLM's two moe_tp 2 x moe_ep 2 rows join: 37.42% / 13.38%. With FSDP2 under pipeline parallelism
    // gathering each stage once per step and reducing after its last backward (2026-12-04): torchtitan 14.44%.
    // automodel misses its bar since 2026-12-04 (7.83 -> 12.14%), all three changes read in AutoModel's source: its
    // FakeBalancedGate routes each token to consecutive experts on one or two GPUs (DeepEP sends a quarter of what
    // spread routing would), its checkpoint_wrapper re-runs each MoE block's dispatch and combine in the backward,
    // and a pipelined row runs one schedule per accumulation batch; the MoE rows are now 4-24% too fast. Held at 13.2%.
    // torchtitan's interleaved 405B row with its default 8 micro-batches (not 16): torchtitan 14.00%, held at 15.0%.
    // With FSDP2's sums of unsharded gradients over a pipelined step's micro-batches and of the experts outside FSDP
    // (model/gradientaccumulation.h), and the bf16 gradient reduction of AutoModel's dense row of April 2026
    // (2026-12-04): automodel 10.55% meets its bar again; torchtitan 13.85%, held at 14.9%.
    // With the serving engines' fused residual add and RMSNorm and TensorRT-LLM's fused all-reduces in its Qwen3 MoE
    // layers (serving::engineScenario, 2026-12-05): aiconfigurator 37.76% / 12.25%, TPOT held at 13.3%.
    // megatron-core-h100 misses its bar since 2026-12-05 (7.91 -> 9.64%): Megatron-LM r0.8.0 reduces bf16 training's
    // gradients in fp32 (its arguments.py forces accumulate_allreduce_grads_in_fp32), which the mapping had as bf16;
    // the 32B row's reduce-scatter then needs ~0.3 s on one NIC per GPU with only the last backward to hide under, and
    // its measured step leaves less compute time than the Hopper GEMM model charges (docs/calibration.md). Held
    // at 10.7%. With the SMs NCCL holds beside Megatron's bucketed reductions and overlapped parameter gathers
    // (sim::collectiveContention): 9.18%, held at 10.2%. With a slowed pass's pipeline send waiting for the slowdown
    // (2026-12-06): 9.48%, still held at 10.2%. With the SMs of the context-parallel ring steps beside the attention
    // core: torchtitan 13.71%. With the 221 gpt-oss-120b rows on Hopper that the gpt-oss preset and MXFP4 experts let
    // it serve (2026-12-06, first run unseen; the other 1,216 rows unchanged): aiconfigurator 39.32% / 14.37%, held at
    // 40.3% and 15.4% (docs/calibration.md, misses: gpt-oss's TTFT). With the 177 gpt-oss-120b rows on B200 that the
    // experts' own math lets it serve (2026-12-06, run.precision.expert_compute: TensorRT-LLM's MXFP8 activations into
    // the MXFP4 experts, vLLM's bf16; first run unseen, the other 1,437 rows unchanged): 38.27% / 16.59%, the B200
    // rows' TPOT 20-48% too slow (docs/calibration.md, misses: gpt-oss's decode on B200), held at 39.3% and 17.6%.
    // With trtllm-gen's MoE runner for MXFP4 experts on Blackwell (RunSpec::fusedMoeRunner: no permutation copy, the
    // activation and the second GEMM's input cast in the first GEMM's epilogue, token tiles of 8-64 rows; only the
    // 177 B200 rows move): 38.68% / 14.72%, their TPOT 34.6 -> 17.6% and TTFT 29.8 -> 33.4%, held at 39.7% and 15.7%.
    // Megatron-Core's pipelined rows on the interleaved schedule they ran (the README's P2P overlap exists only there
    // in r0.8.0), one layer per virtual stage as NVIDIA's GPT-3 175B recipe sets it (2026-12-07): megatron-core-h100
    // 9.48 -> 8.01%, its pipelined rows -13..-2% -> -1..+10%; held at 9.0%.
    // With FP8 and NVFP4 GEMMs writing 16-bit outputs (compute::GemmShape, 2026-12-07): torchtitan 13.29%,
    // aiconfigurator 38.53% / 14.65%.
    // With Megatron's weight gradients accumulated into main_grad by their GEMMs
    // (model::fusedWeightGradientAccumulation): megatron 3.80%, megatron-core-h100 7.68%, which meets its bar.
    static const std::map<QString, double> kCeilings = { { QStringLiteral("uci-llama2"), 38.8 },
        { QStringLiteral("imec"), 17.9 }, { QStringLiteral("koyeb"), 8.8 }, { QStringLiteral("nim-served-ttft"), 22.7 },
        { QStringLiteral("torchtitan"), 14.9 }, { QStringLiteral("nanotron"), 21.7 },
        { QStringLiteral("torchtitan-power-limited"), 119.4 }, { QStringLiteral("megatron-core-h100"), 9.0 },
        { QStringLiteral("aiconfigurator-ttft"), 39.7 }, { QStringLiteral("aiconfigurator-tpot"), 15.7 } };
    const auto ceiling = kCeilings.find(name);
    if (!result.hasBar()) {
        // Printed, not a bar (its set-up is unknown): only held at its ceiling so that it cannot get worse unseen.
        QVERIFY(ceiling != kCeilings.end());
        QVERIFY2(result.meanAbsolutePercentageError <= ceiling->second, qPrintable(name));
        QVERIFY(!result.dataset.noBarReason.empty());
        return;
    }
    test::checkValidationFigure({ name + QStringLiteral(" mean absolute error %"), result.meanAbsolutePercentageError,
        result.dataset.barPercent, ceiling == kCeilings.end() ? std::nullopt : std::optional<double>(ceiling->second),
        false });
}

// The knobs of AIConfigurator's benchmark deployments (its generator's rule plugins), worked out by hand for four rows
// of silicon_sample.csv: the batch limit is the row's batch, an iteration holds it plus isl + 1,500 tokens.
void TstPerformanceValidation::aiconfiguratorRowsRunTheGeneratorsBenchmarkKnobs()
{
    const std::string shared = RAPID_SHARED_DIR;
    if (!QFileInfo::exists(QString::fromStdString(shared + "/validation"))) {
        QSKIP("shared validation data not present");
    }
    const validation::Dataset dataset = validation::aiconfiguratorDataset(shared, true);
    const auto engineOf = [&](const std::string& label) {
        for (const validation::ValidationCase& c : dataset.cases) {
            if (c.label == label) {
                return c.engine;
            }
        }
        QTest::qFail(("no row " + label).c_str(), __FILE__, __LINE__);
        return serving::EngineOptions {};
    };
    // vLLM, 1,024-token prompts, 16 clients: max_num_seqs 16, max_num_batched_tokens 16 + 1,024 + 1,500 = 2,540.
    const serving::EngineOptions vllm
        = engineOf("2026_04_06_llama_3_1_70b_h200_sxm_vllm_fp8_agg_1024x1024_c16_tp2_ep1_644");
    QCOMPARE(vllm.profile, serving::EngineProfile::Vllm);
    QCOMPARE(vllm.maxNumSeqs, 16);
    QCOMPARE(vllm.maxNumBatchedTokens, 2540);
    QVERIFY(vllm.chunkedPrefill);
    // TensorRT-LLM, 8,192-token prompts, 4 clients: 4 + 8,192 + 1,500 = 9,696 = 303 blocks of 32; no chunking.
    const serving::EngineOptions trtllm
        = engineOf("2026_04_06_llama_3_1_70b_h200_sxm_trtllm_fp8_agg_8192x1024_c4_tp1_ep1_643");
    QCOMPARE(trtllm.profile, serving::EngineProfile::TrtLlm);
    QCOMPARE(trtllm.maxNumSeqs, 4);
    QCOMPARE(trtllm.maxNumBatchedTokens, 9696);
    QCOMPARE(trtllm.blockSize, 32);
    QVERIFY(!trtllm.chunkedPrefill);
    // SGLang 0.5.6.post2 on H200, 1,000-token prompts: max_prefill_tokens 2,500, its chunk SGLang's default, mixed.
    const serving::EngineOptions sglang = engineOf("meta_llama_llama_3_1_8b_instruct_meta_llama_llama_3_1_8b_instruct_"
                                                   "h200_sxm_sglang_agg_1000x1000_c352_tp1_epnone_9");
    QCOMPARE(sglang.profile, serving::EngineProfile::Sglang);
    QCOMPARE(sglang.maxNumSeqs, 352);
    QCOMPARE(sglang.maxPrefillTokens, 2500);
    QCOMPARE(sglang.maxNumBatchedTokens, 0);
    QCOMPARE(sglang.batching, serving::Batching::Mixed);
    // SGLang 0.5.1.post1 (a template older than the mixed-chunk rule): SGLang's own batching.
    const serving::EngineOptions older
        = engineOf("qwen_qwen3_32b_qwen_qwen3_32b_h100_sxm_sglang_agg_1024x128_c16_tp2_epnone_1");
    QCOMPARE(older.maxPrefillTokens, 2524);
    QCOMPARE(older.batching, serving::Batching::Auto);
}

// The pipeline set-up of the frameworks' defaults, read in their source for rows that do not state it.
void TstPerformanceValidation::pipelinedRowsRunTheirFrameworksSchedules()
{
    const std::string shared = RAPID_SHARED_DIR;
    if (!QFileInfo::exists(QString::fromStdString(shared + "/validation"))) {
        QSKIP("shared validation data not present");
    }
    const auto overridesOf = [](const validation::Dataset& dataset, const std::string& prefix) {
        for (const validation::ValidationCase& c : dataset.cases) {
            if (c.label.starts_with(prefix)) {
                return c.overrides;
            }
        }
        QTest::qFail(("no row " + prefix).c_str(), __FILE__, __LINE__);
        return std::vector<std::string> {};
    };
    const auto has = [](const std::vector<std::string>& overrides, const std::string& text) {
        return std::any_of(overrides.begin(), overrides.end(),
            [&](const std::string& o) { return o.find(text) != std::string::npos; });
    };
    // torchtitan at 9dec370a: n_microbatches = pipeline_parallel_degree and 2 stages per rank when interleaved. The
    // 405B interleaved row (local batch 32, pp 8): 8 micro-batches of 4 sequences, 2 virtual stages.
    const auto interleaved
        = overridesOf(validation::torchtitanDataset(shared, validation::TorchtitanView::Throughput), "TT24-T5-2 ");
    QVERIFY(has(interleaved, "run.training.micro_batch=4"));
    QVERIFY(has(interleaved, "schedule: interleaved, virtual_stages: 2"));
    // Megatron-Core r0.8.0's pipelined weak-scaling rows: interleaved (their README's P2P overlap needs it), one layer
    // per virtual stage as NeMo's GPT-3 175B recipe sets it: 96 layers over pp 6 are 16 virtual stages per rank; the
    // rows without a pipeline name no schedule.
    const auto megatronCore = validation::readPerformanceDataset("megatron-core-h100", shared);
    QVERIFY(has(overridesOf(megatronCore, "GPT 177B "), "pp: 6, schedule: interleaved, virtual_stages: 16"));
    QVERIFY(!has(overridesOf(megatronCore, "GPT 32B "), "schedule"));
    // NeMo AutoModel: one schedule per accumulation batch. DeepSeek-V3 on 1,024 GPUs: ga 4, so 4 schedules of
    // lbs / mbs = 8 micro-batches (gbs 8,192 over dp 256 is 32 per rank); consecutive routing.
    const auto automodel = overridesOf(validation::automodelDataset(shared), "AM-PT-04 ");
    QVERIFY(has(automodel, "run.training.pipeline_flushes=4"));
    QVERIFY(has(automodel, "run.training.global_batch=8192"));
    QVERIFY(has(automodel, "ep_routing: consecutive"));
    QVERIFY(!has(automodel, "run.precision.gradients=bf16")); // the MoE parallelizer's own fp32 reduce
    // First published 2025-10-06, before AutoModel deferred the MoE models' FSDP sync to the last schedule
    // (2025-10-08): each schedule reshards (the default); Qwen3-30B-A3B of 2025-10-08 defers.
    QVERIFY(!has(automodel, "reshard_each_flush"));
    QVERIFY(
        has(overridesOf(validation::automodelDataset(shared), "AM-PT-07 "), "run.training.reshard_each_flush=false"));
    // AutoModel's dense Llama 3 70B row, first published 2026-04-10, ran FSDP2Config's default of then: gradients
    // reduced in bf16 (fp32 from 2026-05-14).
    QVERIFY(has(overridesOf(validation::automodelDataset(shared), "AM-PT-10 "), "run.precision.gradients=bf16"));
    // The LoRA rows run their recipes (read at 2013a4dd): rank 16 on every linear and the LM head (match_all_linear).
    // Llama 3 8B on one GPU: Hugging Face's model under Liger-Kernel with cuDNN attention, dropout 0.1, no
    // recomputation; Llama 3.3 70B on 8 GPUs: compiled, tp 2 with sequence parallelism and async TP over fsdp 4.
    const auto lora8b = overridesOf(validation::automodelDataset(shared), "AM-LORA-11 ");
    QVERIFY(has(lora8b, "run.training.lora_rank=16"));
    QVERIFY(has(lora8b, "run.training.lora_targets=all_linear"));
    QVERIFY(has(lora8b, "run.training.lora_dropout=0.1"));
    QVERIFY(has(lora8b, "run.liger_kernel=true"));
    QVERIFY(has(lora8b, "run.attention_kernel=cudnn"));
    QVERIFY(has(lora8b, "run.training.recompute=none"));
    const auto lora70b = overridesOf(validation::automodelDataset(shared), "AM-LORA-13 ");
    QVERIFY(has(lora70b, "run.torch_compile=true"));
    QVERIFY(has(lora70b, "tp: 2, sp: true, tp_comm_overlap: true"));
    QVERIFY(has(lora70b, "run.training.recompute=full"));
    QVERIFY(!has(lora70b, "run.liger_kernel"));
    // The superseded LoRA rows (the table's older layout) are skipped, with the reason.
    const validation::Dataset automodelSet = validation::automodelDataset(shared);
    QVERIFY(std::any_of(automodelSet.skipped.begin(), automodelSet.skipped.end(),
        [](const auto& skipped) { return skipped.label.starts_with("AM-LORA-18 "); }));
}

void TstPerformanceValidation::threadsAndTheServedMemoChangeNoPrediction()
{
    const std::string shared = RAPID_SHARED_DIR;
    if (!QFileInfo::exists(QString::fromStdString(shared + "/validation"))) {
        QSKIP("shared validation data not present");
    }
    // NIM's served rows, their TTFT view then their ITL view: on one thread without a memo, then on two threads
    // sharing one. Each case is independent, so the predictions are the same to the bit; the ITL view reads the
    // closed loops the TTFT view served (the same 15 rows), so every one of its cases is a hit.
    const auto run = [&](const std::string& name, const validation::ValidateOptions& options) {
        return validation::validateDataset(
            validation::readPerformanceDataset(name, shared), test::projectPresets(), options);
    };
    const validation::DatasetResult ttftAlone = run("nim-served-ttft", { 1, nullptr });
    const validation::DatasetResult itlAlone = run("nim-served-itl", { 1, nullptr });
    validation::ServedMemo memo;
    const validation::DatasetResult ttftShared = run("nim-served-ttft", { 2, &memo });
    QCOMPARE(memo.hits(), 0);
    const validation::DatasetResult itlShared = run("nim-served-itl", { 2, &memo });
    QCOMPARE(memo.hits(), static_cast<int>(itlShared.cases.size()));
    QCOMPARE(ttftShared.servedFromMemo, 0);
    QCOMPARE(itlShared.servedFromMemo, memo.hits());
    QVERIFY(itlShared.cases.size() >= 15);
    for (const auto& [alone, withMemo] :
        { std::pair { &ttftAlone, &ttftShared }, std::pair { &itlAlone, &itlShared } }) {
        QCOMPARE(alone->cases.size(), withMemo->cases.size());
        for (size_t i = 0; i < alone->cases.size(); ++i) {
            QVERIFY(alone->cases[i].failure.empty());
            QCOMPARE(withMemo->cases[i].source->label, alone->cases[i].source->label);
            QCOMPARE(withMemo->cases[i].predicted, alone->cases[i].predicted);
            QCOMPARE(withMemo->cases[i].predictedTtft, alone->cases[i].predictedTtft);
            QCOMPARE(withMemo->cases[i].predictedItl, alone->cases[i].predictedItl);
        }
        QCOMPARE(withMemo->meanAbsolutePercentageError, alone->meanAbsolutePercentageError);
    }
}

QTEST_GUILESS_MAIN(TstPerformanceValidation)
#include "tst_performancevalidation.moc"
