// SPDX-License-Identifier: GPL-3.0-or-later
#include "memorydataset.h"

#include "validation/csvtable.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <regex>

namespace rapid::validation {

namespace {

/// The benchmark's models (Hugging Face "Ultra-Scale Playbook" nanotron runs) follow the Llama-3 family's shapes
/// with full multi-head attention unless the name says gqa<k>: 1.34G = Llama-3.2-1B shape (16 layers, 2048, 32
/// heads, FFN 8192, tied), 3.57G = Llama-3.2-3B (28, 3072, 32 heads, 8192, tied), 8.86G = Llama-3.1-8B (32, 4096,
/// 32, 14336), 80G = Llama-3.1-70B (80, 8192, 64, 28672), 469G = Llama-3.1-405B (126, 16384, 128, 53248). With MHA
/// and a 131072-token vocabulary these shapes give exactly the sizes in the names (tests/core/validation checks).
bool modelForSize(const std::string& size, config::ModelSpec& model)
{
    struct Shape {
        const char* size;
        int layers;
        int hidden;
        int heads;
        int ffn;
        bool tied;
    };
    static const Shape kShapes[] = {
        { "1.34G", 16, 2048, 32, 8192, true },
        { "3.57G", 28, 3072, 32, 8192, true },
        { "8.86G", 32, 4096, 32, 14336, false },
        { "80G", 80, 8192, 64, 28672, false },
        { "469G", 126, 16384, 128, 53248, false },
    };
    for (const Shape& shape : kShapes) {
        if (size == shape.size) {
            model.name = std::string("nanotron-llama-") + shape.size;
            model.numLayers = shape.layers;
            model.hiddenSize = shape.hidden;
            model.numHeads = shape.heads;
            model.numKvHeads = shape.heads;
            model.headDim = shape.hidden / shape.heads;
            model.ffnSize = shape.ffn;
            model.ffnGated = true;
            model.activation = config::Activation::Silu;
            model.norm = config::NormKind::RmsNorm;
            model.tiedEmbeddings = shape.tied;
            model.positionEmbedding = config::PositionEmbedding::Rope;
            model.maxContext = 4096;
            return true;
        }
    }
    return false;
}

std::optional<double> gigabytes(const CsvTable& table, size_t row, const std::string& column)
{
    const auto value = table.number(row, column);
    // nanotron logs torch.cuda memory statistics divided by 1024^3.
    return value ? std::optional<double>(*value * 1024.0 * 1024.0 * 1024.0) : std::nullopt;
}

} // namespace

std::vector<MemoryBenchmarkRun> readNanotronBenchmark(const std::string& path, std::vector<std::string>* skipped)
{
    const CsvTable table = CsvTable::read(path);
    static const std::regex kName(
        R"(^([0-9.]+G)_dp(\d+)_tp(\d+)_pp(\d+)_acc(\d+)(?:\.0)?_mbs(\d+)_seq(\d+)_zero(\d)_tpmode(RED|ALL)\w*?_vocab(\d+)k(?:_gqa(\d+))?$)");
    std::vector<MemoryBenchmarkRun> runs;
    for (size_t row = 0; row < table.rows(); ++row) {
        const std::string& name = table.cell(row, "name");
        std::smatch match;
        MemoryBenchmarkRun run;
        run.name = name;
        if (!std::regex_match(name, match, kName) || !modelForSize(match[1].str(), run.model)) {
            if (skipped) {
                skipped->push_back(name);
            }
            continue;
        }
        auto integer = [&](int group) { return std::stoi(match[static_cast<size_t>(group)].str()); };
        run.model.vocabSize = integer(10) == 131 ? 131072 : integer(10) == 49 ? 49152 : integer(10) * 1024;
        if (match[11].matched) {
            run.model.numKvHeads = integer(11);
        }
        config::RunSpec& spec = run.run;
        spec.name = name;
        spec.mode = config::RunMode::Training;
        spec.framework = config::Framework::Nanotron;
        spec.parallelism.dp = integer(2);
        spec.parallelism.tp = integer(3);
        spec.parallelism.pp = integer(4);
        spec.gradAccumSteps = integer(5);
        spec.microBatch = integer(6);
        spec.seqLength = integer(7);
        spec.globalBatch = spec.microBatch * spec.gradAccumSteps * spec.parallelism.dp;
        spec.parallelism.zeroStage = integer(8);
        spec.parallelism.sequenceParallel = match[9].str() == "RED"; // REDUCE_SCATTER = sequence parallel
        spec.parallelism.schedule = config::PipelineSchedule::OneFOneB;
        spec.flashAttention = true;
        spec.recompute = config::Recompute::None;
        spec.precision.compute = config::Precision::Bf16;
        spec.precision.weights = config::Precision::Bf16;
        spec.precision.activations = config::Precision::Bf16;
        spec.precision.gradients = config::Precision::Fp32; // accumulate_grad_in_fp32
        spec.precision.optimizer = config::Precision::Fp32;
        spec.precision.masterWeights = true;
        run.nodes = static_cast<int>(table.number(row, "nodes").value_or(0));
        run.jobId = table.cell(row, "job_id");
        run.afterPipelineFix = table.cell(row, "after_pp_fix") == "True";
        const std::string& status = table.cell(row, "status");
        if (status == "Success") {
            run.measuredFits = true;
            run.measuredAllocatedBytes = gigabytes(table, row, "Mem Alloc (GB)");
            run.measuredReservedBytes = gigabytes(table, row, "Mem Res (GB)");
            run.measuredTokensPerSecondPerGpu = table.number(row, "tok/s/gpu");
            run.measuredAllReduceGBps = table.number(row, "AllReduce (GB/s)");
        } else if (status == "OOM") {
            run.measuredFits = false;
        }
        runs.push_back(std::move(run));
    }
    return runs;
}

double measuredQuantity(const memory::MemoryEstimate& estimate)
{
    return estimate.stages.empty() ? 0.0 : estimate.stages.front().optimizerPeakBytes;
}

double measuredReservedQuantity(const memory::MemoryEstimate& estimate)
{
    return estimate.stages.empty() ? 0.0 : estimate.stages.front().reservedPeakBytes;
}

MemoryValidationSummary validateMemory(const std::vector<MemoryBenchmarkRun>& runs, const config::GpuSpec& gpu)
{
    MemoryValidationSummary summary;
    summary.rows.reserve(runs.size());
    const auto start = std::chrono::steady_clock::now();
    for (const MemoryBenchmarkRun& run : runs) {
        summary.rows.push_back({ &run, memory::estimateMemory(run.model, gpu, run.run) });
    }
    summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    double errorSum = 0;
    std::vector<double> reservedErrors;
    for (const MemoryValidationRow& row : summary.rows) {
        const bool predictedFits = row.estimate.fits;
        if (!row.run->measuredFits) {
            ++summary.unknownOutcome;
            continue;
        }
        const bool fits = *row.run->measuredFits;
        (predictedFits ? (fits ? summary.truePositives : summary.falsePositives)
                       : (fits ? summary.falseNegatives : summary.trueNegatives))++;
        if (fits && row.run->measuredAllocatedBytes && *row.run->measuredAllocatedBytes > 0) {
            errorSum += std::fabs(measuredQuantity(row.estimate) / *row.run->measuredAllocatedBytes - 1);
            ++summary.errorRuns;
        }
        if (fits && row.run->measuredReservedBytes && *row.run->measuredReservedBytes > 0) {
            reservedErrors.push_back(
                100 * (measuredReservedQuantity(row.estimate) / *row.run->measuredReservedBytes - 1));
        }
    }
    summary.meanAbsolutePercentageError = summary.errorRuns ? 100 * errorSum / summary.errorRuns : 0;
    summary.reservedErrorRuns = static_cast<int>(reservedErrors.size());
    if (!reservedErrors.empty()) {
        double absolute = 0;
        for (double error : reservedErrors) {
            absolute += std::fabs(error);
        }
        summary.reservedMeanAbsolutePercentageError = absolute / static_cast<double>(reservedErrors.size());
        // The median of an even count is the mean of the middle two.
        std::sort(reservedErrors.begin(), reservedErrors.end());
        const size_t middle = reservedErrors.size() / 2;
        summary.reservedMedianSignedError = reservedErrors.size() % 2
            ? reservedErrors[middle]
            : (reservedErrors[middle - 1] + reservedErrors[middle]) / 2;
    }
    return summary;
}

} // namespace rapid::validation
