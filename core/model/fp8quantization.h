// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/runspec.h"
#include "model/operator.h"

namespace rapid::model {

/// HBM bytes the FP8 casts around one GEMM move (y = x W, x: m x k, W: k x n, per batch entry). An FP8 GEMM reads
/// operands that something has to quantise first; these memory-bound kernels are what makes FP8 training slower than
/// twice BF16. Per cast of e high-precision elements (h bytes each) into FP8 (f bytes):
/// - dynamic scaling (tensorwise, rowwise; torchao Float8Linear, `hp_tensor_to_float8_dynamic`): an amax reduction
///   pass (reads e h) and a scale-and-cast pass (reads e h, writes e f), two kernels even under torch.compile since
///   the amax must be complete before the first element is cast;
/// - blockwise (MXFP8: one shared scale per 32 elements, OCP MX specification v1.0) and delayed scaling (Transformer
///   Engine: the scale comes from the amax history of earlier steps, the amax of this one is taken in the same pass):
///   one pass reading e h and writing e f (plus one scale byte per 32 elements for MXFP8);
/// - static (inference): the per-tensor scale of each GEMM input was calibrated offline and ships with the checkpoint
///   (NVIDIA TensorRT Model Optimizer's FP8 checkpoints: `input_scale` beside every quantised linear), so serving
///   engines quantise x in one pass (vLLM's static `scaled_fp8_quant`, TensorRT-LLM's and SGLang's FP8 linears):
///   reads e h, writes e f; no amax;
/// - block128 (DeepSeek-V3 technical report, section 3.3.2, "fine-grained quantization"; Transformer Engine's
///   Float8BlockScaling): activations and gradients in 1 x 128 tiles, weights in 128 x 128 blocks, each with an fp32
///   scale from its own amax: one pass, e h + e f plus 4 B per 128 elements (per 16,384 for weights).
/// Which operands are cast (torchao float8/float8_linear.py, `manual_float8_matmul_with_args_in_hp` and
/// `..._in_float8`; Transformer Engine's fused cast-transpose):
/// - forward: x (m k) and W (k n), W skipped when the weights are stored in FP8 already (FP8 inference checkpoints);
/// - backward, tensorwise and delayed: dy (m n) once: the FP8 x and W of the forward are saved and reused, and one
///   tensor scale serves both layouts;
/// - backward, rowwise and blockwise: the scales follow the reduction dimension, so dy is cast twice (along each
///   axis) and W and x again along their other axis: 2 m n + k n + m k; block128 the same but W, whose square blocks
///   serve both layouts: 2 m n + m k.
///
/// torchao's tensorwise Float8Linear (manual_float8_matmul_with_args_in_float8) saves the FP8 x and W of the forward
/// and hands Float8Tensors to aten.mm, whose handler gives _scaled_mm the row-major first and column-major second
/// operand it requires by copying whatever is not (torchao float8/float8_ops.py, preprocess_addmm): the forward's
/// operands are already so, the backward's are not: W for dx = dy W^T, dy^T and x for dW = dy^T x. Each copy reads
/// and writes one byte per element (with @p torchao: m n + k n + m k elements, three kernels). Transformer Engine's
/// cast-transpose kernels write both layouts in the cast itself.
///
/// torchao's rowwise backward GEMMs run without fast accumulation, and PyTorch's rowwise CUTLASS kernel is "so slow
/// without fast-accum" that torchao runs them as tensorwise cuBLAS GEMMs with unit scales and multiplies the output by
/// the outer product of the row and column scales afterwards (`addmm_float8_unwrapped` in float8/float8_python_api.py,
/// pytorch/ao#1325, 2024-11; Float8LinearConfig's grad_input and grad_weight GEMMs keep use_fast_accum false): one more
/// element-wise kernel per backward GEMM even under torch.compile (pytorch/ao#2184, 2025-05), reading and writing dx
/// (m k) and dW (k n) in high precision. It costs most at narrow shards, where the output is large beside the GEMM's
/// work (pytorch/torchtitan#1207: wk and wv at tp 8). Forward GEMMs use fast accumulation and scale in the kernel.
struct Fp8CastBytes {
    double forward = 0;
    double backward = 0;
    int backwardLayoutCopies = 0; ///< kernels that copy FP8 operands into _scaled_mm's layouts
    int backwardRescales = 0; ///< kernels that rescale a backward GEMM's output (torchao rowwise)
    double forwardElements = 0; ///< elements cast, for the FLOP count (abs, max and scale per element)
    double backwardElements = 0;
};

/// @p torchao: torchao's Float8Linear (its layout copies and rowwise rescales, above). @p inputShared: x is cast (and,
/// for tensorwise, copied into the backward's layout) by another GEMM reading the same input
/// (LayerBuilder::projections), so only W and dy are this GEMM's.
Fp8CastBytes fp8CastBytes(const GemmDims& gemm, config::Fp8Scaling scaling, double highBytes, bool weightsInFp8,
    bool training, bool torchao, bool inputShared = false);

/// Bytes per element of an activation tensor quantised to FP8 under @p scaling: the FP8 value and its share of the
/// block scales (MXFP8: one byte per 32 elements; block128: an fp32 scale per 1 x 128 tile; per-tensor scales: none).
double fp8ActivationBytes(config::Fp8Scaling scaling);

/// HBM bytes of quantising an NVFP4 GEMM's activation operand x (m x k per batch entry) from @p highBytes per element:
/// one pass that reads x and writes its 4-bit values with one E4M3 scale per block of 16 (each block's scale comes
/// from its own 16 values; the per-tensor FP32 scale is the checkpoint's calibrated input scale), as TensorRT-LLM's
/// and vLLM's NVFP4 linear layers do before the FP4 GEMM. The weights are stored in NVFP4 already. Inference only.
double nvfp4QuantizeBytes(const GemmDims& gemm, double highBytes);

} // namespace rapid::model
