// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/workspacefile.h"
#include "sweep/sweeprunner.h"

#include <QWidget>

#include <memory>

class QCheckBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;

namespace rapid::widgets {

class SweepAxesEditor;
class SweepChart;
class SweepJob;
class SweepTableModel;
class WorkspaceDocument;

/// The Sweep tab: the axes (SweepAxesEditor) and their point count, Run and Cancel with a progress bar, and the
/// result as a sortable table (SweepTableModel) beside a scatter of throughput per GPU against memory or latency
/// with the Pareto front (SweepChart). The sweep runs in the background (SweepJob) on the workspace's documents as
/// they are when Run is clicked: later edits neither cancel it nor change it, and the status line says when the shown
/// result no longer matches the workspace. Read-only towards the workspace: a point's overrides can be copied as
/// `--set` arguments and every point exported as CSV (the columns of `rapid sweep --csv`).
class SweepPanel : public QWidget {
    Q_OBJECT
public:
    /// Most points a sweep of the workbench may have: every point is a table row (`rapid sweep` has no such limit).
    static constexpr std::int64_t kMaxPoints = 200'000;

    explicit SweepPanel(WorkspaceDocument* document, QWidget* parent = nullptr);

    SweepAxesEditor* axesEditor() const { return m_axes; }
    QLabel* pointCountLabel() const { return m_pointCount; }
    QPushButton* runButton() const { return m_run; }
    QPushButton* cancelButton() const { return m_cancel; }
    QProgressBar* progressBar() const { return m_progress; }
    QLabel* statusLabel() const { return m_status; }
    QTableView* table() const { return m_table; }
    SweepTableModel* tableModel() const { return m_model; }
    SweepChart* chart() const { return m_chart; }
    SweepJob* job() const { return m_job; }
    QPushButton* copyButton() const { return m_copy; }
    QPushButton* applyButton() const { return m_apply; }
    QPushButton* exportCsvButton() const { return m_exportCsv; }
    QCheckBox* showNotFittingCheck() const { return m_showNotFitting; }

    /// The shown result (null before the first sweep finishes); the documents it was computed from.
    const std::shared_ptr<const sweep::SweepResult>& result() const { return m_result; }
    const config::WorkspaceDocuments& resultDocuments() const { return m_resultDocuments; }
    /// The points of the current axes, or -1 when they do not parse (or the splits lack a valid workspace).
    std::int64_t pointCount() const { return m_pointCount64; }

    /// Starts a sweep of the current axes on the workspace's current documents; false (status line says why) when
    /// the axes or the workspace are not valid.
    bool run();
    /// Writes the shown result as `rapid sweep --csv` does.
    bool exportCsv(const QString& filePath, QString* error = nullptr) const;
    /// The shown point @p rowIndex's overrides as command-line arguments: "--set run.parallelism.tp=8 --set …".
    QString overrideArguments(std::int64_t rowIndex) const;
    /// The result index of the table's current row, or -1.
    std::int64_t selectedRowIndex() const;
    /// Selects the table row of point @p rowIndex (what clicking its plot point does).
    void selectPoint(std::int64_t rowIndex);

    /// The CSV text of @p result: the columns and number formats of `rapid sweep --csv`.
    static std::string csv(const sweep::SweepResult& result);

Q_SIGNALS:
    /// A finished sweep's result is now in the table and the plot.
    void resultShown();

private:
    void describeFields();
    void connectSignals();
    /// Shows the workspace's sweep set-up (the defaults when it has none) unless the editor shows it already.
    void showSweepSettings();
    void updatePointCount();
    void updateHardware();
    void updateRunEnabled();
    void updateStatus();
    void showRunning(bool running);
    void showResult(const sweep::SweepResult& result);
    void copyOverrides();
    /// Sets the selected point's overrides in the workspace, one undo step.
    void applyPoint();
    void exportCsvWithDialog();

    WorkspaceDocument* m_document;
    SweepJob* m_job;
    SweepAxesEditor* m_axes;
    QLabel* m_pointCount;
    QPushButton* m_run;
    QPushButton* m_cancel;
    QProgressBar* m_progress;
    QLabel* m_status;
    SweepTableModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QTableView* m_table;
    SweepChart* m_chart;
    QPushButton* m_copy;
    QPushButton* m_apply;
    QPushButton* m_exportCsv;
    QCheckBox* m_showNotFitting;
    QLabel* m_copied;
    std::int64_t m_pointCount64 = -1;

    std::shared_ptr<const sweep::SweepResult> m_result;
    config::WorkspaceDocuments m_resultDocuments;
    config::WorkspaceDocuments m_runningDocuments; ///< what the running sweep started from
    bool m_runningInference = false;
    std::int64_t m_runningPoints = 0;
    QString m_note; ///< why the last sweep left no new result (cancelled, failed, refused)
    QString m_reason; ///< the shown result's most frequent reason for rejecting a point
};

} // namespace rapid::widgets
