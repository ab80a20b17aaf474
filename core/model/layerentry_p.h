// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "eagerkernels.h"
#include "operator.h"

#include <optional>
#include <vector>

namespace rapid::model::detail {

/// A forward operator with what its backward costs and the parameters it holds. The layer's builder
/// (layeroperators.cpp) and its LoRA adapters (loraadapters.cpp) write them; forwardOf and appendBackward read them.
struct Entry {
    Operator op;
    bool hasForward = true; ///< false: a backward-only kernel (the sum of an input's gradients)
    bool hasBackward = true;
    double backwardBytes = 0;
    double backwardFlops = 0;
    int backwardKernels = 1;
    double weights = 0; ///< parameters on this GPU
    bool routedExpert = false; ///< a routed expert's GEMM (its weights are the GPU's local experts')
    /// Its parameters take no gradient (LoRA's frozen base): a GEMM's backward computes dX only, no dW.
    bool frozen = false;

    /// Eager PyTorch's kernel chain for this block over @p elements elements (the flops stay the block's own).
    void runEager(const EagerKernels& kernels, double elements)
    {
        op.kernels = kernels.forwardKernels;
        op.bytes = kernels.forwardBytes * elements;
        backwardKernels = kernels.backwardKernels;
        backwardBytes = kernels.backwardBytes * elements;
    }
};

/// The forward operators of @p entries, in order, with @p phase (Forward, or Recompute for a re-run).
std::vector<Operator> forwardOf(const std::vector<Entry>& entries, Phase phase);

/// Appends the backward of @p entries (reverse order) to @p ops: each GEMM as dX then dW (dX only when frozen), every
/// other operator as "<name>.backward" with its backward bytes, FLOPs and kernels. Each dW adds into a buffer of
/// @p weightGradientsInto when given (fusedWeightGradientAccumulation).
void appendBackward(const std::vector<Entry>& entries, std::vector<Operator>& ops,
    std::optional<config::Precision> weightGradientsInto);

/// The parameters of @p entries that train: all of them but the frozen ones.
double trainableWeights(const std::vector<Entry>& entries);

} // namespace rapid::model::detail
