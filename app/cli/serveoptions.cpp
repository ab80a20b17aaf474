// SPDX-License-Identifier: GPL-3.0-or-later
#include "serveoptions.h"

#include "clioutput.h"

#include "config/units.h"
#include "serving/speculation.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <initializer_list>
#include <iterator>
#include <optional>

namespace rapid::cli {

// Times in rapid serve always carry their unit: "2" could be seconds or milliseconds, and a guess would be silent.
double duration(const Arguments& arguments, const std::string& name, double maxSeconds, bool zeroAllowed)
{
    const auto text = arguments.value(name);
    if (!text) {
        return 0;
    }
    std::string why;
    const bool hasUnit = std::any_of(text->begin(), text->end(), [](char c) { return std::isalpha(c) != 0; });
    const std::optional<double> seconds = config::parseQuantity(*text, config::Dimension::Seconds, &why);
    const bool inRange = seconds && (zeroAllowed ? *seconds >= 0 : *seconds > 0) && *seconds <= maxSeconds;
    if (!hasUnit || !inRange) {
        char limit[32];
        std::snprintf(limit, sizeof limit, "%g", maxSeconds);
        throw UsageError("--" + name + " \"" + *text + "\": expected a time " + (zeroAllowed ? "from 0" : "above 0")
            + " to " + limit + " s, with its unit, e.g. 500ms or 2 s"
            + (why.empty() ? std::string() : " (" + why + ")"));
    }
    return *seconds;
}

namespace {

/// The value of option @p name among @p choices, by the word serving::toString gives each (case and '_' for '-'
/// ignored, so TensorRT-LLM's GUARANTEED_NO_EVICT names guaranteed-no-evict); @p absent when the option is not given.
template <typename Enum>
Enum namedChoice(const Arguments& arguments, const std::string& name, std::initializer_list<Enum> choices, Enum absent)
{
    const auto given = arguments.value(name);
    if (!given) {
        return absent;
    }
    std::string word = *given;
    std::transform(word.begin(), word.end(), word.begin(),
        [](unsigned char c) { return c == '_' ? '-' : static_cast<char>(std::tolower(c)); });
    std::string expected;
    for (const Enum choice : choices) {
        if (word == serving::toString(choice)) {
            return choice;
        }
        expected += (expected.empty()                             ? ""
                            : choice == *std::prev(choices.end()) ? " or "
                                                                  : ", ")
            + std::string(serving::toString(choice));
    }
    throw UsageError("--" + name + " \"" + *given + "\": expected " + expected);
}

/// Speculative decoding from --speculative-tokens, --acceptance, --draft and --draft-layers: the acceptance has no
/// default (it is the draft's and the data's), and the draft's options mean nothing without draft tokens.
serving::SpeculativeDecoding speculativeOf(const Arguments& arguments)
{
    serving::SpeculativeDecoding speculative;
    speculative.draftTokens
        = static_cast<int>(boundedInteger(arguments, "speculative-tokens", 0, 0, serving::kMaxDraftTokens));
    if (speculative.draftTokens == 0) {
        for (const char* name : { "acceptance", "acceptance-length", "draft", "draft-layers" }) {
            if (arguments.value(name)) {
                throw UsageError(std::string("--") + name + ": a speculative decoder's; expected --speculative-tokens "
                    + "K (1 to " + std::to_string(serving::kMaxDraftTokens) + ") with it");
            }
        }
        return speculative;
    }
    const bool probability = arguments.value("acceptance").has_value();
    const bool length = arguments.value("acceptance-length").has_value();
    if (probability == length) {
        throw UsageError(std::string(probability ? "--acceptance and --acceptance-length: give one of them"
                                                 : "--speculative-tokens needs --acceptance P, the chance a draft "
                                                   "token is kept (0 to 1), or --acceptance-length L")
            + ", which depends on the draft and the data");
    }
    if (probability) {
        speculative.acceptance = boundedNumber(arguments, "acceptance", 0, 0.0, 1.0);
    } else {
        const double mean = boundedNumber(arguments, "acceptance-length", 1, 1.0, speculative.draftTokens + 1.0);
        speculative.acceptance = serving::acceptanceForMeanLength(speculative.draftTokens, mean);
    }
    speculative.method = namedChoice(
        arguments, "draft", { serving::DraftMethod::Head, serving::DraftMethod::Ngram }, serving::DraftMethod::Head);
    if (arguments.value("draft-layers") && speculative.method != serving::DraftMethod::Head) {
        throw UsageError("--draft-layers: a draft head's; expected --draft head with it");
    }
    speculative.draftLayers
        = static_cast<int>(boundedInteger(arguments, "draft-layers", 1, 1, serving::kMaxDraftLayers));
    return speculative;
}

} // namespace

serving::EngineOptions engineOf(const Arguments& arguments)
{
    serving::EngineOptions options;
    const std::string engine = arguments.value("engine").value_or("vllm");
    if (engine != "vllm" && engine != "trtllm" && engine != "sglang") {
        throw UsageError("--engine \"" + engine + "\": expected vllm, trtllm or sglang");
    }
    options.profile = engine == "trtllm" ? serving::EngineProfile::TrtLlm
        : engine == "sglang"             ? serving::EngineProfile::Sglang
                                         : serving::EngineProfile::Vllm;
    // Not given: 0, which simulateServing replaces by vLLM's default for the scenario's GPU.
    if (arguments.value("max-num-seqs")) {
        options.maxNumSeqs = static_cast<int>(boundedInteger(arguments, "max-num-seqs", 0, 1, 1'000'000));
    }
    if (arguments.value("max-num-batched-tokens")) {
        options.maxNumBatchedTokens
            = static_cast<int>(boundedInteger(arguments, "max-num-batched-tokens", 0, 1, 10'000'000));
    }
    options.chunkedPrefill = !arguments.flag("no-chunked-prefill");
    options.tensorRtEngine = arguments.flag("tensorrt-engine");
    if (options.tensorRtEngine && options.profile != serving::EngineProfile::TrtLlm) {
        throw UsageError("--tensorrt-engine: a TensorRT engine is TensorRT-LLM's; expected --engine trtllm with it");
    }
    options.prefixCaching = !arguments.flag("no-prefix-caching");
    // Not given: 0, the engine's own block size (serving::engineDefaults).
    if (arguments.value("block-size")) {
        options.blockSize = static_cast<int>(boundedInteger(arguments, "block-size", 0, 1, 4096));
    }
    if (arguments.value("max-prefill-tokens")) {
        if (options.profile != serving::EngineProfile::Sglang) {
            throw UsageError("--max-prefill-tokens: SGLang's prefill budget; expected --engine sglang with it "
                             "(other engines take --max-num-batched-tokens)");
        }
        options.maxPrefillTokens = static_cast<int>(boundedInteger(arguments, "max-prefill-tokens", 0, 1, 10'000'000));
    }
    options.gpuMemoryUtilization
        = boundedNumber(arguments, "gpu-memory-utilization", options.gpuMemoryUtilization, 0.01, 1.0);
    options.kvBlocks = boundedInteger(arguments, "kv-blocks", 0, 0, 1'000'000'000'000LL);
    options.capacityPolicy = namedChoice(arguments, "capacity-policy",
        { serving::CapacityPolicy::MaxUtilization, serving::CapacityPolicy::GuaranteedNoEvict,
            serving::CapacityPolicy::NewTokenRatio },
        serving::CapacityPolicy::Auto);
    options.batching = namedChoice(
        arguments, "batching", { serving::Batching::Mixed, serving::Batching::PrefillFirst }, serving::Batching::Auto);
    options.overlapScheduling = namedChoice(arguments, "overlap-scheduler",
        { serving::OverlapScheduling::On, serving::OverlapScheduling::Off }, serving::OverlapScheduling::Auto);
    options.preemption = namedChoice(arguments, "preemption",
        { serving::Preemption::Recompute, serving::Preemption::Swap }, serving::Preemption::Recompute);
    if (options.preemption == serving::Preemption::Swap
        && (options.profile != serving::EngineProfile::Vllm || options.batching == serving::Batching::PrefillFirst)) {
        throw UsageError("--preemption swap: vLLM V0's swap (--preemption-mode swap); expected --engine vllm with "
                         "mixed batching (sglang and trtllm recompute)");
    }
    constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
    options.swapSpaceBytes = boundedNumber(arguments, "swap-space", 4, 0, serving::kMaxSwapSpaceGiB) * kGiB;
    options.host.perIterationSeconds = duration(arguments, "host-time", 3600, true);
    options.host.perRequestSeconds = duration(arguments, "host-time-per-request", 3600, true);
    options.host.overlapped = arguments.flag("overlap-host");
    options.speculative = speculativeOf(arguments);
    return options;
}

/// SGLang's max_prefill_tokens for the summary's engine line; empty for other engines.
std::string prefillBudgetText(const serving::EngineOptions& options)
{
    return options.maxPrefillTokens > 0 ? ", max_prefill_tokens " + std::to_string(options.maxPrefillTokens) : "";
}

std::string speculativeText(const serving::SpeculativeDecoding& speculative)
{
    if (!speculative.enabled()) {
        return {};
    }
    const std::string draft = speculative.method == serving::DraftMethod::Ngram
        ? "prompt lookup"
        : "a " + std::to_string(speculative.draftLayers) + "-layer head";
    char text[200];
    std::snprintf(text, sizeof text, "; speculative: %d drafts by %s, acceptance %.3g, %.3g tokens per verification",
        speculative.draftTokens, draft.c_str(), speculative.acceptance,
        serving::meanTokensPerVerification(speculative.draftTokens, speculative.acceptance));
    return text;
}

std::string preemptionText(const serving::EngineOptions& options)
{
    if (options.preemption != serving::Preemption::Swap) {
        return {};
    }
    char text[200];
    std::snprintf(text, sizeof text,
        "; preemption by swap: %s GiB per GPU (%lld blocks), host link %s / %s GB/s to / from the GPU",
        config::formatNumber(options.swapSpaceBytes / (1024.0 * 1024 * 1024)).c_str(),
        static_cast<long long>(options.swap.hostBlocks),
        config::formatNumber(options.swap.toDeviceBytesPerSecond / 1e9).c_str(),
        config::formatNumber(options.swap.fromDeviceBytesPerSecond / 1e9).c_str());
    return text;
}

/// The engine's host cost for the summary's engine line; nothing when none is charged.
std::string hostCostText(const serving::HostCost& host, serving::OverlapScheduling overlapScheduling)
{
    if (host.perIterationSeconds == 0 && host.perRequestSeconds == 0) {
        return {};
    }
    char text[160];
    std::snprintf(text, sizeof text, "; host %.3f ms per iteration + %.3f ms per sequence, %s",
        host.perIterationSeconds * 1e3, host.perRequestSeconds * 1e3,
        host.overlapped || overlapScheduling == serving::OverlapScheduling::On ? "overlapped with the GPU"
                                                                               : "in step with the GPU");
    return text;
}

} // namespace rapid::cli
