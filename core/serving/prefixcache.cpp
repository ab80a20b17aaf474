// SPDX-License-Identifier: GPL-3.0-or-later
// The prefix cache's blocks and their least-recently-used eviction (see prefixcache.h).
#include "prefixcache.h"

namespace rapid::serving {

void PrefixCache::insert(int prefixId, std::int64_t blocks, double now)
{
    const auto [entry, added] = m_entries.try_emplace(prefixId, Entry { blocks, now });
    if (added) {
        m_blocks += blocks;
    } else {
        entry->second.lastUsedSeconds = now;
    }
}

void PrefixCache::touch(int prefixId, double now)
{
    if (const auto found = m_entries.find(prefixId); found != m_entries.end()) {
        found->second.lastUsedSeconds = now;
    }
}

std::int64_t PrefixCache::evictableBlocks(const std::set<int>& reading) const
{
    std::int64_t blocks = 0;
    for (const auto& [id, entry] : m_entries) {
        blocks += reading.contains(id) ? 0 : entry.blocks;
    }
    return blocks;
}

std::optional<PrefixCache::Evicted> PrefixCache::evictLeastRecentlyUsed(const std::set<int>& reading, int keep)
{
    auto victim = m_entries.end();
    for (auto it = m_entries.begin(); it != m_entries.end(); ++it) {
        if (it->first == keep || reading.contains(it->first)) {
            continue;
        }
        // Ties go to the lower id, the map's order, so that a run is reproducible.
        if (victim == m_entries.end() || it->second.lastUsedSeconds < victim->second.lastUsedSeconds) {
            victim = it;
        }
    }
    if (victim == m_entries.end()) {
        return std::nullopt;
    }
    const Evicted evicted { victim->first, victim->second.blocks };
    m_blocks -= evicted.blocks;
    m_entries.erase(victim);
    return evicted;
}

} // namespace rapid::serving
