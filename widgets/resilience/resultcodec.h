// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "resilience/goodputfigures.h"
#include "resilience/resiliencerunner.h"

#include <QJsonObject>

#include <memory>
#include <optional>

namespace rapid::widgets {

// The Resilience pages' results as JSON, for the workspace file's `results:` (WorkspaceDocument::keepResult). What
// a page shows is written, no more: a fault study's trials keep their step times (the CDF) but not the links each
// drew, which nothing shows and which would make a saved 10^5-trial study megabytes long. Readers return nothing for
// a malformed object rather than show part of a result.

QJsonObject studyRowsToJson(const StudyRows& rows);
std::shared_ptr<const StudyRows> studyRowsFromJson(const QJsonObject& json);

/// Without the network: the reader is given the one the map was computed on.
QJsonObject criticalityToJson(const CriticalityMap& map);
std::shared_ptr<const CriticalityMap> criticalityFromJson(
    const QJsonObject& json, std::shared_ptr<const network::Topology> topology);

/// Without the curve, which fillGoodputCurve() computes again from the run and the optimum.
QJsonObject goodputToJson(const GoodputFigures& figures);
std::optional<GoodputFigures> goodputFromJson(const QJsonObject& json);

} // namespace rapid::widgets
