// SPDX-License-Identifier: GPL-3.0-or-later
// Which step-time class an operator's time counts in.
#include "stepmodel.h"

namespace rapid::sim {

using graph::TimeClass;

graph::TimeClass timeClassOf(model::OperatorClass opClass)
{
    switch (opClass) {
    case model::OperatorClass::Attention:
        return TimeClass::Attention;
    case model::OperatorClass::Mlp:
        return TimeClass::Mlp;
    case model::OperatorClass::Moe:
        return TimeClass::Moe;
    case model::OperatorClass::Norm:
        return TimeClass::Norm;
    case model::OperatorClass::Embedding:
        return TimeClass::Embedding;
    case model::OperatorClass::LmHead:
        return TimeClass::LmHead;
    case model::OperatorClass::Loss:
        return TimeClass::Loss;
    case model::OperatorClass::Optimizer:
        return TimeClass::Optimizer;
    case model::OperatorClass::Other:
        break;
    }
    return TimeClass::Other;
}

} // namespace rapid::sim
