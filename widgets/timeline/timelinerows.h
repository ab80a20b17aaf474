// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "report/stepresult.h"

#include <utility>
#include <vector>

namespace rapid::widgets {

/// The events of one stream of one pipeline stage, ordered by start, with what a range query needs.
struct TimelineLane {
    int stage = 0;
    graph::Stream stream = graph::Stream::Compute;
    std::vector<int> events; ///< indices into TimelineRows::events(), by start
    std::vector<double> starts; ///< start of each of `events` (binary search without indirection)
    /// Running maximum of the finishes: a stream runs its nodes one after another, but nothing here relies on it,
    /// so a range query stays right even if events of a lane overlap.
    std::vector<double> reach;
};

enum class TimelineRowKind {
    StageHeader, ///< a stage's title; when the stage is collapsed it also shows all its lanes squeezed into one row
    Stream, ///< one lane
};

/// One row of the timeline, top to bottom.
struct TimelineRow {
    TimelineRowKind kind = TimelineRowKind::Stream;
    int stage = 0;
    bool collapsed = false; ///< header of a collapsed stage
    /// Lanes drawn in the row (indices into TimelineRows::lanes()): one for a stream row, all of the stage's lanes
    /// for a collapsed header, none for an expanded header.
    std::vector<int> lanes;
};

/// The timeline arranged for drawing: a header row per pipeline stage, followed (unless the stage is collapsed) by
/// one row per stream the stage uses (compute, pipeline comm, data-parallel comm), in stage and stream order. Owns a
/// copy of the events, so the view never refers to an evaluation that has since been replaced. No Qt: the row logic
/// is tested without painting.
class TimelineRows {
public:
    TimelineRows() = default;
    explicit TimelineRows(std::vector<report::TimelineEvent> events);

    const std::vector<report::TimelineEvent>& events() const { return m_events; }
    bool empty() const { return m_events.empty(); }
    /// Earliest start and latest finish over all events (0 and 0 when empty).
    double startTime() const { return m_start; }
    double finishTime() const { return m_finish; }

    /// Stage numbers present, ascending.
    const std::vector<int>& stages() const { return m_stages; }
    const std::vector<TimelineLane>& lanes() const { return m_lanes; }
    const std::vector<TimelineRow>& rows() const { return m_rows; }
    int rowCount() const { return static_cast<int>(m_rows.size()); }
    /// Number of stream lanes of @p stage (0 for a stage that is not present).
    int laneCount(int stage) const;

    bool isCollapsed(int stage) const;
    /// Collapses or expands @p stage; returns whether anything changed.
    bool setCollapsed(int stage, bool collapsed);
    bool setAllCollapsed(bool collapsed);

    /// Positions [first, last) in @p lane's `events` of the events that overlap [from, to].
    std::pair<size_t, size_t> overlapping(const TimelineLane& lane, double from, double to) const;
    /// The event of lane @p lane at @p time: one that contains it, else the nearest within @p tolerance seconds;
    /// -1 when there is none. Returns an index into events().
    int eventAt(int lane, double time, double tolerance) const;
    /// The row showing event @p event (its stream row, or its stage's header when collapsed), -1 if out of range.
    int rowOfEvent(int event) const;

private:
    void rebuildRows();

    std::vector<report::TimelineEvent> m_events;
    std::vector<TimelineLane> m_lanes;
    std::vector<int> m_stages;
    std::vector<bool> m_collapsed; ///< by position in m_stages
    std::vector<TimelineRow> m_rows;
    double m_start = 0;
    double m_finish = 0;
};

} // namespace rapid::widgets
