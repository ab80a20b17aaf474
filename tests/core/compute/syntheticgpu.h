// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/hardwarespec.h"
#include "model/operator.h"

#include <cstdint>

namespace rapid::test {

/// Round numbers for hand-derived operator times: 4 SMs, 4 TFLOP/s bf16 tensor (1 TFLOP/s per SM), 1 TFLOP/s vector
/// FP32, HBM 1 TB/s (read and write alike), on-chip memory so fast that it never limits, 5 us per kernel launch, DRAM
/// latency unknown (0: no latency bound).
inline config::GpuSpec syntheticGpu()
{
    config::GpuSpec gpu;
    gpu.name = "synthetic";
    gpu.smCount = 4;
    gpu.clockHz = 1e9;
    gpu.tensorFlops[static_cast<int>(config::Precision::Bf16)] = 4e12;
    gpu.vectorFp32Flops = 1e12;
    gpu.hbmBandwidth = 1e12;
    gpu.l2Bytes = 1 << 30;
    gpu.l2Bandwidth = 1e18;
    gpu.sharedMemPerSmBytes = 228 * 1024;
    gpu.kernelLaunchSeconds = 5e-6;
    return gpu;
}

/// Attention of @p batch sequences, @p heads query heads on @p kvHeads KV heads, @p queries against @p keys each,
/// head dimension @p d for queries, keys and values.
inline model::AttentionDims attentionDims(std::int64_t batch, std::int64_t heads, std::int64_t kvHeads,
    std::int64_t queries, std::int64_t keys, std::int64_t d, bool causal)
{
    model::AttentionDims result;
    result.batch = batch;
    result.heads = heads;
    result.kvHeads = kvHeads;
    result.queryLength = queries;
    result.keyLength = keys;
    result.headDimQk = d;
    result.headDimV = d;
    result.causal = causal;
    return result;
}

} // namespace rapid::test
