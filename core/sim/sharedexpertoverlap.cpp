// SPDX-License-Identifier: GPL-3.0-or-later
#include "sim/sharedexpertoverlap.h"

#include "sim/shardedunits.h"
#include "sim/stepbackend.h"

namespace rapid::sim {

int sharedExpertWindow(const model::Operator& op)
{
    // Named by the layer builder "moe.shared_expert_<gemm or activation>", with ".dx"/".dw"/".backward" for the
    // gradients and the input-gradient sum of the gate and up projections.
    if (!op.name.starts_with("moe.shared_expert_")) {
        return -1;
    }
    return op.name.find("down_projection") != std::string::npos ? 1 : 0;
}

SharedExpertWindows passSharedExpertWindows(compute::OperatorTimer& timer, const std::vector<model::Operator>& ops,
    double allToAll, int dispatches, int combines, int runs, double collectiveSmShare)
{
    std::array<double, 2> compute {};
    for (const model::Operator& op : ops) {
        const int window = sharedExpertWindow(op);
        if (window >= 0) {
            compute[static_cast<size_t>(window)] += timer.time(op).seconds;
        }
    }
    SharedExpertWindows windows;
    windows.active = true;
    windows.compute = compute;
    windows.allToAlls = { runs * dispatches, runs * combines };
    for (size_t w = 0; w < 2; ++w) {
        const double beside = windows.allToAlls[w] * allToAll;
        windows.slowdown[w] = collectiveContention(compute[w], beside, collectiveSmShare);
        windows.exposed[w] = besideCompute(compute[w], beside, collectiveSmShare);
    }
    return windows;
}

void chargeExpertAllToAlls(compute::OperatorTimer& timer, const parallel::LayerCollectives& layer, double allToAll,
    bool overlap, const std::vector<model::Operator>& forwardOps, const std::vector<model::Operator>& backwardOps,
    double collectiveSmShare, LayerTimes& pass)
{
    auto& forward = pass.forward[static_cast<size_t>(graph::TimeClass::ExpertParallel)];
    auto& backward = pass.backward[static_cast<size_t>(graph::TimeClass::ExpertParallel)];
    if (!overlap) {
        forward += layer.expertAllToAllsPerPass * allToAll;
        backward += layer.expertPassesBackward * layer.expertAllToAllsPerPass * allToAll;
        return;
    }
    const int dispatches = layer.expertAllToAllsPerPass / 2;
    const int combines = layer.expertAllToAllsPerPass - dispatches;
    pass.forwardShared
        = passSharedExpertWindows(timer, forwardOps, allToAll, dispatches, combines, 1, collectiveSmShare);
    pass.backwardShared = passSharedExpertWindows(
        timer, backwardOps, allToAll, dispatches, combines, layer.expertPassesBackward, collectiveSmShare);
    forward += pass.forwardShared.totalExposed();
    backward += pass.backwardShared.totalExposed();
}

} // namespace rapid::sim
