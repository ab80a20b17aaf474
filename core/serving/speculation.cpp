// SPDX-License-Identifier: GPL-3.0-or-later
#include "speculation.h"

#include "parallel/stepplan.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace rapid::serving {

const char* toString(DraftMethod method)
{
    return method == DraftMethod::Ngram ? "ngram" : "head";
}

double meanTokensPerVerification(int draftTokens, double acceptance)
{
    if (acceptance >= 1) {
        return draftTokens + 1.0;
    }
    return (1 - std::pow(acceptance, draftTokens + 1)) / (1 - acceptance);
}

double acceptanceForMeanLength(int draftTokens, double meanLength)
{
    if (draftTokens < 1 || !(meanLength >= 1) || meanLength > draftTokens + 1.0) {
        throw std::invalid_argument("a mean acceptance length with " + std::to_string(draftTokens)
            + " draft tokens must be 1 to " + std::to_string(draftTokens + 1) + " tokens per verification");
    }
    // The ends exactly (near an acceptance of 1 the closed form cancels, so bisection would stop short of it).
    if (meanLength == 1.0 || meanLength == draftTokens + 1.0) {
        return meanLength == 1.0 ? 0.0 : 1.0;
    }
    // Bisection: the mean rises strictly with the acceptance; 64 halvings of [0, 1] reach a double's resolution.
    double low = 0;
    double high = 1;
    for (int step = 0; step < 64; ++step) {
        const double middle = (low + high) / 2;
        (meanTokensPerVerification(draftTokens, middle) < meanLength ? low : high) = middle;
    }
    return (low + high) / 2;
}

void checkSpeculativeDecoding(const SpeculativeDecoding& speculative)
{
    if (speculative.draftTokens < 0 || speculative.draftTokens > kMaxDraftTokens) {
        throw std::invalid_argument(
            "speculative draft tokens must be 0 (off) to " + std::to_string(kMaxDraftTokens) + " per iteration");
    }
    if (!(speculative.acceptance >= 0 && speculative.acceptance <= 1)) {
        throw std::invalid_argument("the draft acceptance must be a probability, 0 to 1");
    }
    if (speculative.draftLayers < 1 || speculative.draftLayers > kMaxDraftLayers) {
        throw std::invalid_argument("a draft head has 1 to " + std::to_string(kMaxDraftLayers) + " decoder layers");
    }
}

bool draftHeadIsMoe(const config::ModelSpec& model)
{
    return model.moe && parallel::isMoeLayer(model, model.numLayers - 1);
}

DraftAcceptance::DraftAcceptance(const SpeculativeDecoding& speculative)
    : m_acceptance(speculative.acceptance)
    , m_random(speculative.seed)
{
}

std::int64_t DraftAcceptance::accepted(std::int64_t drafts)
{
    constexpr double kUnit = 1.0 / 9007199254740992.0; // 2^-53
    std::int64_t kept = 0;
    while (kept < drafts) {
        const double uniform = static_cast<double>(m_random() >> 11) * kUnit;
        if (!(uniform < m_acceptance)) {
            break;
        }
        ++kept;
    }
    return kept;
}

} // namespace rapid::serving
