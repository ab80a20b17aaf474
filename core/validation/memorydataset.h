// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/hardwarespec.h"
#include "config/modelspec.h"
#include "config/runspec.h"
#include "memory/memorymodel.h"

#include <optional>
#include <string>
#include <vector>

namespace rapid::validation {

/// One run of the Hugging Face nanotron benchmark (Ultra-Scale Playbook): its configuration and what was measured.
struct MemoryBenchmarkRun {
    std::string name;
    config::ModelSpec model;
    config::RunSpec run;
    int nodes = 0;
    std::optional<bool> measuredFits; ///< Success = fits, OOM = does not; unknown ("Other") = nullopt
    std::optional<double> measuredAllocatedBytes; ///< peak torch allocated memory of completed runs
    std::optional<double> measuredReservedBytes;
    std::string jobId; ///< the Slurm job; a job listed in more than one row has conflicting records
    /// False for runs measured before the benchmark's pipeline-engine fix (their tokens/s are not trustworthy)
    bool afterPipelineFix = false;
    std::optional<double> measuredTokensPerSecondPerGpu; ///< completed runs: mean over the logged iterations
    /// The benchmark's own all-reduce bus bandwidth measurement on the run's nodes (GB/s), when recorded
    std::optional<double> measuredAllReduceGBps;
};

/// Reads ../shared/validation/memory/hf_nanotron_h100_bench.csv. The configuration comes from the run name
/// (`<size>_dp<d>_tp<t>_pp<p>_acc<a>_mbs<m>_seq<s>_zero<z>_tpmode<RED|ALL>_vocab<131k|49k>[_gqa<k>]`), which every row
/// has (the per-field columns are empty for the runs that failed). Model shapes by size are the Llama-3-style models
/// of the benchmark (see memorydataset.cpp). Rows whose name does not parse are listed in @p skipped.
std::vector<MemoryBenchmarkRun> readNanotronBenchmark(const std::string& path, std::vector<std::string>* skipped);

struct MemoryValidationRow {
    const MemoryBenchmarkRun* run = nullptr;
    memory::MemoryEstimate estimate;
};

/// Fit/OOM verdicts against outcomes, and peak-memory error on completed runs.
struct MemoryValidationSummary {
    std::vector<MemoryValidationRow> rows;
    int truePositives = 0; ///< predicted fits, did fit
    int falsePositives = 0; ///< predicted fits, ran out of memory (costs users a failed job)
    int trueNegatives = 0; ///< predicted OOM, ran out of memory
    int falseNegatives = 0; ///< predicted OOM, did fit
    int unknownOutcome = 0;
    double meanAbsolutePercentageError = 0; ///< of peak allocated bytes, completed runs
    int errorRuns = 0;
    /// Of peak reserved bytes (Mem Res), completed runs: not a bar, the judge of the allocator's fragmentation.
    double reservedMeanAbsolutePercentageError = 0;
    double reservedMedianSignedError = 0; ///< percent; positive: predicted above the measurement
    int reservedErrorRuns = 0;
    double seconds = 0; ///< wall time of the evaluations

    int known() const { return truePositives + falsePositives + trueNegatives + falseNegatives; }
    double accuracy() const { return known() ? double(truePositives + trueNegatives) / known() : 0; }
    /// Share of runs predicted to fit that in fact ran out of memory.
    double falseFitRate() const
    {
        return truePositives + falsePositives ? double(falsePositives) / (truePositives + falsePositives) : 0;
    }
};

/// The quantity the benchmark logged as "Mem Alloc (GB)": torch's peak allocated memory on world rank 0 (pipeline
/// stage 0) after the peak counters were reset at the end of step 4's forward and backward passes, i.e. the peak of
/// gradient synchronisation and the optimizer step (nanotron trainer.py / logging.py, log_memory then
/// reset_peak_memory_stats). Activations are gone by then; they show only in the verdict.
double measuredQuantity(const memory::MemoryEstimate& estimate);

/// The quantity the benchmark logged as "Mem Res (GB)" on world rank 0: what torch's caching allocator held. It
/// keeps every segment it reserved (no empty_cache in nanotron's loop), so what it holds after the optimizer step is
/// the step's reserved peak: pipeline stage 0's reserved peak (its peak of live tensors over 1 - the caching
/// allocator's fragmentation ratio).
double measuredReservedQuantity(const memory::MemoryEstimate& estimate);

MemoryValidationSummary validateMemory(const std::vector<MemoryBenchmarkRun>& runs, const config::GpuSpec& gpu);

} // namespace rapid::validation
