// SPDX-License-Identifier: GPL-3.0-or-later
#include "serveoptions.h"

#include "clioutput.h"

#include "config/units.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
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
    options.prefixCaching = !arguments.flag("no-prefix-caching");
    options.blockSize = static_cast<int>(boundedInteger(arguments, "block-size", options.blockSize, 1, 4096));
    options.gpuMemoryUtilization
        = boundedNumber(arguments, "gpu-memory-utilization", options.gpuMemoryUtilization, 0.01, 1.0);
    options.kvBlocks = boundedInteger(arguments, "kv-blocks", 0, 0, 1'000'000'000'000LL);
    if (const auto given = arguments.value("capacity-policy")) {
        // TensorRT-LLM's own spelling (GUARANTEED_NO_EVICT) names the same policy.
        std::string policy = *given;
        std::transform(policy.begin(), policy.end(), policy.begin(),
            [](unsigned char c) { return c == '_' ? '-' : static_cast<char>(std::tolower(c)); });
        if (policy == "guaranteed-no-evict") {
            options.capacityPolicy = serving::CapacityPolicy::GuaranteedNoEvict;
        } else if (policy == "max-utilization") {
            options.capacityPolicy = serving::CapacityPolicy::MaxUtilization;
        } else if (policy == "new-token-ratio") {
            options.capacityPolicy = serving::CapacityPolicy::NewTokenRatio;
        } else {
            throw UsageError("--capacity-policy \"" + *given
                + "\": expected max-utilization, guaranteed-no-evict or new-token-ratio");
        }
    }
    if (const auto batching = arguments.value("batching")) {
        if (*batching != "mixed" && *batching != "prefill-first") {
            throw UsageError("--batching \"" + *batching + "\": expected mixed or prefill-first");
        }
        options.batching = *batching == "mixed" ? serving::Batching::Mixed : serving::Batching::PrefillFirst;
    }
    options.host.perIterationSeconds = duration(arguments, "host-time", 3600, true);
    options.host.perRequestSeconds = duration(arguments, "host-time-per-request", 3600, true);
    options.host.overlapped = arguments.flag("overlap-host");
    return options;
}

/// The engine's host cost for the summary's engine line; nothing when none is charged.
std::string hostCostText(const serving::HostCost& host)
{
    if (host.perIterationSeconds == 0 && host.perRequestSeconds == 0) {
        return {};
    }
    char text[160];
    std::snprintf(text, sizeof text, "; host %.3f ms per iteration + %.3f ms per sequence, %s",
        host.perIterationSeconds * 1e3, host.perRequestSeconds * 1e3,
        host.overlapped ? "overlapped with the GPU" : "in step with the GPU");
    return text;
}

} // namespace rapid::cli
