// SPDX-License-Identifier: GPL-3.0-or-later
#include "tracegraph/graphnodedetails.h"

#include <QCoreApplication>
#include <QHeaderView>
#include <QLocale>
#include <QStringList>
#include <QTreeWidget>

namespace rapid::widgets {

namespace {

/// Kineto nodes can name thousands of parents; a few dozen tell the story and keep the panel responsive.
constexpr std::size_t kMaxListedDeps = 40;

QString tr(const char* text)
{
    return QCoreApplication::translate("GraphNodeDetails", text);
}

QString idList(const std::vector<std::uint64_t>& ids)
{
    if (ids.empty()) {
        return tr("none");
    }
    QStringList parts;
    for (std::size_t i = 0; i < ids.size() && i < kMaxListedDeps; ++i) {
        parts.append(QString::number(ids[i]));
    }
    QString text = parts.join(QStringLiteral(", "));
    if (ids.size() > kMaxListedDeps) {
        text += tr(" … (%1 in all)").arg(QLocale().toString(static_cast<qulonglong>(ids.size())));
    }
    return text;
}

QString micros(std::uint64_t value)
{
    return QLocale().toString(static_cast<qulonglong>(value)) + QStringLiteral(" µs");
}

void addIoInfo(std::vector<NodeDetailRow>& rows, const QString& field, const graph::ChakraIoInfo& info)
{
    rows.push_back({ field + tr(" values"), QString::fromStdString(info.values), {}, false });
    rows.push_back({ field + tr(" shapes"), QString::fromStdString(info.shapes), {}, false });
    rows.push_back({ field + tr(" types"), QString::fromStdString(info.types), {}, false });
}

} // namespace

std::vector<NodeDetailRow> nodeDetailRows(const graph::ChakraNode& node)
{
    std::vector<NodeDetailRow> rows;
    rows.push_back({ tr("id"), QString::number(node.id), {}, false });
    rows.push_back({ tr("name"), QString::fromStdString(node.name), {}, false });
    rows.push_back({ tr("type"), QString::fromUtf8(graph::toString(node.type)), {}, false });
    rows.push_back({ tr("start"), micros(node.startTimeMicros), {}, false });
    rows.push_back({ tr("duration"), micros(node.durationMicros), {}, false });
    rows.push_back({ tr("data deps"), idList(node.dataDeps), {}, false });
    rows.push_back({ tr("ctrl deps"), idList(node.ctrlDeps), {}, false });
    if (node.inputs) {
        addIoInfo(rows, tr("inputs"), *node.inputs);
    }
    if (node.outputs) {
        addIoInfo(rows, tr("outputs"), *node.outputs);
    }
    for (const graph::ChakraAttribute& attribute : node.attributes) {
        QString value = QString::fromStdString(attribute.valueText());
        if (node.type == graph::ChakraNodeType::Collective && attribute.name == "comm_type") {
            if (const auto kind = attribute.integer()) {
                value += QStringLiteral(" (%1)").arg(
                    QString::fromUtf8(graph::toString(static_cast<graph::ChakraCollective>(*kind))));
            }
        }
        rows.push_back({ QString::fromStdString(attribute.name), value,
            QString::fromUtf8(graph::toString(attribute.type)), true });
    }
    return rows;
}

void setUpNodeDetails(QTreeWidget* tree)
{
    tree->setObjectName(QStringLiteral("graphNodeDetails"));
    tree->setColumnCount(3);
    tree->setHeaderLabels({ tr("Field"), tr("Type"), tr("Value") });
    tree->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    tree->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    tree->header()->setStretchLastSection(true);
    tree->setRootIsDecorated(true);
    tree->setAlternatingRowColors(true);
    tree->setTextElideMode(Qt::ElideMiddle);
    showNodeDetails(tree, nullptr);
}

void showNodeDetails(QTreeWidget* tree, const graph::ChakraNode* node)
{
    tree->clear();
    if (!node) {
        auto* hint = new QTreeWidgetItem(tree, { tr("Click a node to see its fields and attributes.") });
        hint->setFirstColumnSpanned(true);
        hint->setFlags(Qt::NoItemFlags);
        return;
    }
    QTreeWidgetItem* attributes = nullptr;
    for (const NodeDetailRow& row : nodeDetailRows(*node)) {
        QTreeWidgetItem* item = nullptr;
        if (row.attribute) {
            if (!attributes) {
                attributes = new QTreeWidgetItem(tree, { tr("attributes") });
                attributes->setFirstColumnSpanned(true);
                QFont bold = attributes->font(0);
                bold.setBold(true);
                attributes->setFont(0, bold);
            }
            item = new QTreeWidgetItem(attributes, { row.field, row.type, row.value });
        } else {
            item = new QTreeWidgetItem(tree, { row.field, row.type, row.value });
        }
        // Names, IOInfo strings and dependency lists can be far wider than the panel.
        item->setToolTip(2, row.value);
    }
    tree->expandAll();
}

} // namespace rapid::widgets
