// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "graph/chakrainspect.h"

#include <QTreeWidget>

#include <cstdint>
#include <vector>

namespace rapid::widgets {

/// The defects of the open trace set, as `rapid chakra inspect` finds them (graph::inspectChakra): one row per defect
/// with its node ids, rank, kind (and severity, for warnings) and message, in the inspection's order. A defect that
/// names several nodes lists each as a child row. Clicking (or pressing Enter on) a row that names a node emits
/// nodeActivated with the row's node, the first one for a defect row.
class GraphDefectList : public QTreeWidget {
    Q_OBJECT
public:
    explicit GraphDefectList(QWidget* parent = nullptr);

    void setDefects(const std::vector<graph::ChakraDefect>& defects);
    /// Empties the list and shows @p text in its place ("Checking…", why the check failed).
    void showPlaceholder(const QString& text);
    /// Defect rows (top-level items), 0 while a placeholder is shown.
    int defectCount() const { return m_defectCount; }

Q_SIGNALS:
    void nodeActivated(int rank, quint64 id);

private:
    void activate(QTreeWidgetItem* item);

    int m_defectCount = 0;
};

} // namespace rapid::widgets
