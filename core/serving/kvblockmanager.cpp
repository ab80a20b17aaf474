// SPDX-License-Identifier: GPL-3.0-or-later
#include "kvblockmanager.h"

#include <stdexcept>

namespace rapid::serving {

KvBlockManager::KvBlockManager(std::int64_t totalBlocks, int blockSize)
    : m_total(totalBlocks)
    , m_free(totalBlocks)
    , m_blockSize(blockSize)
{
    if (totalBlocks < 0 || blockSize <= 0) {
        throw std::invalid_argument("KvBlockManager: blocks must be >= 0 and the block size > 0");
    }
}

std::int64_t KvBlockManager::blocksFor(std::int64_t tokens) const
{
    return (tokens + m_blockSize - 1) / m_blockSize;
}

std::int64_t KvBlockManager::extraBlocks(std::int64_t heldTokens, std::int64_t newTokens) const
{
    return blocksFor(heldTokens + newTokens) - blocksFor(heldTokens);
}

bool KvBlockManager::allocate(std::int64_t blocks, std::int64_t reserve)
{
    if (blocks > m_free - reserve) {
        return false;
    }
    m_free -= blocks;
    return true;
}

void KvBlockManager::release(std::int64_t blocks)
{
    m_free += blocks;
    if (m_free > m_total) {
        throw std::logic_error("KvBlockManager: more blocks released than taken");
    }
}

} // namespace rapid::serving
