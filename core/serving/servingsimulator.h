// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "servingengine.h"
#include "servingstats.h"

#include "config/configloader.h"
#include "sim/stepbackend.h"

#include <cstdint>
#include <string>

namespace rapid::serving {

/// @p options with the scheduler budgets it leaves at 0 set as its profile sets them. vLLM: as `vllm serve` (vLLM >=
/// 0.9, EngineArgs.get_batch_defaults for the OpenAI API server): 8,192 batched tokens and 1,024 sequences on a GPU of
/// 70 GiB or more that is not an A100 (H100, H200, B200), else 2,048 tokens and 256 sequences (vLLM keeps A100 low:
/// PR #17885). TensorRT-LLM: its BuildConfig defaults, max_num_tokens 8,192 and max_batch_size 2,048, on any GPU.
/// Both: gpu_memory_utilization (free_gpu_memory_fraction) 0.9. SGLang: by the GPU's memory and the replica's
/// @p modelParallelGpus (tp x pp), as its server_args sets them (servingsimulator.cpp, sglangDefaults).
EngineOptions engineDefaults(EngineOptions options, const config::GpuSpec& gpu, int modelParallelGpus);

/// @p scenario as @p profile runs it: with RunSpec::fusedAllReduceNorm where the engine fuses the model's
/// tensor-parallel all-reduces with the residual add, the next RMSNorm and its quantisation. TensorRT-LLM's PyTorch
/// backend does for Llama-architecture models (LlamaForCausalLM) wider than 4,096 at tp > 1 (modeling_llama.py,
/// LlamaDecoderLayer: PRE_MLP_FUSION and POST_MLP_FUSION, off for hidden_size <= 4096 "due to accuracy issues");
/// its Qwen3 layers do not. vLLM's fuse_allreduce_rms pass and SGLang's counterpart are not modelled: which of their
/// releases turn them on by default is not established here (docs/serving.md).
/// A TensorRT engine (EngineOptions::tensorRtEngine) does not fuse them.
config::Scenario engineScenario(config::Scenario scenario, const EngineOptions& options);

/// Records in @p options the fusions engineScenario chose for @p engineRun, for the result to report.
void recordEngineFusions(EngineOptions& options, const config::RunSpec& engineRun);

/// The GPUs one replica's model is split over (tp x pp): what SGLang's memory defaults depend on.
int modelParallelGpus(const config::Scenario& scenario);

/// The KV cache one replica's GPUs can hold, as vLLM sizes it: gpu_memory_utilization x HBM, less the weights, the
/// activations of one max_num_batched_tokens prefill and the memory outside the allocator (the memory model of the
/// scenario), divided into blocks of block_size tokens at the scenario's KV-cache precision and sharding.
struct KvCapacity {
    double bytesPerTokenPerGpu = 0; ///< one token of every layer (a sliding-window layer's too)
    KvLayout layout; ///< how the layers share the blocks
    double freeBytesPerGpu = 0; ///< for the KV cache
    double heldBytesPerGpu = 0; ///< what the engine keeps outside the KV cache in what it may use
    std::string held = "the weights, activations and runtime"; ///< what heldBytesPerGpu counts
    double usableBytesPerGpu = 0; ///< what the engine may allocate: the share of HBM it is given
    double gpuMemoryUtilization = 0; ///< as used (the engine's default when not given)
    std::int64_t blocks = 0;
};
KvCapacity kvCapacity(const config::Scenario& scenario, const EngineOptions& options);
/// Throws std::invalid_argument, saying what takes the memory and what would make room, when @p capacity leaves no
/// block for the KV cache of a @p worker ("" for an aggregated replica, "prefill" or "decode").
void requireKvRoom(const KvCapacity& capacity, const std::string& worker);
/// The KV-cache block structure of @p model: one group of every layer, or full-attention and sliding-window groups of
/// equal size.
KvLayout kvLayout(const config::ModelSpec& model);

/// Throws std::invalid_argument when a request of @p workload is shorter than one token, longer than the model's
/// context, or (without chunked prefill) longer than the token budget of @p options.
void checkServingWorkload(const config::Scenario& scenario, const WorkloadSpec& workload, const EngineOptions& options);

/// A serving simulation of a scenario: its summary over every replica and one replica's trace.
struct ServingResult {
    ServingSummary summary;
    ServingTrace trace; ///< of one replica
    EngineOptions options; ///< as used (kvBlocks derived when it was 0)
    KvCapacity capacity;
};

/// Serves @p workload on @p scenario (an inference run): its data-parallel replicas share the clients (closed loop),
/// the arrival rate (Poisson) and the requests as replicaShares deals them, one replica of each distinct share is
/// simulated and the summary weighs each by the replicas it stands for; the result's trace is the busiest replica's.
/// Throws std::invalid_argument, naming the knob, for a workload the replicas cannot share without changing it, a
/// request beyond the model's context or the KV cache, or no room for a KV cache.
ServingResult simulateServing(const config::Scenario& scenario, WorkloadSpec workload, EngineOptions options,
    const ServingSlo& slo = {}, sim::NetworkBackend backend = sim::NetworkBackend::Analytical);

} // namespace rapid::serving
