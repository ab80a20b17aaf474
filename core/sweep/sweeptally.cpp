// SPDX-License-Identifier: GPL-3.0-or-later
#include "sweeptally.h"

#include <algorithm>

namespace rapid::sweep {

namespace {

double cost(const SweepRow& row)
{
    return row.inference ? row.e2eSeconds : row.peakMemoryBytes;
}

/// The ranking of `rapid sweep`: more tokens/s per GPU first, then the lower index.
bool ranksBefore(const SweepRow& a, const SweepRow& b)
{
    if (a.tokensPerSecondPerGpu != b.tokensPerSecondPerGpu) {
        return a.tokensPerSecondPerGpu > b.tokensPerSecondPerGpu;
    }
    return a.index < b.index;
}

} // namespace

bool beatsOnFront(const SweepRow& a, const SweepRow& b)
{
    if (a.tokensPerSecondPerGpu < b.tokensPerSecondPerGpu || cost(a) > cost(b)) {
        return false;
    }
    if (a.tokensPerSecondPerGpu == b.tokensPerSecondPerGpu && cost(a) == cost(b)) {
        return a.index < b.index;
    }
    return true;
}

SweepTally::SweepTally(int keepTop)
    : m_keepTop(static_cast<size_t>(std::max(0, keepTop)))
{
}

void SweepTally::add(const SweepRow& row)
{
    ++m_added;
    ++m_counts[static_cast<size_t>(row.status)];
    if (row.status == PointStatus::Ok) {
        addToTop(row);
        addToFront(row);
    }
    if (!row.message.empty() && m_rejections.size() < kKeptRejections
        && std::none_of(m_rejections.begin(), m_rejections.end(),
            [&](const SweepRow& kept) { return kept.message == row.message; })) {
        m_rejections.push_back(row);
    }
}

void SweepTally::addToTop(const SweepRow& row)
{
    if (m_keepTop == 0) {
        return;
    }
    // A heap under ranksBefore keeps the worst kept row at its front.
    if (m_top.size() < m_keepTop) {
        m_top.push_back(row);
        std::push_heap(m_top.begin(), m_top.end(), ranksBefore);
    } else if (ranksBefore(row, m_top.front())) {
        std::pop_heap(m_top.begin(), m_top.end(), ranksBefore);
        m_top.back() = row;
        std::push_heap(m_top.begin(), m_top.end(), ranksBefore);
    }
}

void SweepTally::addToFront(const SweepRow& row)
{
    // "Beats" is a strict partial order, so a row beaten by any row seen is beaten by one on the front, and a row
    // taken off the front never returns: the front of the rows so far is always exact.
    if (std::any_of(m_front.begin(), m_front.end(), [&](const SweepRow& kept) { return beatsOnFront(kept, row); })) {
        return;
    }
    std::erase_if(m_front, [&](const SweepRow& kept) { return beatsOnFront(row, kept); });
    m_front.push_back(row);
}

void SweepTally::finish(SweepResult& result)
{
    m_counts[static_cast<size_t>(PointStatus::NotRun)] += result.space.size() - m_added;
    result.statusCounts = m_counts;
    std::sort(m_front.begin(), m_front.end(), [](const SweepRow& a, const SweepRow& b) {
        if (a.tokensPerSecondPerGpu != b.tokensPerSecondPerGpu) {
            return a.tokensPerSecondPerGpu > b.tokensPerSecondPerGpu;
        }
        return cost(a) < cost(b);
    });
    for (SweepRow& row : m_front) {
        row.pareto = true;
    }
    std::sort_heap(m_top.begin(), m_top.end(), ranksBefore);
    for (SweepRow& row : m_top) {
        row.pareto = std::any_of(
            m_front.begin(), m_front.end(), [&](const SweepRow& front) { return front.index == row.index; });
    }
    result.top = std::move(m_top);
    result.paretoFront = std::move(m_front);
    result.rejections = std::move(m_rejections);
}

} // namespace rapid::sweep
