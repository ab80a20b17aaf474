// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>

namespace rapid::model {

/// The memory-bound work around the attention kernels of PyTorch's context parallelism (torchtitan's CP:
/// torch/distributed/tensor/experimental/_attention.py, `_templated_ring_attention` and its backward, with
/// `_cp_options.convert_to_f32` and round-robin load balancing on, the defaults). The attention kernel itself runs
/// once per ring step on that step's blocks (attention.core); around it, on the busiest rank (the last, whose every
/// step is a whole one), per layer:
/// - forward: the first block's output cast to fp32 (act + 4 B per output element), then per further step the block's
///   output cast (act + 4) and the log-sum-exp merge `out - sigmoid(lse_b - lse) * (out - out_b)` (out - out_b 4 + 4
///   + 4, the product 4 + 4, the difference 4 + 4 + 4; the lse terms are per row), the merged output cast back
///   (4 + act), and every step but the last `torch.cat` of the flattened K and V to pass on (act + act per K/V
///   element);
/// - backward: dq, dk, dv accumulators zeroed in fp32 (4 each), per step dq += the block's dq (4 + act + 4) and dk, dv
///   likewise (4 + act + 4), from the second step on the received fp32 dK/dV also rebuilt by `torch.cat` (4 + 4) and
///   the accumulated pair concatenated to send on (4 + 4), the K/V concatenation of the forward (act + act) on every
///   step but the last, and the three gradients cast back (4 + act).
/// Counts are elements on this GPU: @p queryElements of Q (and dQ), @p outputElements of the output, @p kvElements
/// of K and V together.
struct RingAttentionBytes {
    double forward = 0;
    double backward = 0;
    int forwardKernels = 0;
    int backwardKernels = 0;
};
RingAttentionBytes pytorchRingAttentionBytes(
    double queryElements, double outputElements, double kvElements, std::int64_t contextParallel, double act);

} // namespace rapid::model
