// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The `rapid serve` options that describe the engine and its times, parsed and printed (servecommand.cpp runs them).

#include "arguments.h"

#include "serving/servingspec.h"

#include <string>

namespace rapid::cli {

/// A time option, which must carry its unit ("500ms", "0.5 s"): above 0 (or 0 with @p zeroAllowed) and at most
/// @p maxSeconds; 0 when the option is not given. A UsageError names the option otherwise.
double duration(const Arguments& arguments, const std::string& name, double maxSeconds = 1e6, bool zeroAllowed = false);

/// The engine profile, its scheduler knobs and its host time from --engine, --max-num-seqs, ..., --host-time,
/// --host-time-per-request and --overlap-host. Knobs not given stay 0: simulateServing takes the profile's defaults.
serving::EngineOptions engineOf(const Arguments& arguments);

/// The engine's host cost for the summary's engine line ("; host ... ms per iteration ..."); empty when none is
/// How preemption treats the KV cache, for the summary's engine line; nothing for recomputation (the default).
std::string preemptionText(const serving::EngineOptions& options);
/// charged. Overlapped with the GPU when stated so or when the (resolved) overlap scheduler runs.
std::string hostCostText(const serving::HostCost& host, serving::OverlapScheduling overlapScheduling);

/// Speculative decoding for the summary's engine line ("; speculative: 3 drafts of a 1-layer head, acceptance 0.7,
/// 2.19 tokens per verification on average"); empty when off.
std::string speculativeText(const serving::SpeculativeDecoding& speculative);

/// SGLang's max_prefill_tokens for the summary's engine line (", max_prefill_tokens N"); empty for other engines.
std::string prefillBudgetText(const serving::EngineOptions& options);

} // namespace rapid::cli
