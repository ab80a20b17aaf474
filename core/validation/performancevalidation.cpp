// SPDX-License-Identifier: GPL-3.0-or-later
#include "performancevalidation.h"

#include "config/configloader.h"
#include "graph/parallelfor.h"
#include "memory/memorymodel.h"
#include "serving/servingsimulator.h"
#include "sim/stepmodel.h"
#include "validation/casesummary.h"
#include "validation/servedceiling.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>

namespace rapid::validation {

namespace {

/// A closed loop of @p c's clients, each sending its requests of the run's prompt and decode lengths.
serving::ServingResult serveClosedLoop(const config::Scenario& scenario, const ValidationCase& c)
{
    serving::WorkloadSpec workload;
    workload.concurrency = c.concurrency;
    workload.requests = c.requestsPerClient * c.concurrency;
    workload.promptTokens = scenario.run.promptLength;
    workload.outputTokens = scenario.run.decodeLength;
    return serving::simulateServing(scenario, workload, c.engine);
}

/// Leaves out of @p dataset's served cases those whose measured throughput no batching of their requests could reach
/// on their GPUs (servedBeyondCeiling), listed by name among its skipped rows: they did not compute what they were
/// asked.
void leaveOutServedBeyondCeiling(Dataset& dataset, const config::ConfigLoader& loader, unsigned threads)
{
    if (dataset.metric != Metric::ServedTtft && dataset.metric != Metric::ServedItl) {
        return;
    }
    std::vector<std::string> reasons(dataset.cases.size());
    graph::parallelFor(dataset.cases.size(), threads, [&](size_t i) {
        const ValidationCase& c = dataset.cases[i];
        try {
            reasons[i] = servedBeyondCeiling(loader.loadScenario(c.model, c.hardware, c.run, c.overrides),
                c.concurrency, c.measuredTtft, c.measuredItl);
        } catch (const std::exception&) {
            // The case's own evaluation reports what is wrong with it.
        }
    });
    std::vector<ValidationCase> kept;
    for (size_t i = 0; i < dataset.cases.size(); ++i) {
        if (reasons[i].empty()) {
            kept.push_back(std::move(dataset.cases[i]));
        } else {
            dataset.skipped.push_back({ dataset.cases[i].label, reasons[i] }); // by name: few rows, each worth seeing
        }
    }
    dataset.cases = std::move(kept);
}

/// Predicts one case of a dataset measuring @p metric; a case that cannot be evaluated says why in its failure.
CaseResult evaluateCase(const ValidationCase& c, Metric metric, const config::ConfigLoader& loader, ServedMemo* memo)
{
    CaseResult caseResult;
    caseResult.source = &c;
    try {
        sim::StepModel model(loader.loadScenario(c.model, c.hardware, c.run, c.overrides));
        const config::Scenario& scenario = model.scenario();
        const memory::MemoryEstimate memory
            = memory::estimateMemory(scenario.model, scenario.hardware.gpu, scenario.run);
        caseResult.fitsInMemory = memory.fits;
        caseResult.peakMemoryBytes = memory.peakBytes;
        caseResult.capacityBytes = memory.capacityBytes;
        switch (metric) {
        case Metric::StepTime:
            caseResult.predicted = model.training(false).stepTimeSeconds;
            break;
        case Metric::TokensPerSecondPerGpu: {
            const double tokens = static_cast<double>(scenario.run.globalBatch) * scenario.run.seqLength;
            const double gpus = static_cast<double>(scenario.run.parallelism.gpuCount());
            caseResult.predicted = tokens / (model.training(false).stepTimeSeconds * gpus);
            break;
        }
        case Metric::PeakReservedGiB: {
            double reserved = 0;
            for (const memory::StageMemory& stage : memory.stages) {
                reserved = std::max(reserved, stage.reservedPeakBytes);
            }
            caseResult.predicted = reserved / (1024.0 * 1024.0 * 1024.0);
            break;
        }
        case Metric::ModelTflopsPerGpu:
            caseResult.predicted = model.training(false).modelFlopsPerGpu / 1e12;
            break;
        case Metric::EndToEndLatency: {
            const report::InferenceResult inference = model.inference();
            caseResult.predicted = inference.e2eSeconds;
            caseResult.predictedTtft = inference.ttftSeconds;
            caseResult.predictedItl = inference.itlSeconds;
            break;
        }
        case Metric::ServedTtft:
        case Metric::ServedItl: {
            std::optional<ServedPrediction> served = memo ? memo->find(c) : std::nullopt;
            if (!served) {
                const serving::ServingResult result = serveClosedLoop(scenario, c);
                served = ServedPrediction { result.summary.ttft.mean, result.summary.itl.mean };
                if (memo) {
                    memo->store(c, *served);
                }
            }
            caseResult.predictedTtft = served->ttft;
            caseResult.predictedItl = served->itl;
            caseResult.predicted = metric == Metric::ServedTtft ? served->ttft : served->itl;
            break;
        }
        case Metric::DecodeTokensPerSecond: {
            const report::InferenceResult inference = model.inference();
            caseResult.predicted = scenario.run.batch / inference.itlSeconds;
            caseResult.predictedTtft = inference.ttftSeconds;
            caseResult.predictedItl = inference.itlSeconds;
            break;
        }
        }
        caseResult.errorPercent = 100 * (caseResult.predicted / c.measured - 1);
    } catch (const std::exception& error) {
        caseResult.failure = error.what();
    }
    return caseResult;
}

} // namespace

DatasetResult validateDataset(Dataset dataset, const config::PresetLibrary& library, const ValidateOptions& options)
{
    DatasetResult result;
    result.dataset = std::move(dataset);
    const config::ConfigLoader loader(library);
    leaveOutServedBeyondCeiling(result.dataset, loader, options.threads);
    const int hitsBefore = options.servedMemo ? options.servedMemo->hits() : 0;
    const auto start = std::chrono::steady_clock::now();
    // Cases are independent: each thread takes the next one not yet taken and writes only its own result.
    const std::vector<ValidationCase>& cases = result.dataset.cases;
    result.cases.resize(cases.size());
    graph::parallelFor(cases.size(), options.threads,
        [&](size_t i) { result.cases[i] = evaluateCase(cases[i], result.dataset.metric, loader, options.servedMemo); });
    double errorSum = 0;
    int evaluated = 0;
    for (const CaseResult& c : result.cases) {
        if (c.failure.empty()) {
            errorSum += std::fabs(c.errorPercent);
            ++evaluated;
        }
    }
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    result.servedFromMemo = options.servedMemo ? options.servedMemo->hits() - hitsBefore : 0;
    std::vector<double> signedErrors;
    for (const CaseResult& c : result.cases) {
        if (c.failure.empty()) {
            signedErrors.push_back(c.errorPercent);
        }
    }
    result.medianSignedErrorPercent = median(std::move(signedErrors));
    // A case that cannot be evaluated counts as a 100% error, so failures never improve the figure.
    const int failed = static_cast<int>(result.cases.size()) - evaluated;
    result.meanAbsolutePercentageError
        = result.cases.empty() ? 0 : (errorSum + 100.0 * failed) / static_cast<double>(result.cases.size());
    std::map<std::string, std::pair<double, int>> tools;
    for (const ValidationCase& c : result.dataset.cases) {
        for (const Comparator& comparator : c.comparators) {
            auto& [sum, count] = tools[comparator.tool];
            sum += std::fabs(100 * (comparator.value / c.measured - 1));
            ++count;
        }
    }
    for (const auto& [tool, value] : tools) {
        result.comparatorErrors.emplace_back(
            tool + " (" + std::to_string(value.second) + " cases)", value.first / value.second);
    }
    return result;
}

} // namespace rapid::validation
