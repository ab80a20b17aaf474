// SPDX-License-Identifier: GPL-3.0-or-later
#include "gradientaccumulation.h"

#include <algorithm>

namespace rapid::model {

namespace {

Operator accumulationPass(const char* what, OperatorClass opClass)
{
    Operator op;
    op.name = std::string(opClass == OperatorClass::LmHead ? "lm_head." : "layer.") + what;
    op.kind = OperatorKind::Elementwise;
    op.opClass = opClass;
    op.phase = Phase::Backward;
    op.precision = config::Precision::Fp32;
    return op;
}

/// Bytes per parameter over a step of @p passes > 1 backward passes (gradientaccumulation.h).
double unshardedSumBytes(int passes, double gradientBytes, double reduceBytes)
{
    const double later = passes - 1;
    if (gradientBytes == reduceBytes) {
        return later * 3 * gradientBytes;
    }
    return gradientBytes + reduceBytes + later * (gradientBytes + 2 * reduceBytes);
}

} // namespace

std::optional<Operator> gradientAccumulation(const config::RunSpec& run, double parameters, double expertParameters,
    const GradientSum& sum, OperatorClass opClass)
{
    if (parameters <= 0) {
        return std::nullopt;
    }
    if (run.framework == config::Framework::Nanotron && run.precision.gradients == config::Precision::Fp32) {
        Operator op = accumulationPass("fp32_grad_accumulation", opClass);
        const double gradientBytes = config::bytesPerElement(run.precision.compute);
        op.bytes = parameters * (gradientBytes + 2 * config::bytesPerElement(config::Precision::Fp32));
        op.flops = parameters;
        return op;
    }
    const int passes = sum.passes;
    const int syncs = std::max(1, sum.syncs);
    const int passesPerSync = passes / syncs;
    const double outside = sum.expertsOutsideFsdp ? expertParameters : 0.0;
    const bool fsdpSums = sum.unshardedUntilLast && parameters > outside && passesPerSync > 1;
    if (run.framework != config::Framework::PytorchFsdp || passes <= 1 || (!fsdpSums && outside <= 0)) {
        return std::nullopt;
    }
    const double gradientBytes = config::bytesPerElement(run.precision.weights);
    const double reduceBytes = config::bytesPerElement(run.precision.gradients);
    Operator op = accumulationPass("unsharded_grad_accumulation", opClass);
    const double fsdpParameters = fsdpSums ? parameters - outside : 0.0;
    // Autograd's sums of parameters outside FSDP run over the whole step: .grad is only cleared by the optimizer.
    op.bytes = (fsdpParameters * syncs * unshardedSumBytes(passesPerSync, gradientBytes, reduceBytes)
                   + outside * unshardedSumBytes(passes, gradientBytes, gradientBytes))
        / passes;
    // One add per parameter and later pass of its sum.
    op.flops = (fsdpParameters * (passes - syncs) + outside * (passes - 1)) / passes;
    return op;
}

std::optional<config::Precision> fusedWeightGradientAccumulation(const config::RunSpec& run)
{
    if (run.mode != config::RunMode::Training || run.framework != config::Framework::Megatron) {
        return std::nullopt;
    }
    return run.precision.gradients;
}

} // namespace rapid::model
