// SPDX-License-Identifier: GPL-3.0-or-later
// NVIDIA AIConfigurator's measured serving rows (../shared/validation/aiconfigurator/, README.md there: provenance,
// columns and doubts): TTFT and TPOT of aggregated deployments under a closed loop of clients.
#include "performancedatasets.h"

#include "validation/csvtable.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <stdexcept>
#include <vector>

namespace rapid::validation {

namespace {

// The benchmark behind each row sends about ten requests per client, so that the first round (every client's
// request arriving at once) weighs little in the mean: aiconfigurator's TensorRT-LLM backend says so where it corrects
// its own agg TTFT ("assume we have requests 10x of concurrency", sdk/backends/trtllm_backend.py, run_agg). The clients
// start together, as aiperf's concurrency mode does without a ramp ("burst mode", docs/benchmark_modes/
// timing-modes-reference.md).
constexpr int kRequestsPerClient = 10;

bool contains(const std::string& text, const std::string& part)
{
    return text.find(part) != std::string::npos;
}

/// The value of `key=` in the `;`-separated provenance string, or "".
std::string provenance(const std::string& source, const std::string& key)
{
    const std::string needle = key + "=";
    size_t at = source.find(needle);
    while (at != std::string::npos && at > 0 && source[at - 1] != ' ' && source[at - 1] != ';') {
        at = source.find(needle, at + 1);
    }
    if (at == std::string::npos) {
        return {};
    }
    const size_t start = at + needle.size();
    return source.substr(start, source.find(';', start) - start);
}

std::string modelPreset(const std::string& path)
{
    if (contains(path, "Llama-3.1-8B")) {
        return "llama-3.1-8b";
    }
    if (contains(path, "Llama-3.1-70B")) {
        return "llama-3.1-70b";
    }
    if (path == "Qwen/Qwen3-32B") {
        return "qwen3-32b";
    }
    if (path == "Qwen/Qwen3-235B-A22B-FP8") {
        return "qwen3-235b-a22b"; // its 128 x 128 block-scaled FP8 weights: fp8_block rows
    }
    if (path == "openai/gpt-oss-120b") {
        return "gpt-oss-120b"; // MXFP4 experts, all else bf16, whatever the row's quant columns say (isGptOss)
    }
    return {};
}

/// gpt-oss ships one checkpoint: its experts in MXFP4, everything else in bf16 (config.json quantization_config).
/// The file labels its rows fp4/nvfp4 (AIConfigurator's name for any 4-bit MoE); the weights are the checkpoint's.
bool isGptOss(const std::string& path)
{
    return path == "openai/gpt-oss-120b";
}

/// Whether a row's model routes tokens to experts (its moe_ columns describe the expert split).
bool isMoePreset(const std::string& preset)
{
    return preset == "qwen3-235b-a22b" || preset == "gpt-oss-120b";
}

/// GPUs in one NVLink domain of a system's preset: a worker wider than it spans nodes, which hardwareOf does not build.
int nvlinkDomainGpus(const std::string& system)
{
    return system == "gb200" ? 72 : 8;
}

/// The hardware preset of one worker of @p tp GPUs and its overrides: the GPU preset alone for one GPU, else the
/// 8-GPU HGX node's NVLink switch (GB200: the NVL72 rack's) cut to tp GPUs. An H200 worker is the HGX H100 node with
/// the H200 GPU: HGX H200 has the same NVLink 4 / NVSwitch fabric (the hgx-h200-400g preset's NVLink figures are the
/// same), and a worker is one NVLink domain, without that preset's InfiniBand dimension.
std::pair<std::string, std::vector<std::string>> hardwareOf(const std::string& system, int tp)
{
    static const std::map<std::string, std::pair<std::string, std::string>> kPresets
        = { { "h100_sxm", { "hgx-h100-8gpu", "h100-sxm5-80gb" } },
              { "h200_sxm", { "hgx-h100-8gpu", "h200-sxm-141gb" } }, { "b200_sxm", { "hgx-b200-8gpu", "b200" } },
              { "gb200", { "gb200-nvl72", "gb200" } } };
    const auto found = kPresets.find(system);
    if (found == kPresets.end()) {
        return {};
    }
    if (tp <= 1) {
        return { found->second.second, {} };
    }
    return { found->second.first,
        { "hardware.gpu=" + found->second.second, "hardware.cluster.gpus_per_node=" + std::to_string(tp),
            "hardware.cluster.network[0].size=" + std::to_string(tp) } };
}

/// The engine profile of a row's backend column (vllm, trtllm, sglang).
serving::EngineProfile engineOf(const std::string& backend)
{
    if (backend == "vllm") {
        return serving::EngineProfile::Vllm;
    }
    return backend == "sglang" ? serving::EngineProfile::Sglang : serving::EngineProfile::TrtLlm;
}

/// Whether an SGLang version such as "0.5.6.post2" is at least major.minor.patch; blank or unnumbered versions
/// ("nightly-dev") are not.
bool versionAtLeast(const std::string& version, int major, int minor, int patch)
{
    std::array<int, 3> fields {};
    if (std::sscanf(version.c_str(), "%d.%d.%d", &fields[0], &fields[1], &fields[2]) != 3) {
        return false;
    }
    return fields >= std::array<int, 3> { major, minor, patch };
}

/// The engine of a row as AIConfigurator deploys a configuration to measure it (its generator's rules,
/// src/aiconfigurator/generator/rule_plugin/benchmark/{vllm,trtllm,sglang}.rule, and the templates they fill): the
/// worker's batch limit is the row's batch size, and one iteration takes that batch's decodes beside isl + 1,500 prompt
/// tokens (vLLM max_num_batched_tokens and TensorRT-LLM max_num_tokens = batch + isl + 1,500, the latter rounded up to
/// its 32-token KV blocks and prompts unchunked; SGLang max_prefill_tokens = isl + 1,500 within its
/// chunked_prefill_size, prompt chunks beside the decodes where --enable-mixed-chunk was set).
serving::EngineOptions benchmarkEngine(const CsvTable& table, size_t row, int batch)
{
    serving::EngineOptions engine;
    engine.profile = engineOf(table.cell(row, "backend"));
    engine.maxNumSeqs = batch;
    const int isl = std::stoi(table.cell(row, "isl"));
    constexpr int kPromptHeadroom = 1500;
    switch (engine.profile) {
    case serving::EngineProfile::Vllm:
        engine.maxNumBatchedTokens = batch + isl + kPromptHeadroom;
        break;
    case serving::EngineProfile::TrtLlm:
        engine.blockSize = 32;
        engine.maxNumBatchedTokens
            = (batch + isl + kPromptHeadroom + engine.blockSize - 1) / engine.blockSize * engine.blockSize;
        engine.chunkedPrefill = false;
        break;
    case serving::EngineProfile::Sglang:
        engine.maxPrefillTokens = isl + kPromptHeadroom; // chunked_prefill_size stays SGLang's default for the GPU
        // --enable-mixed-chunk is set for aggregated workers since 2026-01-19 (generator #257/#258): every deployment
        // generated from the templates of SGLang 0.5.6.post2 and later (added 2026-01-23) has it; one generated from
        // an older version's template may predate it, and then runs SGLang's default, prefill batches alone.
        if (versionAtLeast(table.cell(row, "backend_version"), 0, 5, 6)) {
            engine.batching = serving::Batching::Mixed;
        }
        // The memory SGLang keeps outside weights and KV cache: a fixed reserve before v0.5.3, sized from the chunk
        // and the CUDA-graph batch sizes since (serving::EngineOptions::sglangBeforeV053).
        engine.sglangBeforeV053 = !versionAtLeast(table.cell(row, "backend_version"), 0, 5, 3);
        break;
    }
    return engine;
}

/// DeepSeek-V3 and R1 share one architecture, which configs/models/deepseek-v3.yaml describes.
bool isDeepSeekV3(const std::string& path)
{
    return path == "deepseek-ai/DeepSeek-R1" || path == "deepseek-ai/DeepSeek-V3";
}

/// The run.parallelism overrides of a row's expert split: none for a dense model (its moe_ columns mean nothing) or
/// experts split like the MLP (moe_tp = tp, moe_ep 1); ep = moe_ep and etp = moe_tp when moe_tp x moe_ep = tp with
/// moe_tp below tp (the experts spread over the worker's tp ranks, whole at moe_tp 1); no value for any other split
/// (moe_tp x moe_ep beyond tp: the experts span attention data-parallel ranks, which the file does not record).
std::optional<std::vector<std::string>> expertSplitOf(const CsvTable& table, size_t row)
{
    if (!isMoePreset(modelPreset(table.cell(row, "model_path")))) {
        return std::vector<std::string> {};
    }
    const auto tp = table.number(row, "tp_size");
    const auto moeTp = table.number(row, "moe_tp_size");
    const auto moeEp = table.number(row, "moe_ep_size");
    if (tp && moeTp && moeEp && *moeTp == *tp && *moeEp == 1) {
        return std::vector<std::string> {};
    }
    if (tp && moeTp && moeEp && *moeTp >= 1 && *moeTp < *tp && *moeTp * *moeEp == *tp) {
        return std::vector<std::string> { "run.parallelism.ep=" + std::to_string(std::lround(*moeEp)),
            "run.parallelism.etp=" + std::to_string(std::lround(*moeTp)) };
    }
    return std::nullopt;
}

/// Why a row is left out, or "" when it is used. The rule is fixed and the same for every row.
std::string skipReason(const CsvTable& table, size_t row)
{
    if (isDeepSeekV3(table.cell(row, "model_path"))) {
        // Not for want of a preset: the file does not record whether MTP speculative decoding ran (README, "Not in
        // the file"), which sets how many tokens each decode iteration yields. Measured on the rows the presets
        // could serve (docs/calibration.md, misses).
        return "DeepSeek-V3/R1 serving (a preset exists): whether MTP speculative decoding ran is not recorded; "
               "tried on its tensor-parallel FP8 rows, TPOT off by 48% (docs/calibration.md)";
    }
    if (modelPreset(table.cell(row, "model_path")).empty()) {
        return "no model preset (MoE models: MiniMax, Kimi, Qwen3.5, GLM; NVFP4 checkpoints)";
    }
    if (hardwareOf(table.cell(row, "system"), 1).first.empty()) {
        return "no GPU or cluster preset (B300, GB300)";
    }
    if (const auto tp = table.number(row, "tp_size"); tp && *tp > nvlinkDomainGpus(table.cell(row, "system"))) {
        return "worker wider than one NVLink domain (tp beyond the node's GPUs; the inter-node fabric of the worker "
               "is not recorded)";
    }
    if (isGptOss(table.cell(row, "model_path"))) {
        if (table.cell(row, "mode") != "agg") {
            return "disaggregated gpt-oss deployment (GB200; this mapping takes aggregated rows only)";
        }
        if (table.cell(row, "precision") != "fp4") {
            return "gpt-oss with FP8 GEMMs: which checkpoint or activation format ran is not recorded";
        }
    }
    const std::string quant = table.cell(row, "gemm_quant_mode");
    if (table.cell(row, "precision") == "int4" || quant == "int4_wo") {
        return "INT4 weight-only serving (not modelled yet)";
    }
    const bool nvfp4
        = !isGptOss(table.cell(row, "model_path")) && (table.cell(row, "precision") == "fp4" || quant == "nvfp4");
    if (nvfp4 && quant != "nvfp4") {
        return "FP4 checkpoint whose GEMMs are not NVFP4";
    }
    // Checked after the model and precision: every disaggregated row but five is of a model or format above, and of
    // those five only one (Qwen3-32B, FP8) records its worker counts.
    if (table.cell(row, "mode") != "agg") {
        return "disaggregated deployment of a dense model (rapid serve --prefill-workers/--decode-workers serves "
               "such pools; this mapping takes aggregated rows only)";
    }
    if (!expertSplitOf(table, row)) {
        return "MoE experts split beyond the worker's tp ranks (moe_tp x moe_ep differs from tp): attention data "
               "parallelism is not recorded";
    }
    if (provenance(table.cell(row, "silicon_data_source"), "silicon_concurrency").empty()) {
        return "no silicon_concurrency in its provenance";
    }
    if (provenance(table.cell(row, "silicon_data_source"), "wip") == "True") {
        return "marked work-in-progress (wip=True) in the source database";
    }
    const auto batch = table.number(row, "batch_size");
    const std::string concurrency = provenance(table.cell(row, "silicon_data_source"), "silicon_concurrency");
    if (!batch || std::to_string(std::lround(*batch)) != concurrency) {
        return "batch per worker differs from the concurrency (replica count not recorded)";
    }
    return {};
}

/// The slice of the file a row belongs to for `rapid validate`'s per-group figures: the engine and its version (one
/// benchmark campaign each), the GPU, the model and its precision.
std::string groupOf(const CsvTable& table, size_t row, const std::string& precision)
{
    const std::string version = table.cell(row, "backend_version");
    return table.cell(row, "backend") + " " + (version.empty() ? "(version not recorded)" : version) + ", "
        + table.cell(row, "system") + ", " + modelPreset(table.cell(row, "model_path")) + " " + precision;
}

} // namespace

Dataset aiconfiguratorDataset(const std::string& sharedDir, bool ttft)
{
    Dataset dataset { ttft ? "aiconfigurator-ttft" : "aiconfigurator-tpot", "aiconfigurator/silicon_sample.csv",
        std::string(
            "NVIDIA AIConfigurator silicon rows: Llama-3.1-8B/70B, Qwen3-32B, Qwen3-235B-A22B and gpt-oss-120b "
            "(experts split over tp, or spread over the tp ranks: ep x etp = tp) served by vLLM, TensorRT-LLM and "
            "SGLang on H100/H200/B200/GB200 (bf16, fp8 per-tensor or 128-block, nvfp4; gpt-oss's MXFP4 experts, "
            "under TensorRT-LLM on Blackwell with MXFP8 activations), one worker per row under a closed "
            "loop: mean ")
            + (ttft ? "time to first token" : "time per output token") + " (rapid serve)",
        ttft ? Metric::ServedTtft : Metric::ServedItl, ttft ? 20.0 : 10.0, {}, {}, {} };
    const CsvTable table = CsvTable::read(sharedDir + "/validation/" + dataset.file);
    std::map<std::string, int> skipped;
    for (size_t row = 0; row < table.rows(); ++row) {
        const std::string reason = skipReason(table, row);
        if (!reason.empty()) {
            ++skipped[reason];
            continue;
        }
        const int tp = static_cast<int>(std::lround(table.number(row, "tp_size").value_or(1)));
        const std::string source = table.cell(row, "silicon_data_source");
        const int concurrency = std::stoi(provenance(source, "silicon_concurrency"));
        const auto measuredTtft = table.number(row, "silicon_ttft_ms");
        const auto measuredTpot = table.number(row, "silicon_tpot_ms");
        if (!measuredTtft || !measuredTpot) {
            ++skipped["no measured TTFT or TPOT"];
            continue;
        }
        const bool mxfp4Experts = isGptOss(table.cell(row, "model_path"));
        // gpt-oss's experts under TensorRT-LLM on Blackwell: MXFP8 activations into the MXFP4 weights on the FP8
        // tensor cores (its gpt-oss README, MoE support matrix: Blackwell mxfp8 x mxfp4, CUTLASS or TRTLLM backend,
        // the only Blackwell entry). vLLM's default on Blackwell keeps bf16 activations (model_executor/layers/
        // quantization/mxfp4.py, get_mxfp4_backend: SM100_FI_MXFP4_BF16 unless VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8 is
        // set), as on Hopper.
        const bool mxfp8Activations = mxfp4Experts && table.cell(row, "backend") == "trtllm"
            && (table.cell(row, "system") == "b200_sxm" || table.cell(row, "system") == "gb200");
        const bool fp8 = table.cell(row, "precision") == "fp8";
        const bool nvfp4 = !mxfp4Experts && table.cell(row, "gemm_quant_mode") == "nvfp4";
        // fp8_block: DeepSeek-V3's fine-grained FP8 (1 x 128 activation tiles, 128 x 128 weight blocks).
        // Qwen/Qwen3-235B-A22B-FP8 is such a checkpoint whatever the row's column says ("fine-grained fp8 quantization
        // with block size of 128", its model card; quantization_config weight_block_size [128, 128]).
        const bool fp8Block = table.cell(row, "gemm_quant_mode") == "fp8_block"
            || table.cell(row, "model_path") == "Qwen/Qwen3-235B-A22B-FP8";
        // Per-tensor FP8 activation scales are static where the checkpoint was quantised by NVIDIA's Model Optimizer,
        // which calibrates an input_scale for every linear: NVIDIA's own FP8 checkpoints (model_path nvidia/...), and
        // every TensorRT-LLM row (its FP8 recipe is ModelOpt's; the PyTorch backend loads pre-quantised checkpoints).
        // vLLM serving a BF16 checkpoint in FP8 quantises the weights at load time and scales activations
        // dynamically (an amax pass per input).
        const bool staticScales = !fp8Block
            && (table.cell(row, "backend") == "trtllm" || table.cell(row, "model_path").rfind("nvidia/", 0) == 0);
        const auto [hardware, hardwareOverrides] = hardwareOf(table.cell(row, "system"), tp);
        ValidationCase c;
        c.label = table.cell(row, "id");
        c.group = groupOf(table, row,
            mxfp4Experts   ? "mxfp4 experts"
                : nvfp4    ? "nvfp4"
                : fp8Block ? "fp8 128-block"
                : fp8      ? "fp8"
                           : "bf16");
        c.model = modelPreset(table.cell(row, "model_path"));
        c.hardware = hardware;
        c.run = "llama-serve-a100";
        c.overrides = hardwareOverrides;
        // FP8 rows keep their KV cache in FP8 (the file does not record the KV dtype; a fixed rule for every row):
        // aiconfigurator derives an engine's configuration from its quantisation modes, and its TensorRT-LLM FP8
        // defaults are gemm fp8, kvcache fp8, fmha float16 (webapp, disagg P/D tab); NVIDIA's ModelOpt FP8 checkpoints
        // carry kv_cache_quant_algo FP8. The rows agree physically: Llama-3.1-70B on one B200 at 64 clients of
        // 1024 + 8192 tokens ran without queueing, and 590k tokens of BF16 KV (320 KiB each) exceed its 180 GB.
        // Attention itself stays bf16 (run.precision.activations). NVFP4 rows (B200) run the linear layers' GEMMs on
        // NVFP4 weights and keep the KV cache in FP8, by the same rule: aiconfigurator maps an nvfp4 quant_algo to an
        // FP8 KV cache (sdk/models/helpers.py, "kvcache_quant_mode" for quant_algo fp8, fp8_block or nvfp4).
        const std::string precision = nvfp4 ? "nvfp4" : fp8 ? "fp8" : "bf16";
        c.overrides.insert(c.overrides.end(),
            { "run.parallelism.tp=" + std::to_string(tp), "run.inference.batch=1",
                "run.inference.prompt_length=" + table.cell(row, "isl"),
                "run.inference.decode_length=" + table.cell(row, "osl"), "run.precision.compute=" + precision,
                "run.precision.weights=" + precision, "run.precision.activations=bf16",
                "run.precision.kv_cache=" + std::string(nvfp4 || fp8 ? "fp8" : "bf16"),
                "run.precision.fp8_scaling="
                    + std::string(mxfp8Activations ? "blockwise"
                            : fp8Block             ? "block128"
                            : staticScales         ? "static"
                                                   : "tensorwise") });
        // gpt-oss on Hopper (TensorRT-LLM's gpt-oss README, MoE support matrix; vLLM's gpt-oss recipe): bf16
        // activations into the MXFP4 experts (W4A16: OpenAI's triton matmul_ogs or CUTLASS), bf16 attention and
        // KV cache (that README: no FP8 KV cache on Hopper).
        if (mxfp4Experts) {
            c.overrides.push_back("run.precision.expert_weights=mxfp4");
        }
        if (mxfp8Activations) {
            c.overrides.push_back("run.precision.expert_compute=fp8");
        }
        const std::vector<std::string> experts = *expertSplitOf(table, row);
        c.overrides.insert(c.overrides.end(), experts.begin(), experts.end());
        c.concurrency = concurrency;
        c.requestsPerClient = kRequestsPerClient;
        c.engine = benchmarkEngine(table, row, concurrency);
        c.measuredTtft = *measuredTtft / 1000;
        c.measuredItl = *measuredTpot / 1000;
        c.measured = ttft ? c.measuredTtft : c.measuredItl;
        dataset.cases.push_back(c);
    }
    for (const auto& [reason, count] : skipped) {
        dataset.skipped.push_back({ std::to_string(count) + (count == 1 ? " row" : " rows"), reason });
    }
    return dataset;
}

} // namespace rapid::validation
