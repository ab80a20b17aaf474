// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/modelspec.h"
#include "config/runspec.h"
#include "memory/frameworkprofile.h"
#include "model/layersharding.h"

#include <string>
#include <vector>

namespace rapid::memory {

/// One tensor a layer keeps from its forward pass until its backward pass.
struct SavedTensor {
    std::string name;
    double bytes = 0; ///< per GPU, for one micro-batch through one layer
    bool operator==(const SavedTensor&) const = default;
};

struct SavedActivations {
    std::vector<SavedTensor> tensors;
    double total() const;
    bool operator==(const SavedActivations&) const = default;
};

/// What one transformer layer keeps for backward, tensor by tensor, for one micro-batch on one GPU — the accounting
/// of Korthikanti et al. 2022 ("Reducing Activation Recomputation in Large Transformer Models", section 4) made
/// general: GQA, gated MLPs, MoE, FlashAttention (which keeps Q, K, V, O and the softmax statistics instead of the
/// S x S matrices), dropout masks only when dropout is on. Tensors inside the tensor-parallel region are divided by
/// tp; the others (norm inputs, dropout masks of the residual stream) only with sequence parallelism. Selective
/// recomputation drops the S x S attention tensors; full recomputation keeps only the layer input; op-sac
/// (torchtitan's per-op SAC) keeps the layer input, every other linear's output and the attention output.
/// For a GPT layer with naive attention, dropout, no recomputation and tp = 1 the total is 34sbh + 5as^2b bytes
/// at 2-byte activations. @p profile adds what a framework's implementation keeps beyond that (rotary copies of K
/// and V, separately kept gated-MLP products) and says when linears keep their inputs quantised (Transformer
/// Engine's FP8: the QKV, up- and down-projection inputs in FP8, the out-projection's FP8 copy beside the attention
/// output the fused attention keeps).
SavedActivations savedActivationsPerLayer(const config::ModelSpec& model, const config::RunSpec& run,
    const model::LayerSharding& sharding, bool moeLayer, const FrameworkProfile& profile);

/// The largest transient buffer of a layer's backward pass: the layer's activation gradients, plus under full
/// recomputation the rematerialised activations of that layer.
double backwardTransientPerLayer(const config::ModelSpec& model, const config::RunSpec& run,
    const model::LayerSharding& sharding, bool moeLayer, const FrameworkProfile& profile);

/// Sequence length each GPU holds (seq_length / cp for training, prompt length for inference prefill).
double localSequence(const config::RunSpec& run, const model::LayerSharding& sharding);

} // namespace rapid::memory
