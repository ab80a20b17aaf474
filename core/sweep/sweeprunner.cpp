// SPDX-License-Identifier: GPL-3.0-or-later
#include "sweeprunner.h"

#include "config/diagnostic.h"
#include "memory/memorymodel.h"
#include "parallel/placement.h"
#include "sim/stepmodel.h"
#include "sweep/roworder_p.h"
#include "sweep/sweeptally.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <limits>
#include <mutex>
#include <thread>

namespace rapid::sweep {

namespace {

std::string firstDiagnostic(const std::vector<config::Diagnostic>& diagnostics)
{
    return diagnostics.empty() ? std::string("invalid configuration") : diagnostics.front().toString();
}

void evaluatePoint(const config::Scenario& scenario, bool pruneByMemory, SweepRow& row)
{
    std::vector<config::Diagnostic> problems;
    parallel::placeRanks(scenario.hardware, scenario.run, scenario.locations, &problems);
    if (!problems.empty()) {
        row.status = PointStatus::Invalid;
        row.message = firstDiagnostic(problems);
        return;
    }
    const config::RunSpec& run = scenario.run;
    row.inference = run.mode == config::RunMode::Inference;
    row.gpus = static_cast<int>(run.parallelism.gpuCount());
    const memory::MemoryEstimate memory = memory::estimateMemory(scenario.model, scenario.hardware.gpu, run);
    row.peakMemoryBytes = memory.peakBytes;
    row.capacityBytes = memory.capacityBytes;
    if (!memory.fits && pruneByMemory) {
        row.status = PointStatus::DoesNotFit;
        return;
    }
    sim::StepModel model(scenario);
    if (row.inference) {
        const report::InferenceResult result = model.inference();
        row.ttftSeconds = result.ttftSeconds;
        row.itlSeconds = result.itlSeconds;
        row.e2eSeconds = result.e2eSeconds;
        row.tokensPerSecond = result.tokensPerSecond;
        row.joulesPerToken = result.energy.joulesPerToken;
    } else {
        const report::TrainingResult result = model.training(false);
        row.stepTimeSeconds = result.stepTimeSeconds;
        row.tokensPerSecond = result.tokensPerSecond;
        row.mfu = result.mfu;
        row.joulesPerToken = result.energy.joulesPerToken;
    }
    row.tokensPerSecondPerGpu = row.gpus > 0 ? row.tokensPerSecond / row.gpus : 0;
    row.status = memory.fits ? PointStatus::Ok : PointStatus::DoesNotFit;
}

} // namespace

const char* toString(PointStatus status)
{
    switch (status) {
    case PointStatus::Ok:
        return "ok";
    case PointStatus::Invalid:
        return "invalid";
    case PointStatus::DoesNotFit:
        return "does-not-fit";
    case PointStatus::Failed:
        return "failed";
    case PointStatus::NotRun:
        return "not-run";
    }
    return "?";
}

namespace {

/// The figure of @p row that is not a finite number (nullptr when all are): JSON cannot hold it, and a model that
/// gives one has not evaluated the point.
const char* nonFiniteFigure(const SweepRow& row)
{
    const std::pair<const char*, double> figures[] = { { "step_time_s", row.stepTimeSeconds },
        { "ttft_s", row.ttftSeconds }, { "itl_s", row.itlSeconds }, { "e2e_s", row.e2eSeconds },
        { "tokens_per_s", row.tokensPerSecond }, { "tokens_per_s_per_gpu", row.tokensPerSecondPerGpu },
        { "mfu", row.mfu }, { "joules_per_token", row.joulesPerToken }, { "peak_memory_bytes", row.peakMemoryBytes },
        { "capacity_bytes", row.capacityBytes } };
    for (const auto& [name, value] : figures) {
        if (!std::isfinite(value)) {
            return name;
        }
    }
    return nullptr;
}

/// Point @p index of @p space, evaluated; whatever goes wrong is recorded on the row.
SweepRow evaluateIndex(const SweepSpace& space, const ScenarioFactory& factory, bool pruneByMemory, std::int64_t index)
{
    SweepRow row;
    row.index = index;
    row.coordinates = space.coordinates(index);
    try {
        evaluatePoint(factory(space.overrides(index)), pruneByMemory, row);
        if (const char* figure = nonFiniteFigure(row)) {
            row.status = PointStatus::Failed;
            row.message = std::string("the model gave a non-finite ") + figure;
        }
    } catch (const config::ConfigError& error) {
        row.status = PointStatus::Invalid;
        row.message = firstDiagnostic(error.diagnostics());
    } catch (const std::exception& error) {
        row.status = PointStatus::Failed;
        row.message = error.what();
    }
    return row;
}

/// The rows of every point, NotRun until a worker replaces them (SweepOptions::keepRows).
std::vector<SweepRow> notRunRows(const SweepSpace& space)
{
    std::vector<SweepRow> rows(static_cast<size_t>(space.size()));
    for (std::int64_t i = 0; i < space.size(); ++i) {
        rows[static_cast<size_t>(i)].index = i;
        rows[static_cast<size_t>(i)].coordinates = space.coordinates(i);
    }
    return rows;
}

/// Runs @p work on @p threads threads (this one included).
void runOnThreads(std::int64_t threads, const std::function<void()>& work)
{
    std::vector<std::thread> pool;
    for (std::int64_t i = 1; i < threads; ++i) {
        pool.emplace_back(work);
    }
    work();
    for (std::thread& thread : pool) {
        thread.join();
    }
}

} // namespace

SweepResult runSweep(const SweepSpace& space, const ScenarioFactory& factory, const SweepOptions& options)
{
    const auto started = std::chrono::steady_clock::now();
    SweepResult result;
    result.space = space;
    const std::int64_t total = space.size();
    if (options.keepRows) {
        result.rows = notRunRows(space);
    }
    const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
    const auto threads
        = static_cast<std::int64_t>(options.threads > 0 ? static_cast<unsigned>(options.threads) : hardware);
    const std::int64_t workers = std::max<std::int64_t>(1, std::min(threads, total));

    // Finished rows reach the tally, the sink and the kept rows in index order.
    SweepTally tally(options.keepTop);
    RowOrder order(std::max(options.window, workers), [&](SweepRow&& row) {
        tally.add(row);
        if (options.rowSink) {
            options.rowSink(row);
        }
        if (options.keepRows) {
            result.rows[static_cast<size_t>(row.index)] = std::move(row);
        }
    });
    std::atomic<std::int64_t> next { 0 };
    std::atomic<std::int64_t> done { 0 };
    std::mutex progressMutex;
    const std::int64_t progressStep = std::max<std::int64_t>(1, total / 100);
    runOnThreads(workers, [&] {
        for (;;) {
            if ((options.stop && options.stop->load(std::memory_order_relaxed)) || order.failed()) {
                return;
            }
            const std::int64_t index = next.fetch_add(1);
            if (index >= total) {
                return;
            }
            order.waitForRoom(index);
            order.put(evaluateIndex(space, factory, options.pruneByMemory, index));
            const std::int64_t finished = done.fetch_add(1) + 1;
            if (options.progress && (finished % progressStep == 0 || finished == total)) {
                const std::lock_guard<std::mutex> lock(progressMutex);
                options.progress(finished, total);
            }
        }
    });
    order.rethrow();
    result.cancelled = done.load() < total;
    if (options.keepRows) {
        markParetoFront(result.rows);
    }
    tally.finish(result);
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return result;
}

void markParetoFront(std::vector<SweepRow>& rows)
{
    // Sort the evaluated rows by throughput per GPU (best first); a row is on the front when its cost (memory or
    // latency) is strictly below every cost seen before it. Of equal throughput only the lowest cost can be on it.
    std::vector<SweepRow*> evaluated;
    for (SweepRow& row : rows) {
        row.pareto = false;
        if (row.status == PointStatus::Ok) {
            evaluated.push_back(&row);
        }
    }
    auto cost = [](const SweepRow* row) { return row->inference ? row->e2eSeconds : row->peakMemoryBytes; };
    std::stable_sort(evaluated.begin(), evaluated.end(), [&](const SweepRow* a, const SweepRow* b) {
        if (a->tokensPerSecondPerGpu != b->tokensPerSecondPerGpu) {
            return a->tokensPerSecondPerGpu > b->tokensPerSecondPerGpu;
        }
        if (cost(a) != cost(b)) {
            return cost(a) < cost(b);
        }
        return a->index < b->index; // of equal rows, the lowest index stands for them (as SweepTally does)
    });
    double bestCost = std::numeric_limits<double>::infinity();
    for (SweepRow* row : evaluated) {
        if (cost(row) < bestCost) {
            row->pareto = true;
            bestCost = cost(row);
        }
    }
}

} // namespace rapid::sweep
