// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

namespace rapid::parallel {

/// How a router spreads a token's experts: topK of `experts`, placed evenly on the destinations in order, with
/// group-limited routing when groupsPerToken < groups (DeepSeek-V3: the 256 experts form 8 groups, a token's 8
/// experts come from at most 4 of them, so over 8 nodes of 32 experts a token reaches at most 4 nodes).
struct ExpertRouting {
    int experts = 1;
    int topK = 1;
    int groups = 1; ///< equal groups of consecutive experts (n_group)
    int groupsPerToken = 1; ///< groups a token may use (topk_group); == groups: no limit
    /// Token t takes the experts t k .. t k + k - 1 (mod E) instead of k spread ones (config::ExpertRoutingPattern
    /// Consecutive); the groups then play no part.
    bool consecutive = false;
};

/// DeepEP's dispatch sends each token once to every GPU holding one of its experts, not once per expert; across nodes
/// its internode kernels send it once to every destination node (over RDMA, to the GPU of the same local rank) and
/// fan it out there over NVLink; the combine returns the same way. With routing spread evenly (the "balanced gate"
/// of benchmarks; the groups a token uses drawn evenly, its experts evenly from their union) a destination holds none
/// of a token's experts with probability p, so a token reaches (d - 1)(1 - p) remote destinations where a per-expert
/// all-to-all sends k(d - 1)/d copies. Returns the ratio of the two: the share of the per-expert bytes that leaves for
/// other destinations (1 for one destination or one expert per token). Without a group limit p = C(E - E/d, k) /
/// C(E, k). With one, when each destination holds whole groups (d divides G) p sums over the j chosen groups it holds
/// (hypergeometric in groups) the chance that none of the k experts drawn from the g E/G chosen experts is among its
/// j E/G; when each holds part of one group (G divides d), p = 1 - g/G + (g/G) C(gE/G - E/d, k) / C(gE/G, k). Other
/// shapes are taken as unlimited.
/// Consecutive routing: token t's experts form the block starting at s = t k mod E, s running evenly over the
/// multiples of gcd(k, E); a block covers n(s) destinations of E/d experts each. Every rank sends its token t to the
/// same n(s) destinations, so the sender is one of them in n(s)/d of the cases: (1 - 1/d) n(s) remote copies on
/// average against k(d - 1)/d, a share of mean n(s) / k (DeepSeek-V3's 256 experts, top 8, on 64 GPUs: each block on
/// 2 GPUs, 0.25; on 8 nodes: 1 node, 0.125). When d does not divide E it is taken as spread.
double deepEpShare(const ExpertRouting& routing, int destinations);

} // namespace rapid::parallel
