// SPDX-License-Identifier: GPL-3.0-or-later
// The torchtitan benchmarks (../shared/validation/torchtitan/, README.md there: provenance, columns and doubts).
#include "performancedatasets.h"

#include "validation/csvtable.h"

#include <cmath>
#include <optional>
#include <stdexcept>

namespace rapid::validation {

namespace {

int integerCell(const CsvTable& table, size_t row, const std::string& column)
{
    return table.integer(row, column, "torchtitan dataset");
}

/// The model preset of a row, or the reason there is none. "Llama 3 8B" (the B200 rows) has the shapes of Llama 3.1
/// 8B (meta-llama config.json of both: hidden 4,096, 32 layers, 32/8 heads, FFN 14,336, vocabulary 128,256); they
/// differ in RoPE scaling and maximum context only, neither of which changes an 8,192-token step.
std::string modelPreset(const std::string& model, std::string& reason)
{
    if (model.starts_with("Llama 3.1 8B") || model.starts_with("Llama 3 8B")) {
        return "llama-3.1-8b";
    }
    if (model.starts_with("Llama 3.1 70B")) {
        return "llama-3.1-70b";
    }
    if (model.starts_with("Llama 3.1 405B")) {
        return "llama-3.1-405b";
    }
    reason = "no model preset for \"" + model
        + "\" (Llama 4 Scout: a 16-expert MoE with interleaved chunked attention; "
          "configs/models has no Llama 4)";
    return {};
}

/// The cluster preset of a row and the name of its inter-host dimension, or the reason there is none.
std::optional<std::pair<std::string, std::string>> hardwarePreset(
    const std::string& gpu, int nodes, std::string& reason)
{
    if (gpu.starts_with("H100 SXM 96GB")) {
        // One host has no RDMA dimension (a network dimension has at least two members): the host preset.
        return nodes > 1 ? std::make_pair("grand-teton-h100-500w", "rdma")
                         : std::make_pair("grand-teton-h100-500w-host", "");
    }
    if (gpu.starts_with("H200")) {
        return std::make_pair("hgx-h200-400g", "ib");
    }
    if (gpu.starts_with("B200")) {
        // "power limited", limit not stated: the B200 preset at its 1,000 W datasheet figures; the throughput of these
        // rows is printed without a bar (TorchtitanView::UnstatedPowerLimit).
        return std::make_pair("hgx-b200-8gpu", "");
    }
    if (gpu.starts_with("GB200")) {
        // configs/hardware/gb200-nvl72.yaml is one rack of 72; these runs span more GPUs than a rack holds.
        reason += std::string(reason.empty() ? "" : "; ") + "GB200 on " + std::to_string(nodes)
            + " hosts of 4 GPUs: more than one NVL72 rack (72 GPUs), and the network between racks is not stated";
        return std::nullopt;
    }
    reason += std::string(reason.empty() ? "" : "; ") + "no GPU or cluster preset for \"" + gpu + "\"";
    return std::nullopt;
}

/// torchtitan's activation_checkpoint.mode: "full" wraps each block; "selective" with selective_ac_option "op" (the
/// default of the train configs these runs used) is the per-op SAC of model/opsacrecompute.cpp.
std::string recomputeWord(const std::string& cell)
{
    if (cell.starts_with("full")) {
        return "full";
    }
    if (cell.starts_with("selective")) {
        return "op-sac";
    }
    if (cell.starts_with("none")) {
        return "none";
    }
    throw std::runtime_error("torchtitan dataset: unknown activation_checkpointing \"" + cell + "\"");
}

/// torchtitan compiles the loss with the blocks when training.compile is on since pytorch/torchtitan#1033
/// (bbb1b616e, 2025-04-02, components/loss.py, build_cross_entropy_loss); before it the compile of the loss was
/// commented out ("compiling loss function causes CUDA errors", train.py at 9dec370a). The benchmark_date column
/// ("YYYY-MM") places a row before or after it.
bool lossCompiled(const CsvTable& table, size_t row)
{
    if (table.cell(row, "torch_compile") != "yes") {
        return false;
    }
    const std::string date = table.cell(row, "benchmark_date");
    if (date.size() != 7 || date[4] != '-') {
        throw std::runtime_error("torchtitan dataset: row " + table.cell(row, "row_id") + ": benchmark_date \"" + date
            + "\" is not YYYY-MM");
    }
    return date >= "2025-04";
}

} // namespace

/// One fixed rule maps every row (nothing is chosen per row or by looking at a result):
/// - presets: the model by name (modelPreset); the Grand Teton H100 rows on grand-teton-h100-500w (96 GB HBM2e,
///   500 W, the clock derived in configs/gpus/h100-sxm-96gb-500w.yaml), H200 on hgx-h200-400g, B200 on hgx-b200-8gpu;
///   the inter-host dimension sized to the row's host count (one host: one member).
/// - the model's context is the row's sequence length: torchtitan sets the model's max_seq_len to training.seq_len and
///   builds its RoPE table for it (train.py: model_config.max_seq_len = job_config.training.seq_len), which lets the
///   262,144-token rows run past Llama 3.1's 131,072.
/// - framework: PyTorch FSDP2 (run.framework pytorch-fsdp, parallelism.fsdp): parameters all-gathered in bf16
///   (mixed_precision_param = "bfloat16"), gradients reduce-scattered and kept in fp32 (mixed_precision_reduce =
///   "float32"; torchtitan config_manager.py defaults), fp32 sharded parameters as the master copy, AdamW in fp32.
///   dp = the FSDP shard degree (dp_replicate is 1 in every row).
/// - tp with sequence parallelism (torchtitan's TP plan always shards norms over the sequence); async TP as
///   parallelism.tp_comm_overlap (torchtitan's micro-pipelined TP overlaps the collectives with the GEMMs).
/// - pp: micro-batches = the pipeline degree and, interleaved, 2 stages per rank: torchtitan's defaults at 9dec370a
///   (parallelisms/pipelining_utils.py: build_pipeline_schedule sets n_microbatches to pipeline_parallel_degree when
///   pipeline_parallel_microbatches is not given; generate_split_points cuts 2 stages per rank for a multi-stage
///   schedule when no split points are given), so micro_batch = local_batch_size / pp. Its split puts the remainder
///   layers on the middle stages, the model's even split on the first ones (one layer moves between the first and a
///   middle stage of Llama 3.1 405B).
/// - float8 and mxfp8 rows: GEMMs at run.precision.compute fp8 (attention stays at bf16, as torchao converts only
///   nn.Linear); precision.fp8_scaling from the recipe: rowwise, blockwise for MXFP8, tensorwise otherwise (the only
///   torchao recipe in 2024, and the stated one of the 2025 rows); precision.fp8_all_gather where the recipe cell names
///   FSDP float8 all-gather (the H200 rows), off elsewhere (float8.enable_fsdp_float8_all_gather defaults to false).
///   torch.compile: no factor is assumed for it beyond the kernels it fuses (model/eagerkernels.h) and the tensors its
///   partitioner does not save; the loss is compiled too on rows dated from April 2025 (lossCompiled), eager before.
/// - FlashAttention (torchtitan's SDPA picks the flash kernel for bf16 causal attention).
Dataset torchtitanDataset(const std::string& sharedDir, TorchtitanView view)
{
    const bool memory = view == TorchtitanView::PeakMemory;
    Dataset dataset { "torchtitan", "torchtitan/torchtitan_benchmarks.csv",
        "torchtitan Llama 3.1 8B-405B training throughput, tokens/s per GPU, FSDP2/TP/PP/CP, bf16 and float8 on H100 "
        "(96 GB, 500 W) and H200",
        Metric::TokensPerSecondPerGpu, 10.0, {}, {}, {} };
    if (memory) {
        dataset.name = "torchtitan-memory";
        dataset.description = "torchtitan Llama 3.1 8B-405B peak memory per GPU (GiB): torch.cuda peak reserved bytes "
                              "(2024 rows: max over GPUs) against the memory model's reserved peak (its peak of live "
                              "tensors over 1 - the allocator's fragmentation ratio) of the most loaded pipeline stage";
        dataset.metric = Metric::PeakReservedGiB;
    } else if (view == TorchtitanView::UnstatedPowerLimit) {
        dataset.name = "torchtitan-power-limited";
        dataset.description = "torchtitan Llama 3 8B training throughput, tokens/s per GPU, on 8 B200 run \"power "
                              "limited\" (the limit not stated), predicted at the B200 preset's 1,000 W";
        dataset.noBarReason = "the GPUs ran under a power limit the source does not state: the sustained clock, and "
                              "with it every compute-bound kernel, depends on that limit";
    }
    const CsvTable table = CsvTable::read(sharedDir + "/validation/" + dataset.file);
    for (size_t row = 0; row < table.rows(); ++row) {
        const std::string id = table.cell(row, "row_id");
        // A power limit the row names without its value ("B200 (power limited)", no gpu_power_limit_W): the clock is
        // unknown. Memory does not depend on it; throughput goes to the dataset that is no bar.
        const bool unstatedLimit = table.cell(row, "gpu").find("power limited") != std::string::npos
            && table.cell(row, "gpu_power_limit_W").empty();
        if (!memory && unstatedLimit != (view == TorchtitanView::UnstatedPowerLimit)) {
            if (unstatedLimit) {
                dataset.skipped.push_back({ id,
                    "run under a power limit the source does not state (in torchtitan-power-limited, printed without "
                    "a bar)" });
            }
            continue;
        }
        std::string reason;
        const std::string model = modelPreset(table.cell(row, "model"), reason);
        const auto hardware = hardwarePreset(table.cell(row, "gpu"), integerCell(table, row, "num_nodes"), reason);
        if (model.empty() || !hardware) {
            dataset.skipped.push_back({ id, reason });
            continue;
        }
        const auto measured = table.number(row, memory ? "peak_memory_GiB" : "tokens_per_s_per_gpu");
        if (!measured) {
            if (memory) {
                continue; // the file reports no memory for this row (not a skipped case)
            }
            throw std::runtime_error("torchtitan dataset: row " + id + " has no tokens_per_s_per_gpu");
        }
        const int nodes = integerCell(table, row, "num_nodes");
        const int dp = integerCell(table, row, "dp_shard_fsdp");
        const int tp = integerCell(table, row, "tp");
        const int pp = integerCell(table, row, "pp");
        const int cp = integerCell(table, row, "cp");
        const int localBatch = integerCell(table, row, "local_batch_size");
        const bool asyncTp = table.cell(row, "async_tp") == "yes";
        const bool interleaved = table.cell(row, "pp_schedule").starts_with("Interleaved");
        const int stagesPerRank = interleaved ? 2 : 1;
        const std::string precision = table.cell(row, "precision");
        const bool fp8 = precision.starts_with("float8") || precision.starts_with("mxfp8");
        const std::string recipe = table.cell(row, "float8_recipe");
        const std::string scaling = precision.starts_with("mxfp8") ? "blockwise"
            : recipe.starts_with("rowwise")                        ? "rowwise"
                                                                   : "tensorwise";
        const int microBatches = pp;
        if (localBatch % microBatches != 0) {
            throw std::runtime_error("torchtitan dataset: row " + id + ": local batch not divisible by micro-batches");
        }
        ValidationCase c;
        c.label = id + " " + table.cell(row, "model").substr(0, table.cell(row, "model").find(" (")) + " dp"
            + std::to_string(dp) + " tp" + std::to_string(tp) + (asyncTp ? "a" : "") + " pp" + std::to_string(pp)
            + (interleaved ? "i" : "") + " cp" + std::to_string(cp) + (fp8 ? " fp8" : " bf16") + " "
            + recomputeWord(table.cell(row, "activation_checkpointing"))
            + (table.cell(row, "torch_compile") == "yes" ? " compile" : "") + " s" + table.cell(row, "seq_len");
        c.group = (cp > 1 ? "context parallel, " : std::string()) + (fp8 ? "fp8 " + scaling : "bf16");
        c.model = model;
        c.hardware = hardware->first;
        c.run = "torchtitan-llama3-train";
        if (!hardware->second.empty()) {
            c.overrides.push_back("hardware.cluster.network[" + hardware->second + "].size=" + std::to_string(nodes));
        }
        const std::string sp = tp > 1 ? "true" : "false";
        c.overrides.insert(c.overrides.end(),
            { "model.max_context=" + table.cell(row, "seq_len"),
                "run.training.seq_length=" + table.cell(row, "seq_len"),
                "run.training.micro_batch=" + std::to_string(localBatch / microBatches),
                "run.training.global_batch=" + std::to_string(localBatch * dp),
                "run.training.recompute=" + recomputeWord(table.cell(row, "activation_checkpointing")),
                "run.torch_compile=" + std::string(table.cell(row, "torch_compile") == "yes" ? "true" : "false"),
                "run.cross_entropy_fusion=" + std::string(lossCompiled(table, row) ? "true" : "false"),
                "run.precision.compute=" + std::string(fp8 ? "fp8" : "bf16"), "run.precision.fp8_scaling=" + scaling,
                "run.precision.fp8_all_gather="
                    + std::string(recipe.find("FSDP float8 all-gather") != std::string::npos ? "true" : "false"),
                "run.parallelism={fsdp: true, dp: " + std::to_string(dp) + ", tp: " + std::to_string(tp) + ", sp: " + sp
                    + ", tp_comm_overlap: " + (asyncTp ? "true" : "false") + ", pp: " + std::to_string(pp)
                    + ", schedule: " + (interleaved ? "interleaved" : "1f1b") + ", virtual_stages: "
                    + std::to_string(stagesPerRank) + ", cp: " + std::to_string(cp) + ", mapping: {tp: nvlink}}" });
        c.measured = *measured;
        dataset.cases.push_back(c);
    }
    return dataset;
}

} // namespace rapid::validation
