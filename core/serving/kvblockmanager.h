// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "servingspec.h"

#include <cstdint>

namespace rapid::serving {

/// The paged KV cache of one replica as a count of fixed-size blocks: a sequence holding n tokens holds
/// ceil(n / blockSize) blocks of every full-attention layer group and, of every sliding-window group, only the blocks
/// its window of w tokens reaches, at most ceil((w - 1) / blockSize) + 1 (vLLM's PagedAttention block table and its
/// hybrid KV-cache manager's sliding-window groups, which free blocks that fell out of the window; without prefix
/// sharing).
class KvBlockManager {
public:
    KvBlockManager(std::int64_t totalBlocks, int blockSize, KvLayout layout = {});

    /// Blocks a sequence of @p tokens holds.
    std::int64_t blocksFor(std::int64_t tokens) const;
    /// Extra blocks a sequence holding @p heldTokens needs to hold @p newTokens more.
    std::int64_t extraBlocks(std::int64_t heldTokens, std::int64_t newTokens) const;
    /// Takes @p blocks if that many are free (and @p reserve stay free); returns whether it did.
    bool allocate(std::int64_t blocks, std::int64_t reserve = 0);
    void release(std::int64_t blocks);

    std::int64_t freeBlocks() const { return m_free; }
    std::int64_t totalBlocks() const { return m_total; }
    int blockSize() const { return m_blockSize; }

private:
    std::int64_t m_total;
    std::int64_t m_free;
    int m_blockSize;
    KvLayout m_layout;
    std::int64_t m_windowBlocks = 0; ///< the most blocks a sliding-window group holds
};

} // namespace rapid::serving
