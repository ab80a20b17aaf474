// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>

namespace rapid::serving {

/// The prefix cache of one replica: the KV blocks of shared prompt prefixes, computed once and kept after the requests
/// that computed them leave, until their blocks are needed. Then the least recently used prefix that no running
/// request reads goes first: vLLM V1 keeps freed cached blocks in its free-block queue and hands out (evicts) the
/// least recently used first (v1/core/kv_cache_manager.py, block_pool.py: FreeKVCacheBlockQueue), SGLang's radix cache
/// evicts least recently used leaves when memory runs short (radix_cache.py, evict), TensorRT-LLM's block reuse frees
/// reusable blocks in LRU order (its KV cache reuse documentation). The cache counts blocks; the block manager that
/// holds them is the caller's.
class PrefixCache {
public:
    bool holds(int prefixId) const { return m_entries.contains(prefixId); }
    /// Keeps @p blocks of prefix @p prefixId, used now.
    void insert(int prefixId, std::int64_t blocks, double now);
    /// Prefix @p prefixId (if held) was read now.
    void touch(int prefixId, double now);
    /// Blocks held for every prefix.
    std::int64_t blocks() const { return m_blocks; }
    /// Blocks of the prefixes no id in @p reading reads (those eviction can give back).
    std::int64_t evictableBlocks(const std::set<int>& reading) const;

    struct Evicted {
        int prefixId;
        std::int64_t blocks;
    };
    /// Drops the least recently used prefix that is neither read (@p reading) nor @p keep; nothing when none is left.
    std::optional<Evicted> evictLeastRecentlyUsed(const std::set<int>& reading, int keep);

private:
    struct Entry {
        std::int64_t blocks = 0;
        double lastUsedSeconds = 0;
    };
    std::map<int, Entry> m_entries;
    std::int64_t m_blocks = 0;
};

} // namespace rapid::serving
