// SPDX-License-Identifier: GPL-3.0-or-later
#include "gemmcache.h"

#include <bit>

namespace rapid::compute {

namespace {

// 64-bit FNV-1a style mixing of whole words: cheap, and good enough for a table of a few thousand shapes.
constexpr std::uint64_t kFnvOffset = 14695981039346656037ull;
constexpr std::uint64_t kFnvPrime = 1099511628211ull;

std::uint64_t mix(std::uint64_t hash, std::uint64_t word)
{
    return (hash ^ word) * kFnvPrime;
}

} // namespace

std::size_t GemmCache::KeyHash::operator()(const Key& key) const
{
    std::uint64_t hash = kFnvOffset;
    hash = mix(hash, static_cast<std::uint64_t>(key.shape.m));
    hash = mix(hash, static_cast<std::uint64_t>(key.shape.k));
    hash = mix(hash, static_cast<std::uint64_t>(key.shape.n));
    hash = mix(hash, static_cast<std::uint64_t>(key.shape.batch));
    hash = mix(hash, static_cast<std::uint64_t>(key.shape.precision));
    hash = mix(hash, key.shape.storedWeights ? 1 + static_cast<std::uint64_t>(*key.shape.storedWeights) : 0);
    hash = mix(hash, key.shape.tokenTiles ? 1 : 0);
    hash = mix(hash, key.shape.quantisedOutput ? 1 : 0);
    hash = mix(hash, key.shape.accumulateInto ? 1 + static_cast<std::uint64_t>(*key.shape.accumulateInto) : 0);
    for (double value : key.gpu) {
        hash = mix(hash, std::bit_cast<std::uint64_t>(value));
    }
    return static_cast<std::size_t>(hash ^ (hash >> 32));
}

const GemmEstimate& GemmCache::estimate(const config::GpuSpec& gpu, const GemmShape& shape)
{
    Key key { shape, gemmModelInputs(gpu, shape.precision) };
    if (auto found = m_entries.find(key); found != m_entries.end()) {
        ++m_hits;
        return found->second;
    }
    ++m_misses;
    GemmEstimate computed = estimateGemm(gpu, shape);
    return m_entries.emplace(std::move(key), std::move(computed)).first->second;
}

void GemmCache::clear()
{
    m_entries.clear();
    m_hits = 0;
    m_misses = 0;
}

} // namespace rapid::compute
