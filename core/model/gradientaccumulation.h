// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "operator.h"

#include "config/runspec.h"

#include <optional>

namespace rapid::model {

/// nanotron with accumulate_grad_in_fp32 (its FP32GradientAccumulator, optim/gradient_accumulator.py and the DDP hook
/// get_fp32_accum_hook) adds each parameter's bf16 gradient into an fp32 buffer after every micro-batch's backward:
/// reads the bf16 gradient and the fp32 sum, writes the sum, 2 + 4 + 4 bytes per parameter on this GPU. Megatron
/// fuses the accumulation into the weight-gradient GEMM (gradient_accumulation_fusion), so no pass there; nothing for
/// other frameworks or bf16 gradients. @p parameters on this GPU; the operator is named for @p opClass (a layer's or
/// the LM head's).
std::optional<Operator> fp32GradientAccumulation(const config::RunSpec& run, double parameters, OperatorClass opClass);

} // namespace rapid::model
