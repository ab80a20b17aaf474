// SPDX-License-Identifier: GPL-3.0-or-later
#include "gradientaccumulation.h"

namespace rapid::model {

std::optional<Operator> fp32GradientAccumulation(const config::RunSpec& run, double parameters, OperatorClass opClass)
{
    if (run.framework != config::Framework::Nanotron || run.precision.gradients != config::Precision::Fp32
        || parameters <= 0) {
        return std::nullopt;
    }
    Operator op;
    op.name = opClass == OperatorClass::LmHead ? "lm_head.fp32_grad_accumulation" : "layer.fp32_grad_accumulation";
    op.kind = OperatorKind::Elementwise;
    op.opClass = opClass;
    op.phase = Phase::Backward;
    op.precision = config::Precision::Fp32;
    const double gradientBytes = config::bytesPerElement(run.precision.compute);
    op.bytes = parameters * (gradientBytes + 2 * config::bytesPerElement(config::Precision::Fp32));
    op.flops = parameters;
    return op;
}

} // namespace rapid::model
