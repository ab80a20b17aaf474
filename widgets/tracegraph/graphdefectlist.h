// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "graph/chakrainspect.h"

#include <QTreeWidget>

class QSplitter;
class QTabWidget;

#include <cstdint>
#include <vector>

namespace rapid::widgets {

/// The defects of the open trace set, as `rapid chakra inspect` finds them (graph::inspectChakra): one row per defect
/// with its kind (and severity, for warnings), rank and message (which names the node), in the inspection's order.
/// The kind is never cut; the message takes the rest of the width and carries its whole text in its tooltip. A
/// defect that names several nodes lists each as a child row. Clicking (or pressing Enter on) a row that names a node
/// emits nodeActivated with the row's node, the first one for a defect row.
class GraphDefectList : public QTreeWidget {
    Q_OBJECT
public:
    explicit GraphDefectList(QWidget* parent = nullptr);

    void setDefects(const std::vector<graph::ChakraDefect>& defects);
    /// Empties the list and shows @p text in its place ("Checking…", why the check failed).
    void showPlaceholder(const QString& text);
    /// Defect rows (top-level items), 0 while a placeholder is shown.
    int defectCount() const { return m_defectCount; }
    /// The width at which every kind shows whole beside a readable start of the messages (0 without defects): what
    /// the Graph tab gives its side panel while the list is shown, room permitting.
    int wantedWidth() const;

Q_SIGNALS:
    void nodeActivated(int rank, quint64 id);

private:
    void activate(QTreeWidgetItem* item);

    int m_defectCount = 0;
};

/// Shares @p width of the Graph tab's @p splitter between the drawing and the side panel @p side: a third to the
/// panel, and while it shows @p defects what the list wants, up to three fifths (the drawing keeps the rest).
void shareGraphWidth(QSplitter* splitter, int width, const QTabWidget* side, const GraphDefectList* defects);

} // namespace rapid::widgets
