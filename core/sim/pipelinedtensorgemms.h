// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "compute/operatortimer.h"
#include "model/operator.h"

#include <cstdint>
#include <vector>

namespace rapid::sim {

/// What overlapping tensor-parallel collectives with their GEMMs costs the GEMMs, per operator class.
struct PipelinedGemmCost {
    double attention = 0; ///< seconds above the undivided GEMMs, OperatorClass::Attention
    double mlp = 0; ///< the same for OperatorClass::Mlp
    double total() const { return attention + mlp; }
};

/// Tensor-parallel communication overlap (Megatron's tp-comm-overlap over Transformer Engine's userbuffers,
/// torchtitan's async TP over PyTorch's micro-pipelined TP) hides each sequence-parallel all-gather or
/// reduce-scatter under the GEMM it feeds or drains by splitting that GEMM along its token rows into @p tp steps:
/// step i multiplies the shard that has arrived while the next is in flight (a ring exchange). The GEMM then runs as
/// tp sequential GEMMs of rows / tp, each with its own waves, tiles and launch, which fill the GPU worse than one
/// (8B at tp 8: 1,024-row GEMMs of a 768-wide QKV shard cover 48 of 132 SMs). Returns, for the forward or
/// recompute GEMMs and the backward input-gradient (".dx") GEMMs of @p ops whose rows are @p tokens, what the split
/// costs above the undivided GEMMs; weight-gradient GEMMs are not split. This is PyTorch's schedule
/// (_pipelined_all_gather_and_consume runs each step's matmul on the current stream in turn); Transformer Engine
/// launches its split GEMMs over several compute streams (comm_gemm_overlap's num_max_streams), where they fill the
/// GPU together, so Megatron pays no such cost. Sources: S. Wang et al., "Overlap
/// Communication with Dependent Computation via Decomposition in Large Deep Learning Models", ASPLOS 2023; PyTorch's
/// async TP (torch.distributed._symmetric_memory fused_all_gather_matmul / fused_matmul_reduce_scatter, torchtitan
/// docs/async_tp.md); Transformer Engine's ring-exchange and split-pipelined userbuffer overlaps.
PipelinedGemmCost pipelinedGemmCost(
    compute::OperatorTimer& timer, const std::vector<model::Operator>& ops, int tp, std::int64_t tokens);

/// The reduction that ends PyTorch's fused matmul + reduce-scatter (torch.distributed._symmetric_memory,
/// _fused_matmul_reduce_scatter_impl): each rank computes the partial product for every rank's rows, the partials
/// are exchanged into a stacked buffer of tp x (rows / tp) x columns, and one reduction kernel sums them
/// (`reduce_fn(stacked_partials.view(...), dim=...)`). NCCL's reduce-scatter reduces inside the collective instead,
/// so async TP adds this memory-bound kernel for every reduce-scatter it fuses: it reads the whole @p outputBytes
/// (rows x columns of the GEMM's output) and writes a tp-th of it. Seconds of one such kernel on @p timer's GPU.
double fusedReduceScatterSumSeconds(compute::OperatorTimer& timer, double outputBytes, int tp);

/// What starts PyTorch's fused all-gather + matmul (_pipelined_multi_all_gather_and_consume): each rank copies its
/// shard into its symmetric-memory buffer and all ranks meet at a barrier before the first step's matmul, both on
/// the compute stream and, by the code's own comment, not overlapped with it ("giving up the chance to overlap mv and
/// b with the first shard_consumer"). Seconds of that copy (@p shardBytes read and written) and of the barrier kernel
/// (a launch) on @p timer's GPU.
double fusedAllGatherSetupSeconds(compute::OperatorTimer& timer, double shardBytes);

} // namespace rapid::sim
