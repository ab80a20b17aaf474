// SPDX-License-Identifier: GPL-3.0-or-later
#include "tracegraph/graphdefectlist.h"

#include <QHeaderView>
#include <QScrollBar>
#include <QSplitter>
#include <QStringList>
#include <QStyle>
#include <QTabWidget>

#include <algorithm>

namespace rapid::widgets {

namespace {

constexpr int kRankRole = Qt::UserRole;
constexpr int kNodeRole = Qt::UserRole + 1;
/// Room the list asks for in its node column, in average characters: "node 216 \"aten::flatten…" reads whole.
constexpr int kMessageChars = 20;

// The kind first and whole: it is a few words a user sorts the list by eye with, and at 1280x720 the side panel has
// room for little else. The node column (the message names the node, its name and the problem) takes the rest, cut
// at its end with the whole text in its tooltip; the ids of a defect of several nodes are its child rows.
enum Column { KindColumn, RankColumn, NodeColumn };

void setNode(QTreeWidgetItem* item, int rank, std::uint64_t id)
{
    item->setData(NodeColumn, kRankRole, rank);
    item->setData(NodeColumn, kNodeRole, QVariant::fromValue<quint64>(id));
}

} // namespace

GraphDefectList::GraphDefectList(QWidget* parent)
    : QTreeWidget(parent)
{
    setObjectName(QStringLiteral("graphDefects"));
    setColumnCount(3);
    setHeaderLabels({ tr("Defect"), tr("Rank"), tr("Node") });
    header()->setSectionResizeMode(KindColumn, QHeaderView::ResizeToContents);
    header()->setSectionResizeMode(RankColumn, QHeaderView::ResizeToContents);
    header()->setStretchLastSection(true);
    // The expand arrows of several-node defects beside the ids they unfold, not in front of the kind, whose column
    // would otherwise be an indentation wider on every row.
    setTreePosition(NodeColumn);
    setAlternatingRowColors(true);
    setUniformRowHeights(true); // 1,700 rows and more: lets the view skip measuring each
    // Column widths from every row: the first thousand (Qt's default) may all be one kind with short ids.
    header()->setResizeContentsPrecision(-1);
    // A message names the node first and the problem last; the kind beside it says the problem in a word, so what a
    // narrow column keeps is the node's id and the start of its name.
    setTextElideMode(Qt::ElideRight);
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
        QStringList columns(3);
        columns[KindColumn]
            = defect.severity == graph::ChakraSeverity::Error ? kind : tr("%1 (%2)").arg(kind, severity);
        columns[RankColumn] = defect.rank >= 0 ? QString::number(defect.rank) : tr("all");
        columns[NodeColumn] = message;
        auto* row = new QTreeWidgetItem(columns);
        row->setToolTip(KindColumn, tr("%1: %2").arg(severity, kind));
        row->setToolTip(NodeColumn, message);
        if (!defect.nodeIds.empty() && defect.rank >= 0) {
            setNode(row, defect.rank, defect.nodeIds.front());
        }
        if (defect.nodeIds.size() > 1 && defect.rank >= 0) {
            for (const std::uint64_t id : defect.nodeIds) {
                auto* child
                    = new QTreeWidgetItem(row, { QString(), QString::number(defect.rank), tr("node %1").arg(id) });
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
    const QVariant node = item ? item->data(NodeColumn, kNodeRole) : QVariant();
    if (node.isValid()) {
        Q_EMIT nodeActivated(item->data(NodeColumn, kRankRole).toInt(), node.value<quint64>());
    }
}

int GraphDefectList::wantedWidth() const
{
    if (m_defectCount == 0) {
        return 0;
    }
    int columns = sizeHintForColumn(KindColumn) + fontMetrics().averageCharWidth() * kMessageChars + indentation();
    if (!isColumnHidden(RankColumn)) {
        columns += sizeHintForColumn(RankColumn);
    }
    return columns + verticalScrollBar()->sizeHint().width() + 2 * frameWidth();
}

void shareGraphWidth(QSplitter* splitter, int width, const QTabWidget* side, const GraphDefectList* defects)
{
    int share = width / 3;
    if (side->currentWidget() == defects && defects->wantedWidth() > 0) {
        // The tab's frame around the list, once it has been laid out (a hidden tab's size is its first, tiny one).
        const int frame = defects->width() > 0 && side->width() > defects->width()
            ? side->width() - defects->width()
            : 2 * side->style()->pixelMetric(QStyle::PM_DefaultFrameWidth);
        share = std::clamp(defects->wantedWidth() + frame, share, std::max(share, width * 3 / 5));
    }
    splitter->setSizes({ width - share, share });
}

} // namespace rapid::widgets
