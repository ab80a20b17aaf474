// SPDX-License-Identifier: GPL-3.0-or-later
#include "scenariodiff.h"

#include <algorithm>

namespace rapid::analysis {

namespace {

/// Adds "<word><value>" (or "<word> <value>" when @p spaced) when the two values differ.
template <typename Value>
void addIfChanged(
    std::vector<std::string>& words, const char* word, const Value& reference, const Value& other, bool spaced = false)
{
    if (reference != other) {
        words.push_back(std::string(word) + (spaced ? " " : "") + std::to_string(other));
    }
}

std::string countOf(std::size_t count, const char* one, const char* many)
{
    return std::to_string(count) + " " + (count == 1 ? one : many);
}

void addParallelism(
    std::vector<std::string>& words, const config::ParallelismSpec& reference, const config::ParallelismSpec& other)
{
    addIfChanged(words, "tp", reference.tp, other.tp);
    addIfChanged(words, "pp", reference.pp, other.pp);
    addIfChanged(words, "dp", reference.dp, other.dp);
    addIfChanged(words, "cp", reference.cp, other.cp);
    addIfChanged(words, "ep", reference.ep, other.ep);
    if (reference.etp != other.etp) {
        words.push_back(other.etp > 0 ? "etp" + std::to_string(other.etp) : "etp=tp"); // 0: etp follows tp
    }
    if (reference.contextComm != other.contextComm || reference.cpA2a != other.cpA2a) {
        words.push_back(std::string("cp_comm ") + config::toString(other.contextComm)
            + (other.cpA2a > 0 ? " " + std::to_string(other.cpA2a) : std::string()));
    }
    addIfChanged(words, "vpp", reference.virtualStages, other.virtualStages);
    if (reference.sequenceParallel != other.sequenceParallel) {
        words.emplace_back(other.sequenceParallel ? "sp" : "no sp");
    }
    addIfChanged(words, "zero", reference.zeroStage, other.zeroStage);
}

void addTraining(std::vector<std::string>& words, const config::RunSpec& reference, const config::RunSpec& other)
{
    addIfChanged(words, "seq", reference.seqLength, other.seqLength, true);
    addIfChanged(words, "mb", reference.microBatch, other.microBatch, true);
    addIfChanged(words, "gbs", reference.globalBatch, other.globalBatch, true);
    if (reference.recompute != other.recompute) {
        words.push_back(std::string("recompute ") + config::toString(other.recompute));
    }
    addIfChanged(words, "batch", reference.batch, other.batch, true);
    addIfChanged(words, "prompt", reference.promptLength, other.promptLength, true);
    addIfChanged(words, "decode", reference.decodeLength, other.decodeLength, true);
    if (reference.precision.compute != other.precision.compute) {
        words.emplace_back(config::toString(other.precision.compute));
    }
    if (reference.attentionKernel != other.attentionKernel) {
        words.emplace_back(config::toString(other.attentionKernel));
    }
    if (reference.torchCompile != other.torchCompile) {
        words.emplace_back(other.torchCompile ? "compiled" : "eager");
    }
    if (reference.transformerEngine != other.transformerEngine) {
        words.emplace_back(other.transformerEngine ? "TE" : "no TE");
    }
    if (reference.crossEntropyFusion != other.crossEntropyFusion) {
        words.emplace_back(other.crossEntropyFusion ? "fused loss" : "unfused loss");
    }
    if (reference.lossFp32Upcast != other.lossFp32Upcast) {
        words.emplace_back(other.lossFp32Upcast ? "fp32 loss" : "bf16 loss");
    }
    if (reference.ligerKernel != other.ligerKernel) {
        words.emplace_back(other.ligerKernel ? "Liger" : "no Liger");
    }
    if (reference.loraRank != other.loraRank || reference.loraTargets != other.loraTargets) {
        words.push_back(other.loraRank > 0 ? "LoRA r" + std::to_string(other.loraRank)
                    + (other.loraTargets == config::LoraTargets::AllLinear ? " +head" : "")
                                           : std::string("full fine-tuning"));
    }
}

/// The shape of a model edited under its own name (a layer count typed into the form): the words a reader looks for.
void addModelShape(std::vector<std::string>& words, const config::ModelSpec& reference, const config::ModelSpec& other)
{
    addIfChanged(words, "layers", reference.numLayers, other.numLayers, true);
    addIfChanged(words, "hidden", reference.hiddenSize, other.hiddenSize, true);
    addIfChanged(words, "heads", reference.numHeads, other.numHeads, true);
    addIfChanged(words, "kv heads", reference.numKvHeads, other.numKvHeads, true);
    addIfChanged(words, "ffn", reference.ffnSize, other.ffnSize, true);
    addIfChanged(words, "vocab", reference.vocabSize, other.vocabSize, true);
    const int experts = other.moe ? other.moe->numExperts : 0;
    addIfChanged(words, "experts", reference.moe ? reference.moe->numExperts : 0, experts, true);
    const int topK = other.moe ? other.moe->topK : 0;
    addIfChanged(words, "top-k", reference.moe ? reference.moe->topK : 0, topK, true);
}

} // namespace

std::vector<std::string> scenarioDifferences(const config::Scenario& reference, const config::Scenario& other)
{
    std::vector<std::string> words;
    if (reference.model.name != other.model.name) {
        words.push_back(other.model.name);
    } else {
        addModelShape(words, reference.model, other.model);
    }
    if (reference.hardware.gpu.name != other.hardware.gpu.name) {
        words.push_back(other.hardware.gpu.name);
    } else if (!(reference.hardware.gpu == other.hardware.gpu)) {
        words.emplace_back("GPU specs edited"); // a clock or a peak typed in place: the GPU keeps its name
    }
    const int gpus = other.hardware.cluster.totalGpus();
    if (reference.hardware.cluster.totalGpus() != gpus) {
        words.push_back(std::to_string(gpus) + " GPUs");
    }
    if (reference.run.mode != other.run.mode) {
        words.emplace_back(config::toString(other.run.mode));
    }
    if (reference.run.framework != other.run.framework) {
        words.emplace_back(config::toString(other.run.framework));
    }
    addParallelism(words, reference.run.parallelism, other.run.parallelism);
    addTraining(words, reference.run, other.run);
    const config::HardwareSpec& before = reference.hardware;
    const config::HardwareSpec& after = other.hardware;
    if (before.faults != after.faults) {
        words.push_back(after.faults.empty() ? "no faults" : countOf(after.faults.size(), "link fault", "link faults"));
    }
    if (before.stragglers != after.stragglers) {
        words.push_back(
            after.stragglers.empty() ? "no stragglers" : countOf(after.stragglers.size(), "straggler", "stragglers"));
    }
    // Whatever the words above do not name (a GPU spec edited in place, a link's bandwidth, an optimizer setting).
    const bool named = !words.empty();
    const bool modelDiffers = !(reference.model == other.model);
    const bool hardwareDiffers = !(before == after);
    const bool runDiffers = !(reference.run == other.run);
    if ((modelDiffers || hardwareDiffers || runDiffers) && !named) {
        words.emplace_back("other changes");
    }
    return words;
}

std::string differenceLabel(const config::Scenario& reference, const config::Scenario& other)
{
    const std::vector<std::string> words = scenarioDifferences(reference, other);
    if (words.empty()) {
        return "same as the baseline";
    }
    std::string label;
    for (const std::string& word : words) {
        label += (label.empty() ? "" : " ") + word;
    }
    return label;
}

} // namespace rapid::analysis
