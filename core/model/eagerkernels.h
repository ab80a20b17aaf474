// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

namespace rapid::model {

/// The kernels eager PyTorch runs for one element-wise building block, and the HBM bytes they move per element of
/// the block's output (per rotated element for the rotary embedding), in its forward and in autograd's backward.
/// torch.compile (and Megatron's, vLLM's fused kernels) run each block as one kernel: layeroperators.cpp's fused
/// counts. Eager runs each PyTorch op as its own kernel, each reading its inputs from HBM and writing its output
/// back, with fp32 intermediates where the module upcasts.
struct EagerKernels {
    int forwardKernels = 1;
    double forwardBytes = 0; ///< per element
    int backwardKernels = 1;
    double backwardBytes = 0; ///< per element
};

/// torchtitan's RMSNorm (models/norms.py, 2024-25; the same op chain as torch.nn.RMSNorm's composite path):
/// `(x.float() * rsqrt(x.float().pow(2).mean(-1) + eps)).type_as(x) * weight`. Forward: upcast (reads @p act bytes,
/// writes 4), pow (4 + 4), mean (4), add eps and rsqrt (per row, negligible bytes), scale (4 + 4), downcast (4 +
/// act), weight (act + act): 8 kernels. Backward through the same chain: weight product and its grad-weight product
/// and reduction (act + act; act + act + act; act), downcast (act + 4), scale's two gradients (4 + 4 + 4; 4 + 4 + 4
/// and the row sum 4), rsqrt and eps (per row), mean's broadcast (4), pow (4 + 4 + 4), the sum of both paths to x
/// (4 + 4 + 4), upcast (4 + act): 14 kernels.
EagerKernels eagerRmsNorm(double act);

/// A gated MLP's activation as torchtitan writes it, `silu(w1 x) * w3 x`: silu (act + act) and the product
/// (act + act + act), 2 kernels; backward: the product's two gradients (act + act + act each) and silu's backward
/// (act + act + act), 3 kernels.
EagerKernels eagerSwiGlu(double act);

/// torchtitan's apply_rotary_emb for q and k: per tensor an upcast (act + 4), the complex product with freqs_cis
/// (4 + 4; the table is small and stays in L2), a downcast (4 + act), so 6 kernels for q and k; backward the same
/// chain reversed (6 kernels, the same bytes).
EagerKernels eagerRotary(double act);

/// Megatron's vocabulary-parallel cross-entropy run as separate PyTorch ops (Megatron-Core
/// tensor_parallel/cross_entropy.py, _VocabParallelCrossEntropy, its default without --cross-entropy-loss-fusion;
/// nanotron's _ShardedCrossEntropy, the same code called with dtype=float), in bytes per logit on this GPU. Forward:
/// the bf16 logits cast to fp32 (2 + 4), the row maximum (4), the shifted logits (4 + 4), exp in place (4 + 4), the row
/// sum (4) and the in-place division that leaves the softmax for the backward (4 + 4); the target gather, masks, log
/// and loss are per token (negligible bytes, 6 small kernels). Backward: the one-hot subtraction (per token), the
/// in-place product with the loss gradient (4 + 4) and the cast back to bf16 (4 + 2). 12 and 4 kernels.
EagerKernels vocabParallelCrossEntropyOps(double logitBytes);

/// PyTorch's `F.cross_entropy(logits.float(), labels)` run eagerly (torchtitan's cross_entropy_loss, AutoModel's
/// masked cross-entropy), in bytes per logit of @p logitBytes, worked in @p lossBytes (4 with the fp32 upcast, else
/// the logits' own): ATen decomposes it into log_softmax and nll_loss (aten/src/ATen/native/LossNLL.cpp,
/// cross_entropy_loss). Forward: the upcast (act + 4) when there is one; log_softmax over a 128k-wide row, too long
/// for the kernel that caches the row in shared memory, reads it three times (row maximum, sum of exponentials, the
/// write pass) and writes it once (3 + 1 loss elements, aten/src/ATen/native/cuda/SoftMax.cu, cunn_SoftMaxForward);
/// nll_loss gathers one value per token (negligible). Backward: nll_loss_backward zero-fills the gradient (1) and
/// scatters per token; log_softmax's backward reads the gradient for its row sum and reads it with the saved output
/// for the write (4, cunn_SoftMaxBackward); the cast back (4 + act). 3 and 4 kernels with the upcast, 2 and 3 without.
EagerKernels pytorchCrossEntropyOps(double logitBytes, double lossBytes);

} // namespace rapid::model
