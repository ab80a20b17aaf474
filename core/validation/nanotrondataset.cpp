// SPDX-License-Identifier: GPL-3.0-or-later
// The Hugging Face nanotron benchmark's throughput (../shared/validation/memory/hf_nanotron_h100_bench.csv; the same
// runs the memory validation reads): tokens/s per GPU of the completed runs.
#include "performancedatasets.h"

#include "validation/memorydataset.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace rapid::validation {

namespace {

std::string word(bool value)
{
    return value ? "true" : "false";
}

/// The overrides that turn the nanotron run preset on a Llama-3.1-8B base into @p run (shape and parallelism from
/// the run's name, as the memory validation reads them).
std::vector<std::string> overridesFor(const MemoryBenchmarkRun& run)
{
    const config::ModelSpec& m = run.model;
    const config::RunSpec& r = run.run;
    const config::ParallelismSpec& p = r.parallelism;
    return { "model.name=" + m.name, "model.num_layers=" + std::to_string(m.numLayers),
        "model.hidden_size=" + std::to_string(m.hiddenSize), "model.num_heads=" + std::to_string(m.numHeads),
        "model.num_kv_heads=" + std::to_string(m.numKvHeads), "model.head_dim=" + std::to_string(m.headDim),
        "model.ffn_size=" + std::to_string(m.ffnSize), "model.vocab_size=" + std::to_string(m.vocabSize),
        "model.tied_embeddings=" + word(m.tiedEmbeddings), "model.max_context=" + std::to_string(r.seqLength),
        "run.training.seq_length=" + std::to_string(r.seqLength),
        "run.training.micro_batch=" + std::to_string(r.microBatch),
        "run.training.global_batch=" + std::to_string(r.globalBatch),
        "run.parallelism={dp: " + std::to_string(p.dp) + ", tp: " + std::to_string(p.tp)
            + ", sp: " + word(p.sequenceParallel && p.tp > 1) + ", pp: " + std::to_string(p.pp)
            + ", schedule: 1f1b, zero_stage: " + std::to_string(p.zeroStage) + ", mapping: {tp: nvlink}}" };
}

/// The median of the single-node runs' own all-reduce measurements: what a healthy 8xH100 node delivered in this
/// campaign.
double medianSingleNodeAllReduce(const std::vector<MemoryBenchmarkRun>& runs)
{
    std::vector<double> values;
    for (const MemoryBenchmarkRun& run : runs) {
        if (run.nodes == 1 && run.measuredAllReduceGBps) {
            values.push_back(*run.measuredAllReduceGBps);
        }
    }
    if (values.empty()) {
        return 0;
    }
    std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
    return values[values.size() / 2];
}

} // namespace

/// The completed single-node runs measured after the benchmark's pipeline-engine fix. Left out, and said so: runs
/// measured before the fix (the file's after_pp_fix False: broken data), runs on more than one node (the network
/// between nodes is described only by each run's own collective measurements, docs/calibration.md "Misses"), jobs
/// listed in more than one row with different results (the record is ambiguous), and runs whose node's own all-reduce
/// measurement (the file's AllReduce column) reached less than half of the campaign's median: they ran on a degraded
/// node, whose state the presets do not describe.
Dataset nanotronDataset(const std::string& sharedDir)
{
    Dataset dataset { "nanotron", "memory/hf_nanotron_h100_bench.csv",
        "Hugging Face nanotron benchmark (Ultra-Scale Playbook): Llama-style 1B-8B training on one 8xH100-80GB node, "
        "DP/TP/PP and ZeRO-0/1, tokens/s per GPU of the completed runs measured after the pipeline fix",
        Metric::TokensPerSecondPerGpu, 15.0, {}, {}, {} };
    const std::vector<MemoryBenchmarkRun> runs
        = readNanotronBenchmark(sharedDir + "/validation/" + dataset.file, nullptr);
    std::map<std::string, int> rowsPerJob;
    for (const MemoryBenchmarkRun& run : runs) {
        if (run.measuredTokensPerSecondPerGpu) {
            ++rowsPerJob[run.jobId];
        }
    }
    const double healthyAllReduce = medianSingleNodeAllReduce(runs);
    std::map<std::string, bool> reportedJobs;
    int beforeFix = 0;
    int multiNode = 0;
    for (const MemoryBenchmarkRun& run : runs) {
        if (!run.measuredTokensPerSecondPerGpu) {
            continue; // out of memory or not completed: no throughput
        }
        if (!run.afterPipelineFix) {
            ++beforeFix;
            continue;
        }
        if (run.nodes != 1) {
            ++multiNode;
            continue;
        }
        if (rowsPerJob[run.jobId] > 1) {
            if (!reportedJobs[run.jobId]) {
                reportedJobs[run.jobId] = true;
                dataset.skipped.push_back({ run.name + " (job " + run.jobId + ")",
                    "the job is listed in " + std::to_string(rowsPerJob[run.jobId])
                        + " rows with different throughput and memory: an ambiguous record" });
            }
            continue;
        }
        if (run.measuredAllReduceGBps && *run.measuredAllReduceGBps < 0.5 * healthyAllReduce) {
            char reason[200];
            std::snprintf(reason, sizeof reason,
                "ran on a degraded node: its own all-reduce measurement %.0f GB/s, the campaign's median %.0f GB/s",
                *run.measuredAllReduceGBps, healthyAllReduce);
            dataset.skipped.push_back({ run.name + " (job " + run.jobId + ")", reason });
            continue;
        }
        ValidationCase c;
        c.label = run.name;
        c.group = "tp " + std::to_string(run.run.parallelism.tp);
        c.model = "llama-3.1-8b";
        c.hardware = "hgx-h100-8gpu";
        c.run = "nanotron-llama-train";
        c.overrides = overridesFor(run);
        c.measured = *run.measuredTokensPerSecondPerGpu;
        dataset.cases.push_back(std::move(c));
    }
    dataset.skipped.push_back({ std::to_string(beforeFix) + " completed runs",
        "measured before the benchmark's pipeline-engine fix (after_pp_fix False): broken data" });
    dataset.skipped.push_back({ std::to_string(multiNode) + " completed runs",
        "on 2-64 nodes: the network between the nodes is described only by each run's own collective "
        "measurements, whose bus bandwidth falls as 1 / nodes (what they give as the network: "
        "tests/tools/nanotron-multinode-trial.py; docs/calibration.md, \"Misses\")" });
    return dataset;
}

} // namespace rapid::validation
