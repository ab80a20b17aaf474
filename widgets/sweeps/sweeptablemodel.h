// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "sweep/sweeprunner.h"

#include <QAbstractTableModel>

#include <memory>
#include <vector>

namespace rapid::widgets {

/// The points of a sweep as a read-only table: one column per axis (the value's label), the status, then the figures
/// of the run's mode — step time and MFU for training, TTFT, ITL and end-to-end latency for inference — tokens/s per
/// GPU, energy per token, memory peak per GPU and the Pareto mark. Figures a point does not have (pruned, invalid) stay
/// empty; an invalid or failed point's message is the tooltip of its whole row. SortRole gives raw values (numbers, the
/// axis value's position, the status order), empty for missing figures; RowIndexRole the point's index in the result.
class SweepTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum class Figure { Axis, Status, StepTime, Mfu, Ttft, Itl, E2e, TokensPerGpu, JoulesPerToken, Memory, Pareto };
    static constexpr int SortRole = Qt::UserRole;
    static constexpr int RowIndexRole = Qt::UserRole + 1;

    explicit SweepTableModel(QObject* parent = nullptr);

    /// Shows @p result; @p inference picks the latency columns instead of the step ones.
    void setResult(std::shared_ptr<const sweep::SweepResult> result, bool inference);
    const std::shared_ptr<const sweep::SweepResult>& result() const { return m_result; }
    bool inference() const { return m_inference; }

    Figure figure(int column) const;
    /// The column of @p figure (not Axis), or -1 when the mode has none.
    int column(Figure figure) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    /// "ok", "does not fit", "invalid", "failed", "not run".
    static QString statusText(sweep::PointStatus status);
    /// An axis' column title: the last step of its key ("micro_batch"), "split" for parallel splits.
    static QString axisTitle(const std::string& name);

private:
    std::shared_ptr<const sweep::SweepResult> m_result;
    bool m_inference = false;
    std::vector<Figure> m_figures; ///< after the axis columns
};

} // namespace rapid::widgets
