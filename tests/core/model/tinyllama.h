// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/modelspec.h"

namespace rapid::test {

/// A small Llama-shaped model with round numbers for hand-derived operator figures: 2 layers, h = 1024, 16 query
/// heads and 4 KV heads of 64, gated FFN of 4096, vocabulary 32,000. Its linears: q [1024 x 1024], k and v
/// [1024 x 256], o [1024 x 1024], gate and up [1024 x 4096], down [4096 x 1024]. Attention weights
/// 1024 x (1024 + 2 x 256) + 1024 x 1024 = 2,621,440; MLP weights 3 x 1024 x 4096 = 12,582,912; together 15,204,352.
inline config::ModelSpec tinyLlama()
{
    config::ModelSpec model;
    model.name = "tiny-llama";
    model.numLayers = 2;
    model.hiddenSize = 1024;
    model.numHeads = 16;
    model.numKvHeads = 4;
    model.headDim = 64;
    model.ffnSize = 4096;
    model.ffnGated = true;
    model.activation = config::Activation::Silu;
    model.norm = config::NormKind::RmsNorm;
    model.vocabSize = 32000;
    return model;
}

} // namespace rapid::test
