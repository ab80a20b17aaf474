// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "serving/servingspec.h"

#include <string>
#include <vector>

namespace rapid::validation {

/// What a dataset measured, i.e. which prediction to compare.
enum class Metric {
    StepTime, ///< training iteration time, seconds
    EndToEndLatency, ///< one request, seconds: TTFT + ITL * (output tokens - 1)
    DecodeTokensPerSecond, ///< aggregate output tokens per second over the batch
    ModelTflopsPerGpu, ///< training: achieved model TFLOP/s per GPU (model FLOPs without recomputation / step / GPUs)
    ServedTtft, ///< mean time to first token, seconds, of requests served under load (`rapid serve`)
    ServedItl, ///< mean inter-token latency, seconds, of requests served under load (`rapid serve`)
    /// training throughput: global batch x sequence length / (step time x GPUs), tokens per second per GPU
    TokensPerSecondPerGpu,
    /// training: per-GPU memory the caching allocator holds at the peak (torch.cuda.max_memory_reserved), GiB: the
    /// memory model's reserved peak of the most loaded pipeline stage (memory::StageMemory::reservedPeakBytes)
    PeakReservedGiB,
};

/// Another tool's prediction of the same case.
struct Comparator {
    std::string tool;
    double value = 0;
};

/// One published measurement and the scenario that reproduces it: presets plus overrides, exactly what
/// `rapid run --model M --hardware H --run R --set ...` would load.
struct ValidationCase {
    std::string label;
    std::string model;
    std::string hardware;
    std::string run;
    std::vector<std::string> overrides;
    double measured = 0;
    std::vector<Comparator> comparators;
    /// The slice of the dataset the case belongs to (an engine and its version, a GPU, a model...), for the figures
    /// per group `rapid validate` prints; empty: none.
    std::string group;
    double measuredTtft = -1; ///< when the source also gives TTFT (seconds), else negative
    double measuredItl = -1;
    int concurrency = 0; ///< ServedTtft/ServedItl: clients of the closed loop (each request: prompt and decode length)
    int requestsPerClient = 20; ///< ServedTtft/ServedItl: requests each client sends
    /// ServedTtft/ServedItl: the engine and the scheduler knobs the measurement ran with; knobs left at 0 take the
    /// engine's defaults for the GPU (serving::engineDefaults).
    serving::EngineOptions engine;
};

/// A source row the dataset leaves out, and why (no preset describes it, ...). `rapid validate` prints these.
struct SkippedRow {
    std::string label;
    std::string reason;
};

struct Dataset {
    std::string name; ///< "megatron", "uci-llama2", "imec", "nim", "koyeb"
    std::string file; ///< relative to shared/validation
    std::string description;
    Metric metric = Metric::StepTime;
    double barPercent = 10; ///< the issue's bar on the mean absolute percentage error
    std::vector<ValidationCase> cases;
    std::vector<SkippedRow> skipped;
    /// Non-empty for a dataset whose set-up is too unknown to judge a model by: its figure is printed, never a bar
    /// (issue #15), and this says why.
    std::string noBarReason;
};

/// What a torchtitan dataset compares.
enum class TorchtitanView {
    Throughput, ///< "torchtitan": tokens/s per GPU of the rows whose GPUs ran at a known power limit
    PeakMemory, ///< "torchtitan-memory": peak reserved memory per GPU (every row that reports it)
    /// "torchtitan-power-limited": tokens/s per GPU of the rows run "power limited" at a limit the source does not
    /// state; printed, not a bar (the clock, and so the throughput, depends on the unknown limit)
    UnstatedPowerLimit,
};

/// The torchtitan benchmarks (torchtitan/torchtitan_benchmarks.csv) as @p view compares them. Defined in
/// torchtitandataset.cpp.
Dataset torchtitanDataset(const std::string& sharedDir, TorchtitanView view);

/// NeMo AutoModel's FSDP2 pre-training rows (automodel/automodel_performance_summary.csv): step time of the rows the
/// presets describe ("automodel"). Defined in automodeldataset.cpp.
Dataset automodelDataset(const std::string& sharedDir);

/// NVIDIA AIConfigurator's serving rows (aiconfigurator/silicon_sample.csv): mean TTFT (@p ttft, "aiconfigurator-ttft")
/// or TPOT ("aiconfigurator-tpot") of the aggregated rows the presets can describe. Defined in
/// aiconfiguratordataset.cpp.
Dataset aiconfiguratorDataset(const std::string& sharedDir, bool ttft);

/// The Hugging Face nanotron benchmark's completed single-node runs (memory/hf_nanotron_h100_bench.csv): tokens/s per
/// GPU ("nanotron"). Defined in nanotrondataset.cpp.
Dataset nanotronDataset(const std::string& sharedDir);

/// The names of the performance datasets `rapid validate` knows.
std::vector<std::string> performanceDatasetNames();

/// Reads dataset @p name from @p sharedDir (the shared/ folder). Throws std::runtime_error when a file is missing or
/// does not have the expected columns.
Dataset readPerformanceDataset(const std::string& name, const std::string& sharedDir);

} // namespace rapid::validation
