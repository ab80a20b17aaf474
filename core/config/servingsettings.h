// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>

namespace rapid::config {

/// The workbench's Serving tab set-up, kept with the workspace under `serving:` so that a serving study survives
/// closing the window and can be rerun from the command line: `rapid serve WORKSPACE` takes these as the defaults of
/// its options (an option given on the command line wins). Zero means "not set" wherever the option has a default
/// of its own (the run's prompt and decode lengths, the run's tp, no SLO, aggregated serving).
struct ServingSettings {
    enum class Load { Concurrency, Rate };
    Load load = Load::Concurrency; ///< closed-loop clients or Poisson requests per second
    std::string loads = "1, 2, 4, 8, 16, 32, 64"; ///< as typed: comma-separated (checked when served, not when read)
    int inputTokens = 0; ///< prompt tokens of every request; 0: run.inference.prompt_length
    int outputTokens = 0; ///< output tokens of every request; 0: run.inference.decode_length
    int requests = 0; ///< requests simulated per load; 0: rapid serve's default
    /// At a rate: the gamma shape of the arrival gaps (rapid serve --burstiness; 1: Poisson), 0.01 to 1000; kept but
    /// not applied to a closed loop, as the tab shows it greyed out.
    double burstiness = 1;
    /// The standard deviations of normally drawn prompt and output lengths around inputTokens and outputTokens
    /// (rapid serve --input-tokens-stddev, --output-tokens-stddev); 0: every request alike.
    double inputTokensStddev = 0;
    double outputTokensStddev = 0;
    /// Distinct prompts the requests are drawn from (rapid serve --prompt-pool: a benchmark's dataset entries, served
    /// from the prefix cache when sent again), 0 to 1,000,000; 0: every prompt distinct.
    int promptPool = 0;
    std::string engine = "vllm"; ///< vllm, trtllm or sglang (rapid serve --engine)
    double ttftSloMilliseconds = 0; ///< 0: no TTFT limit
    double itlSloMilliseconds = 0; ///< 0: no ITL limit
    int prefillWorkers = 0; ///< disaggregated serving when both worker counts are set
    int decodeWorkers = 0;
    int prefillTp = 0; ///< 0: run.parallelism.tp
    int decodeTp = 0;
    double hostMilliseconds = 0; ///< the engine's CPU time per iteration (rapid serve --host-time)
    double hostPerRequestMilliseconds = 0; ///< and per sequence in the iteration (--host-time-per-request)
    bool overlapHost = false; ///< the engine prepares the next iteration while the GPU runs (--overlap-host)
    /// When a waiting request may start (rapid serve --capacity-policy): auto (the engine's), max-utilization,
    /// guaranteed-no-evict or new-token-ratio.
    std::string capacityPolicy = "auto";
    /// What a preempted request's KV cache becomes (rapid serve --preemption): recompute, or swap (vLLM V0's swap to
    /// host memory; the vllm engine only).
    std::string preemption = "recompute";
    double swapSpaceGiB = 4; ///< host memory per GPU for swapped KV blocks (--swap-space), 0 to 65,536 GiB
    // The engine's scheduler knobs (rapid serve's options of the same names); 0 takes the engine's default for the
    // GPU (serving::engineDefaults).
    int maxNumSeqs = 0; ///< sequences per iteration (--max-num-seqs)
    int maxNumBatchedTokens = 0; ///< tokens per iteration (--max-num-batched-tokens; SGLang's chunked_prefill_size)
    bool chunkedPrefill = true; ///< false: every prompt in one iteration (--no-chunked-prefill)
    int blockSize = 0; ///< tokens per KV-cache block (--block-size)
    /// SGLang's max_prefill_tokens (--max-prefill-tokens); kept but not applied while another engine is chosen,
    /// as the tab shows it greyed out.
    int maxPrefillTokens = 0;
    double gpuMemoryUtilization = 0; ///< share of HBM the engine uses (--gpu-memory-utilization); 0 or 0.01 to 1
    /// Mixed or prefill-first iterations (--batching): auto (the engine's), mixed or prefill-first.
    std::string batching = "auto";
    /// Whether each batch is composed while the GPU runs the one before (--overlap-scheduler): auto (the engine's:
    /// on for TensorRT-LLM's PyTorch backend and SGLang, off for vLLM), on or off.
    std::string overlapScheduler = "auto";
    // Speculative decoding (rapid serve --speculative-tokens, --acceptance or --acceptance-length, --draft,
    // --draft-layers); the draft's
    // knobs are kept but not applied while speculativeTokens is 0.
    int speculativeTokens = 0; ///< draft tokens per verification, 0 (off) to 16
    double acceptance = -1; ///< a draft token's acceptance probability, 0 to 1; negative: not given (no default)
    /// Or the drafts' mean acceptance length, tokens per verification (1 to speculativeTokens + 1, as papers and the
    /// engines' logs report it; rapid serve --acceptance-length); negative: not given. At most one of the two is set.
    double acceptanceLength = -1;
    std::string draft = "head"; ///< head (EAGLE/MTP) or ngram (prompt lookup)
    int draftLayers = 1; ///< a draft head's decoder layers, 1 to 8

    bool operator==(const ServingSettings&) const = default;
};

/// The words of ServingSettings::engine, in the order the workbench offers them.
inline constexpr const char* kServingEngineWords[] = { "vllm", "trtllm", "sglang" };
/// The words of ServingSettings::capacityPolicy, in the order the workbench offers them.
inline constexpr const char* kCapacityPolicyWords[]
    = { "auto", "max-utilization", "guaranteed-no-evict", "new-token-ratio" };
/// The words of ServingSettings::preemption, in the order the workbench offers them.
inline constexpr const char* kPreemptionWords[] = { "recompute", "swap" };
/// The words of ServingSettings::batching, in the order the workbench offers them.
inline constexpr const char* kBatchingWords[] = { "auto", "mixed", "prefill-first" };
/// The words of ServingSettings::overlapScheduler, in the order the workbench offers them.
inline constexpr const char* kOverlapSchedulerWords[] = { "auto", "on", "off" };
/// The words of ServingSettings::draft, in the order the workbench offers them.
inline constexpr const char* kDraftWords[] = { "head", "ngram" };

} // namespace rapid::config
