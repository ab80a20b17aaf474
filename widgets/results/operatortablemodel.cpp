// SPDX-License-Identifier: GPL-3.0-or-later
#include "results/operatortablemodel.h"

#include <utility>

namespace rapid::widgets {

namespace {

bool isNumeric(int column)
{
    return column == OperatorTableModel::Flops || column == OperatorTableModel::Bytes
        || column == OperatorTableModel::Time;
}

} // namespace

OperatorTableModel::OperatorTableModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void OperatorTableModel::setRows(std::vector<OperatorRow> rows)
{
    beginResetModel();
    m_rows = std::move(rows);
    endResetModel();
}

int OperatorTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int OperatorTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant OperatorTableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
        return {};
    }
    const OperatorRow& row = m_rows[static_cast<size_t>(index.row())];
    if (role == Qt::TextAlignmentRole) {
        return isNumeric(index.column()) ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                                         : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    }
    if (role == SortRole) {
        switch (index.column()) {
        case Flops:
            return row.flops;
        case Bytes:
            return row.bytes;
        case Time:
            return row.seconds;
        default:
            return data(index, Qt::DisplayRole);
        }
    }
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole) {
        return {};
    }
    switch (index.column()) {
    case Name:
        return QString::fromStdString(row.name);
    case Phase:
        return QString::fromLatin1(model::toString(row.phase));
    case Shape:
        return QString::fromStdString(row.shape);
    case Flops:
        return QString::number(row.flops / 1e9, 'f', 2);
    case Bytes:
        return QString::number(row.bytes / 1e6, 'f', 2);
    case Time:
        return QString::number(row.seconds * 1e3, 'f', 3);
    case Bound:
        return QString::fromLatin1(compute::toString(row.bound));
    default:
        return {};
    }
}

QVariant OperatorTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount) {
        return QAbstractTableModel::headerData(section, orientation, role);
    }
    if (role == Qt::InitialSortOrderRole) {
        return isNumeric(section) ? Qt::DescendingOrder : Qt::AscendingOrder;
    }
    if (role != Qt::DisplayRole) {
        return {};
    }
    switch (section) {
    case Name:
        return tr("Operator");
    case Phase:
        return tr("Phase");
    case Shape:
        return tr("Kind and shape");
    case Flops:
        return tr("GFLOP");
    case Bytes:
        return tr("MB");
    case Time:
        return tr("Time (ms)");
    case Bound:
        return tr("Bound");
    default:
        return {};
    }
}

} // namespace rapid::widgets
