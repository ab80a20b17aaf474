// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rapid::serving {

/// Whose defaults an engine takes where a knob is left unset, and how it forms a batch (docs/serving.md gives the
/// sources). vLLM V1 and TensorRT-LLM mix decodes and prompt chunks in one iteration, decodes first; SGLang runs a
/// batch of prompt chunks alone whenever one can be formed and decodes only when none can (no mixed chunks by default).
enum class EngineProfile {
    Vllm, ///< `vllm serve`: budgets by GPU, KV cache = gpu_memory_utilization x HBM less the rest
    TrtLlm, ///< TensorRT-LLM: BuildConfig budgets, KV cache = free_gpu_memory_fraction x the memory left free
    Sglang, ///< `sglang.launch_server`: chunked_prefill_size by GPU memory, mem_fraction_static by memory and tp x pp
};
const char* toString(EngineProfile profile);

/// When a waiting request may start, given the paged KV cache (TensorRT-LLM's names, its SchedulerConfig).
/// MaxUtilization: a request starts when the blocks of what it computes next are free (vLLM V1, SGLang, TensorRT-LLM's
/// MAX_UTILIZATION); when decodes later run out of blocks the last admitted request is preempted and recomputed.
/// GuaranteedNoEvict (TensorRT-LLM's default): a request starts only when the blocks of its whole prompt and output
/// fit beside what every running request will still need at its end, in arrival order (the first that does not fit
/// holds the rest back); a started request is never preempted. NewTokenRatio (SGLang's): a request starts when its
/// prompt and output (at most 4,096 tokens of it) fit the free blocks less a share of what the running requests have
/// still to generate; the share starts at 0.7, shrinks by (0.7 - 0.098) / 600 per decode iteration to 0.098, rises
/// again after a preemption and starts over when the engine goes idle. Auto: the profile's (capacityPolicyOf).
enum class CapacityPolicy { Auto, MaxUtilization, GuaranteedNoEvict, NewTokenRatio };
const char* toString(CapacityPolicy policy);

/// What happens to a preempted request's KV cache. Recompute (vLLM V1's only mode, SGLang's retraction, the default):
/// its blocks are freed and computed again from its prompt and the tokens it has produced when it runs again. Swap
/// (vLLM V0's `--preemption-mode swap`): its blocks are copied to the host's swap space (`--swap-space`, GiB per GPU)
/// and back when it resumes, one cudaMemcpyAsync per block of each layer's K and V cache (csrc/cache_kernels.cu,
/// swap_blocks) on the stream the next forward pass runs on; a swapped request resumes before any waiting request
/// starts, once nothing was preempted in the pass (the order of V0's chunked-prefill scheduler), and the engine aborts
/// when the swap space is full (V0: "Aborted due to the lack of CPU swap space").
enum class Preemption { Recompute, Swap };
const char* toString(Preemption preemption);
/// The largest swap space per GPU an input may give, GiB (64 TiB: beyond any host's memory).
constexpr double kMaxSwapSpaceGiB = 65536;

/// How fast KV-cache blocks move between one GPU's HBM and the host (set from the scenario by simulateServing): the
/// time of n blocks is the longer of the copies' submission (n x copiesPerBlock calls of perCopySeconds each, issued
/// back to back by one host thread) and the bytes at the copy engine's measured rate (the GPU preset's host_link).
struct SwapLink {
    double bytesPerBlock = 0; ///< one block of one layer group on one GPU
    double copiesPerBlock = 0; ///< memcpy calls per block: one per layer of its group on the GPU and per K or V tensor
    double toDeviceBytesPerSecond = 0;
    double fromDeviceBytesPerSecond = 0;
    double perCopySeconds = 0; ///< host cost of submitting one copy
    std::int64_t hostBlocks = 0; ///< blocks the swap space holds
    /// Seconds to copy @p blocks blocks to the GPU (@p toDevice) or from it.
    double seconds(std::int64_t blocks, bool toDevice) const;
    bool operator==(const SwapLink&) const = default;
};

/// How an iteration's batch is formed. Mixed (vLLM V1, TensorRT-LLM, SGLang with --enable-mixed-chunk): the running
/// requests' decodes and unfinished prompt chunks first, new prompts in what is left of the token budget, all in one
/// iteration. PrefillFirst (SGLang's default): a batch of prompt chunks runs alone whenever one can be formed, the
/// running requests decode only in iterations where none can. Auto: the profile's (batchingOf).
enum class Batching { Auto, Mixed, PrefillFirst };
const char* toString(Batching batching);

/// Whether the engine composes an iteration's batch while the GPU runs the one before (TensorRT-LLM's overlap
/// scheduler, on by default in its PyTorch backend, `disable_overlap_scheduler`; SGLang's overlap schedule, on by
/// default since 0.4, `--disable-overlap-schedule`): the batch then holds only the requests that had arrived when the
/// previous iteration started, and a request that sampled its last token runs one more (discarded) decode step before
/// its blocks are freed. Off: the batch is composed after the previous iteration's outputs (vLLM V1 without async
/// scheduling, TensorRT-LLM's C++ runtime for TensorRT engines). Auto: the profile's (overlapSchedulingOf).
enum class OverlapScheduling { Auto, Off, On };
const char* toString(OverlapScheduling overlap);

/// How a model's layers share the paged KV cache (vLLM's hybrid KV-cache manager): layers are grouped so that every
/// group has the same number of layers, a block holds blockSize tokens of one group, and a sliding-window group keeps
/// only the blocks its window still reads. Full attention everywhere is one group of all layers.
struct KvLayout {
    int fullGroups = 1; ///< groups of full-attention layers
    int windowedGroups = 0; ///< groups of sliding-window layers
    std::int64_t windowTokens = 0; ///< the sliding window (with windowedGroups > 0)

    bool operator==(const KvLayout&) const = default;
};

/// The engine's CPU work per iteration, which the GPU model does not see: scheduling, building the next batch's inputs,
/// the host side of sampling and the processing of outputs (detokenisation, streaming to clients). It grows with the
/// requests in the batch. An engine that runs it in step with the GPU (vLLM V0, SGLang without its overlap
/// scheduler) adds it to every iteration; one that prepares iteration i + 1 while the GPU runs iteration i (SGLang's
/// overlap scheduler, vLLM V1's async scheduling) exposes only what exceeds the GPU time of the iteration before, and
/// all of it after the engine sat idle. No engine publishes these times for its current version: they are 0 unless
/// stated (docs/serving.md lists the published measurements a user can state).
struct HostCost {
    double perIterationSeconds = 0; ///< per iteration
    double perRequestSeconds = 0; ///< per sequence the iteration computes
    bool overlapped = false; ///< prepared while the GPU runs the previous iteration
    bool operator==(const HostCost&) const = default;
};

/// How a speculative decoder drafts the tokens its target model verifies.
enum class DraftMethod {
    /// A draft head on the target's hidden states (EAGLE, DeepSeek-V3's MTP module): SpeculativeDecoding::draftLayers
    /// decoder layers of the target's shape (the type of its last layer) with the target's LM head, run once per draft
    /// token over the decoding requests, the first pass over every token the target computed in the iteration.
    Head,
    /// Prompt lookup (vLLM's n-gram proposer): drafts matched in the request's own tokens on the CPU, no GPU work.
    Ngram,
};
const char* toString(DraftMethod method);

/// Speculative decoding (Leviathan et al., "Fast Inference from Transformers via Speculative Decoding", ICML 2023;
/// vLLM's, SGLang's and TensorRT-LLM's EAGLE, MTP and n-gram drafts): a decoding request's iteration computes its
/// last sampled token and draftTokens drafted ones in one target pass (queries against its KV cache), keeps the drafts
/// up to the first one the target rejects and samples one token after them, so it yields 1 to draftTokens + 1
/// tokens. Each draft is accepted with probability `acceptance` when those before it were (i.i.d., as that paper's
/// analysis), drawn per request and iteration from `seed`: on average (1 - a^(k + 1)) / (1 - a) tokens per
/// iteration. Drafts never go past a request's output; rejected drafts' KV slots are freed.
struct SpeculativeDecoding {
    int draftTokens = 0; ///< k per decoding request and iteration; 0: off
    double acceptance = 0; ///< a: chance a draft token is accepted when those before it were, 0 to 1
    DraftMethod method = DraftMethod::Head;
    int draftLayers = 1; ///< Head: decoder layers of the draft (EAGLE and DeepSeek-V3's MTP: 1)
    std::uint64_t seed = 1; ///< of the acceptance draws (simulateServing sets the workload's)

    bool enabled() const { return draftTokens > 0; }
    /// Decoder layers the draft adds to the model's weights, KV cache and passes (0 for prompt lookup).
    int headLayers() const { return enabled() && method == DraftMethod::Head ? draftLayers : 0; }
    bool operator==(const SpeculativeDecoding&) const = default;
};

/// The mean tokens one verification yields with @p draftTokens drafts accepted with probability @p acceptance each:
/// sum over i = 0..k of a^i = (1 - a^(k + 1)) / (1 - a) (k + 1 when a = 1).
double meanTokensPerVerification(int draftTokens, double acceptance);
/// The per-draft acceptance whose mean tokens per verification with @p draftTokens drafts is @p meanLength (the
/// "acceptance length" EAGLE's and the engines' reports give): the inverse of meanTokensPerVerification, which rises
/// with the acceptance from 1 to draftTokens + 1. Throws std::invalid_argument for draft tokens below 1 or a length
/// outside 1 to draftTokens + 1.
double acceptanceForMeanLength(int draftTokens, double meanLength);

/// The scheduler knobs of a continuous-batching engine, with vLLM V1's defaults (docs/serving.md gives the sources).
/// maxNumSeqs and maxNumBatchedTokens of 0 take the profile's default for the GPU (engineDefaults).
struct EngineOptions {
    EngineProfile profile = EngineProfile::Vllm;
    int maxNumSeqs = 0; ///< sequences in one iteration (vLLM max_num_seqs); 0: the GPU's default
    int maxNumBatchedTokens
        = 0; ///< tokens computed in one iteration (vLLM max_num_batched_tokens); 0: the GPU's default
    bool chunkedPrefill = true; ///< split a prompt over iterations to fit the token budget (vLLM V1: always on)
    /// Tokens per KV-cache block; 0: the profile's default (engineDefaults): vLLM's block_size 16, TensorRT-LLM's
    /// tokens_per_block 32, SGLang's page_size 1.
    int blockSize = 0;
    /// SGLang only: max_prefill_tokens, the prompt tokens one scheduling pass may admit besides its chunk limit
    /// (maxNumBatchedTokens, SGLang's chunked_prefill_size): a prompt beyond what is left of it waits for the next
    /// pass unless the batch has no prompt yet. 0: SGLang's 16,384 (engineDefaults; other profiles: none).
    int maxPrefillTokens = 0;
    /// vLLM: share of HBM the engine may use (gpu_memory_utilization, 0.9); TensorRT-LLM: share of the memory left
    /// after weights and activations that the KV cache takes (free_gpu_memory_fraction, 0.9); SGLang: share of HBM
    /// for weights and KV cache (mem_fraction_static). 0: the profile's default (engineDefaults).
    double gpuMemoryUtilization = 0;
    /// Blocks kept free when admitting a new request, as a share of all blocks (vLLM's watermark, 0.01).
    double watermark = 0.01;
    HostCost host; ///< CPU time per iteration outside the GPU model (none by default)
    /// TensorRT-LLM only: the model runs as a TensorRT engine built by trtllm-build (the default before TensorRT-LLM
    /// 1.0, and NIM's prebuilt engines) instead of the PyTorch backend (the default since 1.0). The engine fuses the
    /// all-reduce with the residual add and RMSNorm only when built with reduce_fusion (off by default); the PyTorch
    /// backend does by default for Llama models (serving::engineScenario).
    bool tensorRtEngine = false;
    /// SGLang only: a release before v0.5.3, whose mem_fraction_static leaves a fixed reserve by GPU memory and
    /// tp x pp (server_args.py at v0.5.1) instead of the current heuristic sized from chunked_prefill_size and
    /// cuda_graph_max_bs (since PR #10975, 2025-09-27; engineDefaults).
    bool sglangBeforeV053 = false;
    /// As used (set by the simulation, like kvBlocks; serving::engineScenario): the model's tensor-parallel
    /// all-reduces carry the residual add and the next RMSNorm, and with allReduceQuantises that norm's output cast
    /// for the next FP8 or NVFP4 GEMM; residualNormFused: the engine's RMSNorm kernel adds the residual itself;
    /// moeRunnerFused: the routed experts run as trtllm-gen's MoE runner (config::RunSpec::fusedMoeRunner).
    bool allReduceFused = false;
    bool allReduceQuantises = false;
    bool residualNormFused = false;
    bool moeRunnerFused = false;
    CapacityPolicy capacityPolicy = CapacityPolicy::Auto; ///< admission against the KV cache
    Batching batching = Batching::Auto; ///< mixed or prefill-first iterations
    OverlapScheduling overlapScheduling = OverlapScheduling::Auto; ///< batch composed one iteration ahead
    /// Automatic prefix caching (vLLM V1: on by default): full KV blocks of a prompt prefix another request already
    /// computed are reused, not recomputed, and held once.
    bool prefixCaching = true;
    /// KV-cache blocks per data-parallel replica; 0 = derived from the GPU memory (ServingSimulator does it).
    std::int64_t kvBlocks = 0;
    /// The block structure of the model's KV cache (set from the model by simulateServing).
    KvLayout kvLayout;
    SpeculativeDecoding speculative; ///< off by default
    Preemption preemption = Preemption::Recompute;
    /// Host memory per GPU for swapped KV blocks (vLLM's swap_space, 4 GiB by default); used with Preemption::Swap.
    double swapSpaceBytes = 4.0 * 1024 * 1024 * 1024;
    /// As used (set by the simulation, like kvBlocks): the host link and swap space in blocks.
    SwapLink swap;
    bool operator==(const EngineOptions&) const = default;
};

/// @p options' capacity policy, Auto resolved by the profile: TensorRT-LLM's SchedulerConfig defaults to
/// GUARANTEED_NO_EVICT, SGLang's scheduler admits by its new_token_ratio, vLLM by the blocks free now.
inline CapacityPolicy capacityPolicyOf(const EngineOptions& options)
{
    if (options.capacityPolicy != CapacityPolicy::Auto) {
        return options.capacityPolicy;
    }
    switch (options.profile) {
    case EngineProfile::TrtLlm:
        return CapacityPolicy::GuaranteedNoEvict;
    case EngineProfile::Sglang:
        return CapacityPolicy::NewTokenRatio;
    case EngineProfile::Vllm:
        break;
    }
    return CapacityPolicy::MaxUtilization;
}

/// @p options' batching, Auto resolved by the profile: SGLang runs prefill batches alone (enable_mixed_chunk off by
/// default); vLLM V1 and TensorRT-LLM mix them with decodes.
inline Batching batchingOf(const EngineOptions& options)
{
    if (options.batching != Batching::Auto) {
        return options.batching;
    }
    return options.profile == EngineProfile::Sglang ? Batching::PrefillFirst : Batching::Mixed;
}

/// @p options' overlap scheduling, Auto resolved by the profile: on for TensorRT-LLM's PyTorch backend and SGLang, off
/// for vLLM V1 and for TensorRT engines (the C++ executor has no overlap scheduler).
inline bool overlapSchedulingOf(const EngineOptions& options)
{
    if (options.overlapScheduling != OverlapScheduling::Auto) {
        return options.overlapScheduling == OverlapScheduling::On;
    }
    return (options.profile == EngineProfile::TrtLlm && !options.tensorRtEngine)
        || options.profile == EngineProfile::Sglang;
}

/// How requests arrive.
enum class ArrivalKind {
    ClosedLoop, ///< a fixed number of clients, each sending its next request when the previous one completes
    Poisson, ///< open loop at a mean rate: exponential inter-arrival times, or gamma ones (WorkloadSpec::burstiness)
    Trace, ///< replay of given arrival times and lengths
};

/// One request as the workload issues it.
struct RequestSpec {
    double arrivalSeconds = 0; ///< ignored in a closed loop (set when a client sends it)
    std::int64_t promptTokens = 0;
    std::int64_t outputTokens = 0;
    int prefixId = -1; ///< requests of one id share the first WorkloadSpec::sharedPrefixTokens prompt tokens; -1: none
};

/// The ranges an input may give the workload's random draws: the arrivals' burstiness (gamma shape) and the lengths'
/// standard deviations, in tokens (rapid serve's options, the Serving tab's fields and checkServingWorkload share
/// them; the workspace reader mirrors them, config being below serving).
constexpr double kMinBurstiness = 0.01;
constexpr double kMaxBurstiness = 1000;
constexpr double kMaxTokensStddev = 1e7;
/// The most distinct prompts a workload may draw its requests from (WorkloadSpec::promptPool).
constexpr int kMaxPromptPool = 1'000'000;

/// The workload: how many requests, how they arrive and how long they are.
struct WorkloadSpec {
    ArrivalKind arrival = ArrivalKind::ClosedLoop;
    int concurrency = 1; ///< clients of a closed loop
    /// Closed loop: client i sends its first request at i x rampSeconds / concurrency instead of all at once (aiperf's
    /// --concurrency-ramp-duration); 0: a burst at time 0.
    double rampSeconds = 0;
    /// The first requests (by id) leave the statistics out: the benchmark's warm-up (aiperf --warmup-request-count).
    int warmupRequests = 0;
    double ratePerSecond = 1; ///< mean arrival rate of a Poisson workload
    /// Open loop: the shape k of the gamma distribution the inter-arrival times follow, their mean 1 / rate whatever
    /// k (vLLM's benchmark_serving --burstiness): 1 is Poisson (exponential gaps), below 1 burstier, above 1 more even
    /// (the gaps' coefficient of variation is 1 / sqrt(k)).
    double burstiness = 1;
    /// Open loop: this workload is the share of a stream `thinning` times its rate that a data-parallel deployment
    /// deals to one replica, each request at random (replicaShares); a gap is then the sum of a geometric number
    /// (mean `thinning`) of the stream's gamma gaps. 1: the stream itself.
    int thinning = 1;
    std::uint64_t seed = 1; ///< of the arrival draws and, from a stream of its own, the length draws
    int requests = 1; ///< requests to simulate (closed loop and Poisson)
    std::int64_t promptTokens = 128; ///< every request's prompt, or their mean (closed loop and Poisson)
    std::int64_t outputTokens = 128; ///< every request's output, or their mean (closed loop and Poisson)
    /// Closed loop and open loop: the standard deviations of normally distributed prompt and output lengths around
    /// promptTokens and outputTokens (genai-perf's and aiperf's --synthetic-input-tokens-stddev and
    /// --output-tokens-stddev), each draw rounded to whole tokens and drawn again when below its least length (a
    /// prompt: 1 and the shared prefix; an output: 1). 0: every request has the mean lengths.
    double promptTokensStddev = 0;
    double outputTokensStddev = 0;
    /// Prompt tokens requests of one prefix id share (a system prompt): every request of a closed loop or Poisson
    /// workload, and the trace's requests with the same prefix_id. 0: no shared prefix.
    std::int64_t sharedPrefixTokens = 0;
    /// Closed loop and open loop: the distinct prompts the requests are drawn from, each request one of them at random
    /// (aiperf's and genai-perf's --num-dataset-entries, 100 there by default: a benchmark sends its entries again
    /// until it has sent its requests). Requests of one prompt share all of it but its last token, which the prefix
    /// cache serves once one of them has computed it and while its blocks stay cached; each prompt's input and output
    /// lengths are drawn once (with the standard deviations above). 0: every request's prompt its own.
    int promptPool = 0;
    std::vector<RequestSpec> trace; ///< the requests of a Trace workload, by arrival time
};

} // namespace rapid::serving
