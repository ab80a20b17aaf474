// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "hardwarespec.h"
#include "runspec.h"

#include <string>

namespace rapid::config {

/// The fused attention kernel @p run uses on @p gpu: run.attentionKernel when it names one, else the framework's own
/// choice on the GPU's architecture (never Auto):
/// - megatron (Transformer Engine): cuDNN's FusedAttention on Hopper and Blackwell, where TE prefers it to
///   FlashAttention-2 ("give FusedAttention preference on Hopper+", transformer_engine/pytorch/attention
///   get_attention_backend); FlashAttention-2 elsewhere.
/// - pytorch-fsdp (torchtitan, PyTorch SDPA): the SDPA flash backend, FlashAttention-2, on Ampere and Hopper (cuDNN
///   attention is opt-in since pytorch/pytorch#138522; a 2024-12 nightly on H100 picks FA2 at 329 TFLOP/s where
///   cuDNN reaches 631, pytorch/pytorch#142132); cuDNN on Blackwell, which torchtitan asks for explicitly
///   (pytorch/torchtitan#1196, 2025-05).
/// - vllm: FlashAttention-3 on Hopper (vLLM's default flash-attn backend there), cuDNN-class kernels on Blackwell,
///   FlashAttention-2 elsewhere.
/// - nanotron, deepspeed: the flash-attn package, FlashAttention-2.
AttentionKernel resolvedAttentionKernel(const RunSpec& run, const GpuSpec& gpu);

/// Why @p kernel cannot run on @p gpu (FlashAttention-3 exists for Hopper only), or "" when it can.
std::string attentionKernelProblem(AttentionKernel kernel, const GpuSpec& gpu);

} // namespace rapid::config
