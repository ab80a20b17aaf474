// SPDX-License-Identifier: GPL-3.0-or-later
//
// Shown as the "Timeline" tab of ResultsPanel, fed from Evaluation::training (StructureEvaluator runs the step
// model with the timeline on). The view keeps its own copy of the events, so later evaluations or a baseline never
// invalidate it; a baseline is not drawn (one timeline at a time).
#pragma once

#include "report/stepresult.h"

#include <QString>
#include <QWidget>

#include <optional>

class QAction;
class QHBoxLayout;
class QLabel;

namespace rapid::widgets {

class TimelineCanvas;

/// The Timeline view: one row per stream (compute, pipeline comm, data-parallel comm) of every pipeline stage's
/// representative rank, bars coloured by kind and pass, a legend of the colours present, and a tool bar (fit, fold
/// or unfold all stages, export as a Chrome trace for chrome://tracing or Perfetto). The drawing and the mouse
/// handling live in TimelineCanvas.
class TimelineView : public QWidget {
    Q_OBJECT
public:
    explicit TimelineView(QWidget* parent = nullptr);

    /// Shows @p result's timeline (a copy) and fits it; @p title names the run in exported traces.
    void setTimeline(const report::TrainingResult& result, const QString& title = {});
    /// Shows @p message instead of a timeline (inference runs, failed predictions); disables the export.
    void clear(const QString& message);
    bool hasTimeline() const { return m_result.has_value(); }

    /// Writes the shown timeline as Chrome trace JSON to @p path (replacing the file only once fully written).
    /// False with @p error set when there is no timeline or the file cannot be written.
    bool exportChromeTrace(const QString& path, QString* error = nullptr) const;

    TimelineCanvas* canvas() const { return m_canvas; }
    QAction* fitAction() const { return m_fit; }
    QAction* exportAction() const { return m_export; }

private:
    void exportWithDialog();
    void updateLegend();

    std::optional<report::TrainingResult> m_result;
    QString m_title;
    TimelineCanvas* m_canvas;
    QHBoxLayout* m_legend;
    QLabel* m_summary;
    QAction* m_fit;
    QAction* m_expandAll;
    QAction* m_collapseAll;
    QAction* m_export;
};

} // namespace rapid::widgets
