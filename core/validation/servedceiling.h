// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/configloader.h"

#include <cstdint>
#include <string>

namespace rapid::validation {

/// The most requests of @p promptTokens + @p outputTokens tokens per second that @p scenario's GPUs (every replica)
/// could complete under any batching: every FLOP of each request's prompt and decode (active weights and attention,
/// the LM head only for the decoded tokens) at the best rate the GPU preset gives well-tuned GEMMs (tensor peak x
/// sustained clock share x the precision's matmul ratio), attention at the faster of the compute and activation
/// precisions, and nothing else charged: no memory traffic, communication, kernel gaps or host time. A measurement
/// that completes more cannot have computed what it was asked (prompts served from a prefix cache, outputs cut short).
double servedRequestsCeiling(const config::Scenario& scenario, std::int64_t promptTokens, std::int64_t outputTokens);

/// Why a closed-loop measurement of @p concurrency clients with mean TTFT @p ttftSeconds and mean TPOT
/// @p tpotSeconds is beyond servedRequestsCeiling, or "" when it is not: the clients completed
/// concurrency / (TTFT + (output - 1) x TPOT) requests per second (Little's law).
std::string servedBeyondCeiling(
    const config::Scenario& scenario, int concurrency, double ttftSeconds, double tpotSeconds);

} // namespace rapid::validation
