// SPDX-License-Identifier: GPL-3.0-or-later
#include "kvblockmanager.h"

#include <algorithm>
#include <stdexcept>

namespace rapid::serving {

KvBlockManager::KvBlockManager(std::int64_t totalBlocks, int blockSize, KvLayout layout)
    : m_total(totalBlocks)
    , m_free(totalBlocks)
    , m_blockSize(blockSize)
    , m_layout(layout)
{
    if (totalBlocks < 0 || blockSize <= 0) {
        throw std::invalid_argument("KvBlockManager: blocks must be >= 0 and the block size > 0");
    }
    if (layout.fullGroups < 0 || layout.windowedGroups < 0 || layout.fullGroups + layout.windowedGroups < 1
        || (layout.windowedGroups > 0 && layout.windowTokens < 1)) {
        throw std::invalid_argument("KvBlockManager: at least one layer group, and a window of at least one token");
    }
    if (layout.windowedGroups > 0) {
        // The next token attends to the window - 1 tokens before it, which span at most this many blocks.
        m_windowBlocks = (layout.windowTokens - 1 + blockSize - 1) / blockSize + 1;
    }
}

std::int64_t KvBlockManager::blocksFor(std::int64_t tokens) const
{
    const std::int64_t perGroup = (tokens + m_blockSize - 1) / m_blockSize;
    return m_layout.fullGroups * perGroup + m_layout.windowedGroups * std::min(perGroup, m_windowBlocks);
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
