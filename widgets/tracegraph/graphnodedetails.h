// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "graph/chakratrace.h"

#include <QString>

#include <vector>

class QTreeWidget;

namespace rapid::widgets {

/// One line of the node details: a field or an attribute, its value and (for attributes) the wire member type.
struct NodeDetailRow {
    QString field;
    QString value;
    QString type;
    bool attribute = false; ///< a ChakraAttribute (listed under "Attributes") rather than a node field
};

/// Everything the trace says about @p node: id, name, type, start, duration, data and control dependencies, the
/// IOInfo strings when present, then every attribute in wire order with its value text and member type. The
/// `comm_type` of a collective also names the collective ("0 (ALL_REDUCE)").
std::vector<NodeDetailRow> nodeDetailRows(const graph::ChakraNode& node);

/// Gives @p tree the columns and look showNodeDetails() expects, and the hint to click a node.
void setUpNodeDetails(QTreeWidget* tree);

/// Fills @p tree (three columns: field, type, value) with nodeDetailRows(); null @p node leaves a hint to click one.
void showNodeDetails(QTreeWidget* tree, const graph::ChakraNode* node);

} // namespace rapid::widgets
