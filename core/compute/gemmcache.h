// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "gemmmodel.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <unordered_map>

namespace rapid::compute {

/// Memoises estimateGemm: the same GEMM on the same GPU is estimated once (an LLM step repeats a handful of shapes
/// thousands of times). Keyed by the shape, its precision and every GpuSpec value the model reads
/// (gemmModelInputs), so a derated or edited GPU never gets a stale answer. A hit costs one hash of 21 numbers and
/// one table probe (well under a microsecond).
///
/// Not thread-safe: lookups insert. Give each evaluation thread its own cache.
class GemmCache {
public:
    /// The estimate for @p shape on @p gpu, computed on the first request and remembered. The reference stays valid
    /// until clear() or the cache's destruction. Throws what estimateGemm throws (and caches nothing then).
    const GemmEstimate& estimate(const config::GpuSpec& gpu, const GemmShape& shape);

    std::size_t size() const { return m_entries.size(); }
    std::uint64_t hits() const { return m_hits; }
    std::uint64_t misses() const { return m_misses; }
    void clear();

private:
    struct Key {
        GemmShape shape;
        std::array<double, kGemmModelInputCount> gpu {};
        bool operator==(const Key&) const = default;
    };
    struct KeyHash {
        std::size_t operator()(const Key& key) const;
    };

    std::unordered_map<Key, GemmEstimate, KeyHash> m_entries;
    std::uint64_t m_hits = 0;
    std::uint64_t m_misses = 0;
};

} // namespace rapid::compute
