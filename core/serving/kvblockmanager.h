// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>

namespace rapid::serving {

/// The paged KV cache of one replica as a count of fixed-size blocks: a sequence holding n tokens holds
/// ceil(n / blockSize) blocks (vLLM's PagedAttention block table, without prefix sharing).
class KvBlockManager {
public:
    KvBlockManager(std::int64_t totalBlocks, int blockSize);

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
};

} // namespace rapid::serving
