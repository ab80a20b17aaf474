// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "graph/chakratrace.h"

#include <QString>

#include <cstdint>
#include <optional>
#include <vector>

namespace rapid::widgets {

class GraphCanvas;

/// The nodes of @p trace drawn on @p canvas whose name or type contains @p text (any ASCII case) or whose id is it,
/// in trace order; none for blank text.
std::vector<std::uint64_t> drawnSearchMatches(
    const graph::ChakraTrace& trace, const GraphCanvas& canvas, const QString& text);

/// The match after @p shown in @p matches, wrapping around; the first when @p shown is none or not a match.
/// @p matches must not be empty.
std::uint64_t nextSearchMatch(const std::vector<std::uint64_t>& matches, std::optional<std::uint64_t> shown);

} // namespace rapid::widgets
