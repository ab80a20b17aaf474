// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <span>

namespace rapid::sim {

/// ZeRO-3/FSDP gather their parameters unit by unit, not a chunk at once. PyTorch FSDP wraps each transformer block
/// as a unit and, while unit i computes, already all-gathers unit i + 1 (forward prefetch by execution order; in
/// backward, BACKWARD_PRE prefetch: the next unit's gather is issued as the current unit's backward starts), so one
/// unit is computing and one arriving (Zhao et al., "PyTorch FSDP: Experiences on Scaling Fully Sharded Data
/// Parallel", VLDB 2023, sections 3.3 and 4.1; torch.distributed.fsdp.fully_shard documentation for FSDP2, which
/// keeps the same one-unit prefetch). DeepSpeed ZeRO-3 fetches the next sub-modules in trace order the same way
/// (stage3_prefetch_bucket_size).
///
/// Returns the seconds of a pass that wait for gathers: a unit can start only when its parameters have arrived, and
/// the gather of unit i runs under the compute of unit i - 1. @p unitCompute holds the compute of each unit in the
/// order the pass runs them; each unit's gather takes @p unitGather seconds. @p besideEachUnit is network time that
/// shares the same links under each unit's compute (the reduce-scatter of the previous unit's gradients in
/// backward): the gather hides behind what remains of the compute. @p firstGatherExposed: the pass's first unit waits
/// for its whole gather. The step model charges it in both passes; in backward that unit is the last one the forward
/// used, which torchtitan's FSDP2 (reshard_after_forward=False for the last block) and DeepSpeed
/// (stage3_max_reuse_distance) keep gathered, so for them one unit's gather per backward is charged too much
/// (docs/limits.md).
///
/// The collectives beside a unit also take SMs from it: NCCL holds @p collectiveSmShare s of the GPU's SMs while it
/// runs (network::kCollectiveCtas), so the unit's compute advances at 1 - s of its rate for as long as the gather and
/// the reduction beside it, b = g + beside, last. A unit of compute c then takes c + s x b when the collectives end
/// first, and all of it runs slowed, c / (1 - s), when they do not; the wait for the gather and this slowdown are the
/// same lost time counted twice, so a unit costs the larger of the two:
///   exposed = [firstGatherExposed] g + sum over i >= 1 of max(max(0, g - max(0, c[i-1] - beside)),
///                                                          s x min(g + beside, c[i-1] / (1 - s)))
/// (the first gather has no compute beside it). s in [0, 1); 0 leaves the compute at its full rate.
double exposedUnitGathers(std::span<const double> unitCompute, double unitGather, double besideEachUnit,
    bool firstGatherExposed, double collectiveSmShare);

/// The compute time lost while collectives hold @p collectiveSmShare s of the GPU's SMs (network::kCollectiveCtas)
/// beside @p compute seconds of work for @p collectives seconds: that work advances at 1 - s of its rate while they
/// last, so it takes c + s x b when they end first and c / (1 - s) when they outlast it: s x min(b, c / (1 - s)).
/// Zero when either is zero; s in [0, 1).
double collectiveContention(double compute, double collectives, double collectiveSmShare);

/// What @p collectives seconds overlapped with @p compute seconds add to it: the larger of the part the compute does
/// not hide and the compute slowed by the SMs they hold, max(max(0, b - c), collectiveContention(c, b, s)).
double besideCompute(double compute, double collectives, double collectiveSmShare);

/// Megatron-Core's distributed optimizer with --overlap-param-gather: after the optimizer step the first bucket's
/// all-gather of the updated parameters starts; when the next step's first forward reaches a bucket's module, its
/// pre-hook waits for that bucket and dispatches the next bucket's gather (param_and_grad_buffer.py,
/// finish_param_sync: one bucket ahead, gathers one after another on the data-parallel stream). Only the first
/// micro-batch's forward waits; the later ones find the parameters in place.
///
/// Returns the seconds that forward is delayed. @p unitCompute holds the forward compute of each unit (a bucket's
/// layers) in the order the forward runs them, @p unitGather each unit's gather (0 for compute that needs no new
/// parameters); @p headStart is the time the pass could not start anyway (a later pipeline stage waits for its input).
/// Gather i starts when unit i - 1 starts computing (its own gather is done by then), so unit i starts
/// max(c[i-1], g[i]) after unit i - 1:
///   delay = max(0, g[0] - headStart) + sum over i >= 1 of max(0, g[i] - c[i-1])
/// With @p collectiveSmShare s > 0 each gather also slows the unit it runs beside, and a unit costs the larger of its
/// wait and that slowdown (as in exposedUnitGathers): max(max(0, g[i] - c[i-1]), collectiveContention(c[i-1], g[i],
/// s)) for i >= 1.
double prefetchedGatherDelay(std::span<const double> unitCompute, std::span<const double> unitGather, double headStart,
    double collectiveSmShare = 0);

} // namespace rapid::sim
