// SPDX-License-Identifier: GPL-3.0-or-later
// rapid serve's options for the workload's random parts (core/serving's WorkloadSpec): how open-loop arrivals are
// spaced, how lengths spread and which prompts repeat.
#include "workloaddraws.h"

#include "clioutput.h"

namespace rapid::cli {

std::vector<Arguments::Option> withWorkloadDrawOptions(std::vector<Arguments::Option> options)
{
    const std::vector<Arguments::Option> draws {
        { "burstiness", "K",
            "with --rate: gamma-distributed gaps of shape K, mean 1/R (vLLM's benchmark --burstiness): 1 is Poisson "
            "(default), below 1 burstier, above 1 more even; 0.01 to 1000",
            false },
        { "input-tokens-stddev", "N",
            "prompt lengths drawn from a normal distribution of this standard deviation around --input-tokens, "
            "rounded, drawn again below 1 or the shared prefix (genai-perf's --synthetic-input-tokens-stddev; default "
            "0: all alike)",
            false },
        { "output-tokens-stddev", "N",
            "output lengths drawn likewise around --output-tokens (genai-perf's --output-tokens-stddev; default 0)",
            false },
        { "prompt-pool", "N",
            "each request sends one of N distinct prompts, drawn at random (aiperf's and genai-perf's "
            "--num-dataset-entries, 100 there by default): a prompt sent before is served from the prefix cache while "
            "it stays cached; its lengths are drawn once (default 0: every prompt distinct)",
            false },
    };
    options.insert(options.end(), draws.begin(), draws.end());
    return options;
}

void readWorkloadDraws(const Arguments& arguments, serving::WorkloadSpec& workload)
{
    workload.promptTokensStddev = boundedNumber(arguments, "input-tokens-stddev", 0, 0.0, serving::kMaxTokensStddev);
    workload.outputTokensStddev = boundedNumber(arguments, "output-tokens-stddev", 0, 0.0, serving::kMaxTokensStddev);
    if (arguments.value("trace") && (workload.promptTokensStddev > 0 || workload.outputTokensStddev > 0)) {
        throw UsageError("--input-tokens-stddev and --output-tokens-stddev: a trace gives every request's lengths");
    }
    workload.promptPool = static_cast<int>(boundedInteger(arguments, "prompt-pool", 0, 0, serving::kMaxPromptPool));
    if (workload.promptPool > 0 && arguments.value("trace")) {
        throw UsageError("--prompt-pool: a trace names the prompts its requests share (prefix_id); expected "
                         "--concurrency or --rate with it");
    }
    if (workload.promptPool > 0 && workload.sharedPrefixTokens > 0) {
        throw UsageError("--prompt-pool and --shared-prefix: pooled prompts are shared whole; give one of them");
    }
    if (arguments.value("burstiness") && !arguments.value("rate")) {
        throw UsageError("--burstiness: the gaps of open-loop arrivals; expected --rate with it");
    }
    workload.burstiness = boundedNumber(arguments, "burstiness", 1, serving::kMinBurstiness, serving::kMaxBurstiness);
}

} // namespace rapid::cli
