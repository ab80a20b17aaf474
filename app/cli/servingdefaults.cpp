// SPDX-License-Identifier: GPL-3.0-or-later
#include "servingdefaults.h"

#include "config/diagnostic.h"
#include "config/workspacefile.h"
#include "config/yamledit.h"
#include "serving/servingsweep.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace rapid::cli {

namespace {

/// An input error at the section's @p key, located at its line in the file (a preset name read no file: the name
/// alone).
[[noreturn]] void throwSectionError(const std::string& workspace, const std::string& key, const std::string& message)
{
    std::ifstream file(workspace);
    std::ostringstream text;
    text << file.rdbuf();
    const int line = config::yamlLineAt(text.str(), "serving." + key).value_or(-1) + 1;
    throw config::ConfigError({ { { workspace, line, line > 0 ? 3 : 0 }, "serving." + key, message } });
}

void setNumberDefault(Arguments& arguments, const char* option, double value)
{
    char text[64];
    std::snprintf(text, sizeof text, "%.17g", value);
    arguments.setDefault(option, text);
}

/// Swapping is vLLM's with mixed batches: the section's is kept while another engine or prefill-first batches are
/// chosen (the command line's or the section's), greyed out in the tab and not applied, as there.
void applySwapDefaults(Arguments& arguments, const config::ServingSettings& settings)
{
    std::string batching = arguments.value("batching").value_or("auto");
    std::transform(batching.begin(), batching.end(), batching.begin(),
        [](unsigned char c) { return c == '_' ? '-' : static_cast<char>(std::tolower(c)); });
    if (settings.preemption == "swap" && arguments.value("engine") == std::optional<std::string>("vllm")
        && batching != "prefill-first") {
        arguments.setDefault("preemption", settings.preemption);
    }
    setNumberDefault(arguments, "swap-space", settings.swapSpaceGiB);
}

/// The draft's knobs are kept while speculative_tokens is 0, as the tab keeps them, and not applied; the section's
/// acceptance stands in only when the command line gives neither form of it.
void applySpeculationDefaults(
    Arguments& arguments, const config::ServingSettings& settings, const std::string& workspace)
{
    if (settings.speculativeTokens == 0 || arguments.value("speculative-tokens")) {
        return;
    }
    const bool typed = arguments.value("acceptance") || arguments.value("acceptance-length");
    if (settings.acceptance < 0 && settings.acceptanceLength < 0 && !typed) {
        throwSectionError(workspace, "speculative_tokens",
            "speculative decoding needs the draft's acceptance: give acceptance, a probability from 0 to 1, or "
            "acceptance_length, the mean tokens per verification");
    }
    arguments.setDefault("speculative-tokens", std::to_string(settings.speculativeTokens));
    if (!typed) {
        const bool probability = settings.acceptance >= 0;
        setNumberDefault(arguments, probability ? "acceptance" : "acceptance-length",
            probability ? settings.acceptance : settings.acceptanceLength);
    }
    arguments.setDefault("draft", settings.draft);
    if (settings.draft == "head") {
        arguments.setDefault("draft-layers", std::to_string(settings.draftLayers));
    }
}

/// The workload's random draws: a closed loop or a trace keeps the section's burstiness unapplied, as the tab greys it
/// out for clients, and a trace gives every request's lengths itself.
void applyWorkloadDrawDefaults(Arguments& arguments, const config::ServingSettings& settings)
{
    if (settings.burstiness != 1 && arguments.value("rate")) {
        setNumberDefault(arguments, "burstiness", settings.burstiness);
    }
    if (arguments.value("trace")) {
        return;
    }
    if (settings.inputTokensStddev > 0) {
        setNumberDefault(arguments, "input-tokens-stddev", settings.inputTokensStddev);
    }
    if (settings.outputTokensStddev > 0) {
        setNumberDefault(arguments, "output-tokens-stddev", settings.outputTokensStddev);
    }
    if (settings.promptPool > 0 && !arguments.value("shared-prefix")) {
        arguments.setDefault("prompt-pool", std::to_string(settings.promptPool));
    }
}

} // namespace

void applyWorkspaceServingDefaults(Arguments& arguments)
{
    std::optional<std::string> workspace = arguments.value("workspace");
    if (!arguments.positional().empty()) {
        workspace = arguments.positional().front();
    }
    if (!workspace || arguments.value("model") || arguments.value("hardware") || arguments.value("run")) {
        return;
    }
    const std::optional<config::ServingSettings> settings
        = config::readWorkspaceDocuments(*workspace, config::PresetLibrary::standard()).serving;
    if (!settings) {
        return;
    }
    // The section keeps what the tab holds, typing in progress included: what rapid serve cannot take is an input
    // error naming the section's key, never an option the user did not type.
    auto sectionError
        = [&](const std::string& key, const std::string& message) { throwSectionError(*workspace, key, message); };
    const bool pools = settings->prefillWorkers > 0 || settings->decodeWorkers > 0;
    const bool rate = settings->load == config::ServingSettings::Load::Rate;
    if (!arguments.value("concurrency") && !arguments.value("rate") && !arguments.value("trace")) {
        std::string loads = settings->loads;
        loads.erase(
            std::remove_if(loads.begin(), loads.end(), [](unsigned char c) { return std::isspace(c); }), loads.end());
        std::vector<double> values;
        std::string bad;
        if (!serving::parseLoadList(
                loads, rate ? serving::SweepLoad::Rate : serving::SweepLoad::Concurrency, values, bad)) {
            sectionError("loads",
                std::string("expected ")
                    + (rate ? "rates above 0 and at most 1e6 requests/s" : "whole client counts from 1 to 100000")
                    + " separated by commas, got \"" + settings->loads + "\"");
        }
        arguments.setDefault(rate ? "rate" : "concurrency", loads);
    }
    if (pools && !arguments.value("pool-splits")) {
        if (settings->prefillWorkers == 0 || settings->decodeWorkers == 0) {
            sectionError(settings->prefillWorkers == 0 ? "prefill_workers" : "decode_workers",
                "give both prefill and decode workers, or neither");
        }
        arguments.setDefault("prefill-workers", std::to_string(settings->prefillWorkers));
        arguments.setDefault("decode-workers", std::to_string(settings->decodeWorkers));
    }
    auto setCount = [&](const char* option, int value) {
        if (value > 0) {
            arguments.setDefault(option, std::to_string(value));
        }
    };
    setCount("input-tokens", settings->inputTokens);
    setCount("output-tokens", settings->outputTokens);
    setCount("requests", settings->requests);
    applyWorkloadDrawDefaults(arguments, *settings);
    if (pools && !arguments.value("pool-splits")) {
        setCount("prefill-tp", settings->prefillTp);
        setCount("decode-tp", settings->decodeTp);
    }
    arguments.setDefault("engine", settings->engine);
    for (const auto& [option, milliseconds] : { std::pair { "slo-ttft", settings->ttftSloMilliseconds },
             std::pair { "slo-itl", settings->itlSloMilliseconds },
             std::pair { "host-time", settings->hostMilliseconds },
             std::pair { "host-time-per-request", settings->hostPerRequestMilliseconds } }) {
        if (milliseconds > 0) {
            char text[64];
            std::snprintf(text, sizeof text, "%.17gms", milliseconds);
            arguments.setDefault(option, text);
        }
    }
    if (settings->overlapHost) {
        arguments.setDefault("overlap-host", "");
    }
    if (settings->capacityPolicy != "auto") {
        arguments.setDefault("capacity-policy", settings->capacityPolicy);
    }
    setCount("max-num-seqs", settings->maxNumSeqs);
    setCount("max-num-batched-tokens", settings->maxNumBatchedTokens);
    setCount("block-size", settings->blockSize);
    if (!settings->chunkedPrefill) {
        arguments.setDefault("no-chunked-prefill", "");
    }
    // SGLang's budget is kept while another engine is chosen, greyed out in the tab and not applied, as there.
    if (settings->maxPrefillTokens > 0 && arguments.value("engine") == std::optional<std::string>("sglang")) {
        setCount("max-prefill-tokens", settings->maxPrefillTokens);
    }
    if (settings->gpuMemoryUtilization > 0) {
        setNumberDefault(arguments, "gpu-memory-utilization", settings->gpuMemoryUtilization);
    }
    if (settings->batching != "auto") {
        arguments.setDefault("batching", settings->batching);
    }
    if (settings->overlapScheduler != "auto") {
        arguments.setDefault("overlap-scheduler", settings->overlapScheduler);
    }
    applySwapDefaults(arguments, *settings);
    applySpeculationDefaults(arguments, *settings, *workspace);
}

} // namespace rapid::cli
