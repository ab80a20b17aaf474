// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "servingspec.h"

#include "config/modelspec.h"

#include <cstdint>
#include <random>

namespace rapid::serving {

/// Throws std::invalid_argument, naming the knob, for draft tokens outside 0 to kMaxDraftTokens, an acceptance outside
/// 0 to 1 or draft layers outside 1 to kMaxDraftLayers.
void checkSpeculativeDecoding(const SpeculativeDecoding& speculative);

/// The most draft tokens per iteration accepted (engines draft up to 5-8; a typo of 100 would verify 101 queries).
inline constexpr int kMaxDraftTokens = 16;
/// The most decoder layers of a draft head (EAGLE and MTP modules have one; a draft model is a model of its own).
inline constexpr int kMaxDraftLayers = 8;

/// Whether a draft head's layers are MoE layers: a head repeats the model's last block (a Llama decoder layer for
/// EAGLE, DeepSeek-V3's MoE block for MTP).
bool draftHeadIsMoe(const config::ModelSpec& model);

/// The verification outcomes of one replica: how many of a request's drafts the target keeps, drawn in the order the
/// iterations verify them from SpeculativeDecoding::seed (a 64-bit Mersenne Twister, its top 53 bits as a uniform in
/// [0, 1), so a run is the same on every platform).
class DraftAcceptance {
public:
    explicit DraftAcceptance(const SpeculativeDecoding& speculative);
    /// Drafts kept of @p drafts: the count before the first rejected one, each accepted with the acceptance
    /// probability (all with acceptance 1, none with 0).
    std::int64_t accepted(std::int64_t drafts);

private:
    double m_acceptance;
    std::mt19937_64 m_random;
};

} // namespace rapid::serving
