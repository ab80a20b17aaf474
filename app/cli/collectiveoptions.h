// SPDX-License-Identifier: GPL-3.0-or-later
// The --collectives option of the commands that cost collectives without a run (rapid collective, rapid chakra
// simulate): which library ran the reductions and gathers.
#pragma once

#include "arguments.h"

#include "network/collective.h"

#include <optional>
#include <string>

namespace rapid::cli {

/// The option's help, the same in every command that takes it.
inline constexpr const char* kCollectivesHelp
    = "what ran the reductions and gathers: custom (default: every algorithm, one-shot exchanges included, as serving "
      "engines' all-reduce kernels) or nccl (NCCL's ring, tree and in-network NVLS only, as PyTorch and the training "
      "frameworks reduce)";

/// custom when not given; UsageError naming the option for anything but custom or nccl.
inline network::CollectiveLibrary parseLibrary(const std::optional<std::string>& text)
{
    if (!text) {
        return network::CollectiveLibrary::Custom;
    }
    if (const std::optional<network::CollectiveLibrary> library = network::parseCollectiveLibrary(*text)) {
        return *library;
    }
    throw UsageError("--collectives \"" + *text + "\": expected custom or nccl");
}

} // namespace rapid::cli
