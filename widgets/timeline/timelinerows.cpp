// SPDX-License-Identifier: GPL-3.0-or-later
#include "timeline/timelinerows.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace rapid::widgets {

TimelineRows::TimelineRows(std::vector<report::TimelineEvent> events)
    : m_events(std::move(events))
{
    // Lanes keyed by (stage, stream), so the map's order is already the drawing order.
    std::map<std::pair<int, int>, std::vector<int>> byLane;
    bool first = true;
    for (size_t i = 0; i < m_events.size(); ++i) {
        const report::TimelineEvent& event = m_events[i];
        // A non-finite time cannot be placed on an axis; leaving it out beats breaking the view's arithmetic.
        if (!std::isfinite(event.start) || !std::isfinite(event.finish)) {
            continue;
        }
        byLane[{ event.rank, static_cast<int>(event.stream) }].push_back(static_cast<int>(i));
        m_start = first ? event.start : std::min(m_start, event.start);
        m_finish = first ? event.finish : std::max(m_finish, event.finish);
        first = false;
    }
    for (auto& [key, indices] : byLane) {
        std::stable_sort(indices.begin(), indices.end(), [this](int a, int b) {
            return m_events[static_cast<size_t>(a)].start < m_events[static_cast<size_t>(b)].start;
        });
        TimelineLane lane;
        lane.stage = key.first;
        lane.stream = static_cast<graph::Stream>(key.second);
        lane.starts.reserve(indices.size());
        lane.reach.reserve(indices.size());
        double reach = m_start;
        for (int index : indices) {
            const report::TimelineEvent& event = m_events[static_cast<size_t>(index)];
            lane.starts.push_back(event.start);
            reach = std::max(reach, event.finish);
            lane.reach.push_back(reach);
        }
        lane.events = std::move(indices);
        if (m_stages.empty() || m_stages.back() != lane.stage) {
            m_stages.push_back(lane.stage);
        }
        m_lanes.push_back(std::move(lane));
    }
    m_collapsed.assign(m_stages.size(), false);
    rebuildRows();
}

int TimelineRows::laneCount(int stage) const
{
    return static_cast<int>(std::count_if(
        m_lanes.begin(), m_lanes.end(), [stage](const TimelineLane& lane) { return lane.stage == stage; }));
}

bool TimelineRows::isCollapsed(int stage) const
{
    const auto it = std::lower_bound(m_stages.begin(), m_stages.end(), stage);
    return it != m_stages.end() && *it == stage && m_collapsed[static_cast<size_t>(it - m_stages.begin())];
}

bool TimelineRows::setCollapsed(int stage, bool collapsed)
{
    const auto it = std::lower_bound(m_stages.begin(), m_stages.end(), stage);
    if (it == m_stages.end() || *it != stage) {
        return false;
    }
    const size_t position = static_cast<size_t>(it - m_stages.begin());
    if (m_collapsed[position] == collapsed) {
        return false;
    }
    m_collapsed[position] = collapsed;
    rebuildRows();
    return true;
}

bool TimelineRows::setAllCollapsed(bool collapsed)
{
    const bool changed = std::find(m_collapsed.begin(), m_collapsed.end(), !collapsed) != m_collapsed.end();
    m_collapsed.assign(m_stages.size(), collapsed);
    if (changed) {
        rebuildRows();
    }
    return changed;
}

std::pair<size_t, size_t> TimelineRows::overlapping(const TimelineLane& lane, double from, double to) const
{
    // Everything before `first` finished before `from` (reach is non-decreasing); everything from `last` on starts
    // after `to`.
    const size_t first
        = static_cast<size_t>(std::lower_bound(lane.reach.begin(), lane.reach.end(), from) - lane.reach.begin());
    const size_t last
        = static_cast<size_t>(std::upper_bound(lane.starts.begin(), lane.starts.end(), to) - lane.starts.begin());
    return { first, std::max(first, last) };
}

int TimelineRows::eventAt(int lane, double time, double tolerance) const
{
    if (lane < 0 || lane >= static_cast<int>(m_lanes.size())) {
        return -1;
    }
    const TimelineLane& where = m_lanes[static_cast<size_t>(lane)];
    const auto [first, last] = overlapping(where, time - tolerance, time + tolerance);
    int best = -1;
    double bestDistance = tolerance;
    bool bestContains = false;
    for (size_t i = first; i < last; ++i) {
        const int index = where.events[i];
        const report::TimelineEvent& event = m_events[static_cast<size_t>(index)];
        const bool contains = event.start <= time && time <= event.finish;
        const double distance = contains ? 0.0 : std::min(std::abs(event.start - time), std::abs(event.finish - time));
        // An event under the cursor wins over a neighbour within the tolerance; among events under it the later
        // one wins, as it is drawn on top.
        if (contains || (!bestContains && distance <= bestDistance)) {
            best = index;
            bestDistance = distance;
            bestContains = contains;
        }
    }
    return best;
}

int TimelineRows::rowOfEvent(int event) const
{
    if (event < 0 || event >= static_cast<int>(m_events.size())) {
        return -1;
    }
    const report::TimelineEvent& target = m_events[static_cast<size_t>(event)];
    for (size_t r = 0; r < m_rows.size(); ++r) {
        const TimelineRow& row = m_rows[r];
        if (row.stage != target.rank) {
            continue;
        }
        for (int lane : row.lanes) {
            if (m_lanes[static_cast<size_t>(lane)].stream == target.stream) {
                return static_cast<int>(r);
            }
        }
    }
    return -1;
}

void TimelineRows::rebuildRows()
{
    m_rows.clear();
    size_t lane = 0;
    for (size_t s = 0; s < m_stages.size(); ++s) {
        TimelineRow header;
        header.kind = TimelineRowKind::StageHeader;
        header.stage = m_stages[s];
        header.collapsed = m_collapsed[s];
        std::vector<TimelineRow> streamRows;
        for (; lane < m_lanes.size() && m_lanes[lane].stage == header.stage; ++lane) {
            if (header.collapsed) {
                header.lanes.push_back(static_cast<int>(lane));
            } else {
                streamRows.push_back({ TimelineRowKind::Stream, header.stage, false, { static_cast<int>(lane) } });
            }
        }
        m_rows.push_back(std::move(header));
        m_rows.insert(m_rows.end(), streamRows.begin(), streamRows.end());
    }
}

} // namespace rapid::widgets
