// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "common/figuredialog.h"

#include <QWidget>

class QTabWidget;

namespace rapid::widgets {

class ChartWidget;
class CriticalityPage;
class FaultStudyPage;
class GoodputPage;
class StragglerPage;
class WorkspaceDocument;

/// The Resilience tab (issue #16): how faults, stragglers and failures cost the workspace's training, in four pages
/// that each run in the background with progress and Cancel — the fault study's slowdown distributions per (k, h),
/// the criticality map on the network, straggler curves, and goodput against the checkpoint interval. Read-only
/// towards the workspace; a result says when edits have made it stale. Every chart (and the map) is a figure of
/// File > Export Figure; the current page's is the one it starts on.
class ResiliencePanel : public QWidget {
    Q_OBJECT
public:
    explicit ResiliencePanel(WorkspaceDocument* document, QWidget* parent = nullptr);

    QTabWidget* pages() const { return m_pages; }
    FaultStudyPage* faultStudy() const { return m_faultStudy; }
    CriticalityPage* criticality() const { return m_criticality; }
    StragglerPage* stragglers() const { return m_stragglers; }
    GoodputPage* goodput() const { return m_goodput; }
    /// The three charts (each with its "Export…" menu).
    QList<ChartWidget*> charts() const;
    /// Every figure of the tab for the export dialog: the charts and the criticality map.
    QList<FigureDialog::Target> figures() const;
    /// The figure of the page shown now.
    QWidget* currentFigure() const;

private:
    QTabWidget* m_pages;
    FaultStudyPage* m_faultStudy;
    CriticalityPage* m_criticality;
    StragglerPage* m_stragglers;
    GoodputPage* m_goodput;
};

} // namespace rapid::widgets
