// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/runspec.h"

#include <span>

namespace rapid::model {

/// The host (CPU) time a framework's Python runtime spends issuing one transformer layer's work for one micro-batch
/// on one rank: PyTorch's op dispatch and autograd, kernel launches (Triton's Python launcher among them) and the
/// collective calls. A GPU cannot start a kernel before its host has issued it, so a layer pass lasts at least this
/// long: sim::StepModel::layerTimes charges what it exceeds of the GPU's time as graph::TimeClass::HostDispatch.
/// Eager frameworks whose layers are small per rank (micro-batch 1, high tensor parallelism) are bound by it; the
/// host's work does not shrink with the layer's width or the tensor-parallel degree.
struct LayerHostDispatch {
    double forwardSeconds = 0;
    double backwardSeconds = 0; ///< full recomputation included (it re-runs the forward's calls)
};

/// One kind of host-side call in a layer pass: how many the forward and the backward make, and what each costs.
struct HostCall {
    int forward = 0;
    int backward = 0;
    double microseconds = 0; ///< host time per call, from the source named in hostdispatch.cpp
    bool collective = false; ///< an NCCL collective call (none without tensor parallelism)
    const char* what = "";
};

/// nanotron's dense LlamaDecoderLayer under tensor parallelism in REDUCE_SCATTER mode (sequence parallel), eager
/// PyTorch: the calls read from its source, each with a published per-call host cost (hostdispatch.cpp).
std::span<const HostCall> nanotronLayerCalls();

/// The run's framework's host time per decoder layer pass. Derived for nanotron's dense layer (nanotronLayerCalls;
/// without tensor parallelism its collective calls drop out); zero for the other frameworks and for MoE layers,
/// whose host-side work has not been derived (the presets' layers of those frameworks are GPU-bound).
LayerHostDispatch layerHostDispatch(const config::RunSpec& run, bool moe);

} // namespace rapid::model
