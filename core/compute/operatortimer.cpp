// SPDX-License-Identifier: GPL-3.0-or-later
#include "operatortimer.h"

#include <utility>

namespace rapid::compute {

OperatorTimer::OperatorTimer(config::GpuSpec gpu, config::AttentionKernel attentionKernel)
    : m_gpu(std::move(gpu))
    , m_attentionKernel(attentionKernel)
{
}

OperatorTime OperatorTimer::time(const model::Operator& op)
{
    return timeOperator(m_gpu, op, &m_cache, m_attentionKernel);
}

double OperatorTimer::layerTime(const std::vector<model::Operator>& ops, std::optional<model::Phase> phase)
{
    double seconds = 0;
    for (const model::Operator& op : ops) {
        if (!phase || op.phase == *phase) {
            seconds += time(op).seconds;
        }
    }
    return seconds;
}

} // namespace rapid::compute
