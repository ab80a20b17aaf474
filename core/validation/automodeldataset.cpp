// SPDX-License-Identifier: GPL-3.0-or-later
// NVIDIA NeMo AutoModel's performance summary (../shared/validation/automodel/, README.md there: provenance, columns
// and doubts): PyTorch FSDP2 training on DGX-H100 in BF16, dense and mixture-of-experts models.
#include "performancedatasets.h"

#include "validation/csvtable.h"

#include <stdexcept>
#include <string>
#include <vector>

namespace rapid::validation {

namespace {

constexpr const char* kSource = "automodel dataset";
/// The day FSDP2Config's default MixedPrecisionPolicy began reducing gradients in float32 (NVIDIA-NeMo/Automodel
/// 6ec67a855, "fix: switch default reduce_dtype to float32", 2026-05-14); before it, bfloat16. ISO dates compare as
/// strings.
constexpr const char* kFp32ReduceDefaultDate = "2026-05-14";
/// The day AutoModel's MoE models began deferring FSDP's reduce-scatter and reshard over a step's pipeline schedules
/// to the last (2c236e081, "feat: Add fsdp optimizations for custom MoE models", 2025-10-08).
constexpr const char* kMoeDeferredSyncDate = "2025-10-08";

/// What a LoRA row's benchmark YAML sets beyond the table, read at the rows' commit (2013a4dd, 2026-04-10; the
/// examples/llm_finetune/*/*peft_benchmark*.yaml the table's benchmark_config_path names under llm_benchmark/).
struct LoraRecipe {
    const char* config; ///< the file name the row names
    bool forceHf; ///< model.force_hf: Hugging Face's eager model code instead of AutoModel's TE-built one
    bool compile; ///< distributed.enable_compile
    bool sequenceParallel; ///< distributed.sequence_parallel
    bool asyncTp; ///< distributed.enable_async_tensor_parallel
    double dropout; ///< peft.dropout (PeftConfig's default 0.0 when absent)
};

constexpr LoraRecipe kLoraRecipes[] = {
    { "llama3_1_8b_peft_benchmark.yaml", true, false, false, false, 0.1 },
    { "qwen2_5_7b_peft_benchmark.yaml", true, false, false, false, 0.0 },
    { "custom_llama3_3_70b_instruct_peft_benchmark.yaml", false, true, true, true, 0.0 },
    { "custom_llama3_3_70b_instruct_peft_benchmark_2nodes.yaml", false, true, true, true, 0.0 },
    { "custom_qwen2_5_32b_peft_benchmark.yaml", false, true, false, false, 0.0 },
    { "custom_qwen2_5_32b_peft_benchmark_2nodes.yaml", false, true, false, false, 0.0 },
};

const LoraRecipe* loraRecipe(const std::string& configPath)
{
    for (const LoraRecipe& recipe : kLoraRecipes) {
        if (configPath.ends_with(std::string("/") + recipe.config)) {
            return &recipe;
        }
    }
    return nullptr;
}

/// A LoRA row's run beyond the pre-training rows' rule: PeftConfig(match_all_linear: true, dim: 16, alpha: 32) in
/// every recipe, so an adapter of rank 16 on every linear, the LM head included (module_matcher.py: "including
/// lm_head"); the recipe's dropout; Hugging Face's model code (force_hf) or torch.compile. Transformer Engine being
/// installed in the benchmark container (the "TE" of its kernel column), patch_linear_module turns the recipes'
/// use_triton off, so the adapters run as LinearLoRA's eager PyTorch (model/loraadapters.h).
void addLoraOverrides(const LoraRecipe& recipe, std::vector<std::string>& overrides)
{
    constexpr int kLoraRank = 16; // peft.dim in every recipe
    overrides.insert(overrides.end(),
        { "run.training.lora_rank=" + std::to_string(kLoraRank), "run.training.lora_targets=all_linear",
            "run.training.lora_dropout=" + std::to_string(recipe.dropout) });
    if (recipe.forceHf) {
        // AutoModel patches Hugging Face models with Liger-Kernel (use_liger_kernel defaults to true) and runs their
        // SDPA attention with cuDNN first in its backend list (_transformers/kernel_patches.py at 2013a4dd).
        overrides.insert(
            overrides.end(), { "run.transformer_engine=false", "run.liger_kernel=true", "run.attention_kernel=cudnn" });
    }
    if (recipe.compile) {
        overrides.emplace_back("run.torch_compile=true");
    }
}

/// The model preset of a row by its label, or the reason there is none.
std::string modelPreset(const std::string& label, std::string& reason)
{
    if (label.starts_with("Llama3 8B")) {
        return "llama-3.1-8b";
    }
    if (label.starts_with("Qwen2.5 7B")) {
        return "qwen2.5-7b";
    }
    if (label.starts_with("Qwen2.5 32B")) {
        return "qwen2.5-32b";
    }
    if (label.starts_with("Llama3 70B")) {
        return "llama-3.1-70b";
    }
    if (label.starts_with("Qwen3 MoE 30B")) {
        return "qwen3-30b-a3b";
    }
    if (label.starts_with("DeepSeek V3")) {
        return "deepseek-v3";
    }
    if (label.starts_with("Kimi K2")) {
        return "kimi-k2";
    }
    if (label.starts_with("Nemotron")) {
        reason = "hybrid Mamba-2/attention/MoE layers (Nemotron-3): no state-space layer model";
    } else if (label.starts_with("GPT-OSS")) {
        reason = "the row's expert parallelism is in doubt (table '-', benchmark YAML ep 8/64; the gpt-oss-20b and "
                 "gpt-oss-120b presets exist)";
    } else {
        reason = "no model preset for \"" + label + "\"";
    }
    return {};
}

/// A parallel degree; the table prints "-" for an axis that is not used.
int degree(const CsvTable& table, size_t row, const std::string& column)
{
    return table.cell(row, column) == "-" ? 1 : table.integer(row, column, kSource);
}

} // namespace

/// One fixed rule maps every row (nothing is chosen per row or by looking at a result):
/// - the model by its label; Nemotron (Mamba hybrids) and GPT-OSS (its expert parallelism in doubt) are skipped
///   with the reason, and so are the superseded LoRA rows (the table's older layout; README).
/// - LoRA rows (workload "LoRA fine-tuning"): the recipe their benchmark YAML sets (kLoraRecipes, addLoraOverrides):
///   rank-16 adapters on every linear with its dropout, full recomputation where the table's column says true, tensor
///   parallelism with or without sequence parallelism and async TP, torch.compile, or Hugging Face's model code under
///   Liger-Kernel with cuDNN attention (force_hf).
/// - hardware: DGX-H100 nodes of 8 H100-SXM5-80GB on NVLink; a one-GPU row is the h100-sxm5-80gb preset, one node is
///   hgx-h100-8gpu, more are the
///   dgx-h100-superpod preset's InfiniBand NDR fabric sized to the row's nodes (the table does not state the
///   inter-node fabric; a DGX-H100 has eight 400 Gb/s NDR ports, which that preset describes).
/// - run: configs/runs/automodel-fsdp2-train.yaml (AutoModel's FSDP2 defaults: bf16 gather, fp32 reduce, fp32 master
///   and AdamW; Transformer Engine's cuDNN attention); dp = GPUs / (tp x pp x cp), checked against the fsdp column.
/// - activation checkpointing: the benchmark YAML's value at the snapshot (column activation_checkpointing_in_current
///   _config): true is full recomputation (AutoModel's `activation_checkpointing: true` wraps every block), false or
///   not set is none. The table itself does not state it (a doubt the README records).
/// - pipeline: vp > 1 is the interleaved schedule with vp chunks per rank. The table's gradient-accumulation steps
///   of a pipelined row (ga > 1) run separate pipeline schedules of lbs / mbs micro-batches each
///   (run.training.pipeline_flushes = ga): the recipe's _run_train_optim_step calls schedule.step() once per
///   accumulation batch (recipes/llm/train_ft.py). torch.distributed.pipelining's stock stage reduce-scatters and
///   reshards the stage after each schedule's last backward (run.training.reshard_each_flush, the default); AutoModel's
///   MoE models keep their parameters gathered and their gradients unreduced until the last schedule since 2025-10-08
///   (moe/fsdp_mixin.py, patched_backward_maybe_with_nosync; kMoeDeferredSyncDate): a MoE row first published on or
///   after that day sets reshard_each_flush false. The MoE rows of 2025-10-06 predate the patch.
/// - MoE dispatch: DeepEP (parallelism.ep_dispatcher deepep) where the kernel options name it, else NCCL all-to-all;
///   routing as the benchmark's fake balanced gate (`fake_balanced_gate: true`): FakeBalancedGate gives token t the
///   experts t k .. t k + k - 1 mod E with equal weights (noise 0, its default, from 2025-09 to 2026-08;
///   nemo_automodel/components/moe/layers.py), so each token's experts sit on one or two neighbouring GPUs of one
///   node (parallelism.ep_routing consecutive) and every expert gets the same tokens (ep_imbalance 1).
/// - loss: MaskedCrossEntropy, eager. The expert-parallel benchmark YAMLs (*_te_deepep.yaml: Qwen3-30B-A3B,
///   DeepSeek-V3, Kimi K2, read at the snapshot) set `fp32_upcast: false`, so their loss works on the bf16 logits;
///   the Llama 3 70B YAML keeps the default fp32 upcast.
/// - MoE models' precision: AutoModel's own MoE classes (Qwen3-MoE, DeepSeek-V3, Kimi K2) build their parameters in
///   MoEConfig.dtype, bfloat16 by default (nemo_automodel/components/moe/config.py), and the benchmark YAMLs set no
///   other; FSDP2 keeps a parameter in the dtype it was built in, and torch.optim.Adam keeps its moments in the
///   parameter's dtype, so these rows hold no fp32 master copy and bf16 optimizer states (master_weights false,
///   optimizer bf16; gradients still reduce in fp32, MixedPrecisionPolicy's reduce_dtype). Routed experts whose
///   expert-parallel group takes every rank of their expert mesh (ep_shard 1) are left out of FSDP
///   (moe/parallelizer.py, apply_fsdp: `ignored_params`): nothing gathers or reduces them.
/// - gradient reduction dtype of the dense rows: AutoModel's generic FSDP2 path takes FSDP2Config's default
///   MixedPrecisionPolicy, which reduced in bfloat16 until 2026-05-14 (kFp32ReduceDefaultDate) and in float32 since;
///   a dense row first published before that day reduces in bf16 (precision.gradients bf16). Its MoE models' own
///   apply_fsdp defaults to float32 throughout (moe/parallelizer.py at 89e3a9fd, 2025-10-06).
/// - measured: the step time in seconds (forward, backward and optimizer step of one global batch).
Dataset automodelDataset(const std::string& sharedDir)
{
    Dataset dataset { "automodel", "automodel/automodel_performance_summary.csv",
        "NeMo AutoModel FSDP2 step time (s) on DGX-H100, BF16: pre-training Llama 3 70B with context parallelism, "
        "Qwen3-30B-A3B, DeepSeek-V3 and Kimi K2 with expert parallelism (fake balanced gate); LoRA fine-tuning of "
        "Llama 3 8B/70B and Qwen2.5 7B/32B on 1-16 GPUs",
        Metric::StepTime, 12.0, {}, {}, {} };
    const CsvTable table = CsvTable::read(sharedDir + "/validation/" + dataset.file);
    for (size_t row = 0; row < table.rows(); ++row) {
        const std::string id = table.cell(row, "row_id");
        const std::string label = table.cell(row, "model");
        std::string reason;
        std::string model = modelPreset(label, reason);
        const bool lora = table.cell(row, "workload") == "LoRA fine-tuning";
        const LoraRecipe* recipe = lora ? loraRecipe(table.cell(row, "benchmark_config_path")) : nullptr;
        if (lora && table.cell(row, "status") != "current (HEAD)") {
            reason = "a superseded LoRA row in the table's older layout (its FSDP cell 1, its kernel cell the "
                     "data-parallel size, lbs x ga x dp not always gbs; README), whose recipe at that date is not read";
            model.clear();
        } else if (lora && !recipe) {
            reason = "a LoRA row whose benchmark YAML has not been read";
            model.clear();
        }
        if (model.empty()) {
            dataset.skipped.push_back({ id + " " + label, reason });
            continue;
        }
        if (lora && model == "llama-3.1-70b") {
            model = "llama-3.3-70b"; // the LoRA recipes fine-tune Llama-3.3-70B-Instruct (the same shape)
        }
        const int gpus = table.integer(row, "num_gpus", kSource);
        const int tp = degree(table, row, "tp");
        const int pp = degree(table, row, "pp");
        const int cp = degree(table, row, "cp");
        const int ep = degree(table, row, "ep");
        const int vp = degree(table, row, "vp");
        if (gpus % (tp * pp * cp) != 0 || (gpus % 8 != 0 && gpus != 1)) {
            throw std::runtime_error(std::string(kSource) + ": row " + id + ": GPUs not divisible by tp x pp x cp");
        }
        const int dp = gpus / (tp * pp * cp);
        if (degree(table, row, "fsdp") != dp) {
            dataset.skipped.push_back({ id + " " + label, "the fsdp column disagrees with GPUs / (tp x pp x cp)" });
            continue;
        }
        const bool checkpointing = table.cell(row, "activation_checkpointing_in_current_config") == "true";
        const int accumulation = degree(table, row, "ga");
        const bool deepEp = table.cell(row, "kernel_optimizations").find("DeepEP") != std::string::npos;
        ValidationCase c;
        c.label = id + " " + label + " " + std::to_string(gpus) + " GPUs tp" + std::to_string(tp) + " pp"
            + std::to_string(pp) + (vp > 1 ? "v" + std::to_string(vp) : "") + " cp" + std::to_string(cp) + " ep"
            + std::to_string(ep) + " dp" + std::to_string(dp);
        c.model = model;
        c.run = "automodel-fsdp2-train";
        const int nodes = gpus / 8;
        c.hardware = gpus == 1 ? "h100-sxm5-80gb" : nodes > 1 ? "dgx-h100-superpod" : "hgx-h100-8gpu";
        if (nodes > 1) {
            c.overrides.push_back("hardware.cluster.network[ib].size=" + std::to_string(nodes));
        }
        c.overrides.insert(c.overrides.end(),
            { "run.training.seq_length=" + table.cell(row, "seq_len"),
                "run.training.micro_batch=" + table.cell(row, "mbs"),
                "run.training.global_batch=" + table.cell(row, "gbs"),
                "run.training.recompute=" + std::string(checkpointing ? "full" : "none"),
                "run.training.pipeline_flushes=" + std::to_string(pp > 1 ? accumulation : 1),
                "run.loss_fp32_upcast="
                    + std::string(
                        table.cell(row, "benchmark_config_path").ends_with("_te_deepep.yaml") ? "false" : "true"),
                "run.parallelism={fsdp: true, dp: " + std::to_string(dp) + ", tp: " + std::to_string(tp)
                    + ", sp: " + (tp > 1 && (!recipe || recipe->sequenceParallel) ? "true" : "false")
                    + ", tp_comm_overlap: " + (recipe && recipe->asyncTp ? "true" : "false")
                    + ", pp: " + std::to_string(pp) + ", schedule: " + (vp > 1 ? "interleaved" : "1f1b")
                    + ", virtual_stages: " + std::to_string(vp) + ", cp: " + std::to_string(cp)
                    + ", ep: " + std::to_string(ep) + ", ep_dispatcher: " + (deepEp ? "deepep" : "alltoall")
                    + ", ep_routing: consecutive" + (gpus > 1 ? ", mapping: {tp: nvlink}}" : "}") });
        if (recipe) {
            addLoraOverrides(*recipe, c.overrides);
        }
        if (ep > 1) {
            c.overrides.insert(
                c.overrides.end(), { "run.precision.master_weights=false", "run.precision.optimizer=bf16" });
            if (table.cell(row, "first_seen_date") >= kMoeDeferredSyncDate) {
                c.overrides.emplace_back("run.training.reshard_each_flush=false");
            }
        } else if (table.cell(row, "first_seen_date") < kFp32ReduceDefaultDate) {
            c.overrides.emplace_back("run.precision.gradients=bf16");
        }
        if (model == "deepseek-v3") {
            // The benchmark's fake balanced gate spreads every token's experts over all of them: DeepSeek-V3's
            // group-limited routing (at most 4 of its 8 groups per token) does not apply.
            c.overrides.push_back("model.moe.groups_per_token=8");
        }
        const auto measured = table.number(row, "step_time_s");
        if (!measured || *measured <= 0) {
            throw std::runtime_error(std::string(kSource) + ": row " + id + " has no step_time_s");
        }
        c.measured = *measured;
        dataset.cases.push_back(c);
    }
    return dataset;
}

} // namespace rapid::validation
