// SPDX-License-Identifier: GPL-3.0-or-later
#include "pipelineschedule.h"

#include <algorithm>

namespace rapid::parallel {

namespace {

/// Megatron's interleaved order: virtual micro-batch k of the forward (or backward) sequence belongs to chunk
/// (k mod (p*v)) / p — reversed for backward — and to micro-batch (k / (p*v)) * p + k mod p.
PipelineStep interleavedStep(Pass pass, int k, int stages, int virtualStages)
{
    const int group = stages * virtualStages;
    int chunk = (k % group) / stages;
    if (pass == Pass::Backward) {
        chunk = virtualStages - 1 - chunk;
    }
    return { pass, (k / group) * stages + k % stages, chunk };
}

} // namespace

std::vector<PipelineStep> pipelineSteps(config::PipelineSchedule schedule, int stages, int stage, int microBatches,
    int virtualStages, bool combinedOneFOneB)
{
    std::vector<PipelineStep> steps;
    if (stages < 1 || microBatches < 1 || stage < 0 || stage >= stages) {
        return steps;
    }
    virtualStages = std::max(1, virtualStages);
    const int chunks = schedule == config::PipelineSchedule::Interleaved ? virtualStages : 1;
    steps.reserve(static_cast<size_t>(2 * microBatches * chunks));

    if (schedule == config::PipelineSchedule::Gpipe || (chunks > 1 && microBatches % stages != 0)) {
        for (int chunk = 0; chunk < chunks; ++chunk) {
            for (int mb = 0; mb < microBatches; ++mb) {
                steps.push_back({ Pass::Forward, mb, chunk });
            }
        }
        for (int chunk = chunks - 1; chunk >= 0; --chunk) {
            for (int mb = 0; mb < microBatches; ++mb) {
                steps.push_back({ Pass::Backward, mb, chunk });
            }
        }
        return steps;
    }

    // Megatron's interleaving needs whole groups of `stages` micro-batches (the run check enforces it; the GPipe
    // order above is the safe fallback).
    const bool interleaved = chunks > 1;
    const int total = interleaved ? microBatches * chunks : microBatches;
    const int extra = combinedOneFOneB ? 1 : 0;
    const int warmup = interleaved ? std::min((stages - stage - 1) * 2 + (chunks - 1) * stages + extra, total)
                                   : std::min(stages - stage - 1 + extra, total);
    auto step = [&](Pass pass, int k) {
        return interleaved ? interleavedStep(pass, k, stages, chunks) : PipelineStep { pass, k, 0 };
    };
    int forward = 0;
    int backward = 0;
    for (; forward < warmup; ++forward) {
        steps.push_back(step(Pass::Forward, forward));
    }
    while (forward < total) {
        steps.push_back(step(Pass::Forward, forward++));
        steps.push_back(step(Pass::Backward, backward++));
        if (combinedOneFOneB) {
            steps[steps.size() - 2].coScheduled = true;
            steps.back().coScheduled = true;
        }
    }
    while (backward < total) {
        steps.push_back(step(Pass::Backward, backward++));
    }
    return steps;
}

int memoryEquivalentMicroBatches(config::PipelineSchedule schedule, int stages, int microBatches, int virtualStages)
{
    const bool interleaved = schedule == config::PipelineSchedule::Interleaved && virtualStages > 1;
    if (schedule == config::PipelineSchedule::Gpipe || stages < 1 || (interleaved && microBatches % stages != 0)) {
        return microBatches;
    }
    const int shortest = 3 * stages;
    return microBatches < shortest + stages ? microBatches : shortest + microBatches % stages;
}

std::vector<int> layersPerChunk(int numLayers, int stages, int virtualStages, const std::vector<int>& explicitSplit)
{
    const int chunks = std::max(1, stages) * std::max(1, virtualStages);
    if (static_cast<int>(explicitSplit.size()) == chunks) {
        return explicitSplit;
    }
    std::vector<int> layers(static_cast<size_t>(chunks), numLayers / chunks);
    for (int i = 0; i < numLayers % chunks; ++i) {
        ++layers[static_cast<size_t>(i)];
    }
    return layers;
}

std::vector<int> costBalancedLayersPerStage(int numLayers, int stages, double layerCost, double headCost)
{
    std::vector<int> layers(static_cast<size_t>(std::max(1, stages)), 0);
    const double total = numLayers * layerCost + headCost;
    int stage = 0;
    double cumulative = 0;
    for (int layer = 0; layer < numLayers; ++layer) {
        cumulative += layerCost;
        ++layers[static_cast<size_t>(stage)];
        if (stage < stages - 1 && cumulative >= total * (stage + 1) / stages) {
            ++stage;
        }
    }
    return layers;
}

} // namespace rapid::parallel
