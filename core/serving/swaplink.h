// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "servingsimulator.h"

namespace rapid::serving {

/// The host link swapped KV-cache blocks cross on one GPU of @p scenario, for the blocks @p capacity sizes and the
/// swap space of @p options (vLLM V0's CacheEngine: num_cpu_blocks = swap_space / the bytes of one block of every
/// layer on the GPU). Throws std::invalid_argument, naming the GPU preset's host_link, when @p options swap and the
/// GPU gives no host-link rates, or when the swap space cannot hold one block.
SwapLink swapLink(const config::Scenario& scenario, const EngineOptions& options, const KvCapacity& capacity);

} // namespace rapid::serving
