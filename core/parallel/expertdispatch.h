// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

namespace rapid::parallel {

/// DeepEP's dispatch sends each token once to every GPU holding one of its experts, not once per expert; across nodes
/// its internode kernels send it once to every destination node (over RDMA, to the GPU of the same local rank) and
/// fan it out there over NVLink; the combine returns the same way. With routing spread evenly over @p experts placed
/// evenly on @p destinations (GPUs or nodes; the "balanced gate" of benchmarks), a destination holds none of a token's
/// @p topK experts with probability C(E - E/d, k) / C(E, k), so a token reaches (d - 1)(1 - that) remote destinations
/// where a per-expert all-to-all sends k(d - 1)/d copies. Returns the ratio of the two: the share of the per-expert
/// bytes that leaves for other destinations (1 for one destination or one expert per token). Gating that limits a
/// token's nodes (DeepSeek-V3's group-limited routing) is not assumed.
double deepEpShare(int experts, int topK, int destinations);

} // namespace rapid::parallel
