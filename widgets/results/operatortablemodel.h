// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "evaluation/evaluation.h"

#include <QAbstractTableModel>

#include <vector>

namespace rapid::widgets {

/// The operators of one layer (Evaluation::operators) as a read-only table. Display texts are formatted (ms, GFLOP,
/// MB); SortRole gives the raw value (double for the numeric columns, text otherwise) so a QSortFilterProxyModel
/// sorting on it orders numbers numerically. Numeric columns ask for a descending first sort (InitialSortOrderRole):
/// clicking "Time" shows the slowest operator first.
class OperatorTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Name, Phase, Shape, Flops, Bytes, Time, Bound, ColumnCount };
    static constexpr int SortRole = Qt::UserRole;

    explicit OperatorTableModel(QObject* parent = nullptr);

    void setRows(std::vector<OperatorRow> rows);
    const std::vector<OperatorRow>& rows() const { return m_rows; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<OperatorRow> m_rows;
};

} // namespace rapid::widgets
