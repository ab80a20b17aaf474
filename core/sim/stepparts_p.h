// SPDX-License-Identifier: GPL-3.0-or-later
// Private to core/sim: small helpers of the step model (time breakdown arithmetic, the MFU peak, slowdowns).
#pragma once

#include "config/hardwarespec.h"
#include "config/runspec.h"
#include "graph/executiongraph.h"
#include "graph/trainingstep.h"
#include "model/operator.h"
#include "parallel/stepplan.h"

#include <optional>
#include <utility>
#include <vector>

namespace rapid::sim::detail {

double sum(const graph::TimeBreakdown& parts);
void add(graph::TimeBreakdown& into, const graph::TimeBreakdown& parts, double times = 1.0);
double& at(graph::TimeBreakdown& parts, graph::TimeClass timeClass);

/// The peak MFU is measured against: the fastest tensor rate an operator of the step can run at. GEMMs run at the
/// compute precision, attention at the activations' (Transformer Engine keeps it in bf16 under fp8 GEMMs, and an fp32
/// GEMM run keeps bf16 activations); a precision without a tensor path runs at bf16 (compute::OperatorTimer); an
/// overclocking what-if raises every rate. Against the compute precision's peak alone, fp32 GEMMs with bf16
/// attention reported MFU above 1.
double mfuPeak(const config::GpuSpec& gpu, const config::PrecisionSpec& precision);

/// Exposed part of @p communication seconds that can overlap with @p hideable seconds of compute.
double exposed(double communication, double hideable);

/// The share of @p gpu's SMs a running collective holds (network::kCollectiveCtas of them; at most half, so that a
/// preset with very few SMs still computes).
double collectiveSmShare(const config::GpuSpec& gpu);

/// The share of @p gpu's SMs the expert all-to-alls hold beside compute: run.parallelism.ep_comm_sms when given (the
/// loader keeps it below the SM count), else the dispatcher's own: NCCL's (collectiveSmShare) for alltoall, DeepEP's
/// 20 SMs (Megatron-Core's --moe-deepep-num-sms default, DeepEP's Buffer.num_sms) at most half the GPU's.
double expertCollectiveSmShare(const config::GpuSpec& gpu, const config::ParallelismSpec& parallelism);

/// @p parts with its GPU work (graph::isGpuWork) taking @p factor times as long; a host-dispatch wait shrinks by what
/// the slower GPU work now covers of the host's dispatch time (the communication keeps its time).
void slowGpuWork(graph::TimeBreakdown& parts, double factor);

/// @p stages with every compute class and the optimizer of stage s taking @p slowdowns[s] times as long (the
/// communication classes keep their time: a slow GPU's peers wait for its compute, not for the network).
std::vector<graph::StageCost> withComputeSlowdown(
    std::vector<graph::StageCost> stages, const std::vector<double>& slowdowns);

/// @p collective with @p share of its bytes (one bucket, or all buckets but one).
parallel::PlannedCollective part(parallel::PlannedCollective collective, double share);
std::optional<parallel::PlannedCollective> part(std::optional<parallel::PlannedCollective> collective, double share);

/// The forward and backward operators of @p ops, apart.
std::pair<std::vector<model::Operator>, std::vector<model::Operator>> splitByPhase(
    const std::vector<model::Operator>& ops);

} // namespace rapid::sim::detail
