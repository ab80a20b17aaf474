// SPDX-License-Identifier: GPL-3.0-or-later
#include "tracegraph/graphdefectlist.h"

#include <QHeaderView>
#include <QStringList>

#include <algorithm>

namespace rapid::widgets {

namespace {

constexpr int kRankRole = Qt::UserRole;
constexpr int kNodeRole = Qt::UserRole + 1;
constexpr std::size_t kIdsInRow = 2; ///< ids written out in a defect's row; its child rows list them all

// Ids first: they are what a user scans for and clicks; the message, the longest, takes what is left.
enum Column { NodesColumn, RankColumn, KindColumn, MessageColumn };

QString idList(const std::vector<std::uint64_t>& ids)
{
    QStringList shown;
    for (std::size_t i = 0; i < ids.size() && i < kIdsInRow; ++i) {
        shown.append(QString::number(ids[i]));
    }
    QString text = shown.join(QStringLiteral(", "));
    if (ids.size() > kIdsInRow) {
        text += QStringLiteral(", … (%1)").arg(ids.size());
    }
    return text;
}

void setNode(QTreeWidgetItem* item, int rank, std::uint64_t id)
{
    item->setData(NodesColumn, kRankRole, rank);
    item->setData(NodesColumn, kNodeRole, QVariant::fromValue<quint64>(id));
}

} // namespace

GraphDefectList::GraphDefectList(QWidget* parent)
    : QTreeWidget(parent)
{
    setObjectName(QStringLiteral("graphDefects"));
    setColumnCount(4);
    setHeaderLabels({ tr("Nodes"), tr("Rank"), tr("Defect"), tr("Message") });
    header()->setSectionResizeMode(NodesColumn, QHeaderView::ResizeToContents);
    header()->setSectionResizeMode(RankColumn, QHeaderView::ResizeToContents);
    header()->setSectionResizeMode(KindColumn, QHeaderView::ResizeToContents);
    header()->setStretchLastSection(true);
    setAlternatingRowColors(true);
    setUniformRowHeights(true); // 1,700 rows and more: lets the view skip measuring each
    // Column widths from every row: the first thousand (Qt's default) may all be one kind with short ids.
    header()->setResizeContentsPrecision(-1);
    setTextElideMode(Qt::ElideMiddle); // a message names the node first and the problem last
    connect(this, &QTreeWidget::itemClicked, this, [this](QTreeWidgetItem* item) { activate(item); });
    connect(this, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem* item) { activate(item); });
}

void GraphDefectList::setDefects(const std::vector<graph::ChakraDefect>& defects)
{
    clear();
    QList<QTreeWidgetItem*> rows;
    rows.reserve(static_cast<qsizetype>(defects.size()));
    for (const graph::ChakraDefect& defect : defects) {
        const QString message = QString::fromStdString(defect.message);
        // Most defects are errors; warnings say so, both say it in the tooltip.
        const QString kind = QString::fromUtf8(toString(defect.kind));
        const QString severity = QString::fromUtf8(toString(defect.severity));
        QStringList columns(4);
        columns[NodesColumn] = idList(defect.nodeIds);
        columns[RankColumn] = defect.rank >= 0 ? QString::number(defect.rank) : tr("all");
        columns[KindColumn]
            = defect.severity == graph::ChakraSeverity::Error ? kind : tr("%1 (%2)").arg(kind, severity);
        columns[MessageColumn] = message;
        auto* row = new QTreeWidgetItem(columns);
        row->setToolTip(KindColumn, tr("%1: %2").arg(severity, kind));
        row->setToolTip(MessageColumn, message);
        if (!defect.nodeIds.empty() && defect.rank >= 0) {
            setNode(row, defect.rank, defect.nodeIds.front());
        }
        if (defect.nodeIds.size() > 1 && defect.rank >= 0) {
            for (const std::uint64_t id : defect.nodeIds) {
                auto* child
                    = new QTreeWidgetItem(row, { QString(), QString::number(defect.rank), QString::number(id) });
                setNode(child, defect.rank, id);
            }
        }
        rows.append(row);
    }
    addTopLevelItems(rows); // at once: one layout pass instead of one per row
    m_defectCount = static_cast<int>(rows.size());
    // One rank's trace: the column would repeat its number on every row and take the message's room.
    const bool oneRank = std::all_of(defects.begin(), defects.end(),
        [&](const graph::ChakraDefect& defect) { return defect.rank == defects.front().rank; });
    setColumnHidden(RankColumn, oneRank);
    if (rows.isEmpty()) {
        showPlaceholder(tr("No defects found."));
    }
}

void GraphDefectList::showPlaceholder(const QString& text)
{
    clear();
    m_defectCount = 0;
    auto* hint = new QTreeWidgetItem(this, { text });
    hint->setFirstColumnSpanned(true);
    hint->setFlags(Qt::NoItemFlags);
}

void GraphDefectList::activate(QTreeWidgetItem* item)
{
    const QVariant node = item ? item->data(NodesColumn, kNodeRole) : QVariant();
    if (node.isValid()) {
        Q_EMIT nodeActivated(item->data(NodesColumn, kRankRole).toInt(), node.value<quint64>());
    }
}

} // namespace rapid::widgets
