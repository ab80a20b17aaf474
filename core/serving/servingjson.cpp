// SPDX-License-Identifier: GPL-3.0-or-later
#include "servingjson.h"

#include "speculation.h"

#include <ostream>

namespace rapid::serving {

namespace {

report::Json statsJson(const LatencyStats& stats)
{
    return { { "mean", stats.mean }, { "p50", stats.p50 }, { "p90", stats.p90 }, { "p99", stats.p99 },
        { "max", stats.max } };
}

} // namespace

report::Json servingSummaryJson(const ServingSummary& summary)
{
    report::Json json;
    json["requests"] = summary.requests;
    json["replicas"] = summary.replicas;
    json["gpus"] = summary.gpus;
    json["ttft_s"] = statsJson(summary.ttft);
    json["itl_s"] = statsJson(summary.itl);
    json["e2e_s"] = statsJson(summary.e2e);
    json["duration_s"] = summary.durationSeconds;
    json["requests_per_s"] = summary.requestsPerSecond;
    json["output_tokens_per_s"] = summary.outputTokensPerSecond;
    json["output_tokens_per_s_per_gpu"] = summary.outputTokensPerSecondPerGpu;
    json["output_tokens_per_s_per_user"] = summary.outputTokensPerSecondPerUser;
    json["slo_attainment"] = summary.sloAttainment;
    json["goodput_requests_per_s"] = summary.goodputRequestsPerSecond;
    json["preemptions"] = summary.preemptions;
    json["swap_outs"] = summary.swapOuts;
    json["swap_seconds_per_replica"] = summary.swapSeconds;
    json["iterations_per_replica"] = summary.iterations;
    json["mean_batched_tokens"] = summary.meanBatchedTokens;
    json["peak_kv_occupancy"] = summary.peakKvOccupancy;
    json["prefix_cache_hit_rate"] = summary.prefixCacheHitRate;
    return json;
}

namespace {

/// Speculative decoding as used; null when off.
report::Json speculativeJson(const SpeculativeDecoding& speculative)
{
    if (!speculative.enabled()) {
        return nullptr;
    }
    return { { "draft_tokens", speculative.draftTokens }, { "acceptance", speculative.acceptance },
        { "draft", toString(speculative.method) }, { "draft_layers", speculative.headLayers() },
        { "mean_tokens_per_verification",
            meanTokensPerVerification(speculative.draftTokens, speculative.acceptance) } };
}

} // namespace

report::Json engineJson(const EngineOptions& options, const KvCapacity& capacity)
{
    return { { "profile", toString(options.profile) }, { "max_num_seqs", options.maxNumSeqs },
        { "max_num_batched_tokens", options.maxNumBatchedTokens }, { "chunked_prefill", options.chunkedPrefill },
        { "block_size", options.blockSize },
        { "max_prefill_tokens",
            options.profile == EngineProfile::Sglang ? report::Json(options.maxPrefillTokens) : report::Json(nullptr) },
        { "gpu_memory_utilization", options.gpuMemoryUtilization }, { "kv_blocks_per_replica", options.kvBlocks },
        { "kv_bytes_per_token_per_gpu", capacity.bytesPerTokenPerGpu },
        { "kv_full_attention_groups", options.kvLayout.fullGroups },
        { "kv_sliding_window_groups", options.kvLayout.windowedGroups },
        { "kv_window_tokens", options.kvLayout.windowTokens },
        { "host_seconds_per_iteration", options.host.perIterationSeconds },
        { "host_seconds_per_request", options.host.perRequestSeconds }, { "host_overlapped", options.host.overlapped },
        { "capacity_policy", toString(options.capacityPolicy) }, { "batching", toString(options.batching) },
        { "overlap_scheduling", toString(options.overlapScheduling) }, { "tensorrt_engine", options.tensorRtEngine },
        { "allreduce_fused_with_norm", options.allReduceFused },
        { "allreduce_fused_quantises", options.allReduceQuantises },
        { "residual_add_fused_with_norm", options.residualNormFused }, { "moe_runner_fused", options.moeRunnerFused },
        { "speculative", speculativeJson(options.speculative) }, { "preemption", toString(options.preemption) },
        { "swap_space_bytes_per_gpu",
            options.preemption == Preemption::Swap ? report::Json(options.swapSpaceBytes) : report::Json(nullptr) },
        { "swap_blocks_per_replica",
            options.preemption == Preemption::Swap ? report::Json(options.swap.hostBlocks) : report::Json(nullptr) } };
}

report::Json servingJson(const ServingResult& result)
{
    report::Json json = servingSummaryJson(result.summary);
    json["engine"] = engineJson(result.options, result.capacity);
    return json;
}

void writeRequestCsv(std::ostream& out, const ServingTrace& trace)
{
    out << "id,arrival_s,input_tokens,output_tokens,ttft_s,itl_s,e2e_s,preemptions\n";
    out.precision(9);
    for (const RequestRecord& request : trace.requests) {
        out << request.id << ',' << request.arrivalSeconds << ',' << request.promptTokens << ',' << request.outputTokens
            << ',' << request.ttft() << ',' << request.itl() << ',' << request.e2e() << ',' << request.preemptions
            << '\n';
    }
}

void writeIterationCsv(std::ostream& out, const ServingTrace& trace)
{
    out << "end_s,kv_blocks_used,kv_blocks,running,waiting,swapped,batched_tokens,preemptions\n";
    out.precision(9);
    for (const OccupancySample& sample : trace.iterations) {
        out << sample.seconds << ',' << sample.usedBlocks << ',' << trace.kvBlocks << ',' << sample.running << ','
            << sample.waiting << ',' << sample.swapped << ',' << sample.batchedTokens << ',' << sample.preemptions
            << '\n';
    }
}

} // namespace rapid::serving
