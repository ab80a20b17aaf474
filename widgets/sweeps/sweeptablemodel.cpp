// SPDX-License-Identifier: GPL-3.0-or-later
#include "sweeps/sweeptablemodel.h"

#include "common/figureformat.h"

#include <QBrush>
#include <QPalette>

#include <utility>

namespace rapid::widgets {

SweepTableModel::SweepTableModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void SweepTableModel::setResult(std::shared_ptr<const sweep::SweepResult> result, bool inference)
{
    beginResetModel();
    m_result = std::move(result);
    m_inference = inference;
    if (inference) {
        m_figures = { Figure::Status, Figure::Ttft, Figure::Itl, Figure::E2e, Figure::TokensPerGpu,
            Figure::JoulesPerToken, Figure::Memory, Figure::Pareto };
    } else {
        m_figures = { Figure::Status, Figure::StepTime, Figure::Mfu, Figure::TokensPerGpu, Figure::JoulesPerToken,
            Figure::Memory, Figure::Pareto };
    }
    endResetModel();
}

SweepTableModel::Figure SweepTableModel::figure(int column) const
{
    const int axes = m_result ? static_cast<int>(m_result->space.axes().size()) : 0;
    if (column < axes) {
        return Figure::Axis;
    }
    return m_figures.at(static_cast<size_t>(column - axes));
}

int SweepTableModel::column(Figure figure) const
{
    const int axes = m_result ? static_cast<int>(m_result->space.axes().size()) : 0;
    for (size_t i = 0; i < m_figures.size(); ++i) {
        if (m_figures[i] == figure) {
            return axes + static_cast<int>(i);
        }
    }
    return -1;
}

int SweepTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() || !m_result ? 0 : static_cast<int>(m_result->rows.size());
}

int SweepTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() || !m_result ? 0 : static_cast<int>(m_result->space.axes().size() + m_figures.size());
}

QString SweepTableModel::statusText(sweep::PointStatus status)
{
    switch (status) {
    case sweep::PointStatus::Ok:
        return tr("ok");
    case sweep::PointStatus::Invalid:
        return tr("invalid");
    case sweep::PointStatus::DoesNotFit:
        return tr("does not fit");
    case sweep::PointStatus::Failed:
        return tr("failed");
    case sweep::PointStatus::NotRun:
        break;
    }
    return tr("not run");
}

QString SweepTableModel::axisTitle(const std::string& name)
{
    const auto dot = name.rfind('.');
    return QString::fromStdString(dot == std::string::npos ? name : name.substr(dot + 1));
}

QVariant SweepTableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
        return {};
    }
    const sweep::SweepRow& row = m_result->rows[static_cast<size_t>(index.row())];
    if (role == RowIndexRole) {
        return static_cast<qlonglong>(row.index);
    }
    const Figure what = figure(index.column());
    const bool ok = row.status == sweep::PointStatus::Ok;
    const bool placed = ok || row.status == sweep::PointStatus::DoesNotFit;
    if (role == Qt::TextAlignmentRole) {
        if (what == Figure::Pareto) {
            return QVariant(Qt::AlignCenter);
        }
        return what == Figure::Axis || what == Figure::Status ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                                              : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    }
    if (role == Qt::ToolTipRole) {
        if (!row.message.empty()) {
            return QString::fromStdString(row.message);
        }
        if (what == Figure::Pareto && row.pareto) {
            return tr("On the Pareto front: no other point has more tokens/s per GPU and less %1")
                .arg(m_inference ? tr("end-to-end latency") : tr("memory per GPU"));
        }
        if (row.status == sweep::PointStatus::DoesNotFit) {
            return tr("Needs %1 of %2 per GPU: pruned before the step model")
                .arg(formatGiB(row.peakMemoryBytes), formatGiB(row.capacityBytes));
        }
        return {};
    }
    if (role == Qt::ForegroundRole) {
        if (!ok) {
            return QBrush(QPalette().color(QPalette::Disabled, QPalette::Text));
        }
        return {};
    }
    if (role == SortRole) {
        switch (what) {
        case Figure::Axis:
            return row.coordinates[static_cast<size_t>(index.column())];
        case Figure::Status:
            return static_cast<int>(row.status);
        case Figure::StepTime:
            return ok ? QVariant(row.stepTimeSeconds) : QVariant();
        case Figure::Mfu:
            return ok ? QVariant(row.mfu) : QVariant();
        case Figure::Ttft:
            return ok ? QVariant(row.ttftSeconds) : QVariant();
        case Figure::Itl:
            return ok ? QVariant(row.itlSeconds) : QVariant();
        case Figure::E2e:
            return ok ? QVariant(row.e2eSeconds) : QVariant();
        case Figure::TokensPerGpu:
            return ok ? QVariant(row.tokensPerSecondPerGpu) : QVariant();
        case Figure::JoulesPerToken:
            return ok && row.joulesPerToken > 0 ? QVariant(row.joulesPerToken) : QVariant();
        case Figure::Memory:
            return placed ? QVariant(row.peakMemoryBytes) : QVariant();
        case Figure::Pareto:
            return row.pareto ? 1 : 0;
        }
        return {};
    }
    if (role != Qt::DisplayRole) {
        return {};
    }
    switch (what) {
    case Figure::Axis: {
        const sweep::SweepAxis& axis = m_result->space.axes()[static_cast<size_t>(index.column())];
        return QString::fromStdString(
            axis.values[static_cast<size_t>(row.coordinates[static_cast<size_t>(index.column())])].label);
    }
    case Figure::Status:
        return statusText(row.status);
    case Figure::StepTime:
        return ok ? QVariant(QString::number(row.stepTimeSeconds, 'g', 4)) : QVariant();
    case Figure::Mfu:
        return ok ? QVariant(QString::number(100 * row.mfu, 'f', 1)) : QVariant();
    case Figure::Ttft:
        return ok ? QVariant(QString::number(row.ttftSeconds, 'g', 4)) : QVariant();
    case Figure::Itl:
        return ok ? QVariant(QString::number(row.itlSeconds * 1e3, 'g', 4)) : QVariant();
    case Figure::E2e:
        return ok ? QVariant(QString::number(row.e2eSeconds, 'g', 4)) : QVariant();
    case Figure::TokensPerGpu:
        // Two significant digits below ten: a point of very slow steps reads "0.031", not "0.0".
        return ok ? QVariant(row.tokensPerSecondPerGpu >= 10 ? QString::number(row.tokensPerSecondPerGpu, 'f', 1)
                                                             : QString::number(row.tokensPerSecondPerGpu, 'g', 2))
                  : QVariant();
    case Figure::JoulesPerToken:
        return ok && row.joulesPerToken > 0 ? QVariant(QString::number(row.joulesPerToken, 'g', 3)) : QVariant();
    case Figure::Memory:
        return placed ? QVariant(QString::number(row.peakMemoryBytes / kBytesPerGiB, 'f', 1)) : QVariant();
    case Figure::Pareto:
        return row.pareto ? QStringLiteral("★") : QString();
    }
    return {};
}

QVariant SweepTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || !m_result || section < 0 || section >= columnCount()) {
        return QAbstractTableModel::headerData(section, orientation, role);
    }
    const Figure what = figure(section);
    if (role == Qt::InitialSortOrderRole) {
        // The best first: the highest throughput, MFU and Pareto marks, the lowest times and memory.
        return what == Figure::TokensPerGpu || what == Figure::Mfu || what == Figure::Pareto
            ? QVariant::fromValue(Qt::DescendingOrder)
            : QVariant::fromValue(Qt::AscendingOrder);
    }
    if (role == Qt::ToolTipRole) {
        switch (what) {
        case Figure::Axis:
            return QString::fromStdString(m_result->space.axes()[static_cast<size_t>(section)].name);
        case Figure::StepTime:
            return tr("One optimizer step, seconds");
        case Figure::Mfu:
            return tr("Model FLOPs utilisation, percent");
        case Figure::Ttft:
            return tr("Time to first token, seconds");
        case Figure::Itl:
            return tr("Inter-token latency, milliseconds");
        case Figure::E2e:
            return tr("End-to-end latency of a request, seconds");
        case Figure::TokensPerGpu:
            return m_inference ? tr("Output tokens per second per GPU") : tr("Tokens trained per second per GPU");
        case Figure::JoulesPerToken:
            return m_inference ? tr("Energy per output token, joules") : tr("Energy per token trained, joules");
        case Figure::Memory:
            return tr("Memory peak per GPU (worst pipeline stage), GiB");
        case Figure::Pareto:
            return tr("★: on the Pareto front of tokens/s per GPU against %1")
                .arg(m_inference ? tr("end-to-end latency") : tr("memory per GPU"));
        case Figure::Status:
            break;
        }
        return {};
    }
    if (role != Qt::DisplayRole) {
        return {};
    }
    switch (what) {
    case Figure::Axis:
        return axisTitle(m_result->space.axes()[static_cast<size_t>(section)].name);
    case Figure::Status:
        return tr("Status");
    case Figure::StepTime:
        return tr("Step s");
    case Figure::Mfu:
        return tr("MFU %");
    case Figure::Ttft:
        return tr("TTFT s");
    case Figure::Itl:
        return tr("ITL ms");
    case Figure::E2e:
        return tr("E2E s");
    case Figure::TokensPerGpu:
        return tr("Tok/s/GPU");
    case Figure::JoulesPerToken:
        return tr("J/tok");
    case Figure::Memory:
        return tr("Mem GiB");
    case Figure::Pareto:
        return tr("Pareto");
    }
    return {};
}

} // namespace rapid::widgets
