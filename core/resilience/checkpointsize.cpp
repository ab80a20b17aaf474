// SPDX-License-Identifier: GPL-3.0-or-later
#include "checkpointsize.h"

#include "config/hardwarespec.h"
#include "model/modelstats.h"

namespace rapid::resilience {

double checkpointBytes(const config::ModelSpec& model, const config::RunSpec& run)
{
    const config::PrecisionSpec& precision = run.precision;
    const double optimizer = config::bytesPerElement(precision.optimizer);
    const double weights = config::bytesPerElement(precision.weights);
    double perParameter = weights + 2.0 * optimizer;
    if (precision.masterWeights && optimizer > weights) { // as the memory model keeps it
        perParameter += optimizer;
    }
    return static_cast<double>(model::countParameters(model).total()) * perParameter;
}

} // namespace rapid::resilience
