// SPDX-License-Identifier: GPL-3.0-or-later
// The optimizer step of a GPU's parameters (declared in layeroperators.h).
#include "layeroperators.h"

namespace rapid::model {

double adamBytesPerParameter(const config::PrecisionSpec& precision)
{
    const double o = config::bytesPerElement(precision.optimizer);
    const double g = config::bytesPerElement(precision.gradients);
    const double w = config::bytesPerElement(precision.weights);
    return precision.masterWeights ? 6 * o + g + w : 2 * w + 4 * o + g;
}

Operator optimizerUpdate(double localParameters, const config::RunSpec& run)
{
    Operator op;
    op.name = "optimizer.adam_update";
    op.kind = OperatorKind::OptimizerUpdate;
    op.opClass = OperatorClass::Optimizer;
    op.phase = Phase::Optimizer;
    op.precision = run.precision.optimizer;
    op.bytes = localParameters * adamBytesPerParameter(run.precision);
    op.flops = localParameters * kAdamFlopsPerParameter;
    return op;
}

} // namespace rapid::model
