// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Which GEMM math can read weights kept in a weight-only format: the one rule the config checks, the GEMM model and
// `rapid gemm` share.

#include "hardwarespec.h"

namespace rapid::config {

/// Whether a GEMM computing in @p math on a GPU of @p architecture reads weights stored in the weight-only @p stored
/// format (isWeightOnlyFormat): W4A16 kernels dequantise them in registers and multiply in bf16 or fp16; MXFP4 also
/// goes as it is beside FP8 (MXFP8) activations on Blackwell, whose block-scaled MMA (tcgen05 kind f8f6f4) multiplies
/// E2M1 with E4M3 at the FP8 rate (TensorRT-LLM's gpt-oss MoE on Blackwell).
inline bool readsWeightOnlyFormat(Precision math, Precision stored, GpuArchitecture architecture)
{
    return math == Precision::Bf16 || math == Precision::Fp16
        || (stored == Precision::Mxfp4 && math == Precision::Fp8 && architecture == GpuArchitecture::Blackwell);
}

} // namespace rapid::config
