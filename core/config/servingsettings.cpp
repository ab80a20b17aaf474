// SPDX-License-Identifier: GPL-3.0-or-later
// The `serving:` section of a workspace file (see servingsettings.h).
#include "workspacefile_p.h"
#include "yamlnode_p.h"

#include <sstream>
#include <utility>
#include <vector>

namespace rapid::config::detail {

namespace {

// The largest values the Serving tab offers (and rapid serve accepts) for each count.
constexpr std::int64_t kMaxTokens = 10'000'000;
constexpr std::int64_t kMaxRequests = 1'000'000;
constexpr std::int64_t kMaxWorkers = 4096;
constexpr double kMaxSloMilliseconds = 1e6;
constexpr double kMaxHostMilliseconds = 3.6e6; // an hour per iteration, as rapid serve accepts
constexpr std::int64_t kMaxSequences = 1'000'000; // rapid serve --max-num-seqs
constexpr std::int64_t kMaxBlockSize = 4096; // rapid serve --block-size
constexpr double kMinMemoryShare = 0.01; // rapid serve --gpu-memory-utilization
constexpr std::int64_t kMaxDraftTokens = 16; // rapid serve --speculative-tokens (serving::kMaxDraftTokens)
constexpr std::int64_t kMaxDraftLayers = 8; // rapid serve --draft-layers (serving::kMaxDraftLayers)
constexpr double kMinBurstiness = 0.01; // rapid serve --burstiness
constexpr double kMaxBurstiness = 1000;
constexpr double kMaxTokensStddev = 1e7; // rapid serve --input-tokens-stddev, --output-tokens-stddev
constexpr std::int64_t kMaxPromptPool = 1'000'000; // rapid serve --prompt-pool (serving::kMaxPromptPool)
constexpr double kMaxSwapSpaceGiB = 65536; // rapid serve --swap-space (serving::kMaxSwapSpaceGiB)

std::string number(double value)
{
    std::ostringstream out;
    out.precision(15);
    out << value;
    return out.str();
}

/// A choice among @p words that reads each as itself.
template <std::size_t N> std::vector<std::pair<std::string, std::string>> wordChoices(const char* const (&words)[N])
{
    std::vector<std::pair<std::string, std::string>> choices;
    for (const char* word : words) {
        choices.emplace_back(word, word);
    }
    return choices;
}

/// The drafts' acceptance is given one way or the other, and a mean length within what the drafts can yield: one
/// verification of K drafts yields 1 to K + 1 tokens. Each error is located at acceptance_length and clears it.
void checkAcceptanceLength(ReadContext& context, MapReader& reader, ServingSettings& settings)
{
    if (settings.acceptanceLength < 0) {
        return;
    }
    std::string problem;
    if (settings.acceptance >= 0) {
        problem = "give acceptance or acceptance_length, not both";
    } else if (settings.speculativeTokens > 0 && settings.acceptanceLength > settings.speculativeTokens + 1) {
        problem = "expected at most speculative_tokens + 1 = " + std::to_string(settings.speculativeTokens + 1)
            + " (tokens per verification), got " + number(settings.acceptanceLength);
    }
    if (!problem.empty()) {
        context.error(reader.childPath("acceptance_length"), reader.raw("acceptance_length"), problem);
        settings.acceptanceLength = -1;
    }
}

} // namespace

std::optional<ServingSettings> readServingSettings(ReadContext& context, const YAML::Node& serving)
{
    if (!serving.IsDefined() || isNullNode(serving)) {
        return std::nullopt;
    }
    MapReader reader(context, serving, "serving");
    if (!reader.valid()) {
        return std::nullopt;
    }
    ServingSettings settings;
    settings.load = reader.choice<ServingSettings::Load>("load",
        { { "concurrency", ServingSettings::Load::Concurrency }, { "rate", ServingSettings::Load::Rate } },
        ServingSettings::Load::Concurrency);
    settings.loads = reader.text("loads", settings.loads);
    settings.inputTokens = static_cast<int>(reader.integer("input_tokens", 0, 0, kMaxTokens));
    settings.outputTokens = static_cast<int>(reader.integer("output_tokens", 0, 0, kMaxTokens));
    settings.requests = static_cast<int>(reader.integer("requests", 0, 0, kMaxRequests));
    settings.burstiness = reader.number("burstiness", 1.0, kMinBurstiness, kMaxBurstiness);
    settings.inputTokensStddev = reader.number("input_tokens_stddev", 0.0, 0.0, kMaxTokensStddev);
    settings.outputTokensStddev = reader.number("output_tokens_stddev", 0.0, 0.0, kMaxTokensStddev);
    settings.promptPool = static_cast<int>(reader.integer("prompt_pool", 0, 0, kMaxPromptPool));
    settings.engine
        = reader.choice<std::string>("engine", wordChoices(kServingEngineWords), std::string(kServingEngineWords[0]));
    settings.ttftSloMilliseconds = reader.number("ttft_slo_ms", 0.0, 0.0, kMaxSloMilliseconds);
    settings.itlSloMilliseconds = reader.number("itl_slo_ms", 0.0, 0.0, kMaxSloMilliseconds);
    settings.prefillWorkers = static_cast<int>(reader.integer("prefill_workers", 0, 0, kMaxWorkers));
    settings.decodeWorkers = static_cast<int>(reader.integer("decode_workers", 0, 0, kMaxWorkers));
    settings.prefillTp = static_cast<int>(reader.integer("prefill_tp", 0, 0, kMaxWorkers));
    settings.decodeTp = static_cast<int>(reader.integer("decode_tp", 0, 0, kMaxWorkers));
    settings.hostMilliseconds = reader.number("host_time_ms", 0.0, 0.0, kMaxHostMilliseconds);
    settings.hostPerRequestMilliseconds = reader.number("host_time_per_request_ms", 0.0, 0.0, kMaxHostMilliseconds);
    settings.overlapHost = reader.boolean("overlap_host", false);
    settings.capacityPolicy = reader.choice<std::string>(
        "capacity_policy", wordChoices(kCapacityPolicyWords), std::string(kCapacityPolicyWords[0]));
    settings.preemption
        = reader.choice<std::string>("preemption", wordChoices(kPreemptionWords), std::string(kPreemptionWords[0]));
    settings.swapSpaceGiB = reader.number("swap_space_GiB", 4.0, 0.0, kMaxSwapSpaceGiB);
    settings.maxNumSeqs = static_cast<int>(reader.integer("max_num_seqs", 0, 0, kMaxSequences));
    settings.maxNumBatchedTokens = static_cast<int>(reader.integer("max_num_batched_tokens", 0, 0, kMaxTokens));
    settings.chunkedPrefill = reader.boolean("chunked_prefill", true);
    settings.blockSize = static_cast<int>(reader.integer("block_size", 0, 0, kMaxBlockSize));
    settings.maxPrefillTokens = static_cast<int>(reader.integer("max_prefill_tokens", 0, 0, kMaxTokens));
    settings.gpuMemoryUtilization = reader.number("gpu_memory_utilization", 0.0, 0.0, 1.0);
    if (settings.gpuMemoryUtilization > 0 && settings.gpuMemoryUtilization < kMinMemoryShare) {
        context.error(reader.childPath("gpu_memory_utilization"), reader.raw("gpu_memory_utilization"),
            "expected 0 (the engine's default) or a share from 0.01 to 1, got "
                + number(settings.gpuMemoryUtilization));
        settings.gpuMemoryUtilization = 0;
    }
    settings.batching
        = reader.choice<std::string>("batching", wordChoices(kBatchingWords), std::string(kBatchingWords[0]));
    settings.overlapScheduler = reader.choice<std::string>(
        "overlap_scheduler", wordChoices(kOverlapSchedulerWords), std::string(kOverlapSchedulerWords[0]));
    settings.speculativeTokens = static_cast<int>(reader.integer("speculative_tokens", 0, 0, kMaxDraftTokens));
    settings.acceptance = reader.number("acceptance", -1.0, 0.0, 1.0);
    settings.acceptanceLength = reader.number("acceptance_length", -1.0, 1.0, kMaxDraftTokens + 1.0);
    checkAcceptanceLength(context, reader, settings);
    settings.draft = reader.choice<std::string>("draft", wordChoices(kDraftWords), std::string(kDraftWords[0]));
    settings.draftLayers = static_cast<int>(reader.integer("draft_layers", 1, 1, kMaxDraftLayers));
    reader.finish();
    return settings;
}

std::string composeServingSettings(const ServingSettings& settings)
{
    std::string text = "serving:\n";
    text += std::string("  load: ") + (settings.load == ServingSettings::Load::Rate ? "rate" : "concurrency") + "\n";
    text += "  loads: " + yamlDoubleQuoted(settings.loads) + "\n";
    text += "  input_tokens: " + std::to_string(settings.inputTokens) + "\n";
    text += "  output_tokens: " + std::to_string(settings.outputTokens) + "\n";
    text += "  requests: " + std::to_string(settings.requests) + "\n";
    text += "  burstiness: " + number(settings.burstiness) + "\n";
    text += "  input_tokens_stddev: " + number(settings.inputTokensStddev) + "\n";
    text += "  output_tokens_stddev: " + number(settings.outputTokensStddev) + "\n";
    text += "  prompt_pool: " + std::to_string(settings.promptPool) + "\n";
    text += "  engine: " + yamlDoubleQuoted(settings.engine) + "\n";
    text += "  ttft_slo_ms: " + number(settings.ttftSloMilliseconds) + "\n";
    text += "  itl_slo_ms: " + number(settings.itlSloMilliseconds) + "\n";
    text += "  prefill_workers: " + std::to_string(settings.prefillWorkers) + "\n";
    text += "  decode_workers: " + std::to_string(settings.decodeWorkers) + "\n";
    text += "  prefill_tp: " + std::to_string(settings.prefillTp) + "\n";
    text += "  decode_tp: " + std::to_string(settings.decodeTp) + "\n";
    text += "  host_time_ms: " + number(settings.hostMilliseconds) + "\n";
    text += "  host_time_per_request_ms: " + number(settings.hostPerRequestMilliseconds) + "\n";
    text += std::string("  overlap_host: ") + (settings.overlapHost ? "true" : "false") + "\n";
    text += "  capacity_policy: " + yamlDoubleQuoted(settings.capacityPolicy) + "\n";
    text += "  preemption: " + yamlDoubleQuoted(settings.preemption) + "\n";
    text += "  swap_space_GiB: " + number(settings.swapSpaceGiB) + "\n";
    text += "  max_num_seqs: " + std::to_string(settings.maxNumSeqs) + "\n";
    text += "  max_num_batched_tokens: " + std::to_string(settings.maxNumBatchedTokens) + "\n";
    text += std::string("  chunked_prefill: ") + (settings.chunkedPrefill ? "true" : "false") + "\n";
    text += "  block_size: " + std::to_string(settings.blockSize) + "\n";
    text += "  max_prefill_tokens: " + std::to_string(settings.maxPrefillTokens) + "\n";
    text += "  gpu_memory_utilization: " + number(settings.gpuMemoryUtilization) + "\n";
    text += "  batching: " + yamlDoubleQuoted(settings.batching) + "\n";
    text += "  overlap_scheduler: " + yamlDoubleQuoted(settings.overlapScheduler) + "\n";
    text += "  speculative_tokens: " + std::to_string(settings.speculativeTokens) + "\n";
    if (settings.acceptance >= 0) { // not given: no key, as the acceptance has no default
        text += "  acceptance: " + number(settings.acceptance) + "\n";
    }
    if (settings.acceptanceLength >= 0) {
        text += "  acceptance_length: " + number(settings.acceptanceLength) + "\n";
    }
    text += "  draft: " + yamlDoubleQuoted(settings.draft) + "\n";
    text += "  draft_layers: " + std::to_string(settings.draftLayers) + "\n";
    return text;
}

} // namespace rapid::config::detail
